# syntax=docker/dockerfile:1
# The mock LPU image (`nufi-mock device-plugin` and `nufi-mock exporter`). Build from the repository root:
#   docker build -f deploy/docker/mock.Dockerfile -t registry.example.com/nufi/nufi-mock:0.1.0 .
#
# The builder turns the locked dependencies and the package into a virtual environment; the runtime
# stage is a slim Python with only that environment, run by an unprivileged user. The DaemonSets run
# the container as root where the kubelet's sockets demand it (see deploy/mock-lpu).

ARG PYTHON_IMAGE=python:3.11-slim-bookworm

FROM ${PYTHON_IMAGE} AS builder

ARG UV_VERSION=0.13.9
RUN pip install --no-cache-dir "uv==${UV_VERSION}"

ENV UV_PROJECT_ENVIRONMENT=/opt/nufi-mock/venv \
    UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy \
    UV_PYTHON_DOWNLOADS=never \
    UV_NO_CACHE=1

WORKDIR /src

# Locked dependencies in a layer of their own, rebuilt only when uv.lock changes. uv reads the whole
# workspace to use the lock, so every member's pyproject.toml comes along; `--package nufi-mock` with
# `--no-dev` installs the mock LPU and its own dependencies only, not NuFi or the sandbox.
COPY pyproject.toml uv.lock ./
COPY packages/nufi-mock/pyproject.toml ./packages/nufi-mock/
COPY packages/nufi-sandbox/pyproject.toml ./packages/nufi-sandbox/
RUN uv sync --frozen --no-dev --package nufi-mock --no-install-project

COPY packages/nufi-mock/src ./packages/nufi-mock/src
RUN uv sync --frozen --no-dev --package nufi-mock --no-editable


FROM ${PYTHON_IMAGE} AS runtime

LABEL org.opencontainers.image.title="nufi-mock" \
      org.opencontainers.image.description="Mock LPU: kubelet device plugin and Prometheus exporter for hyperaccel.ai/lpu" \
      org.opencontainers.image.licenses="Apache-2.0"

# Numeric, so that Kubernetes can check runAsNonRoot against it.
RUN groupadd --system --gid 10001 nufi-mock \
    && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
       --shell /usr/sbin/nologin nufi-mock

COPY --from=builder /opt/nufi-mock/venv /opt/nufi-mock/venv

ENV PATH=/opt/nufi-mock/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    HOME=/tmp

USER 10001:10001
WORKDIR /tmp
# The lpu profile's port; the other profiles listen on 9400 (dcgm), 6254 (furiosa), 9090 (rbln).
EXPOSE 9850

ENTRYPOINT ["nufi-mock"]
CMD ["--help"]

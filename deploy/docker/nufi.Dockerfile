# syntax=docker/dockerfile:1
# The NuFi server image. Build from the repository root:
#   docker build -f deploy/docker/nufi.Dockerfile -t registry.example.com/nufi/nufi:0.1.0 .
#
# Two stages: the builder resolves the locked dependencies into a virtual environment; the runtime
# copies only that environment onto a slim Python. Both stages use the same base image, so the
# environment's interpreter link points at the same /usr/local/bin/python in both.

ARG PYTHON_IMAGE=python:3.11-slim-bookworm

FROM ${PYTHON_IMAGE} AS builder

# The uv release the lock file was written with.
ARG UV_VERSION=0.13.9
RUN pip install --no-cache-dir "uv==${UV_VERSION}"

ENV UV_PROJECT_ENVIRONMENT=/opt/nufi/venv \
    UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy \
    UV_PYTHON_DOWNLOADS=never \
    UV_NO_CACHE=1

WORKDIR /src

# Dependencies first, in their own layer: it is rebuilt only when the lock file changes. Every locked
# runtime dependency ships a wheel for CPython 3.11 on Linux, so no compiler is needed (if one ever
# is, install it here, never in the runtime stage). uv reads the whole workspace to use the lock, so
# the members' pyproject.toml files come along, but none of their sources: `--package nufi` with
# `--no-dev` installs the `nufi` distribution and its own dependencies only, never the mock LPU or
# the sandbox (and its dev identity provider with admin/admin).
COPY pyproject.toml uv.lock ./
COPY packages/nufi-mock/pyproject.toml ./packages/nufi-mock/
COPY packages/nufi-sandbox/pyproject.toml ./packages/nufi-sandbox/
RUN uv sync --frozen --no-dev --package nufi --no-install-project

# Then NuFi itself, installed as a regular (non-editable) package so the runtime needs no source tree.
# The README is the package's long description.
COPY README.md ./
COPY src/nufi ./src/nufi
RUN uv sync --frozen --no-dev --package nufi --no-editable


FROM ${PYTHON_IMAGE} AS runtime

LABEL org.opencontainers.image.title="NuFi" \
      org.opencontainers.image.description="Run AI workloads on any accelerator in a Kubernetes cluster" \
      org.opencontainers.image.licenses="Apache-2.0"

# A fixed numeric user: Kubernetes can only verify runAsNonRoot against a numeric USER.
RUN groupadd --system --gid 10001 nufi \
    && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
       --shell /usr/sbin/nologin nufi

COPY --from=builder /opt/nufi/venv /opt/nufi/venv

# Bytecode was compiled in the builder; the root filesystem is read-only in the cluster, so Python
# must not try to write more. HOME points at the one writable directory (an emptyDir in the pod).
ENV PATH=/opt/nufi/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    HOME=/tmp \
    NUFI_LOG_FORMAT=json

USER 10001:10001
WORKDIR /tmp
EXPOSE 8080

# No HEALTHCHECK: Kubernetes probes /healthz and /readyz. `docker run IMAGE db upgrade` runs another
# nufi command with the same image, since only the arguments after `nufi` are the default command.
ENTRYPOINT ["nufi"]
CMD ["serve", "--host", "0.0.0.0"]

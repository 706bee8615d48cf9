"""A real JupyterLab for a lab pod: ``127.0.0.1:$PORT`` under ``NB_PREFIX``, rooted in the working
directory, with neither token nor password.

No authentication here is deliberate: the server listens on the loopback interface only, and deciding
who may open a lab is NuFi's job, in front of it (its proxy checks the person before forwarding).
JupyterLab's own protections stay on: the XSRF check of its forms and REST calls, the refusal of a
Host header that is not a local name (DNS rebinding), and the origin check of its WebSockets against
the Host header. Browsers open each lab on an origin of its own (``http://<name>--<project>.localhost:<port>``
in the sandbox), which NuFi's lab manifest names as ``--ServerApp.allow_origin=<that origin>``: passed
on like any option, it makes JupyterLab take sockets from that origin alone (the Host it sees is the
Service's). ``--allow-origin`` / ``NUFI_LAB_ALLOW_ORIGIN`` does the same by hand, and also accepts
that name as Host, for a proxy that forwards the public Host. ``trust_xheaders`` lets it see the
scheme and client address behind the proxy.

Kernels inherit this process's environment, so ``os.environ["LPU_VISIBLE_DEVICES"]`` in a notebook
names the pod's devices. Jupyter's config, runtime and data directories are kept in the working
directory, so one lab's settings never leak into another's, nor the user's own ~/.jupyter into a lab.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from urllib.parse import urlsplit

from nufi_sandbox.runtime.prefix import base_url

# Where the server listens is the dev cluster's to say: options of a manifest setting these are dropped.
_WIRING = frozenset({"ip", "port", "port_retries", "base_url", "sock"})


def _passed_on(word: str) -> bool:
    """Whether a container arg reaches JupyterLab: options only (upstream images' commands such as
    ``start-notebook.py`` mean "start the server", which this is), and none that moves it."""
    if not word.startswith("--"):
        return False
    name = word[2:].split("=", 1)[0]
    return name.rsplit(".", 1)[-1].replace("-", "_") not in _WIRING


def jupyter_argv(
    *, port: int, env: Mapping[str, str], root_dir: Path, allow_origin: str | None, extra: Sequence[str] = ()
) -> list[str]:
    """The command line starting JupyterLab; ``extra`` options (e.g. ``--ServerApp.x=y``) come last and
    so win, except those that would move it (see ``_passed_on``)."""
    argv = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--ServerApp.base_url={base_url(env)}",
        f"--ServerApp.root_dir={root_dir}",
        "--IdentityProvider.token=",
        "--ServerApp.trust_xheaders=True",
        "--ServerApp.quit_button=False",
        # The sandbox may run as root (CI, containers); a lab is still its own process group and workdir.
        "--ServerApp.allow_root=True",
        "--ServerApp.log_level=WARN",
        # No calls out: the sandbox has no internet, and a lab should not phone home anyway.
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.news_url=None",
        "--LabApp.extension_manager=readonly",
    ]
    if allow_origin:
        # The public origin is where the proxy in front serves the lab: its WebSockets come from there
        # and its Host names it, so both checks accept that one name (and still refuse any other).
        argv.append(f"--ServerApp.allow_origin={allow_origin}")
        host = urlsplit(allow_origin).hostname
        if host:
            argv += [f"--ServerApp.local_hostnames={name}" for name in ("localhost", host)]
    argv += [word for word in extra if _passed_on(word)]
    return argv


def jupyter_env(env: Mapping[str, str], root_dir: Path) -> dict[str, str]:
    """``env`` with Jupyter's own directories inside ``root_dir`` unless already set."""
    own = dict(env)
    base = root_dir / ".jupyter"
    own.setdefault("JUPYTER_CONFIG_DIR", str(base / "config"))
    own.setdefault("JUPYTER_DATA_DIR", str(base / "data"))
    own.setdefault("JUPYTER_RUNTIME_DIR", str(base / "runtime"))
    own.setdefault("IPYTHONDIR", str(base / "ipython"))
    return own


def run(*, port: int, allow_origin: str | None, extra: Sequence[str]) -> None:
    """Replace this process with JupyterLab: the dev cluster's signals then reach it directly."""
    root = Path.cwd()
    argv = jupyter_argv(port=port, env=os.environ, root_dir=root, allow_origin=allow_origin, extra=extra)
    env = jupyter_env(os.environ, root)
    print(f"JupyterLab for {root} at http://127.0.0.1:{port}{base_url(env)}", flush=True)
    os.execve(sys.executable, argv, env)

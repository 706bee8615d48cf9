"""Regenerate the checked-in Python bindings from the .proto files next to this module.

Run ``python -m nufi_mock.kubelet_api.generate`` after changing a .proto file, or with ``--check`` to fail
when the checked-in bindings no longer match what the installed grpcio-tools produces.

The output is post-processed so that it can live inside a package and pass the project's linters:
the generated gRPC modules import their message module relatively, and the type stubs carry markers that
keep ruff away from machine-written code.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent

PROTO_FILES = (
    "deviceplugin_v1beta1.proto",
    "podresources_v1.proto",
    "podresources_v1alpha1.proto",
    "dra_v1.proto",
    "pluginregistration_v1.proto",
)

# protoc writes top-level imports (`import x_pb2 as x__pb2`), which only work with the package directory
# on sys.path.
_TOP_LEVEL_PB2_IMPORT = re.compile(r"^import (\w+_pb2) as (\w+)$", re.MULTILINE)

_STUB_HEADER = "# ruff: noqa\n# fmt: off\n"


def generated_names() -> list[str]:
    """File names (relative to the package) of every generated binding."""
    names: list[str] = []
    for proto in PROTO_FILES:
        stem = proto.removesuffix(".proto")
        names += [f"{stem}_pb2.py", f"{stem}_pb2.pyi", f"{stem}_pb2_grpc.py"]
    return names


def _run_protoc(out_dir: Path) -> None:
    command = [
        sys.executable,
        "-m",
        "grpc_tools.protoc",
        f"--proto_path={PACKAGE_DIR}",
        f"--python_out={out_dir}",
        f"--pyi_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        *PROTO_FILES,
    ]
    result = subprocess.run(command, cwd=PACKAGE_DIR, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"protoc failed ({result.returncode}): {result.stderr.strip()}")


def _post_process(name: str, text: str) -> str:
    if name.endswith("_pb2_grpc.py"):
        return _TOP_LEVEL_PB2_IMPORT.sub(r"from . import \1 as \2", text)
    if name.endswith(".pyi"):
        return _STUB_HEADER + text
    return text


def render() -> dict[str, str]:
    """Generate every binding in a scratch directory and return file name -> final text."""
    with tempfile.TemporaryDirectory(prefix="nufi-protoc-") as scratch:
        out_dir = Path(scratch)
        _run_protoc(out_dir)
        return {
            name: _post_process(name, (out_dir / name).read_text(encoding="utf-8"))
            for name in generated_names()
        }


def stale_files(rendered: dict[str, str]) -> list[str]:
    """Names whose checked-in text differs from the freshly rendered one."""
    stale: list[str] = []
    for name, text in rendered.items():
        path = PACKAGE_DIR / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            stale.append(name)
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Regenerate the kubelet gRPC bindings.")
    parser.add_argument("--check", action="store_true", help="only report stale bindings; exit 1 if any")
    args = parser.parse_args(argv)

    rendered = render()
    stale = stale_files(rendered)
    if args.check:
        for name in stale:
            print(f"stale: {name}", file=sys.stderr)
        return 1 if stale else 0
    for name in stale:
        (PACKAGE_DIR / name).write_text(rendered[name], encoding="utf-8")
        print(f"wrote {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

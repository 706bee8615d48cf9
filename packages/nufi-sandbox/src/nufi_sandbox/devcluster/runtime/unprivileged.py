"""Who pod processes run as, and where: never as root beside the sandbox's secrets.

A lab is a terminal and a notebook for whoever the project lets in. When the dev cluster runs as root
(CI, containers), a lab process running as root too could read everything the sandbox keeps (the
identity provider's signing key, the database) and signal every other process. So, as root, mapped
containers run as `nobody` (uid and gid 65534, no supplementary groups), each in a work dir of its own
that it owns (0700), under a root outside the state directory that only lets a process through to a
path it already knows (0711). Run as an ordinary user, the dev cluster starts pods as that user: it
has nothing more to give away.

The interpreter has to be reachable for `nobody` to run Python programs at all: an interpreter under a
home directory that others may not enter (pyenv under /root, mode 0700) gets the search bit for
others (`o+x`) on the directories above it, which lets a process through a directory without listing
it; files there keep their own modes. The change is logged.
"""

from __future__ import annotations

import logging
import os
import pwd
import stat
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

NOBODY_ID = 65534
_WORK_ROOT_MODE = 0o711
_WORKDIR_MODE = 0o700


@dataclass(frozen=True)
class RunAs:
    uid: int
    gid: int


def pod_user() -> RunAs | None:
    """The user pod processes run as: `nobody` when this process is root, else None (this user)."""
    if os.geteuid() != 0:
        return None
    try:
        entry = pwd.getpwnam("nobody")
        return RunAs(entry.pw_uid, entry.pw_gid)
    except KeyError:
        return RunAs(NOBODY_ID, NOBODY_ID)


def work_root() -> Path:
    """A new directory for pods' work dirs, outside any state directory; others may pass, not list."""
    root = Path(tempfile.mkdtemp(prefix="nufi-pods-work-"))
    root.chmod(_WORK_ROOT_MODE)
    return root


def make_workdir(path: Path, run_as: RunAs | None) -> None:
    """Create a container's work dir: its own user's alone. The directories between it and the work
    root let that user through (0711) without listing anything."""
    missing = [parent for parent in reversed(path.parents) if not parent.exists()]
    for parent in missing:
        parent.mkdir(mode=_WORK_ROOT_MODE)
        parent.chmod(_WORK_ROOT_MODE)  # mkdir's mode passes through the umask
    path.mkdir(mode=_WORKDIR_MODE, exist_ok=True)
    path.chmod(_WORKDIR_MODE)
    if run_as is not None:
        os.chown(path, run_as.uid, run_as.gid)


def let_through_to_interpreter() -> None:
    """Give others the search bit on every directory above this interpreter and its standard library
    that lacks it, so a pod process running as `nobody` can start Python."""
    for target in {Path(sys.executable).resolve(), Path(sys.base_prefix).resolve(), Path(sys.prefix)}:
        for directory in reversed(target.parents):
            mode = directory.stat().st_mode
            if not mode & stat.S_IXOTH:
                directory.chmod(stat.S_IMODE(mode) | stat.S_IXOTH)
                log.warning(
                    "gave others the search bit (o+x) on %s so pod processes running as nobody reach "
                    "the Python interpreter; its contents keep their own modes",
                    directory,
                )

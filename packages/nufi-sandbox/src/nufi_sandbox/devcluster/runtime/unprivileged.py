"""Who pod processes run as, and where: never as root beside the sandbox's secrets, never as another
pod's user.

A lab is a terminal and a notebook for whoever the project lets in. When the dev cluster runs as root
(CI, containers), a lab process running as root too could read everything the sandbox keeps (the
identity provider's signing key, the database) and signal every other process; one running as the same
user as every other pod could read their homes, and their environment and working directory through
`/proc`. So, as root, each pod's containers run as a user of the pod's own: uid and gid taken from the
pod's uid into a reserved range (`POD_IDS`, above the ranges distributions and systemd hand out to
users and containers; no passwd entry, no supplementary groups), never two live pods alike. Each
container has a work dir that user owns (0700), under a root outside the state directory that only
lets a process through to a path it already knows (0711). `/proc/<pid>/environ` and `cwd` of a process
of another uid are closed to it by the kernel (ptrace access rules). Run as an ordinary user, the dev
cluster starts pods as that user: it has nothing more to give away, and its pods are not kept apart.

The interpreter has to be reachable for those users to run Python programs at all: an interpreter under
a home directory that others may not enter (pyenv under /root, mode 0700) gets the search bit for
others (`o+x`) on the directories above it, which lets a process through a directory without listing
it; files there keep their own modes. The change is logged.
"""

from __future__ import annotations

import hashlib
import logging
import os
import stat
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

# 0x70000000-0x70FFFFFF: above systemd's container ranges (524288-1879048191), below its foreign
# range (0x7FFE0000) and below 2^31, which some tools still read as a signed number.
POD_IDS = range(0x7000_0000, 0x7100_0000)
_WORK_ROOT_MODE = 0o711
_WORKDIR_MODE = 0o700


@dataclass(frozen=True)
class RunAs:
    uid: int
    gid: int


class PodUsers:
    """Hands each pod a uid (and a gid alike) of its own while it runs."""

    def __init__(self) -> None:
        self._by_pod: dict[str, RunAs] = {}

    def take(self, pod_uid: str) -> RunAs:
        """The pod's user: the same for as long as the pod holds it, never one another pod holds."""
        held = self._by_pod.get(pod_uid)
        if held is not None:
            return held
        taken = {user.uid for user in self._by_pod.values()}
        digest = int.from_bytes(hashlib.sha256(pod_uid.encode()).digest()[:8], "big")
        offset = digest % len(POD_IDS)
        # Linear probing: at most as many steps as pods run, which is far below the range's size.
        while POD_IDS[offset] in taken:
            offset = (offset + 1) % len(POD_IDS)
        user = RunAs(POD_IDS[offset], POD_IDS[offset])
        self._by_pod[pod_uid] = user
        return user

    def release(self, pod_uid: str) -> None:
        self._by_pod.pop(pod_uid, None)


def pod_users() -> PodUsers | None:
    """Users for pods when this process is root, else None (pods run as this process' user)."""
    return PodUsers() if os.geteuid() == 0 else None


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
    that lacks it, so a pod process running as a user of its own can start Python."""
    for target in {Path(sys.executable).resolve(), Path(sys.base_prefix).resolve(), Path(sys.prefix)}:
        let_through(target, "the Python interpreter")


def let_through(target: Path, what: str) -> None:
    """Give others the search bit on every directory above ``target`` that lacks it (logged, naming
    ``what`` is there), so pod processes, each running as a user of its own, reach it."""
    for directory in reversed(target.parents):
        mode = directory.stat().st_mode
        if not mode & stat.S_IXOTH:
            directory.chmod(stat.S_IMODE(mode) | stat.S_IXOTH)
            log.warning(
                "gave others the search bit (o+x) on %s so pod processes, each running as a user "
                "of its own, reach %s; its contents keep their own modes",
                directory,
                what,
            )

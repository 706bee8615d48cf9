"""Noticing a kubelet restart: the kubelet re-creates ``kubelet.sock`` and deletes plugin sockets."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class SocketIdentity:
    """Which file a path names. Inode numbers are reused after a delete, so the change time counts too."""

    device: int
    inode: int
    changed_ns: int


def socket_identity(path: Path) -> SocketIdentity | None:
    """The identity of the unix socket at ``path``; None when there is none."""
    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if not stat.S_ISSOCK(info.st_mode):
        return None
    return SocketIdentity(info.st_dev, info.st_ino, info.st_ctime_ns)


@dataclass(frozen=True)
class RegistrationSnapshot:
    """The sockets as they were when the plugin registered."""

    kubelet: SocketIdentity
    plugin: SocketIdentity | None


def needs_reregistration(registered: RegistrationSnapshot, kubelet_socket: Path, plugin_socket: Path) -> bool:
    """True when the kubelet socket is another file than at registration, or the plugin socket went away
    (the kubelet removes plugin sockets when it starts)."""
    if socket_identity(kubelet_socket) != registered.kubelet:
        return True
    return registered.plugin is not None and socket_identity(plugin_socket) != registered.plugin

"""`python -I -S die_with_parent.py PARENT_PID [--user=UID:GID] PROGRAM [ARGS...]`: exec PROGRAM so it
gets SIGKILL when the thread of PARENT_PID that started it ends, as UID:GID (no supplementary groups)
when given.

A process with gRPC threads (the dev cluster's servers, a test that talked gRPC) makes a fork that runs
Python code in the child (a `preexec_fn`) crash now and then. Spawning this small program instead lets
subprocess use vfork; the parent-death signal is set here, and survives the exec. Every program the
sandbox and the dev cluster start goes through it (`spawn_argv`).

The user is changed here too, not by subprocess: subprocess forks instead of vforking when asked to
change the user, and the fork of a process with gRPC threads aborts now and then. It is changed before
the signal is asked for, since Linux clears the parent-death signal when the credentials change.
"""

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1
EXIT_CANNOT_RUN = 127
USER_OPTION = "--user="


def main() -> None:
    parent, argv = int(sys.argv[1]), sys.argv[2:]
    if argv and argv[0].startswith(USER_OPTION):
        uid, gid = (int(part) for part in argv[0][len(USER_OPTION) :].split(":"))
        argv = argv[1:]
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # not Linux: the program runs, without the signal
        prctl = None
    if prctl is not None:
        prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        # The parent may have ended before the request took hold: then no signal would ever come.
        if os.getppid() != parent:
            os._exit(1)
    try:
        os.execvp(argv[0], argv)
    except OSError as exc:
        sys.stderr.write(f"failed to start {argv[0]}: {exc.strerror}\n")
        os._exit(EXIT_CANNOT_RUN)


if __name__ == "__main__":
    main()

"""`python -I -S die_with_parent.py PARENT_PID PROGRAM [ARGS...]`: exec PROGRAM so it gets SIGKILL when
the thread of PARENT_PID that started it ends.

A process with gRPC threads (the dev cluster's servers, a test that talked gRPC) makes a fork that runs
Python code in the child (a `preexec_fn`) crash now and then. Spawning this small program instead lets
subprocess use vfork; the parent-death signal is set here, and survives the exec. Every program the
sandbox and the dev cluster start goes through it (`spawn_argv`).
"""

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1
EXIT_CANNOT_RUN = 127


def main() -> None:
    parent, argv = int(sys.argv[1]), sys.argv[2:]
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

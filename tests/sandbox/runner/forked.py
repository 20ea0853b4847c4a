"""Run a piece of the runner in a forked child of the test process, as the runner runs it in its own
forked processes: whatever it changes (descriptors, users, seccomp filters, limits) stays there. A
candidate process is started as the fork server starts one (:func:`start_candidate`)."""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Callable

from rlenv.sandbox.runner.candidate import run_candidate
from rlenv.sandbox.runner.confinement import candidate_rlimits
from rlenv.sandbox.runner.forkserver import code_file
from rlenv.sandbox.runner.records import CANDIDATE_JOB, send_record

#: Limits of the candidate processes these tests start.
LIMITS = {"max_open_files": 32, "max_file_bytes": 1 << 20, "timeout_s": 5, "memory_mb": 512}


def fork_running(body: Callable[[], object]) -> int:
    """Fork a child that runs ``body()`` and hard-exits (99 when ``body`` returned or raised); its pid."""
    pid = os.fork()
    if pid == 0:
        try:
            body()
        finally:
            os._exit(99)
    return pid


def in_child(body: Callable[[], object]) -> int:
    """Run ``body()`` in a forked child; its exit code (99 when ``body`` returned or raised)."""
    return os.waitstatus_to_exitcode(os.waitpid(fork_running(body), 0)[1])


def captured_child(body: Callable[[], object]) -> tuple[int, bytes, bytes]:
    """Run ``body()`` in a forked child with its stdout and stderr on pipes: ``(exit code, stdout, stderr)``
    (read once the child exited: for outputs smaller than a pipe's buffer)."""
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()

    def redirected() -> None:
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        standard_streams()
        body()

    code = in_child(redirected)
    os.close(out_w)
    os.close(err_w)
    return code, read_all(out_r), read_all(err_r)


def standard_streams() -> None:
    """Point ``sys.stdin``/``stdout``/``stderr`` at descriptors 0, 1 and 2 (pytest replaces them with its
    capture), as they are in the runner's processes."""
    sys.stdin, sys.stdout, sys.stderr = (open(0, closefd=False), open(1, "w", closefd=False),
                                         open(2, "w", closefd=False))


def is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def start_candidate(workdir: str, program: bool, code: str, passed: list[int]) -> tuple[int, int]:
    """Fork a candidate process and send it its job as the fork server's spare gets it: ``program``
    mode or function mode, :data:`LIMITS`, ``workdir``, then the descriptors ``passed`` (closed
    here), the code file and the ready pipe. Returns ``(pid, read end of the ready pipe)``."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)

    def candidate() -> None:
        ours.close()
        standard_streams()
        run_candidate(theirs.detach())

    pid = fork_running(candidate)
    theirs.close()
    ready_r, ready_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    code_fd = code_file(code)
    send_record(ours, CANDIDATE_JOB.pack(program, *candidate_rlimits(LIMITS)) + workdir.encode(),
                [*passed, code_fd, ready_w])
    ours.close()
    for fd in (*passed, code_fd, ready_w):
        os.close(fd)
    return pid, ready_r


def read_all(fd: int) -> bytes:
    """Everything until the end of file on ``fd``, which is then closed."""
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks)

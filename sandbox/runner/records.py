"""Records on the fork server's socket and on a spare candidate process's (``SOCK_SEQPACKET``: one
record per receive): fixed layouts, no JSON, so that the fork server and a candidate touch (and
copy after a fork) as few of the interpreter's pages as they can."""

from __future__ import annotations

import os
import socket
import struct
from collections.abc import Sequence

from rlenv.sandbox.runner.faults import SandboxFault

#: The fork server's answers: what (``FORKED``: pid, its pidfd attached; ``FORK_FAILED``: errno;
#: ``EXITED``: pid and wait status), pid, value.
FORK_ANSWER = struct.Struct("=Bqq")
FORKED, FORK_FAILED, EXITED = 1, 2, 3
#: A spare candidate process's job: program mode (else function mode), then the values of
#: :data:`~rlenv.sandbox.runner.confinement.CANDIDATE_RLIMITS`; the work directory's path follows (at
#: most :data:`MAX_WORKDIR` bytes).
CANDIDATE_JOB = struct.Struct("=?qqqq")
MAX_WORKDIR = 4096
#: Most descriptors that come with a candidate process's job (see
#: :func:`~rlenv.sandbox.runner.forkserver.spawn`).
MAX_JOB_FDS = 8
#: Where a spare candidate process keeps its socket while it waits for its job: above every
#: descriptor a job brings, so that those arrive at 0, 1, 2, ... in their order and need no moving,
#: and low enough that the descriptor table never grows.
JOB_SOCKET_FD = MAX_JOB_FDS


def send_record(sock: socket.socket, record: bytes, fds: Sequence[int] = ()) -> None:
    """Send one record with descriptors ``fds`` on a ``SOCK_SEQPACKET`` socket."""
    sock.sendmsg([record], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack(f"={len(fds)}i", *fds))] if fds else [])


def recv_record(sock: socket.socket, size: int, max_fds: int) -> tuple[bytes, list[int]]:
    """One record of at most ``size`` bytes and at most ``max_fds`` descriptors (see
    :func:`send_record`); ``b""`` at the end of the stream. A longer record is a fault."""
    record, ancillary, flags, _ = sock.recvmsg(size, socket.CMSG_SPACE(max_fds * 4))
    fds = [fd for level, kind, data in ancillary if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS
           for fd in memoryview(data).cast("i")]
    if flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC):
        for fd in fds:
            os.close(fd)
        raise SandboxFault(f"a record longer than {size} bytes or with more than {max_fds} descriptors")
    return record, fds

"""The fork server, the parent of every candidate process, and how the runner has it fork one for a
job (:func:`spawn`): the job's code in a sealed memory file, the process's descriptors, its limits."""

from __future__ import annotations

import errno
import fcntl
import os
import select
import socket

from rlenv.sandbox.runner.candidate import run_candidate
from rlenv.sandbox.runner.child import POLL_IN
from rlenv.sandbox.runner.confinement import candidate_rlimits, install_fds
from rlenv.sandbox.runner.faults import EXIT_SETUP, SandboxFault
from rlenv.sandbox.runner.records import (
    CANDIDATE_JOB,
    EXITED,
    FORK_ANSWER,
    FORK_FAILED,
    FORKED,
    recv_record,
    send_record,
)
from rlenv.sandbox.runner.seccomp import candidate_filter, install_seccomp


def code_file(code: str) -> int:
    """A sealed memory file holding ``code``, for :func:`spawn` (the runner's, never a candidate's)."""
    fd = os.memfd_create("solution.py", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    data = memoryview(code.encode("utf-8", "surrogatepass"))
    while data:
        data = data[os.write(fd, data):]
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE)
    return fd


def spawn(server: ForkServer, limits: dict, workdir: str, mode: str, code_fd: int) -> tuple[int, dict]:
    """Have the fork server fork a candidate process that runs the code in ``code_fd`` (see
    :func:`code_file`) in ``mode`` (``"program"``: stdin a pipe; ``"function"``: stdin
    /dev/null, a request pipe on fd 3 and a reply pipe on fd 4), after
    :func:`~rlenv.sandbox.runner.candidate.child_setup`.

    Returns ``(pid, fds)`` with the runner's ends: ``out``, ``err``, ``in`` (or None),
    ``request``, ``reply`` (or None), ``pidfd`` and ``ready`` (see :func:`set_up`).
    """
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    ready_r, ready_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    if mode == "program":
        in_r, in_w = os.pipe()
    else:
        in_r, in_w = os.open(os.devnull, os.O_RDONLY), None
    req_r = req_w = rep_r = rep_w = None
    passed = [in_r, out_w, err_w]
    if mode == "function":
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        passed += [req_r, rep_w]
    try:
        job = CANDIDATE_JOB.pack(mode == "program", *candidate_rlimits(limits)) + workdir.encode()
        pid, pidfd = server.fork(job, [*passed, code_fd, ready_w])
    finally:
        for fd in (*passed, ready_w):
            os.close(fd)
    return pid, {"out": out_r, "err": err_r, "in": in_w, "request": req_w, "reply": rep_r,
                 "pidfd": pidfd, "ready": ready_r}


def set_up(ready_fd: int) -> bool:
    """Whether the candidate process behind ``ready_fd`` (the ``ready`` end from :func:`spawn`)
    finished its sandbox set-up; closes ``ready_fd``. A process that did not is a sandbox
    fault, never the candidate's failure: its code never ran (unless the job's time ran out
    first, as on a loaded machine: then the job is a timeout)."""
    try:
        return os.read(ready_fd, 1) == b"1"
    except BlockingIOError:
        return False
    finally:
        os.close(ready_fd)


def fork_server_loop(sock: socket.socket) -> None:
    """Body of the fork server: per request (a socket, the only descriptor it carries), fork a
    spare candidate process that waits on that socket for its job, and answer with its pid and
    pidfd; reap each candidate process as it exits and send its wait status. Nothing of any job
    reaches this process, and so none of it is in what a candidate inherits from it."""
    children: dict[int, int] = {}  # pidfd -> pid
    poll = select.poll()
    poll.register(sock, POLL_IN)
    while True:
        for fd, _ in poll.poll():
            if fd in children:
                pid = children.pop(fd)
                poll.unregister(fd)
                os.close(fd)
                send_record(sock, FORK_ANSWER.pack(EXITED, pid, os.waitpid(pid, 0)[1]))
                continue
            request, fds = recv_record(sock, 1, 1)
            if not request:
                os._exit(0)
            try:
                if not fds:
                    raise OSError(errno.EBADF, "no socket came with the request")
                pid = os.fork()
                if pid == 0:
                    try:  # nothing of this loop may run in the child
                        run_candidate(fds[0])
                    finally:
                        os._exit(EXIT_SETUP)
                pidfd = os.pidfd_open(pid)  # before this process reaps it: a zombie has a pidfd too
                children[pidfd] = pid
                poll.register(pidfd, POLL_IN)
                answer, handed = FORK_ANSWER.pack(FORKED, pid, 0), [pidfd]
            except OSError as exc:  # e.g. the pids limit: the runner reports it
                answer, handed = FORK_ANSWER.pack(FORK_FAILED, 0, exc.errno or 0), []
            finally:
                for passed in fds:
                    os.close(passed)
            send_record(sock, answer, handed)


class ForkServer:
    """The runner's handle on the fork server, a process it forks before its first job (when it
    holds no job's data yet) and from which every candidate process is forked (see
    :func:`fork_server_loop`). It keeps the runner's user and the capabilities to make the job
    user, and adds :func:`~rlenv.sandbox.runner.seccomp.candidate_filter` to its seccomp filters. It is the parent of the
    candidate processes: their wait statuses come from it (kept here until asked for).

    A spare candidate process is asked for as soon as the last one got its job, so the next one
    is forked while a job runs and waits, off any job's path, for its own (:meth:`fork`): a
    sweep keeps it (:meth:`spare_pid`)."""

    def __init__(self) -> None:
        self.pid = 0
        self.pidfd = -1
        self.sock: socket.socket | None = None
        self.statuses: dict[int, int] = {}
        self._asked: socket.socket | None = None  # our end of the socket of a spare not yet answered for
        self._answer: tuple | None = None  # the fork server's answer about it, once read
        self._spare: tuple[int, int, socket.socket] | None = None  # (pid, pidfd, our end of its socket)
        self.failure = ""  # why the last spare could not be forked

    def start(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            try:
                null = os.open(os.devnull, os.O_RDWR)
                install_fds({0: null, 1: null, 2: null, 3: theirs.fileno()})
                install_seccomp(candidate_filter(os.uname().machine))
                fork_server_loop(socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET, 0, 3))
            finally:
                os._exit(EXIT_SETUP)
        theirs.close()
        self.pid, self.pidfd, self.sock = pid, os.pidfd_open(pid), ours
        self.ask()

    def _server(self) -> socket.socket:
        """Our end of the fork server's socket."""
        if self.sock is None:
            raise SandboxFault("the fork server was not started")
        return self.sock

    def ask(self) -> None:
        """Have a spare candidate process forked, unless there is one."""
        if self._spare is None and self._asked is None:
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            try:
                send_record(self._server(), b"\0", [theirs.fileno()])
            finally:
                theirs.close()
            self._asked = ours

    def _receive(self) -> None:
        """Read the next message of the fork server: a wait status (kept in :attr:`statuses`)
        or the answer about the spare asked for (kept in :attr:`_answer`)."""
        record, fds = recv_record(self._server(), FORK_ANSWER.size, 1)
        if len(record) != FORK_ANSWER.size:
            raise SandboxFault("the fork server exited" if not record else f"the fork server sent {record!r:.100}")
        kind, pid, value = FORK_ANSWER.unpack(record)
        if kind == EXITED:
            self.statuses[pid] = value
        elif self._asked is None or self._answer is not None:
            raise SandboxFault(f"the fork server answered {record!r:.100} without a question")
        else:
            self._answer = (kind, pid, value, fds)

    def spare_pid(self) -> int | None:
        """The pid of the spare candidate process (waiting for the fork server's answer if it
        is due), None when there is none (its fork failed: :meth:`fork` asks again)."""
        if self._spare is None and self._asked is not None:
            while self._answer is None:
                self._receive()
            (kind, pid, value, handed), sock = self._answer, self._asked
            self._answer = self._asked = None
            if kind != FORKED or len(handed) != 1:
                sock.close()
                self.failure = os.strerror(value) if kind == FORK_FAILED else f"answer {kind} with {len(handed)} descriptors"
                return None
            self.statuses.pop(pid, None)  # an earlier process's, its pid now reused
            self._spare = (pid, handed[0], sock)
        return self._spare[0] if self._spare is not None else None

    def pidfds(self) -> list[int] | None:
        """Pidfds of the fork server and its spare (None when there is no spare: see :meth:`spare_pid`)."""
        if self.spare_pid() is None or self._spare is None:
            return None
        return [self.pidfd, self._spare[1]]

    def fork(self, job: bytes, fds: list) -> tuple[int, int]:
        """``(pid, pidfd)`` of a candidate process that got ``job`` and ``fds`` (see
        :func:`~rlenv.sandbox.runner.candidate.run_candidate`): the spare one (one forked now if its fork
        had failed); then the next spare is asked for."""
        if self.spare_pid() is None:
            self.ask()
            self.spare_pid()
        if self._spare is None:
            raise OSError(f"the fork server could not fork a candidate process: {self.failure}")
        pid, pidfd, sock = self._spare
        self._spare = None
        try:
            send_record(sock, job, fds)
        finally:
            sock.close()
        self.ask()
        return pid, pidfd

    def exit_status(self, pid: int) -> int:
        """The wait status of candidate process ``pid``, which has exited (blocks until the fork
        server has reaped it)."""
        while pid not in self.statuses:
            self._receive()
        return self.statuses.pop(pid)

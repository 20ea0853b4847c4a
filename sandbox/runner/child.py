"""A candidate process seen from outside, by the runner (a program run) or by the grader (a function
job): its stdin fed, its output captured up to a byte cap, its request and reply pipes, its exit."""

from __future__ import annotations

import os
import select
import signal
import time
from collections.abc import Callable

from rlenv.sandbox.runner.faults import EXIT_MEMORY
from rlenv.sandbox.runner.procfs import oom_kills
from rlenv.sandbox.runner.scrub import host_gone

POLL_IN = select.POLLIN | select.POLLHUP | select.POLLERR
#: Poll mask for the host stream during a job: only its hang-up matters (a next frame may be pending).
HANG_UP = 0


class Child:
    """A candidate process seen from the runner (``exit_status``: how it learns the process's
    wait status, from the fork server that reaps it) or from the grader (which got its
    descriptors and pidfd from the runner, ``exit_status=None``). The runner also
    passes ``host_fd`` (its stdin): input there during a job means the host is gone.

    ``pump`` runs the event loop (stdin feeding, output capture with a byte cap, request
    writing and reply lines on the RPC pipes, exit through the pidfd) until something the
    caller waits for happens.
    """

    def __init__(self, pid: int, pidfd: int, out_fd: int, err_fd: int, cap: int,
                 exit_status: Callable[[int], int] | None, oom_before: int,
                 in_fd: int | None = None, in_data: bytes = b"", request_fd: int | None = None,
                 reply_fd: int | None = None, host_fd: int | None = None) -> None:
        self.pid, self.pidfd, self.cap, self.exit_status = pid, pidfd, cap, exit_status
        self.out_fd, self.err_fd = out_fd, err_fd
        self.streams = {out_fd: bytearray(), err_fd: bytearray()}
        self.in_fd, self.in_data = in_fd, memoryview(in_data)
        self.request_fd, self.reply_fd = request_fd, reply_fd
        self.outgoing = memoryview(b"")
        self.replies = bytearray()
        self.captured = 0
        self.done = False
        self.status: int | None = None
        self.oom_before = oom_before  # the cgroup's OOM-kill count when the job started
        self.started = time.monotonic()
        self.ended: float | None = None
        self.poll = select.poll()
        for fd in (out_fd, err_fd, reply_fd, in_fd, request_fd):
            if fd is not None:
                os.set_blocking(fd, False)
        for fd in (out_fd, err_fd, reply_fd, pidfd):
            if fd is not None:
                self.poll.register(fd, POLL_IN)
        self.host_fd = host_fd
        if host_fd is not None:
            self.poll.register(host_fd, HANG_UP)
        if in_fd is not None:
            if len(self.in_data):
                self.poll.register(in_fd, select.POLLOUT | select.POLLERR)
            else:
                self._close_stdin()

    # -- state
    def output(self, fd: int) -> bytes:
        return bytes(self.streams[fd])

    def exit_code(self) -> int | None:
        """Exit code (negative: killed by that signal); None if unknown or still running."""
        return os.waitstatus_to_exitcode(self.status) if self.status is not None else None

    def out_of_memory(self) -> bool:
        """The process ran out of memory (uncaught MemoryError or killed by the OOM killer)."""
        return self.exit_code() == EXIT_MEMORY or oom_kills() > self.oom_before

    def elapsed(self) -> float:
        return (self.ended or time.monotonic()) - self.started

    # -- event loop
    def _close_stdin(self) -> None:
        if self.in_fd is not None:
            try:
                self.poll.unregister(self.in_fd)
            except KeyError:
                pass
            os.close(self.in_fd)
            self.in_fd = None

    def _read(self, fd: int) -> bool | None:
        """Read what is there: True if something was read, None if nothing was ready, False at
        end of file."""
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return None
        if not chunk:
            self.poll.unregister(fd)
            return False
        if fd == self.reply_fd:
            self.replies += chunk
        else:
            self.captured += len(chunk)
            room = self.cap - len(self.streams[fd])
            if room > 0:
                self.streams[fd] += chunk[:room]
        return True

    def _write(self, fd: int, attr: str) -> None:
        data = getattr(self, attr)
        try:
            sent = os.write(fd, data[:1 << 16])
        except BlockingIOError:
            return
        except OSError:  # the process stopped reading or exited: its exit is reported next
            sent = len(data)
        data = data[sent:]
        setattr(self, attr, data)
        if not len(data):
            if fd == self.in_fd:
                self._close_stdin()
            else:
                self.poll.unregister(fd)

    def _finish(self) -> None:
        if self.exit_status is not None:
            self.status = self.exit_status(self.pid)
        self.done, self.ended = True, time.monotonic()
        self.poll.unregister(self.pidfd)
        for fd in (self.out_fd, self.err_fd, self.reply_fd):
            if fd is None:
                continue
            try:  # drain what is buffered; a leftover grandchild may hold the pipe open
                while self._read(fd):
                    pass
            except (KeyError, OSError):
                pass
        self._close_stdin()

    def pump(self, deadline: float, want_reply: bool = False) -> str:
        """Run until ``"reply"`` (a full line waits in :attr:`replies`), ``"exit"``,
        ``"timeout"`` (``deadline``, a ``time.monotonic()`` value, passed) or
        ``"output_limit"`` (more than ``cap`` bytes of output or of pending reply)."""
        while True:
            if want_reply and b"\n" in self.replies:
                return "reply"
            if self.captured > self.cap or len(self.replies) > self.cap:
                return "output_limit"
            if self.done:
                return "exit"
            left = deadline - time.monotonic()
            if left <= 0:
                return "timeout"
            for fd, event in self.poll.poll(max(1, int(left * 1000) + 1)):
                if fd == self.pidfd:
                    self._finish()
                    break
                if fd == self.host_fd and event & (select.POLLHUP | select.POLLERR):
                    host_gone()
                if fd == self.in_fd:
                    self._write(fd, "in_data")
                elif fd == self.request_fd:
                    self._write(fd, "outgoing")
                elif event & POLL_IN:
                    self._read(fd)

    def reply_pending(self) -> bool:
        """Whether reply bytes arrived that no request asked for yet (reads what is there)."""
        assert self.reply_fd is not None, "a candidate process without a reply pipe has no replies"
        if not self.done:
            try:
                self._read(self.reply_fd)
            except (KeyError, OSError):
                pass
        return bool(self.replies)

    def take_reply(self) -> bytes:
        line, _, rest = bytes(self.replies).partition(b"\n")
        self.replies = bytearray(rest)
        return line

    def send(self, payload: bytes) -> None:
        """Queue a request line; :meth:`pump` writes it while it waits."""
        if len(self.outgoing):
            raise RuntimeError("a request is already being sent")
        assert self.request_fd is not None, "a candidate process without a request pipe takes no requests"
        self.outgoing = memoryview(payload)
        if not self.done:
            self.poll.register(self.request_fd, select.POLLOUT | select.POLLERR)

    def kill(self) -> None:
        """SIGKILL the process and its process group, and wait for its exit."""
        if self.done:
            return
        for kill in (os.killpg, os.kill):
            try:
                kill(self.pid, signal.SIGKILL)
            except OSError:
                pass
        select.select([self.pidfd], [], [], 5.0)
        self._finish()

    def close(self) -> None:
        """Kill the process (if running) and close every descriptor of it."""
        self.kill()
        for fd in (self.out_fd, self.err_fd, self.reply_fd, self.request_fd, self.pidfd):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass


def output_text(data: bytes, keep: int) -> str:
    return data[:keep].decode("utf-8", "replace")

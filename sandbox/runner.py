"""The in-container job runner: PID 1 of every sandbox container. Standard library only.

Processes of a container::

    runner (PID 1, non-dumpable): reads jobs from the host on stdin, one JSON line per job out
     ├─ fork server (forked before the first job, never holds a job's data): forks candidates,
     │   └─ spare candidate process (root, waiting for the next job on its own socket)
     ├─ grader (persistent, non-dumpable, never forks): holds tests and expected outputs,
     │   runs trusted test code, compares outputs, reports with the job's nonce
     └─ candidate process(es), one per program run or per function job: children of the fork
         server (which reaps them and reports their exit), untrusted code, own session, rlimits,
         fresh work directory, /dev/null or a pipe as stdin

* The host sends each job as three frames (16 hex digits of length, then the payload): a header,
  the *candidate part* (code, stdin, files) and the *grader part* (tests, expected outputs).
  The runner has the job's candidate processes forked *before* it reads the grader part, and
  never parses it: it streams it, through a zeroed-after-use buffer, to the grader together with
  a fresh nonce. Candidates descend from the fork server, which the runner forked before any job
  and which receives only limits and descriptors: a candidate reads its own code from a sealed
  memfd and gets only its own stdin, so it never holds the tests, the expected outputs, the
  nonce, or anything of another job or another run of its job (in memory or in heap remnants).
* Outputs are compared in the grader: a candidate's return values cross a pipe as plain data
  (JSON with tags for tuples, sets, bytes, ...); anything else stays in the candidate as an
  opaque handle that never compares equal to data. The grader reports per-test results with
  the nonce on a socket the candidate does not hold, and the runner accepts only a report
  carrying the nonce. A candidate's exit status never means "passed".
* After every program run and every job the runner kills every process except itself, the fork
  server and the grader, reaps them, and wipes the writable directories; candidates can create
  no unix socket and no memfd, so no descriptor or memory outlives their processes, and after
  every job the container's kernel-held state is compared with its idle baseline (a container
  that did not return to it is replaced). PID 1 ignores signals sent from inside the container;
  a grader that a candidate killed or stopped is replaced, and the job fails.
"""

from __future__ import annotations

import _signal  # signal.signal's enum wrapping costs a forked job ~0.1 ms of copy-on-write faults
import ast
import base64
import builtins
import ctypes
import errno
import fcntl
import gc
import importlib
import json
import math
import os
import resource
import select
import signal
import socket
import struct
import sys
import time
import traceback
import types
from _operator import _compare_digest  # hmac's own; importing hmac would load libcrypto into every fork

# The host runs this file as it is assembled by rlenv.sandbox.container.runner_source: protocol.py's
# text in place of the next statement (the container has no rlenv installed).
from rlenv.sandbox.protocol import (
    JobStatus,
    TestStatus,
    compare_output,
    decode_value,
    encode_value,
    read_exact,
    read_frame_length,
)

RUNNER_VERSION = "3"
#: Root of the per-job work directories (the container's tmpfs).
WORK_ROOT = "/tmp"
#: Writable places wiped after every job.
SCRUB_DIRS = ("/tmp", "/dev/shm", "/dev/mqueue")
#: Exit status of a candidate process whose program raised an uncaught ``MemoryError``.
EXIT_MEMORY = 97
#: Exit status of a candidate process whose sandbox set-up failed (a runner bug, not the program).
EXIT_SETUP = 96
#: The grader is replaced after this many jobs, so trusted test code cannot accumulate state.
GRADER_JOBS = 256
#: ... or as soon as its peak resident memory passes this many KiB (values of earlier jobs).
GRADER_MAX_RSS_KB = 192 << 10
#: uid (= gid) of every candidate process and of the grader, given by the host: two unprivileged
#: users, different from each other and from the runner's (root, holding only the capabilities it
#: needs). A candidate can then signal, trace, re-limit or re-schedule only its own job's processes.
JOB_UID = int(os.environ.get("RLENV_JOB_UID", "65534"))
GRADER_UID = int(os.environ.get("RLENV_GRADER_UID", "65533"))
_CAP_KILL = 1 << 5
_LIBC = ctypes.CDLL(None, use_errno=True)
#: Resource limits the runner and the grader check on themselves before every job.
_WATCHED_LIMITS = (resource.RLIMIT_AS, resource.RLIMIT_CPU, resource.RLIMIT_FSIZE, resource.RLIMIT_NOFILE,
                   resource.RLIMIT_NPROC)
#: Modules imported once by the runner so that forked jobs do not pay for them. Not ``random``:
#: it reseeds in every forked process (~0.1 ms per job, whether or not the job uses it).
PRELOAD = ("collections", "itertools", "functools", "heapq", "bisect", "string", "re", "typing", "copy")
_POLL_IN = select.POLLIN | select.POLLHUP | select.POLLERR
#: Poll mask for the host stream during a job: only its hang-up matters (a next frame may be pending).
_HANG_UP = 0


# ---------------------------------------------------------------------------------------------
# processes
#: Files :func:`_read_small` keeps open, by path. They belong to the process that opened them: a
#: forked process closes every inherited descriptor it does not need, so it starts afresh.
_OPEN_FILES: dict[str, int] = {}
os.register_at_fork(after_in_child=_OPEN_FILES.clear)


def _read_small(path: str) -> bytes:
    """The current contents of a small procfs/sysfs file (b"" when it cannot be read). The file
    stays open (read again from offset 0): two syscalls fewer per read."""
    fd = _OPEN_FILES.get(path)
    if fd is None:
        try:
            fd = _OPEN_FILES[path] = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return b""
    try:
        return os.pread(fd, 1 << 16, 0)
    except OSError:
        return b""


def oom_kills() -> int:
    """The container cgroup's OOM-kill counter (0 when it cannot be read)."""
    for path in ("/sys/fs/cgroup/memory/memory.oom_control", "/sys/fs/cgroup/memory.events"):
        for line in _read_small(path).splitlines():
            name, _, value = line.partition(b" ")
            if name == b"oom_kill":
                return int(value)
    return 0


#: Most shared memory (tmpfs, SysV, memfd pages) the container's cgroup may hold after a job
#: beyond its idle baseline, bytes: page-rounding noise, not a job's leftovers.
SHMEM_SLACK = 4 << 20


def kernel_held() -> dict:
    """What the container's kernel holds outside every process: blocks and inodes in use on each
    scrubbed tmpfs, unix sockets, and the shared memory charged to the container's cgroup."""
    state = {}
    for root in SCRUB_DIRS[:2]:
        try:
            stat = os.statvfs(root)
        except OSError:
            continue
        state[root] = (stat.f_blocks - stat.f_bfree, stat.f_files - stat.f_ffree)
    state["unix sockets"] = _read_small("/proc/net/unix").count(b"\n") - 1
    for path in ("/sys/fs/cgroup/memory/memory.stat", "/sys/fs/cgroup/memory.stat"):
        for line in _read_small(path).splitlines():
            name, _, value = line.partition(b" ")
            if name == b"shmem":
                state["shmem"] = int(value)
    return state


def drift(idle: dict, now: dict) -> list[str]:
    """How the container's kernel-held state ``now`` differs from its ``idle`` baseline (see
    :func:`kernel_held`): a job left something there that no scrub can remove."""
    return [f"{name}: {now.get(name)} (idle: {value})" for name, value in idle.items()
            if (now.get(name, 0) > value + SHMEM_SLACK if name == "shmem" else now.get(name) != value)]


def _install_fds(targets: dict) -> None:
    """Make exactly ``targets`` (``{target_fd: source_fd}``) the open descriptors of this process."""
    top = max(targets) + 1
    # A source below ``top`` could be clobbered by another target's dup2: copy it above first (only
    # then: a copy to a high number grows the descriptor table, which costs a job ~0.1 ms).
    safe = {t: s if s >= top else fcntl.fcntl(s, fcntl.F_DUPFD_CLOEXEC, top) for t, s in targets.items()}
    for target, source in safe.items():
        os.dup2(source, target)
    low = 0
    for fd in sorted(targets):
        if low < fd:  # an empty range would close everything (close_range with high < low)
            os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 1 << 20)


def _set_limit(kind: int, value: int) -> None:
    resource.setrlimit(kind, (value, value))


def become(uid: int, keep_caps: int = 0) -> None:
    """Switch this process (root) to user and group ``uid`` with no supplementary groups,
    keeping only the capabilities in the bit mask ``keep_caps`` (none by default)."""
    if keep_caps:
        _LIBC.prctl(8, 1, 0, 0, 0)  # PR_SET_KEEPCAPS: the permitted set survives the uid change
    if os.getgroups():  # main() already cleared them: every credential change costs a forked job ~15 us
        os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    if keep_caps:
        header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
        data = (ctypes.c_uint32 * 6)(keep_caps, keep_caps, 0, 0, 0, 0)  # effective, permitted, inheritable
        if _LIBC.capset(header, data) != 0:
            raise OSError(ctypes.get_errno(), "capset failed")
        _LIBC.prctl(8, 0, 0, 0, 0)


#: Syscalls no test program needs and that widen the kernel surface; a candidate gets EPERM.
#: By architecture: (AUDIT_ARCH value, syscall numbers).
DENIED_SYSCALLS = {
    "x86_64": (0xC000003E, (
        101, 134, 155, 163, 165, 166, 167, 168, 169, 175, 176, 179, 246, 248, 249, 250, 272, 298, 300, 303,
        304, 308, 310, 311, 312, 313, 320, 321, 323, 425, 426, 427, 438, 440, 447)),
    "aarch64": (0xC00000B7, (
        39, 40, 41, 60, 89, 97, 104, 105, 106, 117, 142, 217, 218, 219, 224, 225, 241, 262, 264, 265, 268, 270,
        271, 272, 273, 280, 282, 294, 425, 426, 427, 438, 440, 447)),
}
_SECCOMP_ALLOW, _SECCOMP_EPERM = 0x7FFF0000, 0x00050001


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def seccomp_program(machine: str) -> _SockFprog:
    """A seccomp BPF program that fails :data:`DENIED_SYSCALLS` (and every syscall of another
    ABI: x32, a foreign architecture) with EPERM and allows the rest (Docker's own profile still
    applies beneath it)."""
    if machine not in DENIED_SYSCALLS:
        raise OSError(f"no seccomp filter for machine {machine!r}: known {sorted(DENIED_SYSCALLS)}")
    arch, numbers = DENIED_SYSCALLS[machine]
    n = len(numbers)
    deny = 6 + n  # index of the final EPERM return
    code = [(0x20, 0, 0, 4), (0x15, 1, 0, arch), (0x06, 0, 0, _SECCOMP_EPERM), (0x20, 0, 0, 0),
            (0x35, deny - 5, 0, 0x40000000)]  # ld arch; jeq; ret EPERM; ld nr; jge x32 -> EPERM
    for i, number in enumerate(numbers):
        code.append((0x15, deny - (5 + i) - 1, 0, number))
    code += [(0x06, 0, 0, _SECCOMP_ALLOW), (0x06, 0, 0, _SECCOMP_EPERM)]
    program = (_SockFilter * len(code))(*code)
    return _SockFprog(len(code), ctypes.cast(program, ctypes.POINTER(_SockFilter)))


def install_seccomp(program: _SockFprog) -> None:
    """Filter this process, and every process it forks from now on, with ``program``. The runner
    installs :func:`seccomp_program` once at start-up (compiling a filter in every forked job
    would cost more than the rest of a trivial job's set-up): the runner and the grader never need
    those syscalls either; the fork server adds :func:`candidate_filter`."""
    if _LIBC.prctl(38, 1, 0, 0, 0) != 0 or _LIBC.prctl(22, 2, ctypes.byref(program), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "could not install the seccomp filter")  # NO_NEW_PRIVS, SET_SECCOMP


#: Syscalls a candidate process may not make at all (on top of :data:`DENIED_SYSCALLS`), by
#: architecture: (``socket``, ``socketpair``, ``memfd_create``). ``socket`` is denied for
#: ``AF_UNIX`` only: a unix socket can carry descriptors in flight (``SCM_RIGHTS``) that no
#: process holds, past the job's end; a memfd is memory outside every size limit. The fork
#: server installs this filter on itself, so every candidate process has it.
CANDIDATE_DENIED = {"x86_64": (41, 53, 319), "aarch64": (198, 199, 279)}
_AF_UNIX = 1


def candidate_filter(machine: str) -> _SockFprog:
    """A seccomp BPF program that fails ``socket(AF_UNIX, ...)``, ``socketpair`` and
    ``memfd_create`` with EPERM (:data:`CANDIDATE_DENIED`) and allows the rest."""
    if machine not in CANDIDATE_DENIED:
        raise OSError(f"no candidate seccomp filter for machine {machine!r}: known {sorted(CANDIDATE_DENIED)}")
    socket_nr, *others = CANDIDATE_DENIED[machine]
    deny = 6 + len(others)  # index of the final EPERM return
    code = [(0x20, 0, 0, 0), (0x15, 0, 3, socket_nr),  # ld nr; socket? else skip to the others
            (0x20, 0, 0, 16), (0x15, deny - 4, 0, _AF_UNIX), (0x06, 0, 0, _SECCOMP_ALLOW)]  # ld args[0]; AF_UNIX?
    for i, number in enumerate(others):
        code.append((0x15, deny - (5 + i) - 1, 0, number))
    code += [(0x06, 0, 0, _SECCOMP_ALLOW), (0x06, 0, 0, _SECCOMP_EPERM)]
    program = (_SockFilter * len(code))(*code)
    return _SockFprog(len(code), ctypes.cast(program, ctypes.POINTER(_SockFilter)))


#: The resource limits of a candidate process, in the order of a :data:`_CANDIDATE_JOB` record.
CANDIDATE_RLIMITS = (resource.RLIMIT_NOFILE, resource.RLIMIT_FSIZE, resource.RLIMIT_CPU, resource.RLIMIT_AS)


def candidate_rlimits(limits: dict) -> tuple:
    """The values of :data:`CANDIDATE_RLIMITS` for a job's ``limits``."""
    return (int(limits["max_open_files"]), int(limits["max_file_bytes"]), int(math.ceil(limits["timeout_s"])) + 1,
            int(limits["memory_mb"]) << 20)


def own_state() -> tuple:
    """This process's resource limits, niceness, CPU affinity and scheduling policy."""
    return (tuple(resource.getrlimit(r) for r in _WATCHED_LIMITS), os.getpriority(os.PRIO_PROCESS, 0),
            os.sched_getaffinity(0), os.sched_getscheduler(0))


def child_setup(rlimits: tuple, workdir: str, fds: dict) -> str:
    """Turn a freshly forked process into a candidate process: own session, exactly ``fds``,
    default signals, the work directory, ``rlimits`` (values of :data:`CANDIDATE_RLIMITS`,
    in order), first in line for the OOM killer, the job user
    with no capabilities (the seccomp filters, no core dumps and ``sys.argv`` come from
    :func:`main` and the fork server). Returns the job's code, read from the descriptor just
    below the last one (see :func:`spawn`)."""
    gc.freeze()  # the job's collections never traverse (and copy) the objects it inherited
    os.setsid()
    _install_fds(fds)
    ready = max(fds)  # the last descriptor; the code is just below it
    code = _read_code(ready - 1)
    _signal.signal(signal.SIGINT, signal.default_int_handler)  # the runner ignores it; a program expects Python's
    os.chdir(workdir)
    os.umask(0o077)
    adjust = os.open("/proc/self/oom_score_adj", os.O_WRONLY)  # os-level: io.open's layers cost a job ~0.3 ms
    try:
        os.write(adjust, b"1000")  # while a candidate process lives, the OOM killer chooses one, never the runner or grader
    finally:
        os.close(adjust)
    for kind, value in zip(CANDIDATE_RLIMITS, rlimits, strict=True):
        _set_limit(kind, value)
    become(JOB_UID)
    os.write(ready, b"1")  # set-up done: from here on, what happens is the candidate's doing
    os.close(ready)
    return code


def _read_code(fd: int) -> str:
    """The code in the sealed file at ``fd`` (see :func:`code_file`); closes ``fd``."""
    size, chunks, got = os.fstat(fd).st_size, [], 0
    while got < size:
        chunk = os.pread(fd, size - got, got)
        if not chunk:
            raise EOFError(f"the code file ended after {got} of {size} bytes")
        chunks.append(chunk)
        got += len(chunk)
    os.close(fd)
    return b"".join(chunks).decode("utf-8", "surrogatepass")


def code_file(code: str) -> int:
    """A sealed memory file holding ``code``, for :func:`spawn` (the runner's, never a candidate's)."""
    fd = os.memfd_create("solution.py", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    data = memoryview(code.encode("utf-8", "surrogatepass"))
    while data:
        data = data[os.write(fd, data):]
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE)
    return fd


def _flush_and_exit(code: int) -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    os._exit(code)


def _report_setup_failure() -> None:
    """Exit with :data:`EXIT_SETUP`, the traceback on fd 2 (the job's stderr once it is set up)."""
    try:
        os.write(2, traceback.format_exc().encode()[-4000:])
    finally:
        os._exit(EXIT_SETUP)


class Child:
    """A candidate process seen from the runner (``exit_status``: how it learns the process's
    wait status, from the fork server that reaps it) or from the grader (which got its
    descriptors and pidfd from the runner, ``exit_status=None``). The runner also
    passes ``host_fd`` (its stdin): input there during a job means the host is gone.

    ``pump`` runs the event loop (stdin feeding, output capture with a byte cap, request
    writing and reply lines on the RPC pipes, exit through the pidfd) until something the
    caller waits for happens.
    """

    def __init__(self, pid: int, pidfd: int, out_fd: int, err_fd: int, cap: int, exit_status, oom_before: int,
                 in_fd: int | None = None, in_data: bytes = b"", request_fd: int | None = None,
                 reply_fd: int | None = None, host_fd: int | None = None):
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
                self.poll.register(fd, _POLL_IN)
        self.host_fd = host_fd
        if host_fd is not None:
            self.poll.register(host_fd, _HANG_UP)
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
                elif event & _POLL_IN:
                    self._read(fd)

    def reply_pending(self) -> bool:
        """Whether reply bytes arrived that no request asked for yet (reads what is there)."""
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


def spawn(server: ForkServer, limits: dict, workdir: str, mode: str, code_fd: int) -> tuple[int, dict]:
    """Have the fork server fork a candidate process that runs the code in ``code_fd`` (see
    :func:`code_file`) in ``mode`` (``"program"``: stdin a pipe; ``"function"``: stdin
    /dev/null, a request pipe on fd 3 and a reply pipe on fd 4), after :func:`child_setup`.

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
        job = _CANDIDATE_JOB.pack(mode == "program", *candidate_rlimits(limits)) + workdir.encode()
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


class SandboxFault(Exception):
    """The sandbox itself failed during a job (not the candidate): the job is a ``sandbox_error``
    and the container is replaced."""


# ---------------------------------------------------------------------------------------------
# candidate side
def _exception_text(exc: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(exc), exc)).strip()[:2000]


def program_main(code: str) -> None:
    """Run ``code`` as ``__main__`` like ``python3 solution.py`` would, then exit."""
    module = types.ModuleType("__main__")
    module.__file__ = "solution.py"
    module.__builtins__ = builtins
    sys.modules["__main__"] = module
    status = 0
    try:
        exec(compile(code, "solution.py", "exec"), module.__dict__)
    except SystemExit as exc:
        if exc.code is None:
            status = 0
        elif isinstance(exc.code, int):
            status = exc.code & 0xFF
        else:
            print(exc.code, file=sys.stderr)
            status = 1
    except MemoryError:
        status = EXIT_MEMORY
    except BaseException:
        try:
            traceback.print_exc()
        except BaseException:
            pass
        status = 1
    _flush_and_exit(status)


_VALUE_FIELDS = ("args", "kwargs", "key")


def function_main(code: str) -> None:
    """Load ``code`` as module ``solution``, report its globals, then serve calls from the
    grader: one JSON request line on fd 3, one JSON reply line on fd 4."""
    module = types.ModuleType("solution")
    module.__file__ = "solution.py"
    sys.modules["solution"] = module
    requests = open(3, "rb", buffering=1 << 16)
    handles: list = []

    def reply(message: dict) -> None:
        data = (json.dumps(message, ensure_ascii=True, allow_nan=False) + "\n").encode()
        view = memoryview(data)
        while view:
            view = view[os.write(4, view):]

    def ref_of(value):
        handles.append(value)
        return f"h:{len(handles) - 1}"

    def resolve(ref: str, _type: str):
        space, _, key = ref.partition(":")
        if space == "h":
            return handles[int(key)]
        return getattr(module, key)

    def failure(exc: BaseException) -> dict:
        return {"ok": False, "type": type(exc).__name__,
                "base": "Exception" if isinstance(exc, Exception) else "BaseException", "message": _exception_text(exc)}

    try:
        exec(compile(code, "solution.py", "exec"), module.__dict__)
    except BaseException as exc:
        reply(failure(exc))
        _flush_and_exit(0)
    names = {}
    for name, value in list(module.__dict__.items()):
        if name.startswith("__"):
            continue
        names[name] = ["module", value.__name__] if isinstance(value, types.ModuleType) else \
            ["object", type(value).__name__]
    reply({"ok": True, "names": names})
    operations = {
        "call": lambda target, req: target(*req["args"], **dict(req["kwargs"])),
        "getattr": lambda target, req: getattr(target, req["name"]),
        "iter": lambda target, req: list(target),
        "len": lambda target, req: len(target),
        "getitem": lambda target, req: target[req["key"]],
        "bool": lambda target, req: bool(target),
    }
    for line in requests:
        try:
            raw = json.loads(line)
            request = {k: decode_value(v, resolve) if k in _VALUE_FIELDS else v for k, v in raw.items()}
            result = operations[request["op"]](resolve(request["ref"], ""), request)
            message = {"ok": True, "value": encode_value(result, ref_of)}
        except BaseException as exc:
            message = failure(exc)
        sys.stdout.flush()
        reply(message)
    _flush_and_exit(0)


# ---------------------------------------------------------------------------------------------
# grader side
class CandidateFault(BaseException):
    """The candidate process stopped answering (timeout, exit, output cap, malformed reply).
    A BaseException, so that ``except Exception`` in test code does not hide it."""

    def __init__(self, status: str, message: str):
        super().__init__(message)
        self.status = status


class CandidateExit(BaseException):
    """The candidate raised SystemExit / KeyboardInterrupt / GeneratorExit during a call."""


class RemoteError(Exception):
    """The candidate raised an exception that is not a builtin one."""


class GraderTimeout(BaseException):
    """The grader's own work on one test ran past the test's time limit."""


class RemoteObject:
    """A candidate object that is not plain data: it can be called, indexed, iterated, asked for
    attributes, length and truth, each in the candidate process. It never compares equal to
    anything but itself, so an always-true ``__eq__`` cannot pass a test."""

    __slots__ = ("_rpc", "_ref", "_label")

    def __init__(self, rpc: RemoteCandidate, ref: str, label: str):
        object.__setattr__(self, "_rpc", rpc)
        object.__setattr__(self, "_ref", ref)
        object.__setattr__(self, "_label", label)

    def _ask(self, op: str, **fields):
        return self._rpc.request(op, self._ref, fields)

    def __call__(self, *args, **kwargs):
        return self._ask("call", args=list(args), kwargs=[[k, v] for k, v in kwargs.items()])

    def __getattr__(self, name: str):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return self._ask("getattr", name=name)

    def __iter__(self):
        return iter(self._ask("iter"))

    def __len__(self) -> int:
        value = self._ask("len")
        if type(value) is not int:
            raise TypeError("len() of a candidate object did not return an int")
        return value

    def __getitem__(self, key):
        return self._ask("getitem", key=key)

    def __bool__(self) -> bool:
        return self._ask("bool") is True

    def __repr__(self) -> str:
        return f"<candidate {self._label}>"


class RemoteCandidate:
    """The grader's end of a candidate process in ``function`` mode."""

    def __init__(self, child: Child):
        self.child = child
        self.deadline = math.inf
        self.test_index = -1
        self.fault: str | None = None
        self.fault_message = ""
        self.fault_test = -1
        self.memory_test = -1
        self.busy = False
        #: The candidate left: its process exited, or it raised SystemExit / KeyboardInterrupt.
        self.exited = False

    def fail(self, status: TestStatus, message: str):
        self.fault, self.fault_message, self.fault_test = status, message, self.test_index
        self.child.kill()
        raise CandidateFault(status, message)

    def receive(self) -> dict:
        """Wait for one reply line, until :attr:`deadline`."""
        if self.fault:
            raise CandidateFault(self.fault, self.fault_message)
        why = self.child.pump(self.deadline, want_reply=True)
        if why == "timeout":
            self.fail(TestStatus.TIMEOUT, "time limit exceeded")
        if why == "output_limit":
            self.fail(TestStatus.OUTPUT_LIMIT, f"output exceeded {self.child.cap} bytes")
        if why == "exit":
            if self.child.out_of_memory():
                self.fail(TestStatus.MEMORY, "the candidate process ran out of memory")
            self.exited = True
            self.fail(TestStatus.FAILED, "the candidate process exited")
        try:
            message = json.loads(self.child.take_reply())
            if type(message) is not dict or type(message.get("ok")) is not bool:
                raise ValueError("not a reply")
            if self.child.replies:
                raise ValueError("more than one reply to one request")
            return message
        except (ValueError, RecursionError) as exc:
            self.fail(TestStatus.FAILED, f"malformed reply from the candidate process: {exc}"[:300])

    def request(self, op: str, ref: str, fields: dict):
        message = {"op": op, "ref": ref}
        for key, value in fields.items():
            message[key] = encode_value(value, self._ref_of)
        if self.fault is None and self.child.reply_pending():
            self.fail(TestStatus.FAILED, "protocol error: the candidate process wrote a reply before the request")
        self.child.send((json.dumps(message, ensure_ascii=True, allow_nan=False) + "\n").encode())
        self.busy = True
        reply = self.receive()
        self.busy = False
        if reply["ok"]:
            try:
                return decode_value(reply.get("value"), self._remote)
            except (ValueError, TypeError, RecursionError, MemoryError) as exc:
                self.fail(TestStatus.FAILED, f"malformed value from the candidate process: {exc}"[:300])
        raise self._exception(reply)

    def _ref_of(self, value):
        return value._ref if type(value) is RemoteObject and value._rpc is self else None

    def _remote(self, ref: str, type_name: str) -> RemoteObject:
        return RemoteObject(self, str(ref), f"{type_name} object")

    def _exception(self, reply: dict) -> BaseException:
        name, message = str(reply.get("type")), str(reply.get("message"))[:2000]
        if name == "MemoryError":
            self.memory_test = self.test_index
        kind = getattr(builtins, name, None)
        if isinstance(kind, type) and issubclass(kind, Exception) and kind.__module__ == "builtins":
            try:
                return kind(message)
            except Exception:
                pass
        if reply.get("base") == "BaseException" or name in ("SystemExit", "KeyboardInterrupt", "GeneratorExit"):
            self.exited = True
            return CandidateExit(message)
        return RemoteError(message)


def _alarm(signum, frame):
    raise GraderTimeout("the grader's work on this test ran past the time limit")


def job_status(tests: list) -> JobStatus:
    """A job's status: ``ok`` when every test passed, else the status of the first test that
    did not (a test not run because time ran out counts as ``timeout``)."""
    for test in tests:
        if test["status"] == TestStatus.NOT_RUN:
            return JobStatus.TIMEOUT
        if test["status"] != TestStatus.PASSED:
            return JobStatus(test["status"])
    return JobStatus.OK


def _text(data: bytes, keep: int) -> str:
    return data[:keep].decode("utf-8", "replace")


def _run_function(child: Child, grader: dict, job_deadline: float, test_timeout: float) -> dict:
    rpc = RemoteCandidate(child)
    results = [{"status": TestStatus.NOT_RUN, "time_s": 0.0, "error": None} for _ in grader["tests"]]
    try:
        trees = [compile(source, f"<test {i}>", "exec", ast.PyCF_ONLY_AST) for i, source in enumerate(grader["tests"])]
        compiled = [compile(tree, f"<test {i}>", "exec") for i, tree in enumerate(trees)]
        compiled_setup = compile(grader["setup"], "<grader setup>", "exec")
    except SyntaxError as exc:
        return {"status": JobStatus.SANDBOX_ERROR, "tests": results, "error": f"test code does not compile: {_exception_text(exc)}"}
    began = time.monotonic()
    rpc.test_index, rpc.deadline = 0, min(job_deadline, began + test_timeout)
    load_status, load_error = TestStatus.FAILED, None
    try:
        loaded = rpc.receive()
        if not loaded["ok"]:
            load_status = TestStatus.MEMORY if loaded.get("type") == "MemoryError" else TestStatus.FAILED
            load_error = f"the candidate code raised during import: {loaded.get('message')}"
            rpc.exited = loaded.get("base") == "BaseException"
    except CandidateFault as fault:
        load_status, load_error = fault.status, f"loading the candidate code: {fault}"
    load_s = round(time.monotonic() - began, 6)
    namespace = {"__name__": "__grader__", "__builtins__": builtins}
    if load_error is None:
        try:
            exec(compiled_setup, namespace)
        except BaseException as exc:
            return {"status": JobStatus.SANDBOX_ERROR, "tests": results, "load_s": load_s,
                    "error": f"grader setup raised: {_exception_text(exc)}"}
        names = loaded.get("names") if type(loaded.get("names")) is dict else {}
        previous = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, max(0.001, job_deadline - time.monotonic()))
        try:  # whatever goes wrong with the names the candidate reported is the candidate's failure
            load_error = _bind(namespace, names, grader, names_used(trees), rpc)
        except GraderTimeout:
            load_status, load_error = TestStatus.TIMEOUT, "binding the candidate's names ran past the time limit"
        except BaseException as exc:
            load_error = f"binding the candidate's names: {_exception_text(exc)}"
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    if load_error is not None:
        for i, test in enumerate(results):
            test.update(status=load_status if i == 0 else TestStatus.FAILED, error=load_error)
        return {"status": load_status, "tests": results, "error": load_error, "load_s": load_s,
                "candidate_exited": rpc.exited}
    previous = signal.signal(signal.SIGALRM, _alarm)
    try:
        for i, code_object in enumerate(compiled):
            results[i].update(_run_test(i, code_object, namespace, rpc, job_deadline, test_timeout))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return {"status": job_status(results), "tests": results, "error": None, "load_s": load_s,
            "candidate_exited": rpc.exited}


def _run_test(i: int, code_object, namespace: dict, rpc: RemoteCandidate, job_deadline: float,
              test_timeout: float) -> dict:
    """Run test snippet ``i`` in the grader; returns its result fields."""
    if rpc.fault:
        return {"error": f"not run: the candidate process ended at test {rpc.fault_test}"}
    began = time.monotonic()
    if began >= job_deadline:
        return {"error": "not run: the job's time limit was reached"}
    rpc.test_index, rpc.deadline = i, min(job_deadline, began + test_timeout)
    signal.setitimer(signal.ITIMER_REAL, max(0.001, rpc.deadline - began) + 0.5)
    status, error = TestStatus.PASSED, None
    try:
        exec(code_object, namespace)
    except GraderTimeout:
        status, error = TestStatus.TIMEOUT, "time limit exceeded"
        if rpc.busy:  # the alarm hit while a call was in flight: its late reply must not be read
            rpc.fault, rpc.fault_test, rpc.fault_message = status, i, error
            rpc.child.kill()
    except CandidateFault as fault:
        status, error = fault.status, str(fault)
    except BaseException as exc:
        status, error = TestStatus.FAILED, _exception_text(exc) or type(exc).__name__
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    if rpc.fault_test == i:  # test code may have swallowed the fault: it still decides the verdict
        status, error = rpc.fault, rpc.fault_message
    elif status != TestStatus.PASSED and rpc.memory_test == i:
        status = TestStatus.MEMORY
    return {"status": status, "error": error, "time_s": round(time.monotonic() - began, 6)}


#: Standard-library modules a candidate's ``import`` makes visible to the tests (in plain Python
#: the tests run in the candidate's module and see them). The grader imports only these, by these
#: fixed names: which of them a candidate asks for runs none of its code, and any other module
#: name (a package's ``__main__``, a file it wrote) is never imported.
BINDABLE_MODULES = frozenset((
    "array", "base64", "binascii", "bisect", "calendar", "cmath", "collections", "collections.abc", "copy",
    "dataclasses", "datetime", "decimal", "difflib", "enum", "fractions", "functools", "hashlib", "heapq",
    "itertools", "json", "math", "numbers", "operator", "os", "os.path", "pprint", "queue", "random", "re",
    "statistics", "string", "struct", "sys", "textwrap", "time", "types", "typing", "unicodedata", "zlib"))


def names_used(trees: list) -> tuple[frozenset, frozenset]:
    """``(every name, names used as a module)`` of the tests' syntax trees: a name is used as a
    module when the tests read an attribute of it (``math.isclose``, ``sys.getsizeof``)."""
    names, modules = set(), set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                modules.add(node.value.id)
    return frozenset(names), frozenset(modules)


def _bind(namespace: dict, names: dict, grader: dict, used: tuple, rpc: RemoteCandidate) -> str | None:
    """Bind what the tests name (``used``, from :func:`names_used`) into their namespace;
    returns an error or None.

    In this order, each step never replacing what an earlier one bound: the grader's setup
    (trusted code, run before); a name the tests use as a module that is one of
    :data:`BINDABLE_MODULES` is the grader's own module, whatever the candidate holds under that
    name; then, with ``import_names``, each candidate global the tests name (never a builtin): a
    module the candidate imported only if it is one of :data:`BINDABLE_MODULES`, imported here by
    that fixed name, anything else a handle on the candidate's object. ``bind`` comes last and
    wins (a task whose entry point is called ``sum`` calls the candidate's ``sum``).
    """
    used, as_modules = used
    for name in sorted(as_modules & BINDABLE_MODULES):
        namespace.setdefault(name, importlib.import_module(name))
    if grader.get("import_names", True):
        for name, entry in names.items():
            if type(name) is not str or name not in used or name in namespace or hasattr(builtins, name):
                continue
            if type(entry) is not list or len(entry) != 2 or type(entry[0]) is not str or type(entry[1]) is not str:
                continue
            kind, detail = entry
            if kind == "module":
                if detail in BINDABLE_MODULES:
                    namespace[name] = importlib.import_module(detail)
            else:
                namespace[name] = RemoteObject(rpc, f"g:{name}", f"{detail:.80} {name!r:.80}")
    for alias, target in grader.get("bind", {}).items():
        if target not in names:
            return f"the candidate code does not define {target!r}"
        namespace[alias] = RemoteObject(rpc, f"g:{target}", f"{str(names[target][1]):.80} {target!r}")
    return None


def grade_function(meta: dict, grader: dict, fds: list) -> dict:
    """Grade a ``function`` job whose candidate process the runner forked: ``fds`` are its
    request pipe, reply pipe, stdout, stderr and pidfd."""
    limits = meta["limits"]
    request_fd, reply_fd, out_fd, err_fd, pidfd = fds
    child = Child(meta["pid"], pidfd, out_fd, err_fd, int(limits["max_output_bytes"]), exit_status=None,
                  oom_before=meta["oom_before"], request_fd=request_fd, reply_fd=reply_fd)
    try:
        report = _run_function(child, grader, meta["started"] + float(limits["timeout_s"]),
                               float(limits["test_timeout_s"]))
    finally:
        child.close()
    keep = int(meta["keep_output_bytes"])
    report.update(stdout=_text(child.output(out_fd), keep), stderr=_text(child.output(err_fd), keep))
    return report


def grade_program(meta: dict, grader: dict) -> dict:
    """Grade a ``program`` job: compare the stdout of each run the runner made (status ``ran``:
    it exited 0 in time) with the expected output."""
    compare = grader["compare"]
    tests = []
    for run, want in zip(meta["runs"], grader["expected"], strict=True):
        if run["status"] != "ran":
            tests.append({"status": run["status"], "error": run["error"]})
            continue
        stdout = base64.b64decode(run["stdout"]).decode("utf-8", "replace")
        if want is None or compare_output(stdout, want, compare["mode"], float(compare["rel_tol"]),
                                          float(compare["abs_tol"])):
            tests.append({"status": TestStatus.PASSED, "error": None})
        else:
            tests.append({"status": TestStatus.FAILED, "error": "wrong output"})
    return {"status": job_status(tests), "tests": tests, "error": None}


# ---------------------------------------------------------------------------------------------
# records on the fork server's socket and on a spare candidate process's (SOCK_SEQPACKET: one
# record per receive): fixed layouts, no JSON, so that the fork server and a candidate touch (and
# copy after a fork) as few of the interpreter's pages as they can
#: The fork server's answers: what (``_FORKED``: pid, its pidfd attached; ``_FORK_FAILED``: errno;
#: ``_EXITED``: pid and wait status), pid, value.
_FORK_ANSWER = struct.Struct("=Bqq")
_FORKED, _FORK_FAILED, _EXITED = 1, 2, 3
#: A spare candidate process's job: program mode (else function mode), then the values of
#: :data:`CANDIDATE_RLIMITS`; the work directory's path follows (at most :data:`_MAX_WORKDIR` bytes).
_CANDIDATE_JOB = struct.Struct("=?qqqq")
_MAX_WORKDIR = 4096


def send_record(sock: socket.socket, record: bytes, fds: list = ()) -> None:
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


# ---------------------------------------------------------------------------------------------
# messages between the runner and the grader: a header (meta length, payload length), the JSON
# meta, the payload; descriptors travel with the header
_MESSAGE = struct.Struct(">QQ")


def recv_message(sock: socket.socket):
    """Blocking receive of one message: ``(meta, payload, fds)``, or None at end of stream."""
    head, fds, _flags, _addr = socket.recv_fds(sock, _MESSAGE.size, 8)
    if not head:
        return None
    while len(head) < _MESSAGE.size:
        more = sock.recv(_MESSAGE.size - len(head))
        if not more:
            return None
        head += more
    meta_size, payload_size = _MESSAGE.unpack(head)
    body = bytearray(meta_size + payload_size)
    view, got = memoryview(body), 0
    while got < len(body):
        n = sock.recv_into(view[got:])
        if n == 0:
            return None
        got += n
    return json.loads(bytes(view[:meta_size])), bytes(view[meta_size:]), fds


def send_message(sock: socket.socket, meta: dict, fds: list = ()) -> None:
    """Send one message of JSON ``meta``, no payload and the descriptors ``fds`` (see
    :func:`recv_message`)."""
    body = json.dumps(meta, ensure_ascii=True, allow_nan=False).encode()
    data = _MESSAGE.pack(len(body), 0) + body
    sent = socket.send_fds(sock, [data], fds) if fds else 0
    if sent < len(data):  # (an empty send to a peer that already read it all and left fails)
        sock.sendall(data[sent:])


def serve(sock: socket.socket, answer) -> None:
    """Answer each message on ``sock`` with ``answer(meta, payload, fds)`` (JSON-ready), the
    message's descriptors closed once it returns; exit at the end of the stream."""
    while True:
        message = recv_message(sock)
        if message is None:
            os._exit(0)
        meta, payload, fds = message
        try:
            reply = answer(meta, payload, fds)
        finally:
            for fd in fds:
                try:
                    os.close(fd)
                except OSError:
                    pass
        send_message(sock, reply)
        del message, meta, payload, reply


def grader_loop(sock: socket.socket) -> None:
    """Body of the grader process: grade one job per message and answer with the report,
    which carries the job's nonce. Never forks. Before each job it checks that its own limits and
    scheduling are as they were; after each, it asks to be retired once it has grown too big."""
    state = own_state()

    def grade(meta: dict, payload: bytes, fds: list) -> dict:
        try:
            if own_state() != state:
                raise SandboxFault("the grader's limits or scheduling changed")
            grader = json.loads(payload)
            if meta["mode"] == "function":
                report = grade_function(meta, grader, fds)
            else:
                report = grade_program(meta, grader)
        except BaseException as exc:
            report = {"status": JobStatus.SANDBOX_ERROR, "tests": [], "error": f"grader error: {_exception_text(exc)}",
                      "fatal": f"grader error: {_exception_text(exc)}"}
        if resource.getrusage(resource.RUSAGE_SELF).ru_maxrss > GRADER_MAX_RSS_KB:
            report["retire"] = True
        report["nonce"] = meta["nonce"]
        return report

    serve(sock, grade)


# ---------------------------------------------------------------------------------------------
# the fork server: the parent of every candidate process
def fork_server_loop(sock: socket.socket) -> None:
    """Body of the fork server: per request (a socket, the only descriptor it carries), fork a
    spare candidate process that waits on that socket for its job, and answer with its pid and
    pidfd; reap each candidate process as it exits and send its wait status. Nothing of any job
    reaches this process, and so none of it is in what a candidate inherits from it."""
    children: dict[int, int] = {}  # pidfd -> pid
    poll = select.poll()
    poll.register(sock, _POLL_IN)
    while True:
        for fd, _ in poll.poll():
            if fd in children:
                pid = children.pop(fd)
                poll.unregister(fd)
                os.close(fd)
                send_record(sock, _FORK_ANSWER.pack(_EXITED, pid, os.waitpid(pid, 0)[1]))
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
                        _install_fds({3: fds[0]})
                        run_candidate(socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET, 0, 3))
                    finally:
                        os._exit(EXIT_SETUP)
                pidfd = os.pidfd_open(pid)  # before this process reaps it: a zombie has a pidfd too
                children[pidfd] = pid
                poll.register(pidfd, _POLL_IN)
                answer, handed = _FORK_ANSWER.pack(_FORKED, pid, 0), [pidfd]
            except OSError as exc:  # e.g. the pids limit: the runner reports it
                answer, handed = _FORK_ANSWER.pack(_FORK_FAILED, 0, exc.errno or 0), []
            finally:
                for passed in fds:
                    os.close(passed)
            send_record(sock, answer, handed)


def run_candidate(sock: socket.socket) -> None:
    """Body of a candidate process: wait on ``sock`` for the job (a :data:`_CANDIDATE_JOB`
    record, the work directory and descriptors: see :func:`spawn`), :func:`child_setup`, then
    the program or the function server. Never returns: whatever escapes the candidate's code
    ends the process, so no code of the fork server ever runs as the candidate."""
    try:
        job, fds = recv_record(sock, _CANDIDATE_JOB.size + _MAX_WORKDIR, 8)
        if not job:
            os._exit(0)  # the runner stopped before it had a job for this process
        sock.close()
        program, *rlimits = _CANDIDATE_JOB.unpack_from(job)
        code = child_setup(tuple(rlimits), job[_CANDIDATE_JOB.size:].decode(), dict(enumerate(fds)))
    except BaseException:
        _report_setup_failure()
    try:
        (program_main if program else function_main)(code)
    finally:
        os._exit(1)


class ForkServer:
    """The runner's handle on the fork server, a process it forks before its first job (when it
    holds no job's data yet) and from which every candidate process is forked (see
    :func:`fork_server_loop`). It keeps the runner's user and the capabilities to make the job
    user, and adds :func:`candidate_filter` to its seccomp filters. It is the parent of the
    candidate processes: their wait statuses come from it (kept here until asked for).

    A spare candidate process is asked for as soon as the last one got its job, so the next one
    is forked while a job runs and waits, off any job's path, for its own (:meth:`fork`): a
    sweep keeps it (:meth:`spare_pid`)."""

    def __init__(self) -> None:
        self.pid = 0
        self.sock: socket.socket | None = None
        self.statuses: dict[int, int] = {}
        self._asked: socket.socket | None = None  # our end of the socket of a spare not yet answered for
        self._answer: tuple | None = None  # the fork server's answer about it, once read
        self._spare: tuple | None = None  # (pid, pidfd, our end of its socket)
        self.failure = ""  # why the last spare could not be forked

    def start(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            try:
                null = os.open(os.devnull, os.O_RDWR)
                _install_fds({0: null, 1: null, 2: null, 3: theirs.fileno()})
                install_seccomp(candidate_filter(os.uname().machine))
                fork_server_loop(socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET, 0, 3))
            finally:
                os._exit(EXIT_SETUP)
        theirs.close()
        self.pid, self.sock = pid, ours
        self.ask()

    def ask(self) -> None:
        """Have a spare candidate process forked, unless there is one."""
        if self._spare is None and self._asked is None:
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            try:
                send_record(self.sock, b"\0", [theirs.fileno()])
            finally:
                theirs.close()
            self._asked = ours

    def _receive(self) -> None:
        """Read the next message of the fork server: a wait status (kept in :attr:`statuses`)
        or the answer about the spare asked for (kept in :attr:`_answer`)."""
        record, fds = recv_record(self.sock, _FORK_ANSWER.size, 1)
        if len(record) != _FORK_ANSWER.size:
            raise SandboxFault("the fork server exited" if not record else f"the fork server sent {record!r:.100}")
        kind, pid, value = _FORK_ANSWER.unpack(record)
        if kind == _EXITED:
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
            if kind != _FORKED or len(handed) != 1:
                sock.close()
                self.failure = os.strerror(value) if kind == _FORK_FAILED else f"answer {kind} with {len(handed)} descriptors"
                return None
            self.statuses.pop(pid, None)  # an earlier process's, its pid now reused
            self._spare = (pid, handed[0], sock)
        return self._spare[0] if self._spare is not None else None

    def fork(self, job: bytes, fds: list) -> tuple[int, int]:
        """``(pid, pidfd)`` of a candidate process that got ``job`` and ``fds`` (see
        :func:`run_candidate`): the spare one (one forked now if its fork had failed); then the
        next spare is asked for."""
        if self.spare_pid() is None:
            self.ask()
            if self.spare_pid() is None:
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


# ---------------------------------------------------------------------------------------------
# the runner
class Grader:
    """The runner's handle on the persistent grader process."""

    def __init__(self) -> None:
        self.pid = 0
        self.pidfd = -1
        self.sock: socket.socket | None = None
        self.jobs = 0

    def start(self) -> None:
        ours, theirs = socket.socketpair()
        pid = os.fork()
        if pid == 0:
            try:
                os.setsid()
                null = os.open(os.devnull, os.O_RDWR)
                _install_fds({0: null, 1: null, 2: null, 3: theirs.fileno()})
                become(GRADER_UID, keep_caps=_CAP_KILL)  # it kills the candidate processes it talks to
                grader_loop(socket.socket(fileno=3))
            finally:
                os._exit(EXIT_SETUP)
        theirs.close()
        ours.setblocking(False)
        self.pid, self.pidfd, self.sock, self.jobs = pid, os.pidfd_open(pid), ours, 0

    @property
    def alive(self) -> bool:
        return self.sock is not None and not select.select([self.pidfd], [], [], 0)[0]

    def stop(self) -> None:
        if self.sock is None:
            return
        try:
            os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass
        select.select([self.pidfd], [], [], 5.0)
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:  # already reaped by a sweep
            pass
        self.sock.close()
        os.close(self.pidfd)
        self.sock, self.pid, self.pidfd = None, 0, -1

    def exchange(self, meta: dict, payload, fds: list, deadline: float):
        """Send one job, wait for its report; returns ``(report_bytes, reason, exit_status)``.

        reason: ``"ok"``, ``"timeout"`` (no report by ``deadline``) or ``"exited"`` (the
        grader died; exit_status is its wait status).
        """
        self.jobs += 1
        data = json.dumps(meta, ensure_ascii=True, allow_nan=False).encode()
        # One buffer, one send (one wake-up of the grader); zeroed afterwards since it holds the grader part.
        message = bytearray(_MESSAGE.size + len(data) + len(payload))
        message[:_MESSAGE.size + len(data)] = _MESSAGE.pack(len(data), len(payload)) + data
        message[_MESSAGE.size + len(data):] = payload
        try:
            return self._exchange(memoryview(message), fds, deadline)
        finally:
            message[:] = bytes(len(message))

    def _exchange(self, message: memoryview, fds: list, deadline: float):
        poll = select.poll()
        poll.register(self.sock, select.POLLOUT | _POLL_IN)
        poll.register(self.pidfd, _POLL_IN)
        poll.register(0, _HANG_UP)  # the host hung up: stop everything
        outgoing = [message]
        received = bytearray()
        while True:
            if len(received) >= _MESSAGE.size:
                size = sum(_MESSAGE.unpack(received[:_MESSAGE.size]))
                if len(received) >= _MESSAGE.size + size:
                    return bytes(received[_MESSAGE.size:_MESSAGE.size + size]), "ok", None
            left = deadline - time.monotonic()
            if left <= 0:
                return b"", "timeout", None
            for fd, event in poll.poll(max(1, int(left * 1000) + 1)):
                if fd == self.pidfd:
                    return b"", "exited", os.waitpid(self.pid, 0)[1]
                if fd == 0 and event & (select.POLLHUP | select.POLLERR):
                    host_gone()
                if event & select.POLLOUT and outgoing:
                    try:
                        if fds:
                            sent = socket.send_fds(self.sock, [outgoing[0]], fds)
                            fds = []
                        else:
                            sent = self.sock.send(outgoing[0])
                    except BlockingIOError:
                        continue
                    outgoing[0] = outgoing[0][sent:]
                    while outgoing and not len(outgoing[0]):
                        outgoing.pop(0)
                    if not outgoing:
                        poll.modify(self.sock, _POLL_IN)
                if event & _POLL_IN and fd != self.pidfd:
                    try:
                        chunk = self.sock.recv(1 << 16)
                    except BlockingIOError:
                        continue
                    if not chunk:
                        select.select([self.pidfd], [], [], 1.0)
                        return b"", "exited", os.waitpid(self.pid, 0)[1]
                    received += chunk


def host_gone() -> None:
    """The host closed the job stream (or broke the protocol): stop everything and exit."""
    sweep(frozenset())
    os._exit(0)


def _reap_all() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def sweep(keep: frozenset) -> bool:
    """Kill every process of the container except PID 1 and ``keep``, and reap them; False if
    some survive. Each pass kills every process it sees, and a process with a pending SIGKILL
    cannot fork: the passes converge (the pids limit bounds a fork bomb)."""
    me = os.getpid()
    for attempt in range(2000):
        _reap_all()
        victims = [pid for pid in map(int, filter(str.isdigit, os.listdir("/proc"))) if pid != me and pid not in keep]
        if not victims:
            return True
        for pid in victims:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if attempt:
            time.sleep(0.0002 * min(attempt, 50))
    return False


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def empty_directory(root: str) -> None:
    """Remove everything below the directory ``root``, whatever a job made there: any depth, names
    that add up to paths longer than ``PATH_MAX``, directories without permissions, symlinks
    (never followed), any number of entries. Iterative, streaming and relative to directory
    descriptors: the subdirectories of a directory being removed are first moved up into
    ``root``, so no more than two directories are open, no path is ever longer than one name, and
    the memory used does not grow with what the job made. (The runner may bypass permissions.)"""
    root_fd = os.open(root, _DIR_FLAGS)
    try:
        while _remove_entries(root_fd):
            pass  # entries moved up into root during the pass are removed by the next one
    finally:
        os.close(root_fd)


def _remove_entries(root_fd: int) -> bool:
    """One pass over the directory open at ``root_fd``: unlink files, move the subdirectories of
    each directory up into it, remove the emptied directories. Whether anything was found."""
    found = False
    with os.scandir(root_fd) as entries:
        for entry in entries:
            found = True
            if not entry.is_dir(follow_symlinks=False):
                os.unlink(entry.name, dir_fd=root_fd)
                continue
            fd = os.open(entry.name, _DIR_FLAGS, dir_fd=root_fd)
            try:
                with os.scandir(fd) as inner_entries:
                    for inner in inner_entries:
                        if inner.is_dir(follow_symlinks=False):
                            os.rename(inner.name, f".scrub-{os.urandom(8).hex()}", src_dir_fd=fd, dst_dir_fd=root_fd)
                        else:
                            os.unlink(inner.name, dir_fd=fd)
            finally:
                os.close(fd)
            try:
                os.rmdir(entry.name, dir_fd=root_fd)
            except OSError as exc:  # not emptied in one go (the listing missed an entry): the next pass removes it
                if exc.errno != errno.ENOTEMPTY:
                    raise
    return found


def scrub() -> list[str]:
    """Remove every file a job could have written; returns what could not be removed."""
    left = []
    for root in SCRUB_DIRS:
        try:
            empty_directory(root)
        except FileNotFoundError as exc:
            if exc.filename in (root, None) and not os.path.isdir(root):
                continue  # this container has no such place
            left.append(f"{root}: {exc.strerror}")
        except OSError as exc:
            left.append(f"{root}: {exc.strerror}")
    if _sysv_ipc_in_use():
        pid = os.fork()
        if pid == 0:
            null = os.open(os.devnull, os.O_RDWR)
            _install_fds({0: null, 1: null, 2: null})
            try:
                become(JOB_UID)  # the objects are the job user's: only their owner may remove them
                os.execvp("ipcrm", ["ipcrm", "--all"])
            finally:
                os._exit(127)
        os.waitpid(pid, 0)
        if _sysv_ipc_in_use():
            left.append("System V IPC objects")
    return left


def _sysv_ipc_in_use() -> bool:
    """Whether a job left System V shared memory, semaphores or message queues behind."""
    return any(_read_small(f"/proc/sysvipc/{kind}").count(b"\n") > 1 for kind in ("shm", "sem", "msg"))


def _write_line(message: dict) -> None:
    data = (json.dumps(message, ensure_ascii=True, allow_nan=False) + "\n").encode()
    view = memoryview(data)
    while view:
        view = view[os.write(1, view):]


def _read_grader_part() -> bytearray:
    """Read the grader frame into a buffer the caller zeroes after use."""
    size = read_frame_length(0)
    if size is None:
        raise EOFError("stream ended before the grader frame")
    buffer = bytearray(size)
    view, got = memoryview(buffer), 0
    while got < size:
        n = os.readv(0, [view[got:]])
        if n == 0:
            raise EOFError("stream ended inside the grader frame")
        got += n
    return buffer


def _write_files(workdir: str, files: dict) -> None:
    for relative, encoded in files.items():
        parts = relative.split("/")
        if relative.startswith("/") or any(p in ("", ".", "..") for p in parts):
            raise ValueError(f"bad file path {relative!r}: expected a relative path without '..'")
        for depth in range(1, len(parts)):
            folder = os.path.join(workdir, *parts[:depth])
            if not os.path.isdir(folder):
                os.mkdir(folder, 0o700)
                os.chown(folder, JOB_UID, JOB_UID)
        path = os.path.join(workdir, *parts)
        with open(path, "wb") as handle:
            handle.write(base64.b64decode(encoded))
        os.chown(path, JOB_UID, JOB_UID)


def _work_directory(files: dict) -> str:
    """A new work directory holding ``files``, owned by the job user."""
    workdir = os.path.join(WORK_ROOT, "job-" + os.urandom(6).hex())
    os.mkdir(workdir, 0o700)
    os.chown(workdir, JOB_UID, JOB_UID)
    _write_files(workdir, files)
    return workdir


def _run_cases(header: dict, candidate: dict, code_fd: int, server: ForkServer, grader: Grader,
               oom_before: int) -> list:
    """Run the program once per stdin (the runner is the parent, pumping each run). Each run
    starts from nothing an earlier run touched: its processes are killed, the writable places
    wiped, and the run gets a new work directory with the job's files and only its own stdin."""
    limits, keep = header["limits"], int(header.get("keep_output_bytes", 4096))
    job_deadline = time.monotonic() + float(limits["timeout_s"])
    runs = []
    for stdin in candidate["stdins"]:
        if runs:
            if not sweep(helpers(grader, server)):
                raise SandboxFault("processes of an earlier run survived the sweep")
            left = scrub()
            if left:
                raise SandboxFault(f"files of an earlier run survived the scrub: {left[:5]}")
        began = time.monotonic()
        if began >= job_deadline:
            runs.append({"status": TestStatus.NOT_RUN, "error": "not run: the job's time limit was reached", "time_s": 0.0,
                         "exit_code": None, "stdout": b"", "stderr": ""})
            continue
        pid, fds = spawn(server, limits, _work_directory(candidate.get("files", {})), "program", code_fd)
        child = Child(pid, fds["pidfd"], fds["out"], fds["err"], int(limits["max_output_bytes"]), server.exit_status,
                      oom_before=oom_before, in_fd=fds["in"], in_data=stdin.encode("utf-8", "surrogateescape"),
                      host_fd=0)
        why = child.pump(min(job_deadline, began + float(limits["test_timeout_s"])))
        child.close()
        if not set_up(fds["ready"]) and why != "timeout":  # unfinished at the deadline: a loaded machine, a timeout
            raise SandboxFault(f"a candidate process's set-up failed: {_text(child.output(child.err_fd), 2000)}")
        run = {"status": "ran", "error": None, "time_s": round(child.elapsed(), 6), "exit_code": child.exit_code(),
               "stdout": child.output(child.out_fd), "stderr": _text(child.output(child.err_fd), keep)}
        if why == "timeout":
            run.update(status=TestStatus.TIMEOUT, error="time limit exceeded")
        elif why == "output_limit":
            run.update(status=TestStatus.OUTPUT_LIMIT, error=f"output exceeded {child.cap} bytes")
        elif child.exit_code() == EXIT_MEMORY or (child.exit_code() == -signal.SIGKILL and child.out_of_memory()):
            run.update(status=TestStatus.MEMORY, error="the program ran out of memory")
        elif child.exit_code() != 0:
            run.update(status=TestStatus.FAILED, error=f"exit status {child.exit_code()}")
        runs.append(run)
    return runs


def helpers(grader: Grader, server: ForkServer) -> frozenset:
    """The pids of the processes a sweep keeps: the grader, the fork server and its spare."""
    return frozenset([grader.pid, server.pid, server.spare_pid()])


def run_job(header: dict, candidate: dict, grader: Grader, server: ForkServer) -> dict:
    """Run one job: have the fork server fork its candidate process(es), then read the grader
    part, hand it to the grader with a fresh nonce, and check the nonce on the report. The
    caller sweeps."""
    began = time.monotonic()
    oom_before = oom_kills()
    runs, fds, ready, code_fd = [], [], None, None
    server.statuses.clear()  # of earlier jobs' processes, never asked for
    try:
        limits, keep = header["limits"], int(header.get("keep_output_bytes", 4096))
        code_fd = code_file(candidate["code"])
        if header["mode"] == "program":
            runs = _run_cases(header, candidate, code_fd, server, grader, oom_before)
            meta = {"mode": "program", "runs": [{"status": r["status"], "error": r["error"],
                                                 "stdout": base64.b64encode(r["stdout"]).decode()} for r in runs]}
        elif header["mode"] == "function":
            pid, parts = spawn(server, limits, _work_directory(candidate.get("files", {})), "function", code_fd)
            fds, ready = [parts["request"], parts["reply"], parts["out"], parts["err"], parts["pidfd"]], parts["ready"]
            meta = {"mode": "function", "pid": pid, "started": began, "limits": limits, "keep_output_bytes": keep,
                    "oom_before": oom_before}
        else:
            raise ValueError(f"unknown job mode {header['mode']!r}")
    except BaseException:
        _read_grader_part()[:] = b""  # keep the stream in step
        raise
    finally:
        if code_fd is not None:
            os.close(code_fd)
    # Only now, after every candidate process is forked, do the grader part and the nonce exist here.
    payload = _read_grader_part()
    nonce = meta["nonce"] = os.urandom(16).hex()
    try:
        report, reason, exit_status = grader.exchange(meta, payload, fds, began + float(limits["timeout_s"]) + 2.0)
    finally:
        payload[:] = bytes(len(payload))
        for fd in fds:
            os.close(fd)
    result = _verdict(report, reason, exit_status, nonce, oom_before)
    # A set-up still unfinished when the job ran out of time is a timeout (a loaded machine), not a fault.
    if ready is not None and not set_up(ready) and result.get("status") not in (JobStatus.OK, JobStatus.TIMEOUT):
        raise SandboxFault(f"the candidate process's set-up failed: {result.get('error')}")
    retire = result.pop("retire", False)
    if reason != "ok" or "nonce" not in result or retire:
        grader.stop()  # dead, wedged, forged or grown too big: replace it
    result.pop("nonce", None)
    if runs:
        for test, run in zip(result.get("tests", []), runs, strict=False):
            test.update(time_s=run["time_s"], exit_code=run["exit_code"], stdout=_text(run["stdout"], keep),
                        stderr=run["stderr"])
    result["job_s"] = round(time.monotonic() - began, 6)
    return result


def _verdict(report_bytes: bytes, reason: str, exit_status: int | None, nonce: str, oom_before: int) -> dict:
    """The grader's report if it carries this job's nonce (the nonce is kept in the result),
    else why there is none."""
    if reason == "timeout":
        return {"status": JobStatus.TIMEOUT, "tests": [], "error": "the job ran past its time limit"}
    if reason == "exited":
        code = os.waitstatus_to_exitcode(exit_status)
        if oom_kills() > oom_before:
            return {"status": JobStatus.MEMORY, "tests": [], "error": "the job ran out of memory (the grader was OOM-killed)"}
        how = f"killed by signal {-code}" if code < 0 else f"exited with status {code}"
        return {"status": JobStatus.SANDBOX_ERROR, "tests": [], "error": f"the grader process {how}", "fatal": f"the grader {how}"}
    try:
        report = json.loads(report_bytes)
    except ValueError:
        report = None
    if type(report) is not dict or not _compare_digest(str(report.get("nonce", "")), nonce):
        return {"status": JobStatus.SANDBOX_ERROR, "tests": [], "error": "the grader report failed the nonce check"}
    return report


def _set_dumpable(value: int) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(4, value, 0, 0, 0)  # PR_SET_DUMPABLE
    return libc.prctl(3, 0, 0, 0, 0)  # PR_GET_DUMPABLE


def main() -> int:
    """Serve jobs from stdin until it closes; one JSON line per job on stdout."""
    if os.getpid() != 1:
        sys.stderr.write("the sandbox runner must be PID 1 of its container (it kills every other process)\n")
        return 2
    if os.geteuid() != 0 or 0 in (JOB_UID, GRADER_UID) or JOB_UID == GRADER_UID:
        sys.stderr.write(f"the sandbox runner must start as root (with CAP_SETUID/CAP_SETGID) to run jobs as uid "
                         f"{JOB_UID} and the grader as uid {GRADER_UID}, two different non-root users; it runs as "
                         f"uid {os.geteuid()}\n")
        return 2
    os.chdir("/")  # nothing a job can write is the runner's or the grader's working directory
    os.setgroups([])  # root's supplementary groups: no process of the container keeps any
    install_seccomp(seccomp_program(os.uname().machine))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # PID 1: nothing inside the container may stop it
    if _set_dumpable(0) != 0:
        sys.stderr.write("could not make the runner non-dumpable\n")
        return 2
    for name in PRELOAD:
        importlib.import_module(name)
    # Set once here rather than in every job: what a forked job inherits costs it nothing.
    _set_limit(resource.RLIMIT_CORE, 0)
    sys.argv = ["solution.py"]
    compile("", "<warm-up>", "exec")  # builds the AST types once here, not in every job (~0.8 ms each)
    gc.collect()
    gc.freeze()  # forked jobs then never traverse (and copy-on-write) the runner's objects
    ctypes.CDLL(None).malloc_trim(0)  # free heap pages (start-up garbage) are not copied into every fork
    server = ForkServer()
    server.start()  # before the first job: no candidate process inherits memory that held a job's data
    grader = Grader()
    grader.start()
    state = own_state()
    idle = kernel_held()
    _write_line({"ready": True, "runner": RUNNER_VERSION, "python": sys.version.split()[0], "uid": os.getuid(),
                 "job_uid": JOB_UID, "grader_uid": GRADER_UID})
    while True:
        size = read_frame_length(0)
        if size is None:
            grader.stop()
            return 0
        header = json.loads(read_exact(0, size) or b"{}")
        candidate = json.loads(read_exact(0, read_frame_length(0) or 0) or b"{}")
        try:
            if own_state() != state:
                raise SandboxFault("the runner's limits or scheduling changed")
            result = run_job(header, candidate, grader, server)
        except (OSError, ValueError, KeyError, TypeError, EOFError, SandboxFault) as exc:
            error = f"runner: {_exception_text(exc)}"
            result = {"status": JobStatus.SANDBOX_ERROR, "tests": [], "error": error, "fatal": error}
            grader.stop()
        del candidate
        result["id"] = header.get("id")
        if not sweep(helpers(grader, server)):
            _write_line(dict(result, fatal="processes survived the sweep"))
            return 1
        leftovers = scrub()
        if leftovers:
            result["fatal"] = f"files survived the scrub: {leftovers[:5]}"
        if grader.sock is not None:
            os.kill(grader.pid, signal.SIGCONT)  # a candidate may have stopped it
        if not grader.alive or grader.jobs >= GRADER_JOBS:
            grader.stop()
        if grader.sock is None:
            grader.start()
        left_in_kernel = drift(idle, kernel_held())
        if left_in_kernel:
            leftovers.append("the container did not return to idle")
            result["fatal"] = f"the container did not return to idle: {left_in_kernel}"
        _write_line(result)
        if leftovers:
            return 1


if __name__ == "__main__":
    sys.exit(main())

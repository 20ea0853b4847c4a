"""Returning the container to idle after every program run and every job: every process but the
runner's helpers killed (:func:`sweep`), the writable places and System V IPC wiped
(:func:`scrub`), and what the kernel holds outside every process compared with its idle baseline
(:func:`kernel_held`, :func:`drift`)."""

from __future__ import annotations

import errno
import functools
import os
import select
import signal
import time
from collections.abc import Callable, Sequence
from typing import Any

from rlenv.sandbox.runner.confinement import JOB_UID, become, install_fds
from rlenv.sandbox.runner.procfs import read_small

#: Writable places wiped after every job.
SCRUB_DIRS = ("/tmp", "/dev/shm", "/dev/mqueue")
#: Most shared memory (tmpfs, SysV, memfd pages) the container's cgroup may hold after a job
#: beyond its idle baseline, bytes: page-rounding noise, not a job's leftovers.
SHMEM_SLACK = 4 << 20
#: How long a difference from the idle baseline may take to go (a socket the kernel is still releasing as a job ends),
#: and how often it is read again meanwhile, seconds.
DRIFT_SETTLE_S = 0.5
DRIFT_POLL_S = 0.02
#: The container's task counter (cgroup v1, v2): every process and thread, zombies included.
PIDS_CURRENT = ("/sys/fs/cgroup/pids/pids.current", "/sys/fs/cgroup/pids.current")


def _in_use(root: str) -> tuple[int, int] | None:
    """Blocks and inodes in use on the file system at ``root`` (None if there is none)."""
    try:
        stat = os.statvfs(root)
    except OSError:
        return None
    return stat.f_blocks - stat.f_bfree, stat.f_files - stat.f_ffree


def _sockets() -> int:
    """Sockets of every family open in this network namespace (``/proc/net/sockstat``: one counter)."""
    for line in read_small("/proc/net/sockstat").splitlines():
        if line.startswith(b"sockets: used "):
            return int(line[14:])
    return -1


def kernel_held(idle: dict | None = None) -> dict:
    """What the container's kernel holds outside every process: blocks and inodes in use on each
    scrubbed tmpfs, unix sockets, and the shared memory charged to the container's cgroup.

    With the ``idle`` baseline, the unix sockets are counted (``/proc/net/unix``, a listing) only
    when the namespace's count of all sockets differs from its idle count: the sockets of an idle
    container (the runner's own unix sockets, and the network namespace's) are the same after every
    job, so an equal count means no socket of a job, unix or other, is left over."""
    state: dict[str, Any] = {}
    for root in SCRUB_DIRS[:2]:
        used = _in_use(root)
        if used is not None:
            state[root] = used
    state["sockets"] = _sockets()
    if idle is not None and state["sockets"] == idle["sockets"] != -1:
        state["unix sockets"] = idle["unix sockets"]
    else:
        state["unix sockets"] = read_small("/proc/net/unix").count(b"\n") - 1
    for path in ("/sys/fs/cgroup/memory/memory.stat", "/sys/fs/cgroup/memory.stat"):
        for line in read_small(path).splitlines():
            name, _, value = line.partition(b" ")
            if name == b"shmem":
                state["shmem"] = int(value)
    return state


def drift(idle: dict, now: dict) -> list[str]:
    """How the container's kernel-held state ``now`` differs from its ``idle`` baseline (see
    :func:`kernel_held`): a job left something there that no scrub can remove. (Sockets of other
    families than unix, e.g. a closing TCP connection, are not drift: they do not outlive the
    kernel's own timers.)"""
    return [f"{name}: {now.get(name)} (idle: {value})" for name, value in idle.items() if name != "sockets" and
            (now.get(name, 0) > value + SHMEM_SLACK if name == "shmem" else now.get(name) != value)]


def settled_drift(idle: dict) -> list[str]:
    """:func:`drift` from ``idle`` that lasts: read again for up to ``DRIFT_SETTLE_S`` while there is any, so a socket
    the kernel is still releasing as a job ends (seen once in a full CI run after a fresh container's first job:
    "unix sockets: 9 (idle: 8)") is not taken for one the job left; what a job left stays."""
    deadline = time.monotonic() + DRIFT_SETTLE_S
    while True:
        left = drift(idle, kernel_held(idle))
        if not left or time.monotonic() >= deadline:
            return left
        time.sleep(DRIFT_POLL_S)


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


def only_helpers(pidfds: Sequence[int]) -> bool:
    """Whether the container's only tasks are PID 1 and the processes behind ``pidfds``, all
    alive: the pids cgroup counts every task, zombies included, and a pidfd tells whether its own
    process (never another that reused its pid) has exited. Then a :func:`sweep` has nothing to
    kill or reap. False when the counter cannot be read."""
    for path in PIDS_CURRENT:
        count = read_small(path).strip()
        if count:
            return int(count) == 1 + len(pidfds) and not select.select(list(pidfds), [], [], 0)[0]
    return False


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


def _inodes_at_idle(root: str, idle: tuple[int, int]) -> bool:
    """Whether the inodes in use at ``root`` are as many as in its ``idle`` (blocks, inodes)."""
    used = _in_use(root)
    return used is not None and used[1] == idle[1]


def empty_directory(root: str, emptied: Callable[[], bool] | None = None) -> None:
    """Remove everything below the directory ``root``, whatever a job made there: any depth, names
    that add up to paths longer than ``PATH_MAX``, directories without permissions, symlinks
    (never followed), any number of entries. Iterative, streaming and relative to directory
    descriptors: the subdirectories of a directory being removed are first moved up into
    ``root``, so no more than two directories are open, no path is ever longer than one name, and
    the memory used does not grow with what the job made. (The runner may bypass permissions.)
    ``emptied``, when given, tells after a pass whether ``root`` is empty without listing it again."""
    root_fd = os.open(root, _DIR_FLAGS)
    try:
        while _remove_entries(root_fd) and not (emptied and emptied()):
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


def scrub(idle: dict | None = None, made: Sequence[str] = ()) -> list[str]:
    """Remove every file a job could have written; returns what could not be removed. The
    directories the runner ``made`` for the job are removed first if they are empty. With the
    ``idle`` baseline of :func:`kernel_held`, a tmpfs whose inodes in use are back to their idle
    count holds nothing a job made (every file, directory, link or socket is an inode) and is
    not listed again."""
    for path in made:
        try:
            os.rmdir(path)
        except OSError:
            pass  # not empty, or gone: what is there is removed below
    left = []
    for root in SCRUB_DIRS:
        emptied = None
        if idle is not None and root in idle:
            if _inodes_at_idle(root, idle[root]):
                continue
            emptied = functools.partial(_inodes_at_idle, root, idle[root])
        try:
            empty_directory(root, emptied)
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
            install_fds({0: null, 1: null, 2: null})
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
    return any(read_small(f"/proc/sysvipc/{kind}").count(b"\n") > 1 for kind in ("shm", "sem", "msg"))

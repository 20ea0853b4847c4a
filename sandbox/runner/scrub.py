"""Returning the container to idle after every program run and every job: every process but the
runner's helpers killed (:func:`sweep`), the writable places and System V IPC wiped
(:func:`scrub`), and what the kernel holds outside every process compared with its idle baseline
(:func:`kernel_held`, :func:`drift`)."""

from __future__ import annotations

import errno
import os
import signal
import time
from typing import Any

from rlenv.sandbox.runner.confinement import JOB_UID, become, install_fds
from rlenv.sandbox.runner.procfs import read_small

#: Writable places wiped after every job.
SCRUB_DIRS = ("/tmp", "/dev/shm", "/dev/mqueue")
#: Most shared memory (tmpfs, SysV, memfd pages) the container's cgroup may hold after a job
#: beyond its idle baseline, bytes: page-rounding noise, not a job's leftovers.
SHMEM_SLACK = 4 << 20


def kernel_held() -> dict:
    """What the container's kernel holds outside every process: blocks and inodes in use on each
    scrubbed tmpfs, unix sockets, and the shared memory charged to the container's cgroup."""
    state: dict[str, Any] = {}
    for root in SCRUB_DIRS[:2]:
        try:
            stat = os.statvfs(root)
        except OSError:
            continue
        state[root] = (stat.f_blocks - stat.f_bfree, stat.f_files - stat.f_ffree)
    state["unix sockets"] = read_small("/proc/net/unix").count(b"\n") - 1
    for path in ("/sys/fs/cgroup/memory/memory.stat", "/sys/fs/cgroup/memory.stat"):
        for line in read_small(path).splitlines():
            name, _, value = line.partition(b" ")
            if name == b"shmem":
                state["shmem"] = int(value)
    return state


def drift(idle: dict, now: dict) -> list[str]:
    """How the container's kernel-held state ``now`` differs from its ``idle`` baseline (see
    :func:`kernel_held`): a job left something there that no scrub can remove."""
    return [f"{name}: {now.get(name)} (idle: {value})" for name, value in idle.items()
            if (now.get(name, 0) > value + SHMEM_SLACK if name == "shmem" else now.get(name) != value)]


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

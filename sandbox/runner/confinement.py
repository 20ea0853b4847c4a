"""Confinement of the runner's processes: the users they run as, the capabilities they keep, their
resource limits and exactly which descriptors they hold. The seccomp filters are in
:mod:`rlenv.sandbox.runner.seccomp`."""

from __future__ import annotations

import ctypes
import fcntl
import math
import os
import resource

#: uid (= gid) of every candidate process and of the grader, given by the host: two unprivileged
#: users, different from each other and from the runner's (root, holding only the capabilities it
#: needs). A candidate can then signal, trace, re-limit or re-schedule only its own job's processes.
JOB_UID = int(os.environ.get("RLENV_JOB_UID", "65534"))
GRADER_UID = int(os.environ.get("RLENV_GRADER_UID", "65533"))
CAP_KILL = 1 << 5
LIBC = ctypes.CDLL(None, use_errno=True)
#: Resource limits the runner and the grader check on themselves before every job.
_WATCHED_LIMITS = (resource.RLIMIT_AS, resource.RLIMIT_CPU, resource.RLIMIT_FSIZE, resource.RLIMIT_NOFILE,
                   resource.RLIMIT_NPROC)


def install_fds(targets: dict) -> None:
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


def set_limit(kind: int, value: int) -> None:
    resource.setrlimit(kind, (value, value))


def become(uid: int, keep_caps: int = 0) -> None:
    """Switch this process (root) to user and group ``uid`` with no supplementary groups,
    keeping only the capabilities in the bit mask ``keep_caps`` (none by default)."""
    if keep_caps:
        LIBC.prctl(8, 1, 0, 0, 0)  # PR_SET_KEEPCAPS: the permitted set survives the uid change
    if os.getgroups():  # main() already cleared them: every credential change costs a forked job ~15 us
        os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    if keep_caps:
        header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
        data = (ctypes.c_uint32 * 6)(keep_caps, keep_caps, 0, 0, 0, 0)  # effective, permitted, inheritable
        if LIBC.capset(header, data) != 0:
            raise OSError(ctypes.get_errno(), "capset failed")
        LIBC.prctl(8, 0, 0, 0, 0)


#: The resource limits of a candidate process, in the order of a
#: :data:`~rlenv.sandbox.runner.records.CANDIDATE_JOB` record.
CANDIDATE_RLIMITS = (resource.RLIMIT_NOFILE, resource.RLIMIT_FSIZE, resource.RLIMIT_CPU, resource.RLIMIT_AS)


def candidate_rlimits(limits: dict) -> tuple:
    """The values of :data:`CANDIDATE_RLIMITS` for a job's ``limits``."""
    return (int(limits["max_open_files"]), int(limits["max_file_bytes"]), int(math.ceil(limits["timeout_s"])) + 1,
            int(limits["memory_mb"]) << 20)


def own_state() -> tuple:
    """This process's resource limits, niceness, CPU affinity and scheduling policy."""
    return (tuple(resource.getrlimit(r) for r in _WATCHED_LIMITS), os.getpriority(os.PRIO_PROCESS, 0),
            os.sched_getaffinity(0), os.sched_getscheduler(0))


def set_dumpable(value: int) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(4, value, 0, 0, 0)  # PR_SET_DUMPABLE
    return libc.prctl(3, 0, 0, 0, 0)  # PR_GET_DUMPABLE

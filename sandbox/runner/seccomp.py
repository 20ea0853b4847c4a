"""The seccomp filters: one the runner installs on itself at start-up (every process of the container
inherits it), and one the fork server adds, so that every candidate process has both."""

from __future__ import annotations

import ctypes

from rlenv.sandbox.runner.confinement import LIBC

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
    program = (_SockFilter * len(code))(*[_SockFilter(*instruction) for instruction in code])
    return _SockFprog(len(code), ctypes.cast(program, ctypes.POINTER(_SockFilter)))


def install_seccomp(program: _SockFprog) -> None:
    """Filter this process, and every process it forks from now on, with ``program``. The runner
    installs :func:`seccomp_program` once at start-up (compiling a filter in every forked job
    would cost more than the rest of a trivial job's set-up): the runner and the grader never need
    those syscalls either; the fork server adds :func:`candidate_filter`."""
    if LIBC.prctl(38, 1, 0, 0, 0) != 0 or LIBC.prctl(22, 2, ctypes.byref(program), 0, 0) != 0:
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
    program = (_SockFilter * len(code))(*[_SockFilter(*instruction) for instruction in code])
    return _SockFprog(len(code), ctypes.cast(program, ctypes.POINTER(_SockFilter)))

"""The seccomp filters, installed in a forked child of the test process: what they deny fails with
EPERM, what they allow still works."""

import ast
import ctypes
import errno
import os
import socket

import pytest

from rlenv.sandbox.runner.seccomp import (
    CANDIDATE_DENIED,
    DENIED_SYSCALLS,
    candidate_filter,
    install_seccomp,
    seccomp_program,
)
from tests.sandbox.runner.forked import in_child

MACHINE = os.uname().machine
LIBC = ctypes.CDLL(None, use_errno=True)
#: Syscall numbers of this machine that the runner's filter denies and a test can make harmlessly.
UNSHARE = {"x86_64": 272, "aarch64": 97}[MACHINE]


def _errno_of(call) -> int:
    """0 when ``call()`` succeeded, else its errno."""
    try:
        call()
    except OSError as exc:
        return exc.errno or -1
    return 0


def _syscall(number: int, *args: int) -> None:
    if LIBC.syscall(number, *args) == -1:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


def _outcomes(filters: list, calls: dict) -> dict:
    """Under ``filters``, the errno each of ``calls`` fails with (0: it worked), reported through a pipe."""
    read_end, write_end = os.pipe()

    def body():
        for program in filters:
            install_seccomp(program)
        os.write(write_end, repr({name: _errno_of(call) for name, call in calls.items()}).encode())
        os._exit(0)

    assert in_child(body) == 0
    os.close(write_end)
    report = os.read(read_end, 1 << 16)
    os.close(read_end)
    return ast.literal_eval(report.decode())


CALLS = {
    "unix socket": lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close(),
    "socketpair": lambda: [s.close() for s in socket.socketpair()],
    "memfd": lambda: os.close(os.memfd_create("x")),
    "inet socket": lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close(),
    "unshare (new user namespace)": lambda: _syscall(UNSHARE, 0x10000000),
    "pipe": lambda: [os.close(fd) for fd in os.pipe()],
}


def test_without_filters_every_call_works():
    outcomes = _outcomes([], {k: v for k, v in CALLS.items() if not k.startswith("unshare")})
    assert set(outcomes.values()) == {0}, outcomes


def test_the_runner_filter_denies_the_kernel_surface_and_allows_the_rest():
    outcomes = _outcomes([seccomp_program(MACHINE)], CALLS)
    assert outcomes["unshare (new user namespace)"] == errno.EPERM
    assert {k: v for k, v in outcomes.items() if not k.startswith("unshare")} == dict.fromkeys(
        ["unix socket", "socketpair", "memfd", "inet socket", "pipe"], 0)


def test_the_candidate_filter_denies_unix_sockets_and_memfds_only():
    outcomes = _outcomes([seccomp_program(MACHINE), candidate_filter(MACHINE)], CALLS)
    assert outcomes == {"unix socket": errno.EPERM, "socketpair": errno.EPERM, "memfd": errno.EPERM, "inet socket": 0,
                        "unshare (new user namespace)": errno.EPERM, "pipe": 0}


def test_the_denied_lists_name_each_architecture_the_runner_knows():
    assert set(DENIED_SYSCALLS) == set(CANDIDATE_DENIED) == {"x86_64", "aarch64"}
    assert UNSHARE in DENIED_SYSCALLS[MACHINE][1]


@pytest.mark.parametrize("build", [seccomp_program, candidate_filter])
def test_an_unknown_machine_is_refused_by_name(build):
    with pytest.raises(OSError, match="'sparc'"):
        build("sparc")

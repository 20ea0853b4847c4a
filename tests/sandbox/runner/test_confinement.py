"""Confinement of the runner's processes, each piece in a forked child of the test process (which runs
as root, as the runner does): exact descriptors, users and capabilities, resource limits."""

import os
import resource

from rlenv.sandbox.runner.confinement import (
    CANDIDATE_RLIMITS,
    CAP_KILL,
    become,
    candidate_rlimits,
    install_fds,
    own_state,
    set_dumpable,
    set_limit,
)
from tests.sandbox.runner.forked import in_child, is_open


def test_install_fds_swaps_colliding_descriptors_and_closes_the_rest():
    first_r, first_w = os.pipe()
    second_r, second_w = os.pipe()
    extra = os.open(os.devnull, os.O_RDONLY)

    def body():
        os.dup2(first_w, 4)  # source of target 3 is fd 4, source of target 4 is fd 3: a swap
        os.dup2(second_w, 3)
        install_fds({0: extra, 3: 4, 4: 3})
        os.write(3, b"to first")
        os.write(4, b"to second")
        os._exit(0 if [fd for fd in range(256) if is_open(fd)] == [0, 3, 4] else 3)

    assert in_child(body) == 0
    for fd in (first_w, second_w, extra):
        os.close(fd)
    assert os.read(first_r, 100) == b"to first" and os.read(second_r, 100) == b"to second"
    os.close(first_r)
    os.close(second_r)


def _capabilities() -> dict[str, int]:
    with open("/proc/self/status") as status:
        return {line.split(":")[0]: int(line.split()[1], 16) for line in status if line.startswith("Cap")}


def test_become_drops_to_the_user_with_no_groups_and_no_capabilities():
    assert os.geteuid() == 0, "the runner starts as root; so does this test"

    def body():
        os.setgroups([0, 1])
        become(65534)
        ids = (os.getresuid(), os.getresgid(), os.getgroups())
        caps = _capabilities()
        os._exit(0 if ids == ((65534,) * 3, (65534,) * 3, []) and caps["CapEff"] == caps["CapPrm"] == 0 else 3)

    assert in_child(body) == 0


def test_become_keeps_exactly_the_capabilities_asked_for():
    def body():
        become(65533, keep_caps=CAP_KILL)
        caps = _capabilities()
        os._exit(0 if os.getuid() == 65533 and caps["CapEff"] == caps["CapPrm"] == CAP_KILL else 3)

    assert in_child(body) == 0


def test_candidate_rlimits_follow_the_job_limits_in_order():
    limits = {"max_open_files": 64, "max_file_bytes": 1 << 20, "timeout_s": 2.5, "memory_mb": 256}
    values = candidate_rlimits(limits)
    assert len(values) == len(CANDIDATE_RLIMITS)
    assert dict(zip(CANDIDATE_RLIMITS, values, strict=True)) == {
        resource.RLIMIT_NOFILE: 64, resource.RLIMIT_FSIZE: 1 << 20, resource.RLIMIT_CPU: 4,  # ceil(2.5) + 1
        resource.RLIMIT_AS: 256 << 20}

    def body():
        for kind, value in zip(CANDIDATE_RLIMITS, values, strict=True):
            set_limit(kind, value)
        os._exit(0 if resource.getrlimit(resource.RLIMIT_NOFILE) == (64, 64) else 3)

    assert in_child(body) == 0


def test_own_state_sees_a_changed_limit_or_niceness():
    def changed(change) -> int:
        def body():
            before = own_state()
            change()
            os._exit(0 if own_state() != before else 3)

        return in_child(body)

    assert changed(lambda: os.nice(1)) == 0
    assert changed(lambda: resource.setrlimit(resource.RLIMIT_NPROC, (100, 100))) == 0
    assert changed(lambda: None) == 3  # nothing changed: same state


def test_set_dumpable_reports_the_new_value():
    assert in_child(lambda: os._exit(10 + set_dumpable(0))) == 10
    assert in_child(lambda: os._exit(10 + set_dumpable(1))) == 11

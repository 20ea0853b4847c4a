"""Scrubbing pieces that can run outside a container: emptying a directory of whatever a job made,
and the drift of kernel-held state. (``sweep`` and ``scrub`` act on the whole machine they run on:
they are exercised inside containers by tests/sandbox/test_adversarial.py and test_redteam.py.)"""

import os
import time

from rlenv.sandbox.runner import scrub
from rlenv.sandbox.runner.procfs import read_small
from rlenv.sandbox.runner.scrub import SHMEM_SLACK, drift, empty_directory


def _nest(root, depth: int, name: str) -> None:
    """``depth`` nested directories below ``root``, made relative to directory descriptors (the
    whole path is far longer than PATH_MAX), a file at the bottom."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir(name, dir_fd=fd)
        inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(os.open("bottom", os.O_CREAT | os.O_WRONLY, dir_fd=fd))
    os.close(fd)


def test_empty_directory_removes_any_depth_any_permissions_never_following_links(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "keep").write_text("kept")
    _nest(root, 400, "d" * 40)  # 16,400 characters of path
    locked = root / "locked"
    (locked / "inner").mkdir(parents=True)
    (locked / "inner" / "file").write_text("x")
    os.chmod(locked / "inner", 0)
    os.chmod(locked, 0)
    (root / "link").symlink_to(outside, target_is_directory=True)
    (root / "file-link").symlink_to(outside / "keep")
    for i in range(2000):
        (root / f"many-{i}").write_bytes(b"")
    empty_directory(str(root))
    assert os.listdir(root) == []
    assert (outside / "keep").read_text() == "kept"


def test_empty_directory_of_an_empty_directory_leaves_it_there(tmp_path):
    empty_directory(str(tmp_path))
    assert tmp_path.is_dir() and os.listdir(tmp_path) == []


IDLE = {"/tmp": (10, 3), "/dev/shm": (0, 1), "unix sockets": 4, "shmem": 1 << 20}


def test_drift_is_empty_when_the_container_is_back_to_idle():
    assert drift(IDLE, dict(IDLE)) == []
    assert drift(IDLE, dict(IDLE, shmem=IDLE["shmem"] + SHMEM_SLACK)) == []  # page-rounding noise


def test_drift_names_each_thing_a_job_left_in_the_kernel():
    now = dict(IDLE, **{"/tmp": (11, 4), "unix sockets": 5, "shmem": IDLE["shmem"] + SHMEM_SLACK + 1})
    assert drift(IDLE, now) == ["/tmp: (11, 4) (idle: (10, 3))", "unix sockets: 5 (idle: 4)",
                                f"shmem: {now['shmem']} (idle: {IDLE['shmem']})"]
    assert drift(IDLE, {k: v for k, v in IDLE.items() if k != "unix sockets"}) == ["unix sockets: None (idle: 4)"]


def test_empty_directory_stops_listing_once_told_the_directory_is_empty(tmp_path):
    """A pass moves the subdirectories of a removed directory up into the root: without ``emptied``
    the next pass removes them; with an ``emptied`` that says so after the first pass, no second
    pass runs (the scrub asks the tmpfs's inode count instead of listing the root again)."""
    for root in (tmp_path / "listed", tmp_path / "told"):
        (root / "outer" / "inner").mkdir(parents=True)
    empty_directory(str(tmp_path / "listed"))
    assert os.listdir(tmp_path / "listed") == []
    passes = []
    empty_directory(str(tmp_path / "told"), lambda: passes.append(1) is None)
    assert passes == [1] and [name.startswith(".scrub-") for name in os.listdir(tmp_path / "told")] == [True]


def _child_waiting(read_fd: int, write_fd: int) -> int:
    """A child that lives until ``write_fd`` (the parent's) is closed."""
    pid = os.fork()
    if pid == 0:
        try:
            os.close(write_fd)
            os.read(read_fd, 1)
        finally:
            os._exit(0)
    return pid


def test_only_helpers_when_the_task_count_is_theirs_and_every_one_is_alive(tmp_path, monkeypatch):
    """Real processes behind real pidfds; the pids cgroup's counter is a file standing in for it."""
    counter = tmp_path / "pids.current"
    monkeypatch.setattr(scrub, "PIDS_CURRENT", (str(tmp_path / "absent"), str(counter)))
    release_r, release_w = os.pipe()
    pids = [_child_waiting(release_r, release_w) for _ in range(2)]
    pidfds = [os.pidfd_open(pid) for pid in pids]
    try:
        assert not scrub.only_helpers(pidfds)  # no counter to read: the caller lists /proc
        counter.write_text("3\n")
        assert scrub.only_helpers(pidfds)
        counter.write_text("4\n")
        assert not scrub.only_helpers(pidfds)  # a task that is none of them
        counter.write_text("3\n")
        os.kill(pids[1], 9)
        os.waitpid(pids[1], 0)
        assert not scrub.only_helpers(pidfds)  # one of them is gone: its pid may be another's now
    finally:
        os.close(release_w)
        os.waitpid(pids[0], 0)
        for fd in (*pidfds, release_r):
            os.close(fd)


def test_kernel_held_lists_unix_sockets_only_when_the_socket_count_moved(monkeypatch):
    """This machine's /proc/net/unix; the namespace's socket counter is a value standing in for
    /proc/net/sockstat (which other processes move)."""
    assert scrub._sockets() > 0  # the real counter parses
    monkeypatch.setattr(scrub, "_sockets", lambda: 5)
    listed = []
    monkeypatch.setattr(scrub, "read_small", lambda path: listed.append(path) or read_small(path))
    idle = dict(scrub.kernel_held(), **{"unix sockets": -7})
    assert "/proc/net/unix" in listed  # no baseline: counted
    listed.clear()
    assert scrub.kernel_held(idle)["unix sockets"] == -7 and "/proc/net/unix" not in listed  # count unmoved
    moved = scrub.kernel_held(dict(idle, sockets=4))
    assert moved["unix sockets"] >= 0 and "/proc/net/unix" in listed
    assert drift(dict(idle, sockets=4), dict(idle, sockets=5)) == []  # other families than unix are not drift


def test_settled_drift_waits_out_a_socket_still_closing_and_keeps_what_a_job_left(monkeypatch):
    """The kernel's counts are values standing in for /proc (which other processes on this machine move): a unix
    socket still being released as the job ends is gone at the next reads; one a job left stays."""
    closing = iter([{"unix sockets": 5}, {"unix sockets": 5}, {"unix sockets": 4}])
    monkeypatch.setattr(scrub, "kernel_held", lambda idle=None: next(closing))
    assert scrub.settled_drift({"unix sockets": 4}) == []
    monkeypatch.setattr(scrub, "kernel_held", lambda idle=None: {"unix sockets": 5})
    began = time.monotonic()
    assert scrub.settled_drift({"unix sockets": 4}) == ["unix sockets: 5 (idle: 4)"]
    assert time.monotonic() - began >= scrub.DRIFT_SETTLE_S

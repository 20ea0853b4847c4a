"""Scrubbing pieces that can run outside a container: emptying a directory of whatever a job made,
and the drift of kernel-held state. (``sweep`` and ``scrub`` act on the whole machine they run on:
they are exercised inside containers by tests/sandbox/test_adversarial.py and test_redteam.py.)"""

import os

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

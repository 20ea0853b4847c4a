"""Small procfs/sysfs files, kept open by the process that opened them."""

import os

from rlenv.sandbox.runner.procfs import oom_kills, read_small
from tests.sandbox.runner.forked import in_child


def test_read_small_reopens_in_a_forked_process_whose_descriptors_were_replaced(tmp_path):
    path = tmp_path / "counter"
    path.write_text("1")
    assert read_small(str(path)) == b"1"  # now kept open here
    path.write_text("2")
    assert read_small(str(path)) == b"2"  # read again, not cached

    def body():
        os.closerange(3, 1 << 20)  # like a helper process's descriptor set-up
        os.pipe()  # takes the number of the closed descriptor
        os._exit(0 if read_small(str(path)) == b"2" else 3)

    assert in_child(body) == 0


def test_read_small_of_a_missing_file_is_empty(tmp_path):
    assert read_small(str(tmp_path / "missing")) == b""


def test_oom_kills_reads_this_machine_cgroup_counter():
    """A count, never negative; 0 only where neither cgroup file exists or lists it."""
    kills = oom_kills()
    assert type(kills) is int and kills >= 0
    listed = [line for path in ("/sys/fs/cgroup/memory/memory.oom_control", "/sys/fs/cgroup/memory.events")
              for line in read_small(path).splitlines() if line.startswith(b"oom_kill ")]
    assert kills == (int(listed[0].split()[1]) if listed else 0)

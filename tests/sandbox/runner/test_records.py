"""Fixed-layout records between the fork server and candidate processes, on a real ``SOCK_SEQPACKET`` pair."""

import os
import socket

import pytest

from rlenv.sandbox.runner.faults import SandboxFault
from rlenv.sandbox.runner.records import CANDIDATE_JOB, FORK_ANSWER, FORKED, recv_record, send_record
from tests.sandbox.runner.forked import is_open


@pytest.fixture
def pair():
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    yield ours, theirs
    ours.close()
    theirs.close()


def test_a_record_travels_whole_with_its_descriptors(pair):
    ours, theirs = pair
    read_end, write_end = os.pipe()
    send_record(ours, FORK_ANSWER.pack(FORKED, 1234, 0), [write_end])
    record, fds = recv_record(theirs, FORK_ANSWER.size, 1)
    assert FORK_ANSWER.unpack(record) == (FORKED, 1234, 0) and len(fds) == 1 and fds[0] != write_end
    os.write(fds[0], b"through the passed descriptor")
    assert os.read(read_end, 100) == b"through the passed descriptor"
    for fd in (read_end, write_end, fds[0]):
        os.close(fd)


def test_a_candidate_job_record_holds_limits_then_the_work_directory(pair):
    ours, theirs = pair
    send_record(ours, CANDIDATE_JOB.pack(True, 64, 1 << 20, 3, 256 << 20) + b"/tmp/job-1")
    record, fds = recv_record(theirs, CANDIDATE_JOB.size + 4096, 8)
    assert fds == [] and CANDIDATE_JOB.unpack_from(record) == (True, 64, 1 << 20, 3, 256 << 20)
    assert record[CANDIDATE_JOB.size:] == b"/tmp/job-1"


def test_a_longer_record_is_a_fault_and_its_descriptors_are_closed(pair):
    ours, theirs = pair
    read_end, write_end = os.pipe()
    before = sorted(fd for fd in range(1024) if is_open(fd))
    send_record(ours, b"x" * 100, [read_end, write_end])
    with pytest.raises(SandboxFault, match="longer than 10 bytes or with more than 2 descriptors"):
        recv_record(theirs, 10, 2)
    assert sorted(fd for fd in range(1024) if is_open(fd)) == before  # the received copies were closed
    send_record(ours, b"y", [read_end, write_end, read_end])
    with pytest.raises(SandboxFault):
        recv_record(theirs, 10, 2)
    assert sorted(fd for fd in range(1024) if is_open(fd)) == before
    os.close(read_end)
    os.close(write_end)


def test_the_end_of_the_stream_is_an_empty_record(pair):
    ours, theirs = pair
    ours.close()
    assert recv_record(theirs, 10, 1) == (b"", [])

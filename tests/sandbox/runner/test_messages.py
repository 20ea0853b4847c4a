"""Messages between the runner and the grader, on a real socket pair: header, JSON meta, payload, descriptors."""

import json
import os
import socket

from rlenv.sandbox.runner.messages import MESSAGE, recv_message, send_message, serve
from tests.sandbox.runner.forked import fork_running


def test_a_message_round_trips_with_its_descriptors():
    ours, theirs = socket.socketpair()
    read_end, write_end = os.pipe()
    send_message(ours, {"nonce": "ab" * 16, "tests": ["x" * 100_000]}, [write_end])
    meta, payload, fds = recv_message(theirs)
    assert meta == {"nonce": "ab" * 16, "tests": ["x" * 100_000]} and payload == b"" and len(fds) == 1
    os.write(fds[0], b"ok")
    assert os.read(read_end, 10) == b"ok"
    for fd in (read_end, write_end, fds[0]):
        os.close(fd)
    ours.close()
    theirs.close()


def test_a_job_message_arriving_in_pieces_is_read_whole():
    """As the runner sends a job (one buffer: header, meta, grader part), cut into small writes."""
    ours, theirs = socket.socketpair()
    meta, payload = json.dumps({"mode": "program"}).encode(), b'{"expected": ["1"]}' * 1000
    message = MESSAGE.pack(len(meta), len(payload)) + meta + payload
    pid = fork_running(lambda: [ours.send(message[start:start + 7]) for start in range(0, len(message), 7)])
    received = recv_message(theirs)
    os.waitpid(pid, 0)
    assert received == ({"mode": "program"}, payload, [])
    ours.close()
    assert recv_message(theirs) is None  # end of the stream
    theirs.close()


def test_serve_answers_each_message_and_exits_at_the_end_of_the_stream():
    ours, theirs = socket.socketpair()

    def body():
        ours.close()
        serve(theirs, lambda meta, payload, fds: {"echo": meta["n"], "payload": payload.decode(), "fds": len(fds)})

    pid = fork_running(body)
    theirs.close()
    replies = []
    for n in range(3):
        meta = json.dumps({"n": n}).encode()
        ours.sendall(MESSAGE.pack(len(meta), 2) + meta + b"hi")
        replies.append(recv_message(ours))
    ours.close()
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0  # serve exits at the end of its stream
    assert [reply[0] for reply in replies] == [{"echo": n, "payload": "hi", "fds": 0} for n in range(3)]

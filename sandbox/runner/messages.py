"""Messages between the runner and the grader: a header (meta length, payload length), the JSON
meta, the payload; descriptors travel with the header."""

from __future__ import annotations

import json
import os
import socket
import struct
from collections.abc import Callable, Sequence
from typing import Any

MESSAGE = struct.Struct(">QQ")


def recv_message(sock: socket.socket) -> tuple[Any, bytes, list[int]] | None:
    """Blocking receive of one message: ``(meta, payload, fds)``, or None at end of stream."""
    head, fds, _flags, _addr = socket.recv_fds(sock, MESSAGE.size, 8)
    if not head:
        return None
    while len(head) < MESSAGE.size:
        more = sock.recv(MESSAGE.size - len(head))
        if not more:
            return None
        head += more
    meta_size, payload_size = MESSAGE.unpack(head)
    body = bytearray(meta_size + payload_size)
    view, got = memoryview(body), 0
    while got < len(body):
        n = sock.recv_into(view[got:])
        if n == 0:
            return None
        got += n
    return json.loads(bytes(view[:meta_size])), bytes(view[meta_size:]), fds


def send_message(sock: socket.socket, meta: dict, fds: Sequence[int] = ()) -> None:
    """Send one message of JSON ``meta``, no payload and the descriptors ``fds`` (see
    :func:`recv_message`)."""
    body = json.dumps(meta, ensure_ascii=True, allow_nan=False).encode()
    data = MESSAGE.pack(len(body), 0) + body
    sent = socket.send_fds(sock, [data], fds) if fds else 0
    if sent < len(data):  # (an empty send to a peer that already read it all and left fails)
        sock.sendall(data[sent:])


def serve(sock: socket.socket, answer: Callable[[Any, bytes, list[int]], dict]) -> None:
    """Answer each message on ``sock`` with ``answer(meta, payload, fds)`` (JSON-ready), the
    message's descriptors closed once it returns; exit at the end of the stream."""
    while True:
        message = recv_message(sock)
        if message is None:
            os._exit(0)
        meta, payload, fds = message
        try:
            reply = answer(meta, payload, fds)
        finally:
            for fd in fds:
                try:
                    os.close(fd)
                except OSError:
                    pass
        send_message(sock, reply)
        del message, meta, payload, reply

"""The grader's side of a candidate in ``function`` mode: :class:`RemoteCandidate` sends requests and
reads replies; :class:`RemoteObject` stands for a candidate object that is not plain data, and
never compares equal to data. The exceptions say how a call ended that is not a plain result."""

from __future__ import annotations

import builtins
import json
import math
from collections.abc import Iterator
from typing import Any, NoReturn

from rlenv.sandbox.protocol import TestStatus, decode_value, encode_value
from rlenv.sandbox.runner.child import Child


class CandidateFault(BaseException):
    """The candidate process stopped answering (timeout, exit, output cap, malformed reply).
    A BaseException, so that ``except Exception`` in test code does not hide it."""

    def __init__(self, status: TestStatus, message: str):
        super().__init__(message)
        self.status = status


class CandidateExit(BaseException):
    """The candidate raised SystemExit / KeyboardInterrupt / GeneratorExit during a call."""


class RemoteError(Exception):
    """The candidate raised an exception that is not a builtin one."""


class GraderTimeout(BaseException):
    """The grader's own work on one test ran past the test's time limit."""


class RemoteObject:
    """A candidate object that is not plain data: it can be called, indexed, iterated, asked for
    attributes, length and truth, each in the candidate process. It never compares equal to
    anything but itself, so an always-true ``__eq__`` cannot pass a test."""

    __slots__ = ("_rpc", "_ref", "_label")

    def __init__(self, rpc: RemoteCandidate, ref: str, label: str):
        object.__setattr__(self, "_rpc", rpc)
        object.__setattr__(self, "_ref", ref)
        object.__setattr__(self, "_label", label)

    def _ask(self, op: str, **fields: Any) -> Any:
        return self._rpc.request(op, self._ref, fields)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._ask("call", args=list(args), kwargs=[[k, v] for k, v in kwargs.items()])

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return self._ask("getattr", name=name)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._ask("iter"))

    def __len__(self) -> int:
        value = self._ask("len")
        if type(value) is not int:
            raise TypeError("len() of a candidate object did not return an int")
        return value

    def __getitem__(self, key: Any) -> Any:
        return self._ask("getitem", key=key)

    def __bool__(self) -> bool:
        return self._ask("bool") is True

    def __repr__(self) -> str:
        return f"<candidate {self._label}>"


class RemoteCandidate:
    """The grader's end of a candidate process in ``function`` mode."""

    def __init__(self, child: Child):
        self.child = child
        self.deadline = math.inf
        self.test_index = -1
        self.fault: TestStatus | None = None
        self.fault_message = ""
        self.fault_test = -1
        self.memory_test = -1
        self.busy = False
        #: The candidate left: its process exited, or it raised SystemExit / KeyboardInterrupt.
        self.exited = False

    def fail(self, status: TestStatus, message: str) -> NoReturn:
        self.fault, self.fault_message, self.fault_test = status, message, self.test_index
        self.child.kill()
        raise CandidateFault(status, message)

    def receive(self) -> dict:
        """Wait for one reply line, until :attr:`deadline`."""
        if self.fault:
            raise CandidateFault(self.fault, self.fault_message)
        why = self.child.pump(self.deadline, want_reply=True)
        if why == "timeout":
            self.fail(TestStatus.TIMEOUT, "time limit exceeded")
        if why == "output_limit":
            self.fail(TestStatus.OUTPUT_LIMIT, f"output exceeded {self.child.cap} bytes")
        if why == "exit":
            if self.child.out_of_memory():
                self.fail(TestStatus.MEMORY, "the candidate process ran out of memory")
            self.exited = True
            self.fail(TestStatus.FAILED, "the candidate process exited")
        try:
            message = json.loads(self.child.take_reply())
            if type(message) is not dict or type(message.get("ok")) is not bool:
                raise ValueError("not a reply")
            if self.child.replies:
                raise ValueError("more than one reply to one request")
            return message
        except (ValueError, RecursionError) as exc:
            self.fail(TestStatus.FAILED, f"malformed reply from the candidate process: {exc}"[:300])

    def request(self, op: str, ref: str, fields: dict) -> Any:
        message = {"op": op, "ref": ref}
        for key, value in fields.items():
            message[key] = encode_value(value, self._ref_of)
        if self.fault is None and self.child.reply_pending():
            self.fail(TestStatus.FAILED, "protocol error: the candidate process wrote a reply before the request")
        self.child.send((json.dumps(message, ensure_ascii=True, allow_nan=False) + "\n").encode())
        self.busy = True
        reply = self.receive()
        self.busy = False
        if reply["ok"]:
            try:
                return decode_value(reply.get("value"), self._remote)
            except (ValueError, TypeError, RecursionError, MemoryError) as exc:
                self.fail(TestStatus.FAILED, f"malformed value from the candidate process: {exc}"[:300])
        raise self._exception(reply)

    def _ref_of(self, value: object) -> str | None:
        return value._ref if type(value) is RemoteObject and value._rpc is self else None

    def _remote(self, ref: str, type_name: str) -> RemoteObject:
        return RemoteObject(self, str(ref), f"{type_name} object")

    def _exception(self, reply: dict) -> BaseException:
        name, message = str(reply.get("type")), str(reply.get("message"))[:2000]
        if name == "MemoryError":
            self.memory_test = self.test_index
        kind = getattr(builtins, name, None)
        if isinstance(kind, type) and issubclass(kind, Exception) and kind.__module__ == "builtins":
            try:
                return kind(message)
            except Exception:
                pass
        if reply.get("base") == "BaseException" or name in ("SystemExit", "KeyboardInterrupt", "GeneratorExit"):
            self.exited = True
            return CandidateExit(message)
        return RemoteError(message)

"""A stateful Python session for multi-turn tool use, built from ordinary sandbox jobs.

Each call is one :class:`~rlenv.sandbox.jobs.ProgramJob` in the pool's warm, hardened
containers: the program replays the session's earlier cells (their output discarded, their
exceptions ignored) and then runs the new cell, printing what it prints and, like a notebook,
the value of a final expression. Variables, functions, imports and files made by earlier cells
are therefore there again, and nothing of the session outlives a call: every job's processes
are killed and its files wiped by the runner, as for any job, so no session process exists
between calls or after the episode, and two sessions share nothing.

What this costs and changes: a call re-runs the earlier cells (the per-call time limit covers
the replay; cells that timed out or ran out of memory are not replayed), and state that depends
on time or other outside input may differ between replays (``random`` is seeded with the
session's seed before each replay, so seeded randomness is stable).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from rlenv.sandbox.jobs import IOCase, JobStatus, Limits, ProgramJob

#: ``CellResult.status`` values: the job's status, or ``budget`` when the session refused the call.
CELL_STATUSES = ("ok", "error", "timeout", "memory", "output_limit", "sandbox_error", "budget")
_REPLAYED = ("ok", "error")  # cells that ran to their end or to an exception are part of the state

_PROGRAM = '''\
import ast, random, sys
_cells = {cells!r}
class _Discard:
    def write(self, text):
        return len(text)
    def flush(self):
        pass
_scope = {{"__name__": "__main__", "__builtins__": __builtins__}}
_out, _err = sys.stdout, sys.stderr
sys.stdout = sys.stderr = _Discard()
random.seed({seed})
for _cell in _cells[:-1]:
    try:
        exec(compile(_cell, "<cell>", "exec"), _scope)
    except BaseException:
        pass
sys.stdout, sys.stderr = _out, _err
_tree = ast.parse(_cells[-1], "<cell>", "exec")
_last = _tree.body.pop() if _tree.body and isinstance(_tree.body[-1], ast.Expr) else None
exec(compile(_tree, "<cell>", "exec"), _scope)
if _last is not None:
    _value = eval(compile(ast.Expression(_last.value), "<cell>", "eval"), _scope)
    if _value is not None:
        print(repr(_value))
'''


@dataclasses.dataclass(frozen=True)
class CellResult:
    """What one call of a :class:`PythonSession` gave.

    Attributes:
        output: Its stdout, then its stderr (a traceback when it raised), cut at the call's limit.
        status: One of :data:`CELL_STATUSES`.
        seconds: The job's time in the container (0 for a refused call).
    """

    output: str
    status: str
    seconds: float = 0.0


class PythonSession:
    """A per-episode Python interpreter whose state lasts between calls (see the module docstring).

    Args:
        pool: A :class:`~rlenv.sandbox.pool.SandboxPool` (the calls are its jobs).
        limits: Per-call limits (time, memory, output) of each job.
        max_calls: The most calls of the session; later calls are refused (status ``budget``).
        max_total_s: The most container seconds all calls together may use; once spent, calls
            are refused.
        max_output_chars: The most characters of output a call returns.
        seed: Seeds ``random`` before each replay.
    """

    def __init__(self, pool: Any, limits: Limits | None = None, max_calls: int = 20, max_total_s: float = 60.0,
                 max_output_chars: int = 4000, seed: int = 0):
        if not hasattr(pool, "run"):
            raise TypeError(f"pool must be a SandboxPool (with .run(job)), got {pool!r}")
        for name, value in (("max_calls", max_calls), ("max_output_chars", max_output_chars)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"PythonSession {name} must be a positive int, got {value!r}")
        if not max_total_s > 0:
            raise ValueError(f"PythonSession max_total_s must be positive, got {max_total_s!r}")
        self.pool = pool
        self.limits = limits or Limits(timeout_s=15.0, test_timeout_s=10.0, memory_mb=512, max_output_bytes=64 << 10)
        self.max_calls = max_calls
        self.max_total_s = float(max_total_s)
        self.max_output_chars = max_output_chars
        self.seed = int(seed)
        self.cells: list[str] = []
        self.calls = 0
        self.total_s = 0.0
        self.closed = False

    def run(self, code: str) -> CellResult:
        """Run one cell; never raises for anything the code does (a refused call is status ``budget``)."""
        if not isinstance(code, str):
            raise TypeError(f"code must be a str, got {type(code).__name__}")
        if self.closed:
            return CellResult("Error: the Python session is closed", "budget")
        if self.calls >= self.max_calls:
            return CellResult(f"Error: the session's {self.max_calls} calls are used up", "budget")
        if self.total_s >= self.max_total_s:
            return CellResult(f"Error: the session's {self.max_total_s:g} s of execution are used up", "budget")
        self.calls += 1
        job = ProgramJob(self.program(code), [IOCase()], limits=self.limits, keep_output_bytes=self.max_output_chars)
        result = self.pool.run(job)
        seconds = float(result.timings.get("job_s", 0.0))
        self.total_s += seconds
        status = _cell_status(result.status)
        if status in _REPLAYED:
            self.cells.append(code)
        return CellResult(_output(result, status, self.max_output_chars), status, seconds)

    def program(self, code: str) -> str:
        """The program a call of ``code`` runs now: the session's cells replayed, then ``code``."""
        return replay_program([*self.cells, code], self.seed)

    def close(self) -> None:
        """End the session: its cells are dropped and later calls are refused."""
        self.cells.clear()
        self.closed = True


def replay_program(cells: Sequence[str], seed: int = 0) -> str:
    """The program that replays ``cells[:-1]`` quietly (``random`` seeded with ``seed``) and runs ``cells[-1]``."""
    return _PROGRAM.format(cells=list(cells), seed=int(seed))


def _cell_status(status: JobStatus) -> str:
    return {JobStatus.OK: "ok", JobStatus.FAILED: "error"}.get(status, status.value)


def _output(result: Any, status: str, limit: int) -> str:
    test = result.tests[0] if result.tests else None
    text = "" if test is None else test.stdout + test.stderr
    notes = {"timeout": "the call ran past its time limit", "memory": "the call ran out of memory",
             "output_limit": "the call wrote more output than allowed",
             "sandbox_error": f"the sandbox failed: {result.error}"}
    if status in notes:
        text = f"{text}\nError: {notes[status]}".lstrip("\n")
    return text if len(text) <= limit else text[:limit] + f"\n[output cut at {limit} characters]"

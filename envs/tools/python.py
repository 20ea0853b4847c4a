"""``PythonToolEnv``: a :class:`~rlenv.tools.ToolEnv` whose policy runs Python in a sandboxed session.

Each episode gets its own :class:`~rlenv.sandbox.session.PythonSession` (variables last between
calls; every call is a job in the hardened sandbox) and closes it when the episode ends. The
verdict never comes from the session: the final answer goes to the env's verifier, which grades
it as it grades a single-turn completion (the math verifier on the host, the code verifier in a
fresh sandbox job with the hidden tests, which never enter a session).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from rlenv.multiturn import Turn
from rlenv.sandbox import Limits, SandboxPool, shared_pool
from rlenv.sandbox.session import PythonSession
from rlenv.sources import TaskSource
from rlenv.tools import Tool, ToolEnv
from rlenv.types import Task, Verifier

#: The ``python`` tool as the policy sees it (OpenAI function format).
PYTHON_TOOL_SCHEMA = {"type": "function", "function": {
    "name": "python",
    "description": "Run Python code in a persistent session (variables, functions and imports stay between "
                   "calls). Prints what the code prints and the value of a final expression.",
    "parameters": {"type": "object", "properties": {"code": {"type": "string", "description": "Python code"}},
                   "required": ["code"]},
}}


class PythonToolEnv(ToolEnv):
    """The policy may call ``python(code)``; a turn without a call is its final answer.

    Args:
        source, verifier: As for :class:`~rlenv.env.TextEnv`.
        pool: The sandbox pool the session's calls run on (default: the process's shared pool).
        call_limits: Per-call :class:`~rlenv.sandbox.Limits` (time, memory, output).
        max_calls, max_total_s: The session's budget: calls, and container seconds in all.
        **kwargs: :class:`~rlenv.tools.ToolEnv`'s settings (``chat``, ``tool_format``,
            ``max_turns``, ``max_output_chars``, ...).

    ``info["python"]`` of every step counts the session's calls by status (``ok``, ``error``,
    ``timeout``, ``memory``, ``output_limit``, ``sandbox_error``, ``budget``).
    """

    def __init__(self, source: TaskSource, verifier: Verifier, pool: SandboxPool | None = None,
                 call_limits: Limits | None = None, max_calls: int = 20, max_total_s: float = 60.0, **kwargs: Any):
        super().__init__(source, verifier, tools=[Tool(self.python, PYTHON_TOOL_SCHEMA)], **kwargs)
        self.pool = pool
        self.call_limits = call_limits
        self.max_calls = max_calls
        self.max_total_s = max_total_s
        self.session: PythonSession | None = None
        self.python_calls: dict[str, int] = {}

    def start_episode(self, task: Task) -> None:
        self.session = PythonSession(self.pool or shared_pool(), limits=self.call_limits, max_calls=self.max_calls,
                                     max_total_s=self.max_total_s, max_output_chars=self.max_output_chars,
                                     seed=int(self.np_random.integers(2**31)))
        self.python_calls = {}

    def end_episode(self) -> None:
        if self.session is not None:
            self.session.close()

    def python(self, code: str) -> str:
        """Run ``code`` in this episode's session."""
        if self.session is None:
            raise RuntimeError("python() called outside an episode: call env.reset() first")
        result = self.session.run(code)
        self.python_calls[result.status] = self.python_calls.get(result.status, 0) + 1
        return result.output or "(no output)"

    def respond(self, task: Task, action: str) -> Turn:
        turn = super().respond(task, action)
        return dataclasses.replace(turn, info={**turn.info, "python": dict(self.python_calls)})

"""``rlenv/MathPython-v0`` and the ``-Python`` math ids: math problems with a sandboxed Python tool.

The policy may call ``python(code)`` (a per-episode session in the hardened sandbox, see
:class:`~rlenv.envs.tools.PythonToolEnv`) as often as its budget allows; its final turn, the
one without a tool call, is graded by the base env's math verifier, exactly as the base env
grades a single-turn completion. Nothing the session prints reaches the verifier.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rlenv.envs.tools import PythonToolEnv
from rlenv.sandbox import Limits, SandboxPool
from rlenv.tools import single_turn_base

#: Put after the base env's prompt.
TOOL_INSTRUCTION = ("\n\nYou may run Python code with the python tool to compute. When you are done, reply without "
                    "a tool call and give the final answer as \\boxed{{answer}}.")


def make_math_python_env(
    base: str = "rlenv/Arithmetic-v0",
    base_kwargs: Mapping[str, Any] | None = None,
    pool: SandboxPool | None = None,
    call_limits: Limits | None = None,
    max_calls: int = 20,
    max_total_s: float = 60.0,
    max_turns: int = 8,
    data_files: Any = None,
    fields: Mapping[str, str] | None = None,
    **tool_env_kwargs: Any,
) -> PythonToolEnv:
    """Build a math env with the Python tool on the tasks and verifier of the math env ``base``.

    Args:
        base: The single-turn math env whose tasks and verifier are used (``rlenv/GSM8K-v0``,
            ``rlenv/MATH-v0``, ``rlenv/AIME-2025-v0``, ``rlenv/Arithmetic-v0``, ...).
        base_kwargs: Passed to ``rlenv.make(base)`` (``data_files=``, ``split=``, ...).
        pool, call_limits, max_calls, max_total_s: The Python session's pool and budget (see
            :class:`~rlenv.envs.tools.PythonToolEnv`).
        max_turns: The most policy turns of an episode.
        data_files, fields: The base env's tasks from local files (``rlenv eval --data/--field``).
        **tool_env_kwargs: Other :class:`~rlenv.tools.ToolEnv` settings (``chat``,
            ``tool_format``, ``max_tokens``, ``max_seconds``, ...).
    """
    single = single_turn_base(base, base_kwargs, data_files, fields)
    return PythonToolEnv(single.source, single.verifier, pool=pool, call_limits=call_limits, max_calls=max_calls,
                         max_total_s=max_total_s, max_turns=max_turns,
                         prompt_template=single.prompt_template + TOOL_INSTRUCTION, **tool_env_kwargs)

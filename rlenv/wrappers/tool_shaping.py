"""``ToolUseBonus``: an opt-in reward for using tools, paid only to episodes that end correct.

A bonus per call, or for calling at all, is farmed without solving anything: a policy learns to
call tools (and to call them often) whether or not it gets the answer. This bonus is gated on
the outcome instead: an episode earns it once, and only when the verifier scored its answer
``correct`` and at least one of its tool calls succeeded (a result that is not an ``Error:``).
A wrong answer earns nothing however many calls it made, so the bonus can only tilt the policy
towards correct episodes that use the tools, never towards calls for their own sake.
"""

from __future__ import annotations

from typing import Any

import gymnasium

from rlenv.types import Task
from rlenv.wrappers.base import RewardWrapper
from rlenv.wrappers.tool_use import episode_calls


class ToolUseBonus(RewardWrapper):
    """Adds ``bonus`` to a correct multi-turn episode's reward when one of its tool calls succeeded.

    Args:
        env: A multi-turn tool env (:class:`~rlenv.tools.ToolEnv`), possibly wrapped.
        bonus: Added once to such an episode's reward (``info["tool_bonus"]`` says what was added).

    Reads the episode's ``info["turn_log"]``; a single-turn episode (no log) never earns it.
    """

    def __init__(self, env: gymnasium.Env, bonus: float = 0.1):
        super().__init__(env)
        if not bonus > 0:
            raise ValueError(f"ToolUseBonus bonus must be positive, got {bonus!r}")
        self.bonus = float(bonus)

    def transform(self, task: Task, completion: str, reward: float, truncated: bool,
                  info: dict[str, Any]) -> tuple[float, dict[str, Any]]:
        used = any(not result.startswith("Error:") for _, result in episode_calls(info.get("turn_log", ())))
        applied = self.bonus if used and info.get("status") == "correct" else 0.0
        return reward + applied, {**info, "tool_bonus": applied}

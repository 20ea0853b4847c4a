"""Base class for reward wrappers that work both on ``env.step`` and inside vector envs."""

from __future__ import annotations

from typing import Any

import gymnasium

from rlenv.types import RewardResult, Task


class RewardWrapper(gymnasium.Wrapper):
    """Wraps a :class:`~rlenv.env.TextEnv` (or another reward wrapper) and edits ``(reward, info)``.

    Subclasses implement :meth:`transform`. The same transform runs on ``step`` and on every
    episode of a :class:`~rlenv.vector.TextVectorEnv` built from the wrapped env, because vector
    envs call :meth:`episode_outcome` through the whole wrapper chain. The chain is walked with
    Gymnasium's ``get_wrapper_attr``, so any Gymnasium wrapper (``OrderEnforcing``, ``TimeLimit``,
    ``RecordEpisodeStatistics``...) may sit above, below or between reward wrappers. A transform
    must keep ``info["reward"]`` (the verifier's own result) untouched.
    """

    def transform(
        self, task: Task, completion: str, reward: float, truncated: bool, info: dict[str, Any]
    ) -> tuple[float, dict[str, Any]]:
        """Return the new ``(reward, info)`` for one finished episode."""
        raise NotImplementedError

    def episode_outcome(
        self, task: Task, completion: str, result: RewardResult, truncated: bool
    ) -> tuple[float, dict[str, Any]]:
        reward, info = self.env.get_wrapper_attr("episode_outcome")(task, completion, result, truncated)
        return self.transform(task, completion, reward, truncated, info)

    def step(self, action: str):
        obs, reward, terminated, truncated, info = self.env.step(action)
        completion, _ = self.unwrapped.clip_completion(action)
        reward, info = self.transform(self.unwrapped.task, completion, reward, truncated, info)
        return obs, reward, terminated, truncated, info

"""Base class for reward wrappers that work both on ``env.step`` and inside vector envs."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import gymnasium

from rlenv.types import RewardResult, Task


class RewardWrapper(gymnasium.Wrapper, gymnasium.utils.RecordConstructorArgs):
    """Wraps a :class:`~rlenv.env.TextEnv` (or another reward wrapper) and edits ``(reward, info)``.

    Subclasses implement :meth:`transform`. The same transform runs on ``step`` and on every
    episode of a :class:`~rlenv.vector.TextVectorEnv` built from the wrapped env, because vector
    envs call :meth:`episode_outcome` through the whole wrapper chain. The chain is walked with
    Gymnasium's ``get_wrapper_attr``, so any Gymnasium wrapper (``OrderEnforcing``, ``TimeLimit``,
    ``RecordEpisodeStatistics``...) may sit above, below or between reward wrappers. A transform
    must keep ``info["reward"]`` (the verifier's own result) untouched.

    Every subclass records its constructor arguments (Gymnasium's ``RecordConstructorArgs``), so
    ``env.spec`` lists the reward wrappers and ``gymnasium.make(env.spec)`` rebuilds the chain.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is not None:
            cls.__init__ = _recording_constructor_args(init)

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


def _recording_constructor_args(init: Callable[..., None]) -> Callable[..., None]:
    """``init`` that first records its arguments (all but ``env``) as Gymnasium's wrapper kwargs;
    the outermost ``__init__`` of a subclass chain records, the ``super().__init__`` calls do not."""
    signature = inspect.signature(init)

    @functools.wraps(init)
    def recording_init(self: RewardWrapper, *args: Any, **kwargs: Any) -> None:
        if not hasattr(self, "_saved_kwargs"):
            bound = signature.bind(self, *args, **kwargs)
            bound.apply_defaults()
            recorded: dict[str, Any] = {}
            for name, value in list(bound.arguments.items())[1:]:
                if signature.parameters[name].kind is inspect.Parameter.VAR_KEYWORD:
                    recorded.update(value)
                elif name != "env":
                    recorded[name] = value
            gymnasium.utils.RecordConstructorArgs.__init__(self, _disable_deepcopy=True, **recorded)
        init(self, *args, **kwargs)

    return recording_init

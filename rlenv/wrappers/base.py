"""Base class for reward wrappers that work both on ``env.step`` and inside vector envs."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import gymnasium

from rlenv.env import text_env
from rlenv.types import RewardResult, Task


class RewardWrapper(gymnasium.Wrapper, gymnasium.utils.RecordConstructorArgs):
    """Wraps a :class:`~rlenv.env.TextEnv` (or another reward wrapper) and edits ``(reward, info)``.

    Subclasses implement :meth:`transform`. The same transform runs on ``step`` and on every
    episode of a :class:`~rlenv.vector.TextVectorEnv` built from the wrapped env, because vector
    envs call :meth:`episode_outcome` through the whole wrapper chain. The chain is walked with
    Gymnasium's ``get_wrapper_attr``, so any Gymnasium wrapper (``OrderEnforcing``, ``TimeLimit``,
    ``RecordEpisodeStatistics``...) may sit above, below or between reward wrappers. A transform
    must keep ``info["reward"]`` (the verifier's own result) untouched. On a multi-turn env
    (:class:`~rlenv.multiturn.MultiTurnEnv`) the transform runs on the episode's last step only,
    with the completion that was graded.

    Every subclass records its constructor arguments (Gymnasium's ``RecordConstructorArgs``), so
    ``env.spec`` lists the reward wrappers and ``gymnasium.make(env.spec)`` rebuilds the chain.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is not None:
            cls.__init__ = _recording_constructor_args(init)  # type: ignore[method-assign]  # wraps each subclass's own

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
        base = text_env(self)
        if base.task is None:
            raise RuntimeError("step() called before reset(): call env.reset() to start an episode")
        if not (terminated or truncated):  # a multi-turn episode goes on: wrappers shape its outcome only
            return obs, reward, terminated, truncated, info
        completion = base.episode_completion(action)
        reward, info = self.transform(base.task, completion, float(reward), truncated, info)
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

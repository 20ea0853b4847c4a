"""Multi-turn episodes played for evaluation: several env instances in lockstep, one generation
call per turn for all of them.

Each instance plays one episode at a time (a :class:`~rlenv.multiturn.MultiTurnEnv`, possibly
wrapped): it is reset on the episode's task, shown to the policy through
:meth:`~rlenv.multiturn.MultiTurnEnv.conversation`, and stepped with the policy's turn until the
episode ends (its final answer graded, or a limit reached). The turns of all the instances'
episodes go to the generator together, so a batched backend generates them in one call and an
OpenAI-compatible server gets them concurrently. In chat mode the env's tool schemas go with
them (``generate(observations, tools=...)``: the chat template's or the server's ``tools``).

A generation that fails (``Completion.failed``) ends its episode with status ``error``: the
episode is not graded on a turn nobody wrote.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from rlenv.inference.sampling import request_seed
from rlenv.multiturn import MultiTurnEnv
from rlenv.types import RewardResult


@dataclasses.dataclass(frozen=True)
class Episode:
    """A finished multi-turn episode.

    Attributes:
        completion: What was graded (the final turn, or the last turn when a limit cut the episode).
        reward: The final step's reward (reward wrappers applied).
        truncated: The final step's ``truncated`` (a limit was reached or the turn was cut).
        info: The final step's info (``reward``, ``status``, ``turns``, ``turn_log``, ``limit``,
            ``tool_metrics``, ``hacks``...).
        messages: The messages the episode added after the prompt
            (:meth:`~rlenv.multiturn.MultiTurnEnv.episode_messages`).
    """

    completion: str
    reward: float
    truncated: bool
    info: dict[str, Any]
    messages: list[dict[str, Any]]

    @property
    def result(self) -> RewardResult:
        """The verifier's result on :attr:`completion`."""
        return self.info["reward"]


def is_multi_turn(env: Any) -> bool:
    """Whether ``env`` (possibly wrapped) is a multi-turn env, whose episodes :func:`play_episodes` plays."""
    return isinstance(getattr(env, "unwrapped", env), MultiTurnEnv)


def play_episodes(envs: Sequence[Any], episodes: Sequence[tuple[int, str, int]], generate: Callable[..., Sequence[str]],
                  seed: int = 0) -> list[Episode]:
    """Play ``episodes`` (``(task index, task id, sample)`` each) on ``envs``, at most ``len(envs)`` at once.

    Each episode is reset with ``options={"index": ...}`` and a seed that depends on ``seed``, its
    task and its sample only (a rerun plays the same episodes). Returns one :class:`Episode` per
    entry of ``episodes``, in order.
    """
    if not envs:
        raise ValueError("play_episodes needs at least one env")
    for env in envs:
        if not is_multi_turn(env):
            raise TypeError(f"play_episodes plays multi-turn envs, got {type(env.unwrapped).__name__}")
    finished: list[Episode | None] = [None] * len(episodes)
    waiting = list(range(len(episodes)))[::-1]
    playing: dict[int, tuple[Any, list[dict[str, Any]] | None]] = {}  # episode -> (env, tools)
    free = list(envs)
    while waiting or playing:
        while waiting and free:
            number = waiting.pop()
            env = free.pop()
            index, task_id, sample = episodes[number]
            _, info = env.reset(seed=request_seed(seed, [task_id, sample]), options={"index": index})
            playing[number] = (env, info.get("tools") if env.unwrapped.chat else None)
        order = sorted(playing)
        shown = [playing[n][0].unwrapped.conversation() for n in order]
        tools = next((playing[n][1] for n in order if playing[n][1]), None)
        turns = list(generate(shown, tools=tools) if tools else generate(shown))
        if len(turns) != len(order):
            raise ValueError(f"generate returned {len(turns)} turns for {len(order)} episodes")
        for number, turn in zip(order, turns, strict=True):
            env = playing[number][0]
            error = getattr(turn, "error", None)
            if error is not None:
                finished[number] = _failed(env, f"generation failed: {error}")
            else:
                _, reward, terminated, truncated, info = env.step(turn)
                if not (terminated or truncated):
                    continue
                finished[number] = Episode(env.unwrapped.episode_completion(turn), float(reward), bool(truncated),
                                           info, env.unwrapped.episode_messages())
            del playing[number]
            free.append(env)
    return [episode for episode in finished if episode is not None]


def _failed(env: Any, message: str) -> Episode:
    """The episode under way on ``env``, ended without a grade because its turn could not be generated."""
    base = env.unwrapped
    task, index = base.current()
    base.abort()
    result = RewardResult.error(message)
    reward, info = base.episode_outcome(task, "", result, False)
    info.update(base.task_info(task, index), turns=base.turns, turn_log=tuple(base.turn_log))
    return Episode("", float(reward), False, info, base.episode_messages())

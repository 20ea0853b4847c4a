"""Multi-turn episodes: the policy acts several times; the environment answers until the episode ends.

``reset() -> (obs, info)`` as for single-turn envs. Each ``step(action)`` takes one policy turn
and returns the environment's reply with ``terminated=False`` while the episode goes on (tool
results, the environment's next user message); the episode ends when the environment takes a
turn as final (graded by the verifier: ``terminated=True``) or when a limit is reached
(``max_turns``, a total token budget, a wall-clock budget: ``truncated=True``, and what the
policy last wrote is graded, so a cut episode still carries a status).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping
from typing import Any

from rlenv.env import Observation, TextEnv
from rlenv.sources import TaskSource
from rlenv.types import RewardResult, StepReward, Task, Verifier

#: Why a multi-turn episode was cut (``info["limit"]`` of a truncated episode).
LIMITS = ("max_turns", "max_tokens", "max_seconds")


@dataclasses.dataclass(frozen=True)
class Turn:
    """The environment's answer to one policy turn (what :meth:`MultiTurnEnv.respond` returns).

    Attributes:
        observation: The reply shown to the policy when the episode goes on: new chat messages
            (``role`` ``tool`` or ``user``) in chat mode, the text to append in text mode.
        final: The completion to grade when this turn ends the episode (usually the turn's own
            text); None while the episode goes on.
        reward: An optional reward for this turn alone (dense rewards); its value is the step's
            reward and it is listed in the episode's ``info["turn_rewards"]``.
        info: Facts about the turn (tool calls, errors), merged into the step's info.
    """

    observation: Observation = ""
    final: str | None = None
    reward: RewardResult | None = None
    info: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.final is not None and self.observation:
            raise ValueError(f"a final Turn has no observation (the episode ends), got {self.observation!r:.80}")
        if self.reward is not None and not isinstance(self.reward, RewardResult):
            raise TypeError(f"Turn.reward must be a RewardResult or None, got {type(self.reward).__name__}")


class MultiTurnEnv(TextEnv):
    """A :class:`~rlenv.env.TextEnv` whose episodes last several turns, with Gymnasium's API.

    Subclasses implement :meth:`respond` (and optionally :meth:`start_episode` and
    :meth:`end_episode` for per-episode state). Everything else (tasks, prompts, seeding,
    grading through :meth:`~rlenv.env.TextEnv.episode_outcome`, reward wrappers) is the
    single-turn env's.

    Args:
        source, verifier, prompt_template, chat, system_prompt, render_mode: As for
            :class:`~rlenv.env.TextEnv`.
        max_completion_chars: When set, each policy turn is cut to this many characters.
        max_turns: The most policy turns of an episode.
        max_tokens: A budget of tokens for everything the episode adds after the prompt (the
            policy's turns and the environment's replies), counted by ``count_tokens``.
        count_tokens: ``text -> number of tokens`` (e.g. ``lambda s: len(tokenizer.encode(s))``);
            required with ``max_tokens``.
        max_seconds: A wall-clock budget from ``reset``.

    A limit is checked after each turn that does not end the episode: when one is reached the
    step returns ``truncated=True`` with the verifier's result on the policy's last turn, and
    ``info["limit"]`` names it (one of :data:`LIMITS`). The final step's info also has
    ``turns`` (the number of policy turns), ``turn_log`` (each turn's ``Turn.info``, in order:
    what tool-use detectors and reports read) and ``turn_rewards``: the per-turn rewards as
    :class:`~rlenv.types.StepReward` located in :attr:`transcript` (each covers its policy
    turn), the layout of a process reward model's dense rewards.
    """

    def __init__(
        self,
        source: TaskSource,
        verifier: Verifier,
        prompt_template: str = "{prompt}",
        chat: bool = False,
        system_prompt: str | None = None,
        max_completion_chars: int | None = None,
        render_mode: str | None = None,
        *,
        max_turns: int = 8,
        max_tokens: int | None = None,
        count_tokens: Callable[[str], int] | None = None,
        max_seconds: float | None = None,
    ):
        super().__init__(source, verifier, prompt_template=prompt_template, chat=chat, system_prompt=system_prompt,
                         max_completion_chars=max_completion_chars, render_mode=render_mode)
        if not isinstance(max_turns, int) or isinstance(max_turns, bool) or max_turns < 1:
            raise ValueError(f"max_turns must be a positive int, got {max_turns!r}")
        if max_tokens is not None and (not isinstance(max_tokens, int) or max_tokens < 1):
            raise ValueError(f"max_tokens must be a positive int or None, got {max_tokens!r}")
        if max_tokens is not None and not callable(count_tokens):
            raise ValueError(f"max_tokens={max_tokens} needs count_tokens (text -> number of tokens), "
                             f"got {count_tokens!r}")
        if max_seconds is not None and not max_seconds > 0:
            raise ValueError(f"max_seconds must be positive or None, got {max_seconds!r}")
        self.max_turns = max_turns
        self.max_tokens = max_tokens
        self.count_tokens = count_tokens
        self.max_seconds = max_seconds
        self.transcript = ""
        self.messages: list[dict[str, Any]] = []
        self.prompt_messages = 0
        self._prompt: Observation = ""
        self._turns = 0
        self._tokens = 0
        self._started = 0.0
        self._turn_rewards: list[StepReward] = []
        self.turn_log: list[dict[str, Any]] = []

    # -- the hooks of a multi-turn env -------------------------------------------------------
    def respond(self, task: Task, action: str) -> Turn:
        """The environment's answer to the policy's ``action`` (one turn); subclasses implement it."""
        raise NotImplementedError(f"{type(self).__name__} must implement respond(task, action) -> Turn")

    def start_episode(self, task: Task) -> None:
        """Set up per-episode state (called by ``reset`` once the task is drawn)."""

    def end_episode(self) -> None:
        """Release per-episode state (called when an episode ends, on ``reset`` and on ``close``)."""

    def gold_episode(self, task: Task) -> list[str] | None:
        """The policy turns of an episode known to end ``correct`` (for :func:`rlenv.check_env`), or None.

        By default the gold completion given as the first and final turn; an env whose gold needs
        several turns (a tool call, then the answer) overrides it.
        """
        gold = self.gold_completion(task)
        return None if gold is None else [gold]

    def cut_completion(self, text: str) -> str:
        """What is graded when a limit cuts the episode after the policy's turn ``text`` (default: the turn itself)."""
        return text

    # -- Gymnasium API -----------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if self.task is not None and not self._done:
            self.end_episode()
        obs, info = super().reset(seed=seed, options=options)
        self.transcript = ""
        self._prompt = obs
        self.messages = list(obs) if self.chat else [{"role": "user", "content": obs}]
        self.prompt_messages = len(self.messages)
        self._turns = 0
        self._tokens = 0
        self._turn_rewards = []
        self.turn_log = []
        self._started = time.monotonic()
        self.start_episode(self.current()[0])
        return obs, info

    def step(self, action: str):
        task, index = self.current()
        if self._done:
            raise RuntimeError("step() called after the episode ended: call reset() for the next episode")
        if not isinstance(action, str):
            raise TypeError(f"the policy's turn must be a str, got {type(action).__name__}: {action!r:.80}")
        text, clipped = self.clip_completion(action)
        self._turns += 1
        structured = getattr(action, "tool_calls", None)
        self._record("assistant", text, **({"tool_calls": list(structured)} if structured else {}))
        turn_start = len(self.transcript)
        self.transcript += text
        try:
            turn = self.respond(task, action if not clipped else text)
        except BaseException:
            self._finish()
            raise
        self.turn_log.append(dict(turn.info))
        if turn.reward is not None:
            self._turn_rewards.append(StepReward(turn.reward.value, turn_start, len(self.transcript)))
        if turn.final is not None:
            return self._grade(turn.final, terminated=True, truncated=clipped, turn=turn)
        self._add_observation(turn.observation)
        limit = self._limit_reached()
        if limit is not None:
            return self._grade(self.cut_completion(text), terminated=False, truncated=True, turn=turn, limit=limit)
        info = {**turn.info, "turn": self._turns, **self.task_info(task, index)}
        reward = 0.0
        if turn.reward is not None:
            info["reward"] = turn.reward
            reward = turn.reward.value
        return turn.observation, reward, False, False, info

    def close(self) -> None:
        self.abort()
        super().close()

    def abort(self) -> None:
        """End the episode under way without grading it (its per-episode state is released); a no-op
        when no episode is under way."""
        if self.task is not None and not self._done:
            self._finish()

    @property
    def turns(self) -> int:
        """The policy turns of the episode so far."""
        return self._turns

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.task is None:
            return None
        return "\n".join(f"[{m['role']}] {m['content']}" for m in self.messages)

    def conversation(self) -> Observation:
        """What the policy is shown for its next turn: every message so far in chat mode (the
        prompt's, the policy's turns with their structured ``tool_calls``, the environment's
        replies), the prompt followed by :attr:`transcript` in text mode."""
        self.current()
        return [dict(m) for m in self.messages] if self.chat else f"{self._prompt}{self.transcript}"

    def episode_messages(self) -> list[dict[str, Any]]:
        """The messages the episode added after the prompt (the policy's turns and the replies), in order."""
        return [dict(m) for m in self.messages[self.prompt_messages:]]

    # -- pieces ------------------------------------------------------------------------------
    def episode_completion(self, action: str) -> str:
        return self._last_completion if self._done and self._last_completion is not None \
            else super().episode_completion(action)

    def _record(self, role: str, content: str, **extra: Any) -> None:
        self.messages.append({"role": role, "content": content, **extra})
        if self.count_tokens is not None:
            self._tokens += int(self.count_tokens(content))

    def _add_observation(self, observation: Observation) -> None:
        if self.chat:
            if isinstance(observation, str) or not self.observation_space.contains(observation):
                raise TypeError(f"{type(self).__name__}.respond must return chat messages in chat mode, "
                                f"got {observation!r:.120}")
            for message in observation:
                self._record(**message)
                self.transcript += message["content"]
        else:
            if not isinstance(observation, str):
                raise TypeError(f"{type(self).__name__}.respond must return text in text mode, got {observation!r:.120}")
            self._record("user", observation)
            self.transcript += observation

    def _limit_reached(self) -> str | None:
        if self._turns >= self.max_turns:
            return "max_turns"
        if self.max_tokens is not None and self._tokens >= self.max_tokens:
            return "max_tokens"
        if self.max_seconds is not None and time.monotonic() - self._started >= self.max_seconds:
            return "max_seconds"
        return None

    def _finish(self) -> None:
        self._done = True
        self.end_episode()

    def _grade(self, completion: str, terminated: bool, truncated: bool, turn: Turn, limit: str | None = None):
        self._finish()
        self._last_completion = completion
        task, index = self.current()
        result = self.verify(task, completion)
        reward, info = self.episode_outcome(task, completion, result, truncated)
        info.update(turn.info)
        info.update(self.task_info(task, index))
        info.update(turn=self._turns, turns=self._turns, turn_rewards=tuple(self._turn_rewards),
                    turn_log=tuple(self.turn_log))
        if limit is not None:
            info["limit"] = limit
        return self.terminal_observation(), reward, terminated, truncated, info

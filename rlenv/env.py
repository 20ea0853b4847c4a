"""The single-turn text environment: ``reset() -> prompt``, ``step(completion) -> reward``."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from rlenv.scoring import verify_safely
from rlenv.sources import TaskSource
from rlenv.spaces import ChatSpace, TextSpace
from rlenv.types import RewardResult, Task, Verifier

Observation = str | list[dict[str, str]]


class TextEnv(gymnasium.Env):
    """One episode = one prompt, one completion, one reward, with exactly Gymnasium's API.

    Args:
        source: Where tasks come from (:class:`~rlenv.sources.DatasetSource`,
            :class:`~rlenv.sources.ProceduralSource` or any :class:`~rlenv.sources.TaskSource`).
        verifier: Scores ``(task, completion)``; see :class:`~rlenv.types.Verifier`.
        prompt_template: ``str.format`` template with a ``{prompt}`` field (plain-text mode) or
            the user message (chat mode).
        chat: When True the observation is a list of chat messages instead of a string.
        system_prompt: Optional system message (chat mode only).
        max_completion_chars: When set, longer completions are cut to this many characters
            before scoring and the step reports ``truncated=True``.
        render_mode: ``None`` or ``"ansi"``.

    Episodes are single-turn: ``step`` always returns ``terminated=True``. ``truncated`` is True
    only when the completion was cut at a length limit: either ``max_completion_chars`` above or
    the generator's own limit, reported by passing ``rlenv.Completion(text, truncated=True)``.

    ``reset(options=...)`` accepts ``{"index": i}`` or ``{"task_id": "..."}`` to pin a task;
    otherwise the task is drawn from the env's own RNG (seeded by ``reset(seed=...)``).
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        source: TaskSource,
        verifier: Verifier,
        prompt_template: str = "{prompt}",
        chat: bool = False,
        system_prompt: str | None = None,
        max_completion_chars: int | None = None,
        render_mode: str | None = None,
    ):
        if not callable(verifier):
            raise TypeError(f"verifier must be callable (task, completion) -> RewardResult, got {verifier!r}")
        if "{prompt}" not in prompt_template:
            raise ValueError(f"prompt_template must contain '{{prompt}}', got {prompt_template!r}")
        if system_prompt is not None and not chat:
            raise ValueError("system_prompt needs chat=True (put plain-text instructions in prompt_template)")
        if max_completion_chars is not None and max_completion_chars <= 0:
            raise ValueError(f"max_completion_chars must be positive, got {max_completion_chars}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.source = source
        self.verifier = verifier
        self.prompt_template = prompt_template
        self.chat = chat
        self.system_prompt = system_prompt
        self.max_completion_chars = max_completion_chars
        self.render_mode = render_mode
        self.observation_space = ChatSpace() if chat else TextSpace()
        self.action_space = TextSpace()
        self.task: Task | None = None
        self._index: int | None = None
        self._done = False
        self._last_completion: str | None = None

    # -- tasks and prompts -------------------------------------------------------------------
    def format_prompt(self, task: Task) -> Observation:
        """The observation shown for ``task``."""
        text = self.prompt_template.format(prompt=task.prompt)
        if not self.chat:
            return text
        messages = [] if self.system_prompt is None else [{"role": "system", "content": self.system_prompt}]
        return messages + [{"role": "user", "content": text}]

    def sample_index(self, rng: np.random.Generator | None = None) -> int:
        """Draw a task index from ``rng`` (default: this env's ``np_random``)."""
        rng = self.np_random if rng is None else rng
        size = self.source.size
        return int(rng.integers(0, 2**31 - 1 if size is None else size))

    def resolve_index(self, options: dict[str, Any] | None) -> int | None:
        """The task index pinned by reset ``options`` (``index`` or ``task_id``), or None."""
        return self.pinned_index(options) if options else None

    def pinned_index(self, options: dict[str, Any]) -> int:
        """The task index that ``options`` (``{"index": i}`` or ``{"task_id": id}``) pins."""
        unknown = set(options) - {"index", "task_id"}
        if unknown:
            raise ValueError(f"unknown reset option(s) {sorted(unknown)}: expected 'index' or 'task_id'")
        if "index" in options and "task_id" in options:
            raise ValueError("pass either options['index'] or options['task_id'], not both")
        if "task_id" in options:
            return self.source.index_of(str(options["task_id"]))
        index = options["index"]
        if not isinstance(index, (int, np.integer)) or isinstance(index, bool):
            raise TypeError(f"options['index'] must be an int, got {type(index).__name__}: {index!r}")
        size = self.source.size
        if index < 0 or (size is not None and index >= size):
            raise IndexError(f"options['index']={index} out of range for {size} tasks")
        return int(index)

    def task_info(self, task: Task, index: int) -> dict[str, Any]:
        """Info shared by ``reset`` and ``step``: never contains the hidden reference."""
        return {"task_id": task.id, "index": index, "metadata": dict(task.metadata)}

    # -- Gymnasium API -----------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        index = self.resolve_index(options)
        if index is None:
            index = self.sample_index()
        self.task = self.source[index]
        self._index = index
        self._done = False
        self._last_completion = None
        return self.format_prompt(self.task), self.task_info(self.task, index)

    def current(self) -> tuple[Task, int]:
        """The task of the episode under way and its index in the source (raises before ``reset()``)."""
        if self.task is None or self._index is None:
            raise RuntimeError("step() called before reset(): call env.reset() to start an episode")
        return self.task, self._index

    def step(self, action: str):
        task, index = self.current()
        if self._done:
            raise RuntimeError("step() called after the episode ended: episodes are single-turn, call reset()")
        if not isinstance(action, str):
            raise TypeError(f"the completion must be a str, got {type(action).__name__}: {action!r:.80}")
        completion, truncated = self.clip_completion(action)
        result = self.verify(task, completion)
        reward, info = self.episode_outcome(task, completion, result, truncated)
        info.update(self.task_info(task, index))
        self._done = True
        self._last_completion = completion
        return self.terminal_observation(), reward, True, truncated, info

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.task is None:
            return None
        shown = self.format_prompt(self.task)
        text = shown if isinstance(shown, str) else "\n".join(f"[{m['role']}] {m['content']}" for m in shown)
        return text if self._last_completion is None else f"{text}\n---\n{self._last_completion}"

    # -- stateless pieces (used by vector envs and wrappers) --------------------------------
    def clip_completion(self, completion: str) -> tuple[str, bool]:
        """Apply ``max_completion_chars``; returns ``(completion, truncated)``."""
        truncated = bool(getattr(completion, "truncated", False))
        if self.max_completion_chars is not None and len(completion) > self.max_completion_chars:
            return str(completion)[: self.max_completion_chars], True
        return str(completion), truncated

    def episode_completion(self, action: str) -> str:
        """The completion the finished episode was graded on, given the last ``action`` (reward wrappers read it)."""
        return self.clip_completion(action)[0]

    def verify(self, task: Task, completion: str) -> RewardResult:
        """Score one completion; never raises (verifier failures are status ``error``)."""
        return verify_safely(self.verifier, task, completion)

    def episode_outcome(
        self, task: Task, completion: str, result: RewardResult, truncated: bool
    ) -> tuple[float, dict[str, Any]]:
        """Turn a verifier result into ``(reward, info)``. Reward wrappers extend this."""
        info: dict[str, Any] = {"reward": result, "status": result.status.value, "components": dict(result.components)}
        if truncated:
            info["truncated_completion"] = True
        return result.value, info

    def terminal_observation(self) -> Observation:
        """The (empty) observation returned by ``step``: the episode is over."""
        return [] if self.chat else ""

    def gold_completion(self, task: Task) -> str | None:
        """A completion known to be correct for ``task``, when the env knows one."""
        return task.gold_completion


def text_env(env: gymnasium.Env) -> TextEnv:
    """The :class:`TextEnv` under ``env``'s wrappers (``env`` itself when it is one).

    Raises:
        TypeError: when ``env`` is not a rlenv TextEnv, wrapped or not.
    """
    base = env.unwrapped
    if not isinstance(base, TextEnv):
        raise TypeError(f"expected a rlenv TextEnv (possibly wrapped), got {type(base).__name__}")
    return base

"""TRL adapter: an rlenv environment as TRL reward functions plus a training dataset.

::

    from trl import GRPOConfig, GRPOTrainer
    from rlenv.integrations.trl import reward_funcs, to_dataset

    env = rlenv.make("rlenv/Arithmetic-v0")
    trainer = GRPOTrainer(model=..., reward_funcs=reward_funcs(env),
                          train_dataset=to_dataset(env, num_tasks=1000), args=GRPOConfig(...))

:func:`to_dataset` writes a ``prompt`` column (text, or chat messages for chat-mode envs) and a
``task_id`` column. TRL passes every dataset column to the reward functions, and
:func:`reward_funcs` uses ``task_id`` to find the hidden reference. The reward functions follow
TRL's contract: ``fn(prompts, completions, **columns) -> list[float | None]``. Completions may be
plain strings or conversational (a list of messages; the last assistant message is scored).
Rows that belong to another environment (their ``env_id`` column names a different id) get
``None``, so several environments can share one multi-task dataset.
"""

from __future__ import annotations

import collections
from collections.abc import Mapping, Sequence
from typing import Any

from rlenv.scoring import score_tasks
from rlenv.types import RewardResult, Task

#: Dataset column holding each row's task id.
TASK_ID_COLUMN = "task_id"
#: Optional dataset column routing each row to one environment in multi-environment datasets.
ENV_ID_COLUMN = "env_id"


def completion_text(completion: Any) -> str:
    """The text to score: a plain string, or the last assistant message of a conversational completion."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence):
        for message in reversed(completion):
            if isinstance(message, Mapping) and message.get("role") == "assistant":
                content = message.get("content")
                if isinstance(content, str):
                    return content
                raise TypeError(f"assistant message content must be a str, got {type(content).__name__}")
        raise ValueError(f"conversational completion has no assistant message: {completion!r:.200}")
    raise TypeError(f"a completion must be a str or a list of chat messages, got {type(completion).__name__}")


class _Scorer:
    """Scores one batch for a group of reward functions, remembering the last batch so the
    component functions TRL calls right after the main one do not verify again."""

    def __init__(self, env: Any, env_id: str | None, executor: Any, max_workers: int | None):
        self.env = env
        self.base = env.unwrapped
        self.env_id = env_id
        self.executor = executor
        self.max_workers = max_workers
        self._last: tuple[tuple, list[tuple[float, RewardResult] | None]] | None = None

    def score(self, completions: Sequence[Any], columns: Mapping[str, Any]) -> list[tuple[float, RewardResult] | None]:
        if TASK_ID_COLUMN not in columns:
            raise KeyError(f"the reward needs a {TASK_ID_COLUMN!r} dataset column (build the dataset with "
                           f"rlenv.integrations.trl.to_dataset); got columns {sorted(columns)}")
        task_ids = [str(t) for t in columns[TASK_ID_COLUMN]]
        if len(task_ids) != len(completions):
            raise ValueError(f"got {len(completions)} completions but {len(task_ids)} task ids")
        env_ids = columns.get(ENV_ID_COLUMN)
        mine = [True] * len(task_ids) if env_ids is None or self.env_id is None else \
            [str(e) == self.env_id for e in env_ids]
        texts = [completion_text(c) if m else "" for c, m in zip(completions, mine, strict=True)]
        key = (tuple(task_ids), tuple(texts), tuple(mine))
        if self._last is not None and self._last[0] == key:
            return self._last[1]
        chosen = [i for i, m in enumerate(mine) if m]
        tasks: list[Task] = [self.base.source[self.base.source.index_of(task_ids[i])] for i in chosen]
        clipped = [self.base.clip_completion(texts[i]) for i in chosen]
        results = score_tasks(self.base.verifier, tasks, [c for c, _ in clipped], executor=self.executor,
                              max_workers=self.max_workers)
        out: list[tuple[float, RewardResult] | None] = [None] * len(task_ids)
        for i, task, (text, truncated), result in zip(chosen, tasks, clipped, results, strict=True):
            reward, _ = self.env.get_wrapper_attr("episode_outcome")(task, text, result, truncated)
            out[i] = (float(reward), result)
        self._last = (key, out)
        return out


class EnvReward:
    """One TRL reward function over an environment (see :func:`reward_funcs`).

    ``component=None`` returns the environment's reward (after any reward wrappers); a component
    name returns ``result.components[name]`` (None when a result lacks it).
    """

    def __init__(self, scorer: _Scorer, component: str | None, name: str):
        self._scorer = scorer
        self.component = component
        self.__name__ = name

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], **columns: Any) -> list[float | None]:
        scored = self._scorer.score(completions, columns)
        log_metric = columns.get("log_metric")
        if self.component is None and callable(log_metric):
            statuses = collections.Counter(item[1].status.value for item in scored if item is not None)
            total = sum(statuses.values())
            for status, count in statuses.items():
                log_metric(f"{self.__name__}/{status}", count / total)
        if self.component is None:
            return [None if item is None else item[0] for item in scored]
        return [None if item is None or self.component not in item[1].components
                else float(item[1].components[self.component]) for item in scored]


def reward_funcs(
    env: Any,
    components: Sequence[str] = (),
    env_id: str | None = None,
    name: str | None = None,
    executor: Any = "thread",
    max_workers: int | None = None,
) -> list[EnvReward]:
    """TRL reward functions for ``env``: the reward first, then one function per named component.

    Args:
        env: A rlenv env (possibly wrapped by reward wrappers, whose shaping is applied).
        components: Names in ``RewardResult.components`` to expose as extra reward functions (give
            them weight 0 in ``GRPOConfig.reward_weights`` to log them without training on them).
        env_id: When set, rows whose ``env_id`` column names another environment get ``None``.
        name: The reward's name in TRL's logs (default ``rlenv/<verifier name>``); give each of
            several environments sharing a verifier its own name.
        executor, max_workers: How verification runs concurrently (see :func:`rlenv.score_tasks`).

    Returns:
        Callables ``fn(prompts, completions, task_id, **columns) -> list[float | None]``, named
        ``NAME`` and ``NAME/<component>`` in TRL's logs. The main one also
        logs the fraction of each verifier status (``correct``, ``error``, ...) through TRL's
        ``log_metric`` hook, so verifier failures show apart from wrong answers.
    """
    if name is None:
        name = f"rlenv/{getattr(env.unwrapped.verifier, 'name', type(env.unwrapped.verifier).__name__)}"
    scorer = _Scorer(env, env_id, executor, max_workers)
    return [EnvReward(scorer, None, name)] + [EnvReward(scorer, c, f"{name}/{c}") for c in components]


def to_dataset(
    env: Any,
    num_tasks: int | None = None,
    indices: Sequence[int] | None = None,
    env_id: str | None = None,
) -> Any:
    """A ``datasets.Dataset`` of the env's prompts for TRL trainers.

    Args:
        env: A rlenv env; its prompt template and chat mode shape the ``prompt`` column.
        num_tasks: Use tasks ``0 .. num_tasks-1`` (default: all tasks of a finite source).
        indices: Explicit task indices instead (e.g. a training split).
        env_id: When set, adds an ``env_id`` column for multi-environment datasets.

    Returns:
        Columns ``prompt`` (str, or a list of ``{"role", "content"}`` messages in chat mode) and
        ``task_id``, plus ``env_id`` when given.
    """
    import datasets

    base = env.unwrapped
    if indices is not None and num_tasks is not None:
        raise ValueError("pass either num_tasks or indices, not both")
    if indices is None:
        size = base.source.size
        if num_tasks is None:
            if size is None:
                raise ValueError("this env generates tasks without end: pass num_tasks or indices")
            num_tasks = size
        if num_tasks < 1 or (size is not None and num_tasks > size):
            raise ValueError(f"num_tasks must be in [1, {size}], got {num_tasks}")
        indices = range(num_tasks)
    rows: dict[str, list[Any]] = {"prompt": [], TASK_ID_COLUMN: []}
    for index in indices:
        task = base.source[int(index)]
        rows["prompt"].append(base.format_prompt(task))
        rows[TASK_ID_COLUMN].append(task.id)
    if env_id is not None:
        rows[ENV_ID_COLUMN] = [env_id] * len(rows[TASK_ID_COLUMN])
    return datasets.Dataset.from_dict(rows)

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
import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from rlenv.errors import check_choice
from rlenv.evaluation.results import USAGE_KEY, usage_totals
from rlenv.scoring import score_tasks
from rlenv.types import RewardResult, Status, Task

#: Dataset column holding each row's task id.
TASK_ID_COLUMN = "task_id"
#: Optional dataset column routing each row to one environment in multi-environment datasets.
ENV_ID_COLUMN = "env_id"
#: What :func:`reward_funcs` returns for an episode whose verifier failed.
ON_ERROR = ("zero", "none")


def completion_text(completion: Any) -> str:
    """The text to score: a plain string, or the last assistant message of a conversational completion.

    An assistant ``content`` may be a string, ``None`` (a message with tool calls only: scored as
    the empty completion) or a list of content blocks (the ``text`` of its text blocks, joined).
    """
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence):
        for message in reversed(completion):
            if isinstance(message, Mapping) and message.get("role") == "assistant":
                return _content_text(message.get("content"))
        raise ValueError(f"conversational completion has no assistant message: {completion!r:.200}")
    raise TypeError(f"a completion must be a str or a list of chat messages, got {type(completion).__name__}")


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, Mapping) and block.get("type", "text") == "text":
                text = block.get("text")
                if not isinstance(text, str):
                    raise TypeError(f"a text content block needs a str 'text', got {block!r:.200}")
                parts.append(text)
            elif not isinstance(block, Mapping):
                raise TypeError(f"a content block must be a str or a dict, got {type(block).__name__}")
        return "".join(parts)
    raise TypeError(f"assistant message content must be a str, None or a list of content blocks, "
                    f"got {type(content).__name__}")


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
    name returns ``result.components[name]`` (None when a result lacks it). ``on_error="none"``
    gives every function None for an episode whose verifier failed.
    """

    def __init__(self, scorer: _Scorer, component: str | None, name: str, on_error: str = "none"):
        check_choice("on_error", on_error, ON_ERROR)
        self._scorer = scorer
        self.component = component
        self.__name__ = name
        self.on_error = on_error

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], **columns: Any) -> list[float | None]:
        scored = self._scorer.score(completions, columns)
        if self.component is None:
            self._log_statuses(scored, columns.get("log_metric"), columns.get("log_extra"))
        out: list[float | None] = []
        for item in scored:
            if item is None or (self.on_error == "none" and item[1].status is Status.ERROR):
                out.append(None)
            elif self.component is None:
                out.append(item[0])
            else:
                components = item[1].components
                out.append(float(components[self.component]) if self.component in components else None)
        return out

    def _log_statuses(self, scored: Sequence[tuple[float, RewardResult] | None], log_metric: Any,
                      log_extra: Any) -> None:
        """Every status's fraction of this batch (0.0 when absent, so TRL's means over a logging
        window are the true fractions), what an AI judge's verdicts cost in this batch
        (:func:`rlenv.evaluation.results.usage_totals`), and each sample's status in TRL's completions table."""
        if callable(log_metric):
            counts = collections.Counter(item[1].status for item in scored if item is not None)
            total = sum(counts.values())
            if total:
                for status in Status:
                    log_metric(f"{self.__name__}/{status.value}", counts[status] / total)
            usage = usage_totals(item[1].details for item in scored if item is not None)
            for key, value in usage.items():  # an AI judge's cost in this batch
                log_metric(f"{self.__name__}/{USAGE_KEY}/{key}", float(value))
        if callable(log_extra):
            log_extra(f"{self.__name__}/status", [None if item is None else item[1].status.value for item in scored])


def reward_funcs(
    env: Any,
    components: Sequence[str] = (),
    env_id: str | None = None,
    name: str | None = None,
    executor: Any = "thread",
    max_workers: int | None = None,
    on_error: str = "none",
) -> list[EnvReward]:
    """TRL reward functions for ``env``: the reward first, then one function per named component.

    Args:
        env: A rlenv env (possibly wrapped by reward wrappers, whose shaping is applied).
        components: Names in ``RewardResult.components`` to expose as extra reward functions (give
            them weight 0 in ``GRPOConfig.reward_weights`` to log them without training on them).
        env_id: When set, rows whose ``env_id`` column names another environment get ``None``.
        name: The reward's name in TRL's logs (default ``rlenv/<verifier name>``); give each of
            several environments sharing a verifier its own name.
        executor, max_workers: How verification runs concurrently (see :func:`rlenv.scoring.score_tasks`).
        on_error: ``"none"`` (default) gives an episode whose verifier failed (status ``error``)
            ``None`` from every function (the reward and each component): TRL then treats it as
            unscorable, leaves it out of its group's mean and std and gives it advantage 0 (tested
            with TRL 1.16), so a verifier crash never trains the policy; a TRL without that rule
            sums an all-None row to 0. ``"zero"`` gives it the verifier's reward (0).

    Returns:
        Callables ``fn(prompts, completions, task_id, **columns) -> list[float | None]``, named
        ``NAME`` and ``NAME/<component>`` in TRL's logs. The main one also logs the fraction of
        every verifier status (``NAME/correct``, ``NAME/error``, ...; 0.0 when absent) through
        TRL's ``log_metric`` hook, so verifier failures show apart from wrong answers, and each
        sample's status as the ``NAME/status`` column of TRL's completions table (``log_extra``).
    """
    if name is None:
        name = f"rlenv/{getattr(env.unwrapped.verifier, 'name', type(env.unwrapped.verifier).__name__)}"
    scorer = _Scorer(env, env_id, executor, max_workers)
    return [EnvReward(scorer, None, name, on_error)] + [EnvReward(scorer, c, f"{name}/{c}", on_error)
                                                        for c in components]


def to_dataset(
    env: Any,
    num_tasks: int | None = None,
    indices: Sequence[int] | None = None,
    env_id: str | None = None,
) -> Any:
    """The env's prompts as a dataset for TRL trainers.

    Args:
        env: A rlenv env; its prompt template and chat mode shape the ``prompt`` column.
        num_tasks: Use tasks ``0 .. num_tasks-1``. Default: every task of a finite source; for a
            source without end (``ProceduralSource``, e.g. ``Arithmetic-v0``) a
            ``datasets.IterableDataset`` streaming tasks ``0, 1, 2, ...`` without end (TRL trains
            on it with ``max_steps`` set).
        indices: Explicit task indices instead (e.g. a training split).
        env_id: When set, adds an ``env_id`` column for multi-environment datasets.

    Returns:
        A ``datasets.Dataset`` (or ``IterableDataset``, see above) with columns ``prompt`` (str, or
        a list of ``{"role", "content"}`` messages in chat mode) and ``task_id``, plus ``env_id``
        when given.
    """
    import datasets

    base = env.unwrapped
    if indices is not None and num_tasks is not None:
        raise ValueError("pass either num_tasks or indices, not both")
    if indices is None:
        size = base.source.size
        if num_tasks is None:
            if size is None:
                return datasets.IterableDataset.from_generator(
                    _rows, features=_features(base, env_id), gen_kwargs={"env": base, "env_id": env_id})
            num_tasks = size
        if num_tasks < 1 or (size is not None and num_tasks > size):
            raise ValueError(f"num_tasks must be in [1, {size}], got {num_tasks}")
        indices = range(num_tasks)
    rows = list(_rows(base, env_id, indices))
    return datasets.Dataset.from_list(rows, features=_features(base, env_id))


def _rows(env: Any, env_id: str | None, indices: Iterable[int] | None = None) -> Iterator[dict[str, Any]]:
    """Dataset rows for tasks ``indices`` of ``env`` (default: ``0, 1, 2, ...`` without end)."""
    for index in itertools.count() if indices is None else indices:
        task = env.source[int(index)]
        row = {"prompt": env.format_prompt(task), TASK_ID_COLUMN: task.id}
        if env_id is not None:
            row[ENV_ID_COLUMN] = env_id
        yield row


def _features(env: Any, env_id: str | None) -> Any:
    import datasets

    text = datasets.Value("string")
    prompt = datasets.List({"role": text, "content": text}) if env.chat else text
    columns = {"prompt": prompt, TASK_ID_COLUMN: text}
    if env_id is not None:
        columns[ENV_ID_COLUMN] = text
    return datasets.Features(columns)

"""Problem-disjoint train / held-out splits of an environment's tasks.

A procedural source can repeat problems: ``rlenv/Arithmetic-v0`` at level 1 has only 100
distinct ones, so tasks at fresh indices are not held out at all. :func:`disjoint_split` picks
held-out tasks with distinct prompts and builds a training environment whose tasks never share a
prompt with them::

    env = rlenv.make("rlenv/Arithmetic-v0", level=1)
    train_env, held_out = rlenv.splits.disjoint_split(env, held_out_count=30, train_size=5000)
    # train on train_env (any index in [0, 5000)); evaluate on env at the indices in held_out
"""

from __future__ import annotations

import copy

from rlenv.env import TextEnv, text_env
from rlenv.sources import TaskSource
from rlenv.types import Task


def _scan_end(source: TaskSource, start: int, wanted: int) -> int:
    """Where a scan from ``start`` for ``wanted`` tasks gives up: the end of a finite source, and
    far enough into an endless one that a shortfall means the problems ran out."""
    return source.size if source.size is not None else start + max(10_000, 100 * wanted)


class PromptFilteredSource:
    """The first ``size`` tasks of ``source`` whose prompt is not in ``excluded_prompts``.

    Raises ``ValueError`` when ``source`` has fewer such tasks (an endless source: none in a
    long stretch of indices).
    """

    def __init__(self, source: TaskSource, size: int, excluded_prompts: frozenset[str]):
        if not isinstance(size, int) or size < 1:
            raise ValueError(f"size must be a positive int, got {size!r}")
        self.inner, self._size = source, size
        self._indices: list[int] = []
        index, end = 0, _scan_end(source, 0, size)
        while len(self._indices) < size:
            if index >= end:
                raise ValueError(f"found only {len(self._indices)} tasks outside the excluded prompts in the "
                                 f"first {end} tasks, {size} asked for")
            if source[index].prompt not in excluded_prompts:
                self._indices.append(index)
            index += 1

    @property
    def size(self) -> int:
        return self._size

    def __getitem__(self, index: int) -> Task:
        if not 0 <= index < self._size:
            raise IndexError(f"task index {index} outside the split [0, {self._size})")
        return self.inner[self._indices[index]]

    def index_of(self, task_id: str) -> int:
        inner_index = self.inner.index_of(task_id)
        try:
            return self._indices.index(inner_index)
        except ValueError:
            raise KeyError(f"task {task_id!r} is not in this split") from None


def distinct_prompt_indices(source: TaskSource, start: int, count: int) -> list[int]:
    """Indices, from ``start`` on, of the first ``count`` tasks of ``source`` with distinct prompts.

    Raises ``ValueError`` when there are fewer of them (an endless source: none new in a long
    stretch of indices).
    """
    if not isinstance(count, int) or count < 1:
        raise ValueError(f"count must be a positive int, got {count!r}")
    seen: set[str] = set()
    indices: list[int] = []
    index, end = start, _scan_end(source, start, count)
    while len(indices) < count:
        if index >= end:
            raise ValueError(f"only {len(indices)} distinct prompts in tasks [{start}, {end}), {count} asked for")
        prompt = source[index].prompt
        if prompt not in seen:
            seen.add(prompt)
            indices.append(index)
        index += 1
    return indices


def disjoint_split(env: TextEnv, held_out_count: int, train_size: int,
                   held_out_start: int | None = None) -> tuple[TextEnv, list[int]]:
    """Split ``env`` into a training environment and held-out task indices sharing no prompt.

    Args:
        env: The environment (wrappers are looked through: the split is of ``env.unwrapped``).
        held_out_count: Number of held-out tasks, each with a prompt of its own.
        train_size: Number of training tasks: the first tasks of ``env`` whose prompt is none of
            the held-out ones.
        held_out_start: Index from which held-out tasks are taken (default: 0 for a finite
            source, whose training tasks then come after them; 100,000 for an endless one).

    Returns:
        ``(train_env, held_out)``: a copy of the unwrapped ``env`` whose source is the training
        split, and the held-out indices into ``env``.
    """
    base = text_env(env)
    source = base.source
    if held_out_start is None:
        held_out_start = 0 if source.size is not None else 100_000
    held_out = distinct_prompt_indices(source, held_out_start, held_out_count)
    train_env = copy.copy(base)
    train_env.source = PromptFilteredSource(source, train_size, frozenset(source[i].prompt for i in held_out))
    return train_env, held_out

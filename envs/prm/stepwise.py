"""TRL ``stepwise_supervision`` rows (``prompt``, ``completions``, ``labels``) as tasks and as PRM test data."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from rlenv.rm_inputs import check_stepwise_row
from rlenv.sources import DatasetSource, load_rows
from rlenv.types import Task


def stepwise_rows(data: Any) -> list[dict[str, Any]]:
    """Load and validate stepwise rows from a list of dicts, a ``datasets.Dataset`` or data file path(s)."""
    rows = [dict(r) for r in load_rows(data)]
    for index, row in enumerate(rows):
        check_stepwise_row(row, index)
    return rows


def join_steps(steps: Sequence[str], separator: str = "\n") -> str:
    """A completion made of ``steps`` joined by ``separator``."""
    return separator.join(steps)


def stepwise_task(row: dict[str, Any], index: int, separator: str = "\n") -> Task:
    """A task from a stepwise row (used as ``DatasetSource(row_to_task=...)``).

    ``reference`` is ``{"steps": [...], "labels": [...]}``; the gold completion is the joined steps
    when every label is true (else None); other columns go to ``metadata``.
    """
    check_stepwise_row(row, index)
    steps, labels = list(row["completions"]), [bool(x) for x in row["labels"]]
    meta = {k: v for k, v in row.items() if k not in ("id", "prompt", "completions", "labels")}
    gold = join_steps(steps, separator) if all(labels) else None
    return Task(row.get("id", str(index)), row["prompt"], {"steps": steps, "labels": labels}, gold, meta)


def stepwise_source(data: Any, separator: str = "\n") -> DatasetSource:
    """A task source over stepwise rows (see :func:`stepwise_task`)."""
    return DatasetSource(data, row_to_task=functools.partial(stepwise_task, separator=separator))


def step_label_accuracy(verifier: Any, rows: Sequence[dict[str, Any]], threshold: float | None = None) -> float:
    """Fraction of the steps of ``rows`` whose PRM score is on the side of ``threshold`` their label says.

    Args:
        verifier: A :class:`rlenv.envs.prm.PRMVerifier` (its ``score_steps`` is used; batched).
        rows: Stepwise rows.
        threshold: A step is predicted good when its score is ``>= threshold`` (default: the
            verifier's threshold).
    """
    threshold = verifier.threshold if threshold is None else threshold
    for index, row in enumerate(rows):
        check_stepwise_row(row, index)
    scores = verifier.score_steps([r["prompt"] for r in rows], [r["completions"] for r in rows])
    right = total = 0
    for row, row_scores in zip(rows, scores):
        if isinstance(row_scores, Exception):
            raise ValueError(f"could not score row {row['prompt']!r:.60}: {row_scores}") from row_scores
        right += sum((s >= threshold) == bool(y) for s, y in zip(row_scores, row["labels"]))
        total += len(row_scores)
    return right / total

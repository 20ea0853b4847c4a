"""The round loop of the sample-then-update trainers (self-training, online preference optimization)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tqdm.auto import tqdm

RoundCallback = Callable[[int, dict[str, float]], Any]


def run_rounds(count: int, train_round: Callable[[int], dict[str, float]], history: list[dict[str, float]], *,
               desc: str, progress: bool = True, callbacks: tuple[RoundCallback | None, ...] = ()) -> list[dict[str, float]]:
    """Run ``train_round(r)`` for ``r`` in ``range(count)``, appending each round's metrics to
    ``history`` and calling every given ``callback(r + 1, metrics)`` after it; returns ``history``."""
    for r in tqdm(range(count), desc=desc, disable=not progress):
        metrics = train_round(r)
        history.append(metrics)
        for callback in callbacks:
            if callback is not None:
                callback(r + 1, metrics)
    return history

"""Confidence intervals on benchmark averages and paired comparisons of two evaluations.

Both resample *tasks* (the benchmark is a sample of tasks; each task's value already averages its
own n samples), using SciPy's bootstrap and permutation test.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

#: Bootstrap interval methods accepted by :func:`bootstrap_ci` (SciPy's names).
CI_METHODS = ("percentile", "basic", "BCa")
#: Resampled values held in memory at once by the bootstrap (bounds memory for large task sets).
_BATCH_ELEMENTS = 4_000_000


@dataclasses.dataclass(frozen=True)
class Estimate:
    """A mean over tasks with a two-sided bootstrap confidence interval ``[low, high]``."""

    value: float
    low: float
    high: float
    confidence: float
    num_tasks: int

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def __str__(self) -> str:
        return f"{self.value:.3f} [{self.low:.3f}, {self.high:.3f}]"


def _per_task(values: Sequence[float] | np.ndarray, name: str) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name}: expected a non-empty 1-D sequence of per-task values, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: per-task values must be finite, got {arr[~np.isfinite(arr)][:5].tolist()}")
    return arr


def _check(confidence: float, n_resamples: int) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples!r}")


def bootstrap_ci(
    values: Sequence[float] | np.ndarray,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    method: str = "percentile",
    seed: int = 0,
) -> Estimate:
    """Mean of per-task ``values`` with a bootstrap confidence interval over tasks.

    Args:
        values: One value per task (e.g. each task's pass@k estimate), shape ``(num_tasks,)``.
        confidence: Two-sided confidence level, e.g. 0.95.
        n_resamples: Bootstrap resamples of the task set.
        method: ``"percentile"`` (default), ``"basic"`` or ``"BCa"``.
        seed: Seed of the resampling RNG: the same inputs always give the same interval.

    Returns:
        An :class:`Estimate`. When every task has the same value the bootstrap distribution is a
        single point and the interval is ``[value, value]``; with few tasks any bootstrap interval
        is too narrow, so report ``num_tasks`` with it.
    """
    from scipy import stats

    arr = _per_task(values, "bootstrap_ci")
    _check(confidence, n_resamples)
    if method not in CI_METHODS:
        raise ValueError(f"unknown bootstrap method {method!r}: expected one of {CI_METHODS}")
    mean = float(arr.mean())
    if np.all(arr == arr[0]):
        return Estimate(mean, mean, mean, confidence, int(arr.size))
    result = stats.bootstrap((arr,), np.mean, n_resamples=n_resamples, confidence_level=confidence,
                             method=method, vectorized=True, batch=max(1, _BATCH_ELEMENTS // arr.size),
                             rng=np.random.default_rng(seed))
    low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
    return Estimate(mean, low, high, confidence, int(arr.size))


@dataclasses.dataclass(frozen=True)
class PairedComparison:
    """Evaluation A versus B on the same tasks: ``difference`` is mean(A) - mean(B)."""

    mean_a: float
    mean_b: float
    difference: Estimate
    p_value: float
    wins: int
    losses: int
    ties: int

    def to_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "difference": self.difference.to_dict()}


def paired_comparison(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    confidence: float = 0.95,
    n_resamples: int = 9999,
    seed: int = 0,
) -> PairedComparison:
    """Compare two evaluations task by task (``a[i]`` and ``b[i]`` must be the same task).

    The difference of means gets a paired bootstrap interval (tasks resampled together), and a
    two-sided p-value from a paired permutation test (each task's pair of values swapped at
    random; exact when ``2**num_tasks <= n_resamples``). ``wins``/``losses``/``ties`` count tasks
    where A is above / below / equal to B.
    """
    from scipy import stats

    xa, xb = _per_task(a, "paired_comparison(a)"), _per_task(b, "paired_comparison(b)")
    if xa.shape != xb.shape:
        raise ValueError(f"paired_comparison needs one value per task on both sides, got {xa.size} and {xb.size}")
    _check(confidence, n_resamples)
    diff = bootstrap_ci(xa - xb, confidence=confidence, n_resamples=n_resamples, seed=seed)
    if np.all(xa == xb):
        p_value = 1.0
    else:
        test = stats.permutation_test((xa, xb), lambda x, y, axis: np.mean(x - y, axis=axis),
                                      permutation_type="samples", vectorized=True, n_resamples=n_resamples,
                                      alternative="two-sided", rng=np.random.default_rng(seed))
        p_value = float(test.pvalue)
    return PairedComparison(float(xa.mean()), float(xb.mean()), diff, p_value,
                            int(np.sum(xa > xb)), int(np.sum(xa < xb)), int(np.sum(xa == xb)))

"""Unbiased per-task estimators from ``n`` samples per task: pass@k, pass^k, G-pass@k, mean@k, maj@k.

Every estimator here scores *one task* (or an array of tasks, element-wise) and needs ``n >= k``
samples: there is no unbiased estimate of a k-sample metric from fewer than k samples. Averaging
the per-task values over tasks gives the benchmark number; :mod:`rlenv.evaluation.confidence`
puts a confidence interval on that average.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np


def _counts(n: Any, c: Any, k: int, name: str) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"{name}: k must be an int >= 1, got {k!r}")
    n_arr, c_arr = np.broadcast_arrays(np.asarray(n), np.asarray(c))
    for label, arr in (("n", n_arr), ("c", c_arr)):
        if arr.size and not np.all(np.equal(np.mod(arr, 1), 0)):
            raise ValueError(f"{name}: {label} must hold whole numbers, got {arr!r}")
    n_arr, c_arr = n_arr.astype(np.int64), c_arr.astype(np.int64)
    if np.any(n_arr < k):
        raise ValueError(f"{name}: needs n >= k samples per task, got n={int(n_arr.min())} for k={k}")
    if np.any((c_arr < 0) | (c_arr > n_arr)):
        raise ValueError(f"{name}: correct counts must satisfy 0 <= c <= n, got c={c!r} for n={n!r}")
    return n_arr, c_arr


def _as_output(out: np.ndarray) -> float | np.ndarray:
    return float(out) if out.ndim == 0 else out


def pass_at_k(n: Any, c: Any, k: int) -> float | np.ndarray:
    """Unbiased pass@k (Chen et al. 2021): ``1 - C(n-c, k) / C(n, k)``.

    Computed in the numerically stable product form ``1 - prod_{i=n-c+1}^{n} (1 - k/i)``
    (1.0 when ``n - c < k``), so it stays exact to float precision for ``n`` in the thousands.

    Args:
        n: Samples per task (int or int array).
        c: Correct samples per task (same shape as ``n`` or broadcastable, ``0 <= c <= n``).
        k: The k of pass@k; every task needs ``n >= k``.

    Returns:
        The probability that at least one of k samples drawn without replacement is correct:
        a float for scalar inputs, else a float64 array of the broadcast shape.
    """
    n_arr, c_arr = _counts(n, c, k, "pass_at_k")
    out = np.empty(n_arr.shape, dtype=np.float64)
    for idx in np.ndindex(n_arr.shape):
        ni, ci = int(n_arr[idx]), int(c_arr[idx])
        out[idx] = 1.0 if ni - ci < k else 1.0 - float(np.prod(1.0 - k / np.arange(ni - ci + 1, ni + 1)))
    return _as_output(out)


def pass_pow_k(n: Any, c: Any, k: int) -> float | np.ndarray:
    """pass^k (tau-bench, Yao et al. 2024): the probability that *all* k samples are correct.

    Unbiased estimate ``C(c, k) / C(n, k)``, computed as ``prod_{i=0}^{k-1} (c-i)/(n-i)`` (0 when
    ``c < k``). Shapes and checks as :func:`pass_at_k`.
    """
    n_arr, c_arr = _counts(n, c, k, "pass_pow_k")
    out = np.empty(n_arr.shape, dtype=np.float64)
    for idx in np.ndindex(n_arr.shape):
        ni, ci = int(n_arr[idx]), int(c_arr[idx])
        out[idx] = 0.0 if ci < k else float(np.prod((ci - np.arange(k)) / (ni - np.arange(k))))
    return _as_output(out)


def g_pass_at_k(n: Any, c: Any, k: int, tau: float) -> float | np.ndarray:
    """G-pass@k_tau: the probability that at least ``ceil(tau * k)`` of k samples are correct.

    The hypergeometric tail ``sum_{j=ceil(tau k)}^{min(c,k)} C(c,j) C(n-c,k-j) / C(n,k)``;
    ``tau=1`` is pass^k and any ``tau`` with ``ceil(tau k) == 1`` is pass@k. ``0 < tau <= 1``.
    """
    if not 0.0 < tau <= 1.0:
        raise ValueError(f"g_pass_at_k: tau must lie in (0, 1], got {tau!r}")
    from scipy.stats import hypergeom

    n_arr, c_arr = _counts(n, c, k, "g_pass_at_k")
    need = math.ceil(tau * k - 1e-12)
    out = np.asarray(hypergeom.sf(need - 1, n_arr, c_arr, k), dtype=np.float64)
    return _as_output(out)


def mean_at_k(rewards: Sequence[float], k: int) -> float:
    """mean@k of one task: the expected mean reward of k samples, estimated without bias.

    For any ``k <= n`` the unbiased estimate is the mean of all ``n`` rewards (each sample is in
    the same fraction of the k-subsets), so the value does not depend on k; k is only checked.
    """
    values = np.asarray(rewards, dtype=np.float64)
    if values.ndim != 1:
        raise ValueError(f"mean_at_k: rewards must be one task's 1-D list of rewards, got shape {values.shape}")
    _counts(len(values), 0, k, "mean_at_k")
    if not np.all(np.isfinite(values)):
        raise ValueError(f"mean_at_k: rewards must be finite, got {values.tolist()}")
    return float(values.mean())


def maj_at_k(clusters: Sequence[Hashable | None], correct: Sequence[float], k: int) -> float:
    """maj@k of one task: accuracy of the majority answer among k samples, exact over k-subsets.

    Args:
        clusters: One label per sample: samples with equal labels gave equivalent answers (as
            judged by the environment's own equivalence, see
            :func:`rlenv.evaluation.clustering.cluster_answers`); ``None`` means the sample gave no
            answer and casts no vote.
        correct: Per-sample correctness in ``[0, 1]``. A cluster's value is the mean correctness of
            all its members (0 or 1 whenever the verifier agrees with the equivalence).
        k: Votes per draw, ``1 <= k <= n``.

    Returns:
        The expected value of the winning cluster when k samples are drawn uniformly without
        replacement from the ``n`` given. **Tie rule:** a tie between ``t`` clusters credits each
        with ``1/t`` (the expectation of a uniformly random tie-break); a draw with no vote at all
        scores 0. With ``k == n`` this is the plain majority vote over all samples.
    """
    labels = list(clusters)
    values = np.asarray(correct, dtype=np.float64)
    if values.shape != (len(labels),):
        raise ValueError(f"maj_at_k: got {len(labels)} cluster labels but correctness of shape {values.shape}")
    if np.any((values < 0) | (values > 1)) or not np.all(np.isfinite(values)):
        raise ValueError(f"maj_at_k: correctness must lie in [0, 1], got {values.tolist()}")
    n = len(labels)
    _counts(n, 0, k, "maj_at_k")
    sizes = Counter(label for label in labels if label is not None)
    totals: dict[Hashable, float] = {}
    for label, value in zip(labels, values, strict=True):
        if label is not None:
            totals[label] = totals.get(label, 0.0) + float(value)
    abstain = n - sum(sizes.values())
    expected = Fraction(0)
    for label, size in sizes.items():
        worth = totals[label] / size
        if worth == 0.0:
            continue
        others = [m for other, m in sizes.items() if other != label]
        expected += Fraction(worth) * _win_weight(size, others, abstain, k)
    return float(expected / math.comb(n, k))


def _win_weight(size: int, others: list[int], abstain: int, k: int) -> Fraction:
    """Number of k-subsets in which a cluster of ``size`` wins, ties counted ``1/(1 + tied)``.

    For each vote count ``a`` of the cluster, the other clusters must draw ``k - a`` samples with
    at most ``a`` each; a generating polynomial in (draw count, number tied at ``a``) counts them.
    """
    weight = Fraction(0)
    for a in range(1, min(size, k) + 1):
        rest = k - a
        free = abstain + sum(m for m in others if m < a)
        # poly[d][t]: ways to draw d samples with t other clusters tied at exactly a votes
        poly = [[math.comb(free, d)] for d in range(rest + 1)]
        for m in (m for m in others if m >= a):
            ties = len(poly[0]) + 1
            grown = [[0] * ties for _ in range(rest + 1)]
            for d in range(rest + 1):
                for t, ways in enumerate(poly[d]):
                    if not ways:
                        continue
                    for x in range(0, min(a, rest - d) + 1):
                        grown[d + x][t + (x == a)] += ways * math.comb(m, x)
            poly = grown
        weight += math.comb(size, a) * sum(Fraction(ways, 1 + t) for t, ways in enumerate(poly[rest]))
    return weight

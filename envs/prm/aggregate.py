"""From per-step PRM scores to a solution score (aggregation) and to dense per-step rewards.

Aggregations (``aggregate(scores, method)``), for step scores ``s_1..s_K`` in [0, 1]:

==============  =============================================================  ==========================
``min``         ``min_k s_k``                                                  Math-Shepherd verification
``prod``        ``prod_k s_k`` (probability that every step is right)          Lightman et al. (PRM800K)
``mean``        ``mean_k s_k``
``last``        ``s_K`` (outcome-like)
``first_error`` ``(k* - 1) / K`` where ``k*`` is the first step with
                ``s_k < threshold`` (1.0 when there is none): the fraction
                of the solution that is right before its first error
==============  =============================================================  ==========================

Dense modes (``dense_rewards(scores, mode, eta)``), reward ``r_k`` placed at the end of step k:

* ``raw``: ``r_k = s_k``. Summing these pays for more steps (many-short-steps hacking).
* ``clip``: ``r_k = min(s_k - eta, 0)``; the return is bounded above by 0.
* ``delta``: ``r_k = s_k - s_{k+1}`` for ``k < K`` and ``r_K = s_K``; telescopes to ``s_1``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from rlenv.errors import check_choice

AGGREGATIONS = ("min", "prod", "mean", "last", "first_error")
DENSE_MODES = ("raw", "clip", "delta")


def first_error(scores: Sequence[float], threshold: float) -> int | None:
    """Index (0-based) of the first step scoring below ``threshold``, or None."""
    return next((k for k, s in enumerate(scores) if s < threshold), None)


def aggregate(scores: Sequence[float], method: str, threshold: float = 0.5) -> float:
    """The solution score of step ``scores`` (see the module table); ``threshold`` is used by ``first_error``."""
    check_choice("aggregation", method, AGGREGATIONS)
    if not scores:
        raise ValueError("cannot aggregate zero step scores")
    if method == "min":
        return float(min(scores))
    if method == "prod":
        return float(math.prod(scores))
    if method == "mean":
        return float(sum(scores) / len(scores))
    if method == "last":
        return float(scores[-1])
    k = first_error(scores, threshold)
    return 1.0 if k is None else k / len(scores)


def dense_rewards(scores: Sequence[float], mode: str, eta: float | None = None) -> list[float]:
    """Per-step rewards from step ``scores`` (see the module list); ``eta`` is required by ``clip``."""
    check_choice("dense mode", mode, DENSE_MODES)
    if mode == "raw":
        return [float(s) for s in scores]
    if mode == "clip":
        if eta is None:
            raise ValueError("dense mode 'clip' needs eta (r_k = min(s_k - eta, 0))")
        return [min(float(s) - eta, 0.0) for s in scores]
    return [float(s) - float(n) for s, n in zip(scores, scores[1:])] + [float(s) for s in scores[-1:]]

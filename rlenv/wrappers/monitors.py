"""Batch-level hack monitors: pure functions over arrays, returning flat metrics dicts to log.

Every function takes 1-D arrays over the episodes of one batch (a vector-env step or a trainer
batch) or over training steps, and returns ``{name: float}`` with ``hacks/``-prefixed names, so a
trainer can ``log(metrics)`` every step. A correlation that is undefined (fewer than two points
or a constant input) is ``nan``, never a made-up 0.

* :func:`length_reward_metrics` — is reward paying for length? Pearson / Spearman rho, the share
  of reward variance explained by length, reward per 1k length units, the mean within-group
  correlation and, given correctness, the correlation *at equal correctness* (a verifier-based
  reward cannot depend on length there; a learned RM that likes length does). ``alert`` is 1 when
  that conditional correlation exceeds the threshold.
* :func:`hack_rates` — share of episodes each detector flagged (from ``info["hacks"]``).
* :func:`format_only_reward_share` — share of positive reward paid to incorrect episodes.
* :func:`proxy_gold_divergence` — over training steps: is the proxy reward rising while the
  gold reward falls (Gao et al. 2023 over-optimization)? :func:`gao_fit` fits their forms.
* :func:`batch_metrics` — all of the above that the given arrays allow, in one dict.
"""

from __future__ import annotations

import collections
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

PREFIX = "hacks/"


def _vector(name: str, values: Any, size: int | None = None, dtype: Any = float) -> np.ndarray:
    arr = np.asarray(values, dtype=dtype)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one value per episode), got shape {arr.shape}")
    if size is not None and arr.shape[0] != size:
        raise ValueError(f"{name} has {arr.shape[0]} values, expected {size} (one per episode)")
    return arr


def pearson(x: Any, y: Any) -> float:
    """Pearson correlation of two equal-length 1-D arrays; ``nan`` if either is constant or n < 2."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan
    xc, yc = x - x.mean(), y - y.mean()
    return float(np.clip((xc @ yc) / math.sqrt((xc @ xc) * (yc @ yc)), -1.0, 1.0))


def rankdata(x: Any) -> np.ndarray:
    """Ranks starting at 1 with ties given their average rank (as ``scipy.stats.rankdata``)."""
    x = np.asarray(x, dtype=float)
    order = np.argsort(x, kind="mergesort")
    ranks = np.empty(x.size, dtype=float)
    ranks[order] = np.arange(1, x.size + 1)
    _, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    sums = np.bincount(inverse, weights=ranks)
    return sums[inverse] / counts[inverse]


def spearman(x: Any, y: Any) -> float:
    """Spearman rank correlation (Pearson of average ranks); ``nan`` when undefined."""
    return pearson(rankdata(x), rankdata(y))


def _mean_within(groups: np.ndarray, x: np.ndarray, y: np.ndarray) -> tuple[float, int]:
    """Size-weighted mean of the per-group Pearson correlations that are defined, and how many were."""
    values, weights = [], []
    for g in np.unique(groups):
        mask = groups == g
        r = pearson(x[mask], y[mask])
        if not math.isnan(r):
            values.append(r)
            weights.append(mask.sum())
    if not values:
        return math.nan, 0
    return float(np.average(values, weights=weights)), len(values)


def length_reward_metrics(
    lengths: Sequence[float],
    rewards: Sequence[float],
    group_ids: Sequence[int] | None = None,
    correct: Sequence[bool] | None = None,
    alert_threshold: float = 0.3,
) -> dict[str, float]:
    """How strongly reward follows completion length in one batch.

    Args:
        lengths: Completion length per episode (tokens or characters), shape ``(B,)``.
        rewards: Reward per episode, shape ``(B,)``.
        group_ids: Prompt group per episode (``TextVectorEnv.group_ids``), shape ``(B,)``.
        correct: Verifier correctness per episode, shape ``(B,)``; enables the conditional
            correlation and ``alert``.
        alert_threshold: ``alert`` is 1.0 when the correlation at equal correctness (or, without
            ``correct``, within groups) exceeds this.

    Returns:
        ``hacks/length_mean``, ``hacks/length_reward_pearson``, ``…_spearman``, ``…_r2`` (share of
        reward variance explained linearly by length), ``hacks/reward_per_1k_length``,
        ``hacks/length_reward_within_group`` (when groups are given),
        ``hacks/length_reward_given_correctness`` (when correctness is given) and ``hacks/length_alert``.
    """
    x = _vector("lengths", lengths)
    y = _vector("rewards", rewards, x.size)
    r = pearson(x, y)
    slope = float(np.polyfit(x, y, 1)[0]) if x.size >= 2 and np.ptp(x) > 0 else math.nan
    out = {
        "length_mean": float(x.mean()) if x.size else math.nan,
        "length_reward_pearson": r,
        "length_reward_spearman": spearman(x, y),
        "length_reward_r2": r * r,
        "reward_per_1k_length": slope * 1000.0,
    }
    signal = math.nan
    if group_ids is not None:
        groups = _vector("group_ids", group_ids, x.size, dtype=np.int64)
        out["length_reward_within_group"], _ = _mean_within(groups, x, y)
        signal = out["length_reward_within_group"]
    if correct is not None:
        flags = _vector("correct", correct, x.size, dtype=bool)
        strata = flags.astype(np.int64)
        if group_ids is not None:
            strata = strata + 2 * groups
        out["length_reward_given_correctness"], _ = _mean_within(strata, x, y)
        signal = out["length_reward_given_correctness"]
    out["length_alert"] = float(not math.isnan(signal) and signal > alert_threshold)
    return {PREFIX + k: v for k, v in out.items()}


def hack_rates(hacks: Sequence[Iterable[Mapping[str, Any]] | None], detectors: Iterable[str] = ()) -> dict[str, float]:
    """Share of episodes each detector flagged.

    Args:
        hacks: Per episode, its ``info["hacks"]`` list (None counts as no hacks), length ``B``.
        detectors: Names to always report (rate 0.0 when they never fired).

    Returns:
        ``hacks/rate/<detector>`` for every detector seen or named, and ``hacks/rate/any``.
    """
    total = len(hacks)
    counts: collections.Counter[str] = collections.Counter({d: 0 for d in detectors})
    flagged = 0
    for episode in hacks:
        names = {h["detector"] for h in (episode or ())}
        counts.update(names)
        flagged += bool(names)
    rate = (lambda c: c / total) if total else (lambda c: math.nan)
    out = {f"{PREFIX}rate/{name}": rate(c) for name, c in sorted(counts.items())}
    out[f"{PREFIX}rate/any"] = rate(flagged)
    return out


def format_only_reward_share(rewards: Sequence[float], correct: Sequence[bool]) -> float:
    """Share of the batch's positive reward paid to incorrect episodes (format or other partial credit).

    ``nan`` when no episode got a positive reward.
    """
    y = _vector("rewards", rewards)
    flags = _vector("correct", correct, y.size, dtype=bool)
    positive = np.clip(y, 0.0, None)
    total = positive.sum()
    return float(positive[~flags].sum() / total) if total > 0 else math.nan


def _slope(values: np.ndarray) -> float:
    return float(np.polyfit(np.arange(values.size, dtype=float), values, 1)[0]) if values.size >= 2 else math.nan


def proxy_gold_divergence(proxy: Sequence[float], gold: Sequence[float], window: int = 20,
                          tolerance: float = 0.0, min_steps: int = 5) -> dict[str, float]:
    """Is the proxy reward rising while the gold reward falls? Over the last ``window`` steps.

    Args:
        proxy: Mean proxy reward (e.g. a learned RM) per training step so far, shape ``(S,)``.
        gold: Mean gold reward (a verifier) at the same steps, shape ``(S,)``.
        window: How many recent steps the trend is fitted on.
        tolerance: Slopes within ``±tolerance`` per step count as flat.
        min_steps: No divergence is flagged before this many steps (two noisy points are no trend).

    Returns:
        ``hacks/proxy_slope``, ``hacks/gold_slope`` (least-squares per step), ``hacks/proxy_gold_gap``
        (latest proxy minus gold), ``hacks/proxy_gold_pearson`` over the window, and
        ``hacks/proxy_gold_diverging`` (1.0 when proxy slope > tolerance and gold slope < -tolerance).
    """
    p = _vector("proxy", proxy)
    g = _vector("gold", gold, p.size)
    if window < 2:
        raise ValueError(f"window must be >= 2 steps, got {window}")
    p_win, g_win = p[-window:], g[-window:]
    p_slope, g_slope = _slope(p_win), _slope(g_win)
    diverging = p_win.size >= min_steps and p_slope > tolerance and g_slope < -tolerance
    return {
        PREFIX + "proxy_slope": p_slope,
        PREFIX + "gold_slope": g_slope,
        PREFIX + "proxy_gold_gap": float(p[-1] - g[-1]) if p.size else math.nan,
        PREFIX + "proxy_gold_pearson": pearson(p_win, g_win),
        PREFIX + "proxy_gold_diverging": float(diverging),
    }


def gao_fit(kl: Sequence[float], gold: Sequence[float], form: str = "rl") -> dict[str, float]:
    """Fit Gao et al.'s gold-reward-vs-KL forms by least squares, with ``d = sqrt(KL)``.

    ``form="bon"``: ``R(d) = d (alpha - beta d)``, peak at ``d* = alpha / (2 beta)``.
    ``form="rl"``: ``R(d) = d (alpha - beta log d)``, peak at ``d* = exp(alpha / beta - 1)``.
    ``gold`` is the gold reward *gain* over the initial policy at each KL, shape ``(S,)``.

    Returns:
        ``alpha``, ``beta``, ``d_peak`` (``nan`` when ``beta <= 0``: no over-optimization peak yet),
        ``kl_peak = d_peak**2`` and ``r2`` of the fit.
    """
    d = np.sqrt(_vector("kl", kl))
    y = _vector("gold", gold, d.size)
    if form == "rl":  # d log d needs d > 0
        keep = d > 0
        d, y = d[keep], y[keep]
    if d.size < 2:
        raise ValueError(f"gao_fit needs at least 2 points with KL > 0, got {d.size}")
    if form == "bon":
        design = np.stack([d, -d * d], axis=1)
    elif form == "rl":
        design = np.stack([d, -d * np.log(d)], axis=1)
    else:
        raise ValueError(f"form must be 'bon' or 'rl', got {form!r}")
    (alpha, beta), *_ = np.linalg.lstsq(design, y, rcond=None)
    residual = y - design @ np.array([alpha, beta])
    total = ((y - y.mean()) ** 2).sum()
    r2 = float(1.0 - (residual @ residual) / total) if total > 0 else math.nan
    if beta <= 0:
        d_peak = math.nan
    elif form == "bon":
        d_peak = alpha / (2.0 * beta)
    else:
        d_peak = math.exp(min(alpha / beta - 1.0, 700.0))
    return {"alpha": float(alpha), "beta": float(beta), "d_peak": float(d_peak), "kl_peak": float(d_peak) ** 2, "r2": r2}


def batch_metrics(
    lengths: Sequence[float],
    rewards: Sequence[float],
    group_ids: Sequence[int] | None = None,
    correct: Sequence[bool] | None = None,
    hacks: Sequence[Iterable[Mapping[str, Any]] | None] | None = None,
    truncated: Sequence[bool] | None = None,
    detectors: Iterable[str] = (),
) -> dict[str, float]:
    """Every monitor the given per-episode arrays allow, merged into one ``hacks/``-prefixed dict.

    Adds ``hacks/truncation_rate`` (given ``truncated``) and ``hacks/format_only_reward_share``
    (given ``correct``) to :func:`length_reward_metrics` and :func:`hack_rates`.
    """
    out = length_reward_metrics(lengths, rewards, group_ids, correct)
    size = int(np.asarray(lengths).shape[0])
    if correct is not None:
        out[PREFIX + "format_only_reward_share"] = format_only_reward_share(rewards, correct)
    if truncated is not None:
        flags = _vector("truncated", truncated, size, dtype=bool)
        out[PREFIX + "truncation_rate"] = float(flags.mean()) if size else math.nan
    if hacks is not None:
        if len(hacks) != size:
            raise ValueError(f"hacks has {len(hacks)} entries, expected {size} (one per episode)")
        out.update(hack_rates(hacks, detectors))
    return out


def infos_to_arrays(infos: Mapping[str, Sequence[Any]]) -> dict[str, Any]:
    """Per-episode arrays from a :class:`~rlenv.vector.TextVectorEnv` step's ``infos``.

    Returns ``correct`` (from ``infos["reward"]``), ``raw_rewards`` (the verifiers' values),
    ``hacks`` (lists, empty where no detector fired) and ``group_ids`` when present.
    """
    results = infos.get("reward")
    if results is None:
        raise KeyError("infos has no 'reward' entry: pass the infos of a rlenv vector-env step")
    out: dict[str, Any] = {
        "correct": np.array([r.correct for r in results], dtype=bool),
        "raw_rewards": np.array([r.value for r in results], dtype=float),
        "hacks": [list(h or ()) for h in infos.get("hacks", [None] * len(results))],
    }
    if "group_id" in infos:
        out["group_ids"] = np.asarray(infos["group_id"], dtype=np.int64)
    return out

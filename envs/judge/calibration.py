"""Measuring a pairwise judge against labeled preference data before training on it.

:func:`calibrate` asks the judge about each labeled pair (both orders, as
:class:`~rlenv.envs.judge.verifiers.PairwiseJudge` always does) and reports:

* ``agreement`` — the fraction of pairs (judge errors left out) where the judge prefers the labeled
  ``chosen`` side in both orders;
* ``swap_consistency`` — the fraction whose two orders gave the same verdict (1.0: no position bias seen);
* ``length_bias`` — among pairs of different lengths the judge decided, the fraction where it picked
  the longer side minus the fraction where the labels did: above 0, the judge favours length beyond
  what the labels justify;
* ``errors`` — pairs whose verdict could not be read or whose request failed;
* ``usage`` — what the judge's requests cost (:func:`~rlenv.envs.judge.model.judge_usage`).

``rlenv judge calibrate PREFERENCES.jsonl --model M`` runs :func:`calibrate` from the command line.

:func:`length_slope` measures a score judge's length bias as a slope, for
:class:`~rlenv.envs.judge.verifiers.LengthCorrection`.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Mapping, Sequence

from rlenv.envs.judge.model import judge_usage
from rlenv.envs.judge.verifiers import LengthCorrection, PairwiseJudge, ScoreJudge
from rlenv.types import Status, Task


@dataclasses.dataclass(frozen=True)
class Calibration:
    """What :func:`calibrate` measured (see the module docstring); rates are None when nothing was counted."""

    pairs: int
    errors: int
    agreement: float | None
    swap_consistency: float | None
    length_bias: float | None
    usage: dict[str, int] = dataclasses.field(default_factory=dict, compare=False)


def calibrate(judge: PairwiseJudge, rows: Sequence[Mapping[str, str]]) -> Calibration:
    """Measure ``judge`` on preference ``rows`` of ``prompt``, ``chosen`` and ``rejected``."""
    missing = [i for i, r in enumerate(rows) if not {"prompt", "chosen", "rejected"} <= set(r)]
    if missing:
        raise ValueError(f"calibration rows need prompt, chosen and rejected; rows {missing[:5]} lack one")
    results = judge.compare([(r["prompt"], r["chosen"], r["rejected"]) for r in rows])
    judged = [(row, r) for row, r in zip(rows, results, strict=True) if r.status is not Status.ERROR]
    usage = judge_usage(results)
    if not judged:
        return Calibration(len(rows), len(rows), None, None, None, usage)
    longer_picks, longer_labels, counted = 0, 0, 0
    for row, result in judged:
        lengths = len(row["chosen"]), len(row["rejected"])
        if result.value in (0.0, 1.0) and lengths[0] != lengths[1]:
            counted += 1
            chosen_longer = lengths[0] > lengths[1]
            longer_labels += chosen_longer
            longer_picks += chosen_longer == (result.value == 1.0)
    return Calibration(
        pairs=len(rows),
        errors=len(rows) - len(judged),
        agreement=sum(r.value == 1.0 for _, r in judged) / len(judged),
        swap_consistency=sum(not r.details["position_disagreement"] for _, r in judged) / len(judged),
        length_bias=(longer_picks - longer_labels) / counted if counted else None,
        usage=usage,
    )


def length_slope(judge: ScoreJudge, tasks: Sequence[Task], completions: Sequence[str]) -> LengthCorrection:
    """The least-squares slope of ``judge``'s normalized score on ``log(len(completion))`` over the
    completions it could score, as a :class:`LengthCorrection` pivoting on their median length.

    Use completions whose quality does not grow with their length (e.g. the same answers padded or
    trimmed), or the slope also removes real merit.
    """
    scored = [(math.log(max(len(c), 1)), r.value) for c, r in zip(completions, judge.score_batch(tasks, completions),
                                                                  strict=True) if r.status is not Status.ERROR]
    if len({x for x, _ in scored}) < 2:
        raise ValueError(f"a length slope needs scored completions of at least two lengths; got {len(scored)} "
                         f"scored of {len(completions)}")
    slope = statistics.linear_regression([x for x, _ in scored], [y for _, y in scored]).slope
    return LengthCorrection(slope, math.exp(statistics.median(x for x, _ in scored)))

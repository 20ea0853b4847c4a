"""Offline audit: run an env's hack detectors on existing completions.

``audit(env, samples)`` scores each sample with the env's verifier, runs the env's default
detectors (those its registration lists, see :mod:`rlenv.wrappers.detector_registry`; flag-only:
penalties 0) through the same wrapper code used in training, and
returns one row per sample with the detectors that fired, plus a per-detector summary. The CLI is
``rlenv audit ID --samples S.jsonl --out A.jsonl``.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
from collections.abc import Iterable, Sequence
from typing import Any

import gymnasium

from rlenv.env import text_env
from rlenv.scoring import resolve_samples, score_tasks
from rlenv.wrappers.detection import with_hack_fields
from rlenv.wrappers.detector_registry import Wrap, default_detectors, resolve_detectors
from rlenv.wrappers.length import OverlongPenalty


@dataclasses.dataclass
class AuditReport:
    """The result of :func:`audit`.

    Attributes:
        rows: One dict per sample, in input order: ``sample`` (position), ``task_id``,
            ``reward`` (after the detectors, equal to ``raw_reward`` since they only flag),
            ``raw_reward`` (the verifier's value), ``status``, ``hacks`` (the records of the
            detectors that fired; empty when clean), and what a report shows with them:
            ``prompt`` (the observation), ``completion`` (as scored), ``truncated``,
            ``components``, ``details``, ``verifier`` and the task's ``metadata``.
        detectors: Names of the detectors that ran.
    """

    rows: list[dict[str, Any]]
    detectors: list[str]

    def summary(self) -> dict[str, Any]:
        """``count``, ``flagged`` (samples with any hack), ``flagged_rate`` and, per detector,
        ``count``, ``rate`` and ``kinds`` (how often each kind fired)."""
        total = len(self.rows)
        per: dict[str, dict[str, Any]] = {name: {"count": 0, "kinds": collections.Counter()} for name in self.detectors}
        for row in self.rows:
            for name in {h["detector"] for h in row["hacks"]}:
                per.setdefault(name, {"count": 0, "kinds": collections.Counter()})["count"] += 1
            for hack in row["hacks"]:
                per[hack["detector"]]["kinds"][hack["kind"]] += 1
        flagged = sum(1 for row in self.rows if row["hacks"])
        return {
            "count": total,
            "flagged": flagged,
            "flagged_rate": flagged / total if total else 0.0,
            "detectors": {name: {"count": v["count"], "rate": v["count"] / total if total else 0.0,
                                 "kinds": dict(v["kinds"])} for name, v in per.items()},
        }


def audit(
    env: gymnasium.Env | str,
    samples: Iterable[dict[str, Any]],
    detectors: Sequence[str | Wrap] | None = None,
    executor: Any = "thread",
    max_workers: int | None = None,
    progress: bool = False,
    max_len: int | None = None,
) -> AuditReport:
    """Run the hack detectors on offline samples of ``env``.

    Args:
        env: A rlenv env (possibly wrapped) or a registered id; its verifier scores the samples.
        samples: Dicts with ``completion`` and ``task_id`` or ``index``; an optional
            ``truncated: true`` says generation hit its length limit.
        detectors: Detector names (see :func:`~rlenv.wrappers.register_detector`) or wrapper
            factories ``env -> env``, innermost first; default: the env's own
            (:func:`~rlenv.wrappers.default_detectors`).
        executor, max_workers, progress: Scoring options, see :func:`rlenv.scoring.score_tasks`.
        max_len: A length budget in characters: completions longer than this are flagged
            ``overlong`` (an :class:`~rlenv.wrappers.OverlongPenalty` with no buffer, flag-only),
            whatever the padding is made of. None (default): no budget.
    """
    samples = list(samples)
    if isinstance(env, str):
        from rlenv.registry import make

        env = make(env)
    wraps = default_detectors(env) if detectors is None else resolve_detectors(detectors)
    if max_len is not None:
        if isinstance(max_len, bool) or not isinstance(max_len, int) or max_len < 1:
            raise ValueError(f"max_len must be None or a positive number of characters, got {max_len!r}")
        wraps.append(functools.partial(OverlongPenalty, max_len=max_len, buffer=0, penalty=0.0))
    checked = env
    for wrap in wraps:
        checked = wrap(checked)
    names = []
    layer = checked
    while layer is not env and isinstance(layer, gymnasium.Wrapper):
        if name := getattr(layer, "name", ""):
            names.append(name)
        layer = layer.env
    base = text_env(env)
    tasks, completions = resolve_samples(env, samples)
    clipped = [base.clip_completion(c) for c in completions]
    texts = [text for text, _ in clipped]
    results = score_tasks(base.verifier, tasks, texts, executor=executor, max_workers=max_workers, progress=progress)
    rows = []
    for n, (sample, task, (text, cut), result) in enumerate(zip(samples, tasks, clipped, results, strict=True)):
        truncated = cut or bool(sample.get("truncated", False))
        reward, info = checked.get_wrapper_attr("episode_outcome")(task, text, result, truncated)
        info = with_hack_fields(info)
        rows.append({"sample": n, "task_id": task.id, "reward": float(reward), "raw_reward": info["raw_reward"],
                     "status": result.status.value, "hacks": info["hacks"], "prompt": base.format_prompt(task),
                     "completion": text, "truncated": truncated, "components": dict(result.components),
                     "details": dict(result.details), "verifier": result.verifier, "metadata": dict(task.metadata)})
    return AuditReport(rows, list(reversed(names)))

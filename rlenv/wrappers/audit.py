"""Offline audit: run every default hack detector of an env family on existing completions.

``audit(env, samples)`` scores each sample with the env's verifier, runs the default detectors
for the env's family (flag-only: penalties 0) through the same wrapper code used in training, and
returns one row per sample with the detectors that fired, plus a per-detector summary. The CLI is
``rlenv audit ID --samples S.jsonl --out A.jsonl``.
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import gymnasium

from rlenv.scoring import resolve_samples, score_tasks
from rlenv.wrappers.detection import with_hack_fields
from rlenv.wrappers.echo import PromptEcho
from rlenv.wrappers.format_gaming import FormatGaming
from rlenv.wrappers.hedging import AnswerHedging
from rlenv.wrappers.nonanswer import NonAnswer
from rlenv.wrappers.repetition import RepetitionPenalty
from rlenv.wrappers.tampering import CodeTampering

Wrap = Callable[[gymnasium.Env], gymnasium.Env]

#: The detectors run for each env family (flag-only), innermost first.
FAMILY_DETECTORS: dict[str, tuple[type, ...]] = {
    "math": (AnswerHedging, PromptEcho, FormatGaming, RepetitionPenalty),
    "code": (CodeTampering, RepetitionPenalty),
    "format": (FormatGaming, AnswerHedging, PromptEcho, RepetitionPenalty),
    "safety": (NonAnswer, RepetitionPenalty),
    "generic": (FormatGaming, AnswerHedging, PromptEcho, RepetitionPenalty),
}


def _family_of_module(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) > 1 and parts[0] == "envs" and parts[1] in FAMILY_DETECTORS:
        return parts[1]
    return None


def env_family(env: gymnasium.Env | str) -> str:
    """The detector family of an env: the sub-package of ``envs`` it comes from (``math``, ``code``,
    ``format``…), else ``generic``.

    For a registered id, the module of its entry point decides. For an env object, the module of
    its verifier, or of a verifier it combines (a weighted sum or gate of ``envs`` verifiers).
    """
    if isinstance(env, str):
        from rlenv.registry import spec

        return _family_of_module(spec(env).entry_point.partition(":")[0]) or "generic"
    pending: list = [env.unwrapped.verifier]
    for _ in range(64):  # breadth-first through composed verifiers and their containers
        if not pending:
            break
        item = pending.pop(0)
        if isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, (list, tuple)):
            pending.extend(item)
        elif hasattr(item, "__dict__") and not isinstance(item, type):
            family = _family_of_module(type(item).__module__)
            if family is not None:
                return family
            pending.extend(vars(item).values())
    return "generic"


def default_detectors(family: str) -> list[Wrap]:
    """Flag-only detector wrappers for ``family`` (a key of :data:`FAMILY_DETECTORS`)."""
    if family not in FAMILY_DETECTORS:
        raise ValueError(f"unknown env family {family!r}: expected one of {sorted(FAMILY_DETECTORS)}")
    return list(FAMILY_DETECTORS[family])


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
        family: The env family whose detectors ran.
    """

    rows: list[dict[str, Any]]
    detectors: list[str]
    family: str

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
            "family": self.family,
            "count": total,
            "flagged": flagged,
            "flagged_rate": flagged / total if total else 0.0,
            "detectors": {name: {"count": v["count"], "rate": v["count"] / total if total else 0.0,
                                 "kinds": dict(v["kinds"])} for name, v in per.items()},
        }


def audit(
    env: gymnasium.Env | str,
    samples: Iterable[dict[str, Any]],
    family: str | None = None,
    detectors: Sequence[Wrap] | None = None,
    executor: Any = "thread",
    max_workers: int | None = None,
    progress: bool = False,
) -> AuditReport:
    """Run the hack detectors on offline samples of ``env``.

    Args:
        env: A rlenv env (possibly wrapped) or a registered id; its verifier scores the samples.
        samples: Dicts with ``completion`` and ``task_id`` or ``index``; an optional
            ``truncated: true`` says generation hit its length limit.
        family: Which default detector set to run (see :data:`FAMILY_DETECTORS`); default
            :func:`env_family` of ``env``.
        detectors: Wrapper factories ``env -> env`` to run instead of the family's defaults.
        executor, max_workers, progress: Scoring options, see :func:`rlenv.scoring.score_tasks`.
    """
    samples = list(samples)
    if isinstance(env, str):
        from rlenv.registry import make

        family = env_family(env) if family is None else family
        env = make(env)
    family = env_family(env) if family is None else family
    wraps = default_detectors(family) if detectors is None else list(detectors)
    checked = env
    for wrap in wraps:
        checked = wrap(checked)
    names = []
    layer = checked
    while layer is not env:
        if getattr(layer, "name", ""):
            names.append(layer.name)
        layer = layer.env
    base = env.unwrapped
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
    return AuditReport(rows, list(reversed(names)), family)

"""Per-sample result files and their summary: metrics with confidence intervals and breakdowns.

A result file is JSONL, one row per scored sample::

    {"task_id": "arith-0-3", "sample": 0, "prompt": "...", "completion": "...", "reward": 1.0,
     "status": "correct", "components": {...}, "verifier": "math", "verifier_version": "1",
     "truncated": false, "details": {...}, "metadata": {"level": 2}, "cluster": 0}

``(task_id, sample)`` identifies a row. ``prompt`` is the observation the policy saw (text or
chat messages). ``cluster`` (present when the environment defines answer equivalence) labels
equivalent answers for maj@k; ``null`` means the sample gave no answer. ``hacks`` (present when
the environment is wrapped with hack detectors) lists what they found.
A sample *passes* when its status is ``correct``.
"""

from __future__ import annotations

import collections
import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rlenv.errors import check_choice
from rlenv.evaluation.confidence import bootstrap_ci, paired_comparison
from rlenv.evaluation.estimators import maj_at_k, mean_at_k, pass_at_k, pass_pow_k
from rlenv.jsonl import read_jsonl

#: Keys every result row must have.
REQUIRED_KEYS = ("task_id", "sample", "reward", "status")
#: Metric families reported by :func:`summarize`; ``mean`` is mean@k, which does not depend on k.
METRIC_FAMILIES = ("pass@k", "pass^k", "maj@k", "mean")
#: How :func:`summarize` counts samples whose verifier (or generation) failed, status ``error``:
#: left out of every metric's ``n`` (``exclude``, the default: a failure is no evidence about the
#: model), or counted as wrong answers (``count-as-wrong``, the rule before).
ERROR_RULES = ("exclude", "count-as-wrong")
#: Default ks: powers of two up to the smallest number of samples per task.
DEFAULT_KS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
_METRIC_RE = re.compile(r"^(pass@|pass\^|maj@)(\d+)$")


@dataclasses.dataclass
class TaskSamples:
    """All scored samples of one task, in sample order."""

    task_id: str
    rewards: list[float]
    statuses: list[str]
    clusters: list[int | None] | None
    metadata: dict[str, Any]

    @property
    def n(self) -> int:
        return len(self.rewards)

    @property
    def num_correct(self) -> int:
        return sum(s == "correct" for s in self.statuses)


def read_results(path: str | Path) -> list[dict[str, Any]]:
    """Rows of a result file; a malformed line or a row lacking a required key is an error naming its line."""
    return read_jsonl(path, what="result file", required_keys=REQUIRED_KEYS)


def group_by_task(rows: Iterable[Mapping[str, Any]]) -> list[TaskSamples]:
    """Collect rows into one :class:`TaskSamples` per task, tasks in order of first appearance.

    Raises on a ``(task_id, sample)`` pair that appears twice.
    """
    by_task: dict[str, list[Mapping[str, Any]]] = collections.defaultdict(list)
    for row in rows:
        by_task[str(row["task_id"])].append(row)
    tasks = []
    for task_id, task_rows in by_task.items():
        task_rows = sorted(task_rows, key=lambda r: int(r["sample"]))
        numbers = [int(r["sample"]) for r in task_rows]
        if len(set(numbers)) != len(numbers):
            dupes = sorted(n for n, count in collections.Counter(numbers).items() if count > 1)
            raise ValueError(f"task {task_id!r} has duplicate sample numbers {dupes}")
        has_clusters = all("cluster" in r for r in task_rows)
        tasks.append(TaskSamples(
            task_id=task_id,
            rewards=[float(r["reward"]) for r in task_rows],
            statuses=[str(r["status"]) for r in task_rows],
            clusters=[r["cluster"] for r in task_rows] if has_clusters else None,
            metadata=dict(task_rows[0].get("metadata") or {}),
        ))
    return tasks


def metric_names(tasks: Sequence[TaskSamples], ks: Sequence[int] | None = None,
                 families: Sequence[str] = METRIC_FAMILIES) -> list[str]:
    """The metric names :func:`summarize` reports, e.g. ``["pass@1", "pass@4", "pass^1", ..., "mean"]``.

    ``ks`` defaults to the powers of two up to the smallest sample count; an explicit k larger than
    some task's sample count is an error naming that task. maj@k appears only when every task
    carries cluster labels.
    """
    unknown = set(families) - set(METRIC_FAMILIES)
    if unknown:
        raise ValueError(f"unknown metric families {sorted(unknown)}: expected some of {METRIC_FAMILIES}")
    if not tasks:
        raise ValueError("no results to summarize")
    n_min = min(t.n for t in tasks)
    if ks is None:
        ks = [k for k in DEFAULT_KS if k <= n_min]
    else:
        bad = [k for k in ks if not isinstance(k, int) or k < 1]
        if bad:
            raise ValueError(f"k values must be ints >= 1, got {bad}")
        if max(ks) > n_min:
            short = next(t for t in tasks if t.n < max(ks))
            raise ValueError(f"k={max(ks)} needs >= {max(ks)} samples per task, but task {short.task_id!r} "
                             f"has {short.n}; lower k or add samples")
    names = []
    for family in families:
        if family == "mean":
            names.append("mean")
        elif family == "maj@k" and any(t.clusters is None for t in tasks):
            continue
        else:
            names.extend(f"{family[:-1]}{k}" for k in ks)
    return names


def per_task_values(tasks: Sequence[TaskSamples], metric: str) -> np.ndarray:
    """Per-task values of ``metric`` (``pass@K``, ``pass^K``, ``maj@K`` or ``mean``), shape ``(num_tasks,)``."""
    if metric == "mean":
        return np.array([mean_at_k(t.rewards, 1) for t in tasks])
    match = _METRIC_RE.match(metric)
    if not match:
        raise ValueError(f"unknown metric {metric!r}: expected pass@K, pass^K, maj@K or mean")
    family, k = match.group(1), int(match.group(2))
    if family == "maj@":
        missing = [t.task_id for t in tasks if t.clusters is None]
        if missing:
            raise ValueError(f"maj@{k} needs answer clusters, missing for tasks {missing[:5]}: score with an "
                             "environment whose verifier defines equivalent(task, a, b)")
        return np.array([maj_at_k(clusters, [s == "correct" for s in t.statuses], k)
                         for t in tasks if (clusters := t.clusters) is not None])
    n = np.array([t.n for t in tasks])
    c = np.array([t.num_correct for t in tasks])
    estimator = pass_at_k if family == "pass@" else pass_pow_k
    return np.atleast_1d(estimator(n, c, k))


def summarize(
    rows: Iterable[Mapping[str, Any]],
    ks: Sequence[int] | None = None,
    by: Sequence[str] = (),
    families: Sequence[str] = METRIC_FAMILIES,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    seed: int = 0,
    errors: str = "exclude",
) -> dict[str, Any]:
    """Summary of a result file: metrics with bootstrap CIs, status counts, errors, breakdowns.

    Args:
        rows: Result rows (see the module docstring).
        ks: The ks to report (default: powers of two up to the smallest samples-per-task).
        by: Task metadata fields to break the metrics down by (e.g. ``["level", "subject"]``);
            tasks lacking a field are grouped under ``"(missing)"``.
        families: Which of ``pass@k``, ``pass^k``, ``maj@k``, ``mean`` to report.
        confidence, n_resamples, seed: See :func:`rlenv.evaluation.confidence.bootstrap_ci`.
        errors: One of :data:`ERROR_RULES`: ``exclude`` leaves ``error`` samples out of the metrics
            (a task with no other sample is left out of them too).

    Returns:
        A JSON-serializable dict with ``num_tasks``, ``num_samples``, ``samples_per_task``
        (min/max), ``status`` counts, ``errors`` (``count``, ``fraction``, ``rule``,
        ``tasks_without_valid_samples``, ``first_messages``), ``metrics`` (name ->
        :class:`Estimate` dict), ``by`` (field -> group value -> ``{"num_tasks", "metrics"}``)
        and the bootstrap settings; ``judge_usage`` (:func:`usage_totals`) when the verifier recorded it.
    """
    check_choice("errors", errors, ERROR_RULES)
    rows = list(rows)
    failed = [r for r in rows if str(r["status"]) == "error"]
    scored = [r for r in rows if str(r["status"]) != "error"] if errors == "exclude" else rows
    if not scored:
        raise ValueError(f"all {len(rows)} samples have status 'error': nothing to summarize "
                         f"(first error: {_error_message(failed[0])!r}); rerun with --retry-errors")
    tasks = group_by_task(scored)
    values = {name: per_task_values(tasks, name) for name in metric_names(tasks, ks, families)}

    def table(members: np.ndarray) -> dict[str, Any]:
        return {name: bootstrap_ci(v[members], confidence, n_resamples, seed=seed).to_dict()
                for name, v in values.items()}

    breakdowns: dict[str, Any] = {}
    for field in by:
        if all(field not in t.metadata for t in tasks):
            fields = sorted({key for t in tasks for key in t.metadata})
            raise ValueError(f"no task has metadata field {field!r}; fields present: {fields}")
        groups: dict[str, list[int]] = collections.defaultdict(list)
        for i, t in enumerate(tasks):
            groups[str(t.metadata.get(field, "(missing)"))].append(i)
        breakdowns[field] = {value: {"num_tasks": len(members), "metrics": table(np.array(members))}
                             for value, members in sorted(groups.items())}
    messages = list(dict.fromkeys(_error_message(r) for r in failed))
    return {
        "num_tasks": len(tasks),
        "num_samples": len(rows),
        "samples_per_task": {"min": min(t.n for t in tasks), "max": max(t.n for t in tasks)},
        "status": dict(collections.Counter(str(r["status"]) for r in rows)),
        "errors": {"count": len(failed), "fraction": len(failed) / len(rows), "rule": errors,
                   "tasks_without_valid_samples": len({str(r["task_id"]) for r in rows}) - len(tasks),
                   "first_messages": messages[:5]},
        "metrics": table(np.arange(len(tasks))),
        **({"judge_usage": usage} if (usage := usage_totals(r.get("details") for r in rows)) else {}),
        "by": breakdowns,
        "bootstrap": {"confidence": confidence, "n_resamples": n_resamples, "seed": seed, "unit": "task"},
        **episode_summary(rows),
    }


def episode_summary(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``{"episodes": ...}`` for the multi-turn rows of ``rows`` (those with an ``episode``), else ``{}``.

    Over those episodes: their number, turns per episode (mean, max), the sum of each tool
    counter of ``tool_metrics`` (``calls``, ``errors``...), tool errors per call, and how many
    episodes each limit cut (``max_turns``...).
    """
    episodes = [r["episode"] for r in rows if isinstance(r.get("episode"), Mapping)]
    if not episodes:
        return {}
    tools: collections.Counter[str] = collections.Counter()
    for episode in episodes:
        tools.update({k: int(v) for k, v in (episode.get("tool_metrics") or {}).items()})
    turns = [int(e.get("turns", 0)) for e in episodes]
    return {"episodes": {
        "count": len(episodes), "turns": {"mean": sum(turns) / len(turns), "max": max(turns)},
        "tool_metrics": dict(tools),
        "tool_errors_per_call": tools["errors"] / (tools["calls"] + tools["malformed"])
        if tools["calls"] + tools["malformed"] else 0.0,
        "cut_by": dict(collections.Counter(str(e["limit"]) for e in episodes if e.get("limit"))),
    }}


#: The ``details`` key under which a verifier that calls a model per sample (an AI judge) records what
#: the sample cost, as counters (``requests``, ``cache_hits``, ``prompt_chars``, ...).
USAGE_KEY = "judge_usage"


def usage_totals(details: Iterable[Mapping[str, Any] | None]) -> dict[str, int]:
    """The sums of the :data:`USAGE_KEY` counters of results' ``details`` (empty when none has them)."""
    totals: dict[str, int] = collections.Counter()
    for entry in details:
        usage = entry.get(USAGE_KEY) if isinstance(entry, Mapping) else None
        if isinstance(usage, Mapping):
            totals.update({key: int(value) for key, value in usage.items()})
    return dict(totals)


def _error_message(row: Mapping[str, Any]) -> str:
    details = row.get("details") or {}
    return str(details.get("error", "(no message)"))[:300] if isinstance(details, Mapping) else "(no message)"


def compare_results(
    rows_a: Iterable[Mapping[str, Any]],
    rows_b: Iterable[Mapping[str, Any]],
    metric: str = "pass@1",
    confidence: float = 0.95,
    n_resamples: int = 9999,
    seed: int = 0,
) -> dict[str, Any]:
    """Paired comparison of two result files on the tasks they share.

    Returns a JSON-serializable dict: the metric, ``num_tasks`` compared, the task counts present
    in only one file, and the :class:`~rlenv.evaluation.confidence.PairedComparison` fields
    (``difference`` = A - B with its CI, ``p_value``, wins/losses/ties).
    """
    tasks_a = {t.task_id: t for t in group_by_task(rows_a)}
    tasks_b = {t.task_id: t for t in group_by_task(rows_b)}
    shared = [task_id for task_id in tasks_a if task_id in tasks_b]
    if not shared:
        raise ValueError(f"the two result files share no task ids (e.g. {list(tasks_a)[:3]} vs {list(tasks_b)[:3]})")
    values_a = per_task_values([tasks_a[t] for t in shared], metric)
    values_b = per_task_values([tasks_b[t] for t in shared], metric)
    result = paired_comparison(values_a, values_b, confidence, n_resamples, seed)
    return {"metric": metric, "num_tasks": len(shared), "only_in_a": len(tasks_a) - len(shared),
            "only_in_b": len(tasks_b) - len(shared), **result.to_dict()}

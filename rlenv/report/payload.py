"""The data a report page shows, computed from :class:`~rlenv.report.runs.Run` objects.

:func:`build_payload` returns one JSON-serializable dict that the page's script renders:

* ``runs``: per run its label (``A``, ``B``...), kind, path, env, model (or samples file), summary (metrics with confidence
  intervals, as ``summary.json``), audit summary, config and training curves;
* ``tasks``: every task id of the runs' samples with its metadata; ``fields``: the metadata
  fields whose values are scalars (the filters); ``prompts``: the distinct prompts, which
  samples name by index;
* ``task_stats``: per run, one row per task: samples, correct, mean reward, status and
  detector counts;
* ``samples``: one compact row per sample (columns in ``sample_columns``), with the character
  spans of the hack evidence (:func:`~rlenv.report.evidence.evidence_spans`), the task's
  reference answer and, for a multi-turn episode, its ``episode`` (turns, limit, tool metrics
  and messages: the page shows each turn, its tool calls, results and errors);
* ``comparisons``: when the first run is an evaluation or audit, each later one against it: the
  paired comparison of ``rlenv compare`` for each metric both summaries report (pass@1 and mean
  without summaries; :func:`rlenv.evaluation.compare_results`); the page compares the runs per
  task (pass rate over each task's samples), never sample ``i`` with sample ``i``: the samples
  of two runs are independent draws.
"""

from __future__ import annotations

import collections
import json
import logging
import math
from collections.abc import Sequence
from typing import Any

from rlenv.report.evidence import evidence_spans
from rlenv.report.runs import Run

logger = logging.getLogger(__name__)

#: Column order of the rows of ``payload["samples"]``.
SAMPLE_COLUMNS = ("run", "task", "sample", "step", "status", "reward", "truncated", "prompt", "completion",
                  "components", "details", "hacks", "spans", "reference", "episode")
#: Metrics compared between two runs that have no ``summary.json``.
DEFAULT_COMPARE_METRICS = ("pass@1", "mean")
_SCALARS = (str, int, float, bool)


def _label(i: int) -> str:
    return chr(ord("A") + i) if i < 26 else f"R{i + 1}"


def _finite(value: Any) -> float | None:
    number = float(value)
    return number if math.isfinite(number) else None


def training_curves(metrics: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per-step series of a trainer's ``metrics.jsonl`` rows.

    Returns ``{"steps": [...], "panels": {...}, "series": {...}}``: ``series`` has every numeric
    metric by name (None where a step lacks it); ``panels`` the four curves of the page:
    ``reward`` (``reward/mean``), ``training-batch accuracy`` (share of the step's training
    episodes with status ``correct``: not an evaluation's pass@1),
    ``length`` (``length/mean``) and ``hack rate`` (per detector: flagged episodes / episodes).
    """
    rows = sorted(metrics, key=lambda r: float(r["step"]))
    steps = [float(r["step"]) for r in rows]
    names = sorted({k for r in rows for k, v in r.items() if k != "step" and isinstance(v, (int, float))})
    series = {name: [_finite(r[name]) if isinstance(r.get(name), (int, float)) else None for r in rows]
              for name in names}

    def share(name: str) -> list[float | None]:
        return [(float(r.get(name, 0.0)) / r["episodes"]) if r.get("episodes") else None for r in rows]

    detectors = sorted({name.split("/", 1)[1] for name in names if name.startswith("hacks/") and name.count("/") == 1})
    panels = {
        "reward": {"reward/mean": series.get("reward/mean", [None] * len(rows))},
        "training-batch accuracy": {"correct": share("status/correct")},
        "length": {"length/mean": series.get("length/mean", [None] * len(rows))},
        "hack rate": {detector: share(f"hacks/{detector}") for detector in detectors},
    }
    return {"steps": steps, "panels": panels, "series": series}


def _task_stats(samples: Sequence[tuple[int, dict[str, Any]]]) -> list[list[Any]]:
    """``[task, n, correct, mean reward, {status: count}, {detector: count}]`` per task."""
    by_task: dict[int, list[dict[str, Any]]] = collections.defaultdict(list)
    for task, sample in samples:
        by_task[task].append(sample)
    stats = []
    for task, rows in by_task.items():
        statuses = collections.Counter(str(s["status"]) for s in rows)
        detectors = collections.Counter(name for s in rows for name in {str(h.get("detector")) for h in s["hacks"]})
        rewards = [float(s["reward"]) for s in rows if s["reward"] is not None]
        stats.append([task, len(rows), statuses.get("correct", 0), sum(rewards) / len(rewards) if rewards else None,
                      dict(statuses), dict(detectors)])
    return stats


def _compare(a: Run, b: Run, confidence: float, n_resamples: int, seed: int) -> list[dict[str, Any]]:
    from rlenv.evaluation.results import compare_results

    if a.summary and b.summary:
        metrics = [name for name in a.summary["metrics"] if name in b.summary["metrics"]]
    else:
        metrics = list(DEFAULT_COMPARE_METRICS)
    compared = []
    for metric in metrics:
        try:
            compared.append(compare_results(a.rows, b.rows, metric, confidence, n_resamples, seed))
        except ValueError as exc:  # e.g. no shared task: the page says so instead of failing the report
            logger.warning("cannot compare %s with %s on %s: %s", a.path, b.path, metric, exc)
            compared.append({"metric": metric, "error": str(exc)})
    return compared


def build_payload(runs: Sequence[Run], title: str = "rlenv report", confidence: float = 0.95,
                  n_resamples: int = 9999, seed: int = 0) -> dict[str, Any]:
    """The page's data for ``runs`` (see the module docstring).

    ``confidence``, ``n_resamples`` and ``seed`` are those of the paired comparisons (the
    defaults of ``rlenv compare``).
    """
    if not runs:
        raise ValueError("a report needs at least one run")
    prompts: dict[tuple[str, str], int] = {}
    prompt_values: list[Any] = []
    tasks: dict[str, int] = {}
    task_rows: list[list[Any]] = []
    fields: dict[str, None] = {}
    samples: list[list[Any]] = []
    task_stats: list[list[list[Any]] | None] = []

    def prompt_index(prompt: Any) -> int:
        if prompt is None:
            return -1
        key = ("text", prompt) if isinstance(prompt, str) else ("json", json.dumps(prompt, sort_keys=True, default=str))
        if key not in prompts:
            prompts[key] = len(prompt_values)
            prompt_values.append(prompt)
        return prompts[key]

    for r, run in enumerate(runs):
        placed: list[tuple[int, dict[str, Any]]] = []
        for sample in run.samples:
            task_id = sample["task_id"]
            if task_id not in tasks:
                metadata = {k: v for k, v in (sample["metadata"] or {}).items() if isinstance(v, _SCALARS)}
                fields.update(dict.fromkeys(metadata))
                tasks[task_id] = len(task_rows)
                task_rows.append([task_id, metadata])
            task = tasks[task_id]
            completion = sample["completion"] if isinstance(sample["completion"], str) else ""
            hacks = sample["hacks"]
            placed.append((task, sample))
            samples.append([r, task, sample["sample"], sample["step"], str(sample["status"]),
                            None if sample["reward"] is None else _finite(sample["reward"]), sample["truncated"],
                            prompt_index(sample["prompt"]), completion, sample["components"] or None,
                            sample["details"] or None, hacks or None,
                            evidence_spans(completion, hacks) if hacks else None,
                            None if sample["reference"] is None else str(sample["reference"]),
                            sample["episode"] or None])
        task_stats.append(_task_stats(placed) if run.kind != "train" else None)

    comparisons = []
    for b in range(1, len(runs)):
        if runs[0].kind == "train" or runs[b].kind == "train":
            continue
        comparisons.append({"a": 0, "b": b, "metrics": _compare(runs[0], runs[b], confidence, n_resamples, seed)})
    return {
        "format": 1,
        "title": title,
        "runs": [{"label": _label(i), "name": run.name, "kind": run.kind, "path": str(run.path), "env": run.env,
                  "model": run.model,
                  "summary": run.summary, "audit": run.audit, "config": run.config, "num_samples": len(run.samples),
                  "curves": training_curves(run.metrics) if run.kind == "train" else None}
                 for i, run in enumerate(runs)],
        "fields": list(fields),
        "prompts": prompt_values,
        "tasks": task_rows,
        "task_stats": task_stats,
        "sample_columns": list(SAMPLE_COLUMNS),
        "samples": samples,
        "comparisons": comparisons,
    }

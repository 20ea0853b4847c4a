"""Reading run directories for the report: evaluations, audits and training runs, as one sample shape.

A *run* is one of:

* an evaluation directory written by ``rlenv eval`` (``results.jsonl``, ``summary.json``,
  ``config.json``), or a bare result file with rows ``{"task_id", "sample", "reward", "status", ...}``
  (``rlenv eval`` / ``rlenv score`` output);
* an audit file written by ``rlenv audit --out A.jsonl`` (rows with ``hacks`` and ``raw_reward``),
  with its summary ``A.summary.json`` next to it when present;
* a training directory written by the trainer (``metrics.jsonl``, one row per step, and
  ``samples.jsonl``, the completions logged at some steps).

Every sample becomes one dict with the keys of :data:`SAMPLE_KEYS`; what a file lacks is None
(or empty). Files are read as UTF-8 with undecodable bytes replaced (a report shows broken text
as U+FFFD instead of refusing the run).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rlenv.jsonl import read_jsonl

RESULTS_FILE = "results.jsonl"
SUMMARY_FILE = "summary.json"
CONFIG_FILE = "config.json"
MANIFEST_FILE = "manifest.json"
METRICS_FILE = "metrics.jsonl"
TRAIN_SAMPLES_FILE = "samples.jsonl"
#: Suffix of an audit's summary file: ``A.jsonl`` -> ``A.summary.json``.
AUDIT_SUMMARY_SUFFIX = ".summary.json"
RUN_KINDS = ("eval", "audit", "train")
#: The keys of every sample of a :class:`Run`.
SAMPLE_KEYS = ("task_id", "sample", "step", "prompt", "reference", "completion", "reward", "status", "components",
               "details", "hacks", "truncated", "metadata", "episode")


@dataclasses.dataclass
class Run:
    """One run, read from disk.

    Attributes:
        path: The directory or file it was read from.
        kind: ``"eval"``, ``"audit"`` or ``"train"``.
        samples: Sample dicts (keys :data:`SAMPLE_KEYS`), in file order.
        rows: The rows as stored (result or audit rows; the logged samples of a training run),
            for :func:`rlenv.evaluation.compare_results`.
        summary: ``summary.json`` of an evaluation (None for other kinds or when missing).
        audit: The audit summary (``A.summary.json``) when present.
        config: ``config.json`` of an evaluation when present.
        metrics: The per-step rows of ``metrics.jsonl`` (training runs).
        manifest: ``manifest.json`` of the run when present (:mod:`rlenv.manifest`).
    """

    path: Path
    kind: str
    samples: list[dict[str, Any]]
    rows: list[dict[str, Any]]
    summary: dict[str, Any] | None = None
    audit: dict[str, Any] | None = None
    config: dict[str, Any] | None = None
    metrics: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    manifest: dict[str, Any] | None = None

    @property
    def env(self) -> str | None:
        """The env id the run scored on (its manifest's, else its ``config.json``'s)."""
        return ((self.manifest or {}).get("env") or {}).get("id") or (self.config or {}).get("env")

    @property
    def model(self) -> str | None:
        """What produced the completions: the model, or the samples file that was scored."""
        for settings in ((self.manifest or {}).get("settings") or {}, self.config or {}):
            if settings.get("model"):
                return str(settings["model"])
            if settings.get("samples"):
                return f"samples {settings['samples']}"
        return None

    @property
    def name(self) -> str:
        """A short name: the directory name, or the file name without ``.jsonl``."""
        return self.path.name if self.path.is_dir() else self.path.name.removesuffix(".jsonl")


def _read_rows(path: Path, what: str, required: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    return read_jsonl(path, what=what, required_keys=required, drop_truncated_tail=True, errors="replace")


def _read_json(path: Path) -> dict[str, Any] | None:
    if not path.exists():
        return None
    return json.loads(path.read_text(encoding="utf-8", errors="replace"))


def _sample(row: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    sample = {key: row.get(key) for key in SAMPLE_KEYS}
    sample.update(overrides)
    sample["task_id"] = "(no task id)" if sample["task_id"] is None else str(sample["task_id"])
    sample["hacks"] = list(sample["hacks"] or [])
    sample["truncated"] = bool(sample["truncated"])
    return sample


def _eval_run(path: Path, results: Path) -> Run:
    from rlenv.evaluation.results import REQUIRED_KEYS

    rows = _read_rows(results, "result file", REQUIRED_KEYS)
    folder = results.parent
    return Run(path, "eval", [_sample(r) for r in rows], rows, summary=_read_json(folder / SUMMARY_FILE),
               config=_read_json(folder / CONFIG_FILE), manifest=_read_json(folder / MANIFEST_FILE))


def _train_run(path: Path) -> Run:
    metrics = _read_rows(path / METRICS_FILE, "training metrics file", ("step",))
    logged = path / TRAIN_SAMPLES_FILE
    rows = _read_rows(logged, "training samples file", ("step", "task_id", "status")) if logged.exists() else []
    return Run(path, "train", [_sample(r) for r in rows], rows, metrics=metrics,
               manifest=_read_json(path / MANIFEST_FILE))


def _file_run(path: Path) -> Run:
    if path.name == RESULTS_FILE:
        return _eval_run(path.parent, path)
    rows = _read_rows(path, "run file", ("task_id", "status"))
    if rows and all("hacks" in r and "raw_reward" in r for r in rows):
        audit = _read_json(path.with_name(path.name.removesuffix(".jsonl") + AUDIT_SUMMARY_SUFFIX))
        return Run(path, "audit", [_sample(r) for r in rows], rows, audit=audit)
    missing = [key for key in ("sample", "reward") if any(key not in r for r in rows)]
    if missing:
        raise ValueError(f"{path}: rows lack {missing}: expected rlenv eval/score results or rlenv audit rows")
    return Run(path, "eval", [_sample(r) for r in rows], rows)


def load_run(path: str | Path) -> Run:
    """Read one run (see the module docstring for what a run is).

    Raises:
        FileNotFoundError: ``path`` does not exist.
        ValueError: ``path`` is a directory holding neither ``results.jsonl`` nor ``metrics.jsonl``,
            or a file whose rows are neither results nor audit rows.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"run not found: {path}")
    if path.is_file():
        return _file_run(path)
    if (path / RESULTS_FILE).exists():
        return _eval_run(path, path / RESULTS_FILE)
    if (path / METRICS_FILE).exists():
        return _train_run(path)
    raise ValueError(f"{path} is not a run directory: expected {RESULTS_FILE} (rlenv eval) or {METRICS_FILE} "
                     "(training), or pass an audit or result JSONL file")


def _is_run_dir(path: Path) -> bool:
    return (path / RESULTS_FILE).exists() or (path / METRICS_FILE).exists()


def expand_runs(paths: Sequence[str | Path]) -> list[Path]:
    """``paths`` with each directory that is no run itself but holds run directories (``rlenv demo``'s
    output: ``eval-step-NNNN/`` and ``train/``) replaced by those, in name order."""
    expanded: list[Path] = []
    for path in map(Path, paths):
        inside = sorted(p for p in path.iterdir() if p.is_dir() and _is_run_dir(p)) \
            if path.is_dir() and not _is_run_dir(path) else []
        expanded += inside or [path]
    return expanded

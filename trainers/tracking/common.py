"""What every tracking backend receives and provides: the :class:`TrackedRun` it opens, the
:class:`Tracker` it returns, the columns of its sample tables and :func:`require`, the import of its
package that names the missing extra."""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

#: The columns of a sample table, in order (a subset of a ``samples.jsonl`` row).
SAMPLE_COLUMNS = ("step", "prompt", "completion", "reward", "status")


@dataclasses.dataclass(frozen=True)
class TrackedRun:
    """A training run as the backends record it.

    Attributes:
        name: the run's name (``TrainerConfig.run_name``, else the output directory's name).
        project: wandb's project, Trackio's project, MLflow's experiment (TensorBoard has none).
        output_dir: the run's output directory (TensorBoard's logs go to ``output_dir/tensorboard``,
            wandb's to ``output_dir/wandb``, MLflow's own SQLite store, by default, to ``output_dir/mlflow``).
        config: the run's settings: ``{"algorithm": ..., "config": ...}`` as JSON-ready dicts.
        manifest: the run's ``manifest.json`` (:mod:`rlenv.manifest`).
    """

    name: str
    project: str
    output_dir: Path
    config: dict[str, Any]
    manifest: dict[str, Any]


class Tracker(Protocol):
    """One backend's open run: each step's metrics, tables of logged samples, then ``close``."""

    def log_metrics(self, metrics: Mapping[str, float], step: int) -> None:
        """Record ``metrics`` (name -> value) at training step ``step``."""

    def log_samples(self, rows: Sequence[Mapping[str, Any]], step: int) -> None:
        """Record a table of logged episodes (``samples.jsonl`` rows; :data:`SAMPLE_COLUMNS`) at ``step``."""

    def close(self) -> None:
        """Write out everything recorded and end the run."""


def require(package: str, backend: str) -> ModuleType:
    """Import ``package``, the library behind ``report_to=backend``; when it is missing, raise an
    ``ImportError`` naming the extra that installs it."""
    try:
        return importlib.import_module(package)
    except ImportError as exc:
        raise ImportError(f"report_to={backend!r} needs {package} ({exc}): pip install 'rlenv-lm[{backend}]'") from exc


def table_rows(rows: Sequence[Mapping[str, Any]]) -> list[list[Any]]:
    """The cells of a sample table: one list per row, :data:`SAMPLE_COLUMNS` in order (text as text)."""
    return [[row["step"], str(row["prompt"]), str(row["completion"]), float(row["reward"]), str(row["status"])]
            for row in rows]


class LoggingRunTracker:
    """A backend in wandb's shape (wandb, Trackio): its run logs a dict of values at a step
    (``run.log(values, step=step)``) and ends with ``run.finish()``, its module has
    ``Table(columns=, data=)``."""

    def __init__(self, module: ModuleType, run: Any):
        self.module = module
        self.run = run

    def log_metrics(self, metrics: Mapping[str, float], step: int) -> None:
        """The metrics as one row at ``step``."""
        self.run.log(dict(metrics), step=step)

    def log_samples(self, rows: Sequence[Mapping[str, Any]], step: int) -> None:
        """The rows as a ``Table`` named ``samples`` at ``step``."""
        table = self.module.Table(columns=list(SAMPLE_COLUMNS), data=table_rows(rows))
        self.run.log({"samples": table}, step=step)

    def close(self) -> None:
        """Finish the run."""
        self.run.finish()

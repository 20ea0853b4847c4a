"""Experiment tracking (``TrainerConfig.report_to``): each step's metrics, the run's name, settings and
manifest, and tables of logged samples, sent to TensorBoard, Weights & Biases, Trackio or MLflow.

One module per backend (``tensorboard``, ``wandb``, ``trackio``, ``mlflow``), each with a
``start(run) -> Tracker`` that imports its library only then; each library is an optional extra
(``pip install 'rlenv-lm[wandb]'``). :func:`start` opens the runs of several backends behind one
:class:`Trackers`. Every backend can run without a network: TensorBoard writes event files, MLflow
a SQLite store of its own under ``output_dir/mlflow`` (unless ``MLFLOW_TRACKING_URI`` says otherwise),
Trackio a local database (``TRACKIO_DIR``), wandb an offline run under ``output_dir/wandb`` with
``WANDB_MODE=offline``.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Any

from rlenv.errors import check_choice
from rlenv.trainers.tracking.common import SAMPLE_COLUMNS, TrackedRun, Tracker

#: ``report_to`` name -> the module of its backend (each has ``start(run: TrackedRun) -> Tracker``).
BACKENDS: dict[str, str] = {name: f"rlenv.trainers.tracking.{name}"
                            for name in ("tensorboard", "wandb", "trackio", "mlflow")}

__all__ = ["BACKENDS", "SAMPLE_COLUMNS", "TrackedRun", "Tracker", "Trackers", "backend_names", "start"]


def backend_names(report_to: str) -> tuple[str, ...]:
    """The backends of a ``report_to`` setting: comma-separated names of :data:`BACKENDS` (``""`` = none);
    an unknown name is a ``ValueError`` naming it and the known ones."""
    names = tuple(dict.fromkeys(part.strip() for part in report_to.split(",") if part.strip()))
    for name in names:
        check_choice("report_to", name, tuple(BACKENDS))
    return names


class Trackers:
    """The open runs of several backends, each call passed to all of them."""

    def __init__(self, trackers: Sequence[Tracker]):
        self.trackers = list(trackers)

    def log_metrics(self, metrics: Mapping[str, float], step: int) -> None:
        """Record ``metrics`` at ``step`` in every backend."""
        for tracker in self.trackers:
            tracker.log_metrics(metrics, step)

    def log_samples(self, rows: Sequence[Mapping[str, Any]], step: int) -> None:
        """Record a table of logged samples at ``step`` in every backend."""
        for tracker in self.trackers:
            tracker.log_samples(rows, step)

    def close(self) -> None:
        """End every backend's run."""
        for tracker in self.trackers:
            tracker.close()


def start(report_to: str, run: TrackedRun) -> Trackers:
    """Open ``run`` in each backend named by ``report_to`` (see :func:`backend_names`); a backend whose
    library is not installed raises an ``ImportError`` naming its extra."""
    trackers: list[Tracker] = []
    try:
        for name in backend_names(report_to):
            trackers.append(importlib.import_module(BACKENDS[name]).start(run))
    except BaseException:
        Trackers(trackers).close()
        raise
    return Trackers(trackers)

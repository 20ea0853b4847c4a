"""``report_to="trackio"``: a Trackio run (``pip install 'rlenv-lm[trackio]'``) named after the training run, in
the project ``TrainerConfig.tracking_project`` of Trackio's local database (``TRACKIO_DIR``, by default under
Hugging Face's cache; ``trackio show`` opens the dashboard). Its config holds the run's settings and
manifest; each step's metrics are logged at that step and each logged step's samples as a ``samples``
table. It needs no network unless ``TRACKIO_SPACE_ID`` / ``TRACKIO_SERVER_URL`` send it elsewhere."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rlenv.trainers.tracking.common import SAMPLE_COLUMNS, TrackedRun, require, table_rows


class TrackioTracker:
    """An open Trackio run."""

    def __init__(self, run: TrackedRun):
        self.trackio = require("trackio", "trackio")
        self.run = self.trackio.init(project=run.project, name=run.name,
                                     config={**run.config, "manifest": run.manifest})

    def log_metrics(self, metrics: Mapping[str, float], step: int) -> None:
        """The metrics as one row at ``step``."""
        self.run.log(dict(metrics), step=step)

    def log_samples(self, rows: Sequence[Mapping[str, Any]], step: int) -> None:
        """The rows as a ``trackio.Table`` named ``samples`` at ``step``."""
        table = self.trackio.Table(columns=list(SAMPLE_COLUMNS), data=table_rows(rows))
        self.run.log({"samples": table}, step=step)

    def close(self) -> None:
        """Finish the run (its rows are written to the database then)."""
        self.run.finish()


def start(run: TrackedRun) -> TrackioTracker:
    """Open ``run`` in Trackio."""
    return TrackioTracker(run)

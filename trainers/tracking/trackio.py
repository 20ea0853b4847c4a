"""``report_to="trackio"``: a Trackio run (``pip install 'rlenv-lm[trackio]'``) named after the training run, in
the project ``TrainerConfig.tracking_project`` of Trackio's local database (``TRACKIO_DIR``, by default under
Hugging Face's cache; ``trackio show`` opens the dashboard). Its config holds the run's settings and
manifest; each step's metrics are logged at that step and each logged step's samples as a ``samples``
table. It needs no network unless ``TRACKIO_SPACE_ID`` / ``TRACKIO_SERVER_URL`` send it elsewhere."""

from __future__ import annotations

from rlenv.trainers.tracking.common import LoggingRunTracker, TrackedRun, require


def start(run: TrackedRun) -> LoggingRunTracker:
    """Open ``run`` in Trackio (its rows are written to the database when it finishes)."""
    trackio = require("trackio", "trackio")
    return LoggingRunTracker(trackio, trackio.init(project=run.project, name=run.name,
                                                   config={**run.config, "manifest": run.manifest}))

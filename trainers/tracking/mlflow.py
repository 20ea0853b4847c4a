"""``report_to="mlflow"``: an MLflow run (``pip install 'rlenv-lm[mlflow]'``: ``mlflow-skinny``) named after the
training run, in the experiment ``TrainerConfig.tracking_project``, on the tracking server or store of
``MLFLOW_TRACKING_URI``, else in a SQLite store of its own, ``output_dir/mlflow/mlflow.db`` with the artifacts
beside it (no server, no network; ``mlflow ui --backend-store-uri sqlite:///DIR/mlflow/mlflow.db`` opens it;
MLflow 3 refuses its file store, ``mlruns/``, by default). The run's settings are its params (``config.lr``,
``algorithm.name``, ...) and the artifacts ``settings.json`` and ``manifest.json``; each step's metrics are
logged at that step, and the logged samples go to the ``samples.json`` table artifact (rows appended)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from rlenv.trainers.tracking.common import SAMPLE_COLUMNS, TrackedRun, require, table_rows

#: The folder of ``output_dir`` that holds the SQLite store and the artifacts when ``MLFLOW_TRACKING_URI`` is
#: not set.
FOLDER = "mlflow"
#: MLflow takes at most this many params in one ``log_batch`` call.
PARAMS_PER_BATCH = 100


def _flat(prefix: str, value: Any) -> Iterator[tuple[str, Any]]:
    """``("config.lr", 1e-06)``, ... : the leaves of nested dicts under dotted names."""
    if isinstance(value, Mapping) and value:
        for key, inner in value.items():
            yield from _flat(f"{prefix}.{key}" if prefix else str(key), inner)
    else:
        yield prefix, value


class MlflowTracker:
    """An open MLflow run, driven through ``MlflowClient`` (no global active run)."""

    def __init__(self, run: TrackedRun):
        require("mlflow", "mlflow")
        from mlflow import MlflowClient
        from mlflow.entities import Param

        uri, artifacts = os.environ.get("MLFLOW_TRACKING_URI"), None
        if not uri:  # the run's own store, its artifacts beside it (not in the working directory)
            store = (run.output_dir / FOLDER).resolve()
            store.mkdir(parents=True, exist_ok=True)
            uri, artifacts = f"sqlite:///{store / 'mlflow.db'}", (store / "artifacts").as_uri()
        self.client = MlflowClient(tracking_uri=uri)
        experiment = self.client.get_experiment_by_name(run.project)
        experiment_id = (experiment.experiment_id if experiment is not None
                         else self.client.create_experiment(run.project, artifact_location=artifacts))
        self.run_id = self.client.create_run(experiment_id, run_name=run.name).info.run_id
        params = [Param(key, str(value)) for key, value in _flat("", run.config)]
        for start in range(0, len(params), PARAMS_PER_BATCH):
            self.client.log_batch(self.run_id, params=params[start:start + PARAMS_PER_BATCH])
        self.client.log_dict(self.run_id, run.config, "settings.json")
        self.client.log_dict(self.run_id, run.manifest, "manifest.json")

    def log_metrics(self, metrics: Mapping[str, float], step: int) -> None:
        """The metrics at ``step``, in one batch."""
        from mlflow.entities import Metric

        now = int(time.time() * 1000)
        self.client.log_batch(self.run_id, metrics=[Metric(key, float(value), now, step)
                                                    for key, value in metrics.items()])

    def log_samples(self, rows: Sequence[Mapping[str, Any]], step: int) -> None:
        """The rows appended to the run's ``samples.json`` table (its ``step`` column says when)."""
        cells = table_rows(rows)
        self.client.log_table(self.run_id, {column: [row[i] for row in cells]
                                            for i, column in enumerate(SAMPLE_COLUMNS)}, "samples.json")

    def close(self) -> None:
        """Mark the run finished."""
        self.client.set_terminated(self.run_id)


def start(run: TrackedRun) -> MlflowTracker:
    """Open ``run`` in MLflow."""
    return MlflowTracker(run)

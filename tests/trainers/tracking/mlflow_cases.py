"""MLflow's cases, run by ``test_mlflow.py`` in the tracking environment (``.venv-tracking``, see there)."""

import json
import sys

import pytest

from tests.trainers.tracking.tracking_helpers import tracked_training

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture
def no_tracking_uri(monkeypatch):
    """No ``MLFLOW_TRACKING_URI``: the run goes to its own store under the output directory."""
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)


def test_an_mlflow_run_holds_the_name_params_manifest_metrics_and_sample_table(no_tracking_uri, tmp_path):
    """Read back with ``MlflowClient`` on the run's own SQLite store."""
    import mlflow
    from mlflow import MlflowClient

    out = tmp_path / "out"
    history, samples = tracked_training(out, "mlflow", run_name="mlflow-run", tracking_project="rlenv-tests")
    uri = f"sqlite:///{(out / 'mlflow' / 'mlflow.db').resolve()}"
    client = MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name("rlenv-tests")
    (run,) = client.search_runs([experiment.experiment_id])
    assert run.info.run_name == "mlflow-run" and run.info.status == "FINISHED"
    params = run.data.params
    assert params["algorithm.name"] == "grpo" and params["config.steps"] == "2"
    assert params["config.report_to"] == "mlflow"
    run_id = run.info.run_id
    manifest = json.loads((out / "manifest.json").read_text())
    assert json.loads(open(client.download_artifacts(run_id, "manifest.json", str(tmp_path))).read()) == manifest
    for key in ("reward/mean", "loss/policy", "entropy", "grad_norm"):
        logged = client.get_metric_history(run_id, key)
        assert [m.step for m in logged] == [1, 2]
        assert [m.value for m in logged] == pytest.approx([row[key] for row in history], rel=1e-9)
    mlflow.set_tracking_uri(uri)  # load_table searches runs through the fluent API's tracking URI
    table = client.load_table(experiment.experiment_id, "samples.json", run_ids=[run_id])
    columns = ["step", "prompt", "completion", "reward", "status"]
    assert list(table.columns) == columns
    assert table.values.tolist() == [[s[c] for c in columns] for s in samples]


def test_mlflow_without_its_package_names_the_extra(no_tracking_uri, tmp_path, monkeypatch):
    """``sys.modules["mlflow"] = None`` makes ``import mlflow`` fail as it does where MLflow is not installed."""
    monkeypatch.setitem(sys.modules, "mlflow", None)
    with pytest.raises(ImportError, match=r"report_to='mlflow' needs mlflow .*pip install 'rlenv-lm\[mlflow\]'"):
        tracked_training(tmp_path, "mlflow")

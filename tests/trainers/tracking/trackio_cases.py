"""Trackio's cases, run by ``test_trackio.py`` in the tracking environment (``.venv-tracking``, see there)."""

import importlib
import sys

import pytest

from tests.trainers.tracking.tracking_helpers import tracked_training

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture
def trackio_dir(monkeypatch, tmp_path):
    """Trackio's local database in the test's folder (``TRACKIO_DIR`` is read when trackio is imported)."""
    monkeypatch.setenv("TRACKIO_DIR", str(tmp_path / "trackio"))
    for name in [name for name in sys.modules if name == "trackio" or name.startswith("trackio.")]:
        monkeypatch.delitem(sys.modules, name)
    return tmp_path / "trackio"


def test_a_trackio_run_holds_the_name_config_manifest_metrics_and_sample_tables(trackio_dir, tmp_path):
    """Read back with Trackio's local store (the database its dashboard reads)."""
    import json

    out = tmp_path / "out"
    history, samples = tracked_training(out, "trackio", run_name="trackio-run", tracking_project="rlenv-tests")
    storage = importlib.import_module("trackio.sqlite_storage").SQLiteStorage
    assert storage.get_project_db_path("rlenv-tests").parent == trackio_dir
    assert storage.get_runs("rlenv-tests") == ["trackio-run"]
    config = storage.get_run_config("rlenv-tests", "trackio-run")
    assert config["algorithm"]["name"] == "grpo" and config["config"]["steps"] == 2
    assert config["config"]["report_to"] == "trackio"
    assert config["manifest"] == json.loads((out / "manifest.json").read_text())
    logs = storage.get_logs("rlenv-tests", "trackio-run")
    metrics = [row for row in logs if "reward/mean" in row]
    assert [row["step"] for row in metrics] == [1, 2]
    for row, expected in zip(metrics, history):
        for key in ("reward/mean", "loss/policy", "entropy", "grad_norm"):
            assert row[key] == pytest.approx(expected[key], rel=1e-9)
    tables = [row for row in logs if "samples" in row]
    assert [row["step"] for row in tables] == [1, 2]
    for row in tables:
        assert row["samples"]["_type"] == "trackio.table"
        assert row["samples"]["_value"] == [{key: s[key] for key in ("step", "prompt", "completion", "reward", "status")}
                                            for s in samples if s["step"] == row["step"]]


def test_trackio_without_its_package_names_the_extra(trackio_dir, tmp_path, monkeypatch):
    """``sys.modules["trackio"] = None`` makes ``import trackio`` fail as it does where trackio is not installed."""
    monkeypatch.setitem(sys.modules, "trackio", None)
    with pytest.raises(ImportError, match=r"report_to='trackio' needs trackio .*pip install 'rlenv-lm\[trackio\]'"):
        tracked_training(tmp_path, "trackio")

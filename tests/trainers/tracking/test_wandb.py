import json

import pytest

from tests.trainers.tracking.tracking_helpers import tracked_training, wandb_records

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture
def offline_wandb(monkeypatch, tmp_path):
    """wandb in offline mode, its settings and caches inside the test's folder (no network, no login)."""
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_CONSOLE", "off")
    for name in ("WANDB_CONFIG_DIR", "WANDB_CACHE_DIR", "WANDB_DATA_DIR", "WANDB_ARTIFACT_DIR"):
        monkeypatch.setenv(name, str(tmp_path / "wandb-home" / name.lower()))


def test_an_offline_wandb_run_holds_the_name_config_manifest_metrics_and_sample_tables(offline_wandb, tmp_path):
    """Read back from the offline run's files: its ``.wandb`` record log (wandb's protobuf schema) and
    the table files it references."""
    out = tmp_path / "out"
    history, samples = tracked_training(out, "wandb", run_name="wb-run", tracking_project="rlenv-tests")
    (run_dir,) = (out / "wandb").glob("offline-run-*")
    records = wandb_records(next(run_dir.glob("run-*.wandb")))
    (run,) = [r.run for r in records if r.WhichOneof("record_type") == "run"]
    assert run.display_name == "wb-run" and run.project == "rlenv-tests"
    config = {item.key: json.loads(item.value_json) for item in run.config.update}
    assert config["algorithm"]["name"] == "grpo" and config["config"]["steps"] == 2
    assert config["config"]["report_to"] == "wandb"
    assert config["manifest"] == json.loads((out / "manifest.json").read_text())
    rows = [{item.key or "/".join(item.nested_key): json.loads(item.value_json) for item in r.history.item}
            for r in records if r.WhichOneof("record_type") == "history"]
    assert [row["_step"] for row in rows] == [1, 2]
    for row, metrics in zip(rows, history):
        for key in ("reward/mean", "loss/policy", "entropy", "grad_norm"):
            assert row[key] == pytest.approx(metrics[key], rel=1e-9)
        assert row["samples/_type"] == "table-file" and row["samples/nrows"] == 2
    for step, row in enumerate(rows, start=1):
        table = json.loads((run_dir / "files" / row["samples/path"]).read_text())
        assert table["columns"] == ["step", "prompt", "completion", "reward", "status"]
        logged = [s for s in samples if s["step"] == step]
        assert table["data"] == [[step, s["prompt"], s["completion"], s["reward"], s["status"]] for s in logged]


def test_wandb_without_its_package_names_the_extra(offline_wandb, tmp_path, monkeypatch):
    """``sys.modules["wandb"] = None`` makes ``import wandb`` fail as it does where wandb is not installed."""
    monkeypatch.setitem(__import__("sys").modules, "wandb", None)
    with pytest.raises(ImportError, match=r"report_to='wandb' needs wandb .*pip install 'rlenv-lm\[wandb\]'"):
        tracked_training(tmp_path, "wandb")

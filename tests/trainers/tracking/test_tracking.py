import json
import sys
from pathlib import Path

import pytest

from rlenv.trainers import TrainerConfig
from rlenv.trainers.tracking import BACKENDS, TrackedRun, backend_names, start


def test_report_to_names_backends_once_each_and_rejects_unknown_ones():
    assert backend_names("") == ()
    assert backend_names(" wandb, tensorboard ,wandb,") == ("wandb", "tensorboard")
    assert set(BACKENDS) == {"tensorboard", "wandb", "trackio", "mlflow"}
    with pytest.raises(ValueError, match=r"report_to must be one of .*'mlflow'.*got 'neptune'"):
        backend_names("tensorboard,neptune")


def test_the_config_checks_report_to_and_needs_an_output_dir(tmp_path):
    assert TrainerConfig(report_to="tensorboard,wandb", output_dir=str(tmp_path)).report_to == "tensorboard,wandb"
    with pytest.raises(ValueError, match="got 'comet'"):
        TrainerConfig(report_to="comet", output_dir=str(tmp_path))
    with pytest.raises(ValueError, match=r"report_to='wandb' needs output_dir"):
        TrainerConfig(report_to="wandb")


def test_the_old_tensorboard_switch_still_works_for_one_release(tmp_path):
    with pytest.warns(DeprecationWarning, match=r"TrainerConfig\(tensorboard=...\) is deprecated"):
        config = TrainerConfig(tensorboard=True, report_to="wandb", output_dir=str(tmp_path))
    assert backend_names(config.report_to) == ("wandb", "tensorboard")
    with pytest.warns(DeprecationWarning):
        assert TrainerConfig(tensorboard=True, report_to="tensorboard", output_dir=str(tmp_path)).report_to == "tensorboard"
    with pytest.warns(DeprecationWarning):
        assert TrainerConfig(tensorboard=False).report_to == ""


def test_a_backend_that_cannot_start_closes_the_ones_already_open(tmp_path, monkeypatch):
    """TensorBoard opens first; wandb is missing (``sys.modules["wandb"] = None`` fails its import as an
    absent package does): the error names wandb's extra and TensorBoard's file is complete (closed)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    monkeypatch.setitem(sys.modules, "wandb", None)
    run = TrackedRun(name="r", project="p", output_dir=Path(tmp_path), config={"config": {"steps": 3}},
                     manifest={"kind": "train"})
    with pytest.raises(ImportError, match=r"pip install 'rlenv-lm\[wandb\]'"):
        start("tensorboard,wandb", run)
    events = EventAccumulator(str(tmp_path / "tensorboard"), size_guidance={"tensors": 0}).Reload()
    (manifest,) = events.Tensors("run/manifest/text_summary")
    assert json.loads(manifest.tensor_proto.string_val[0].decode().strip("`\n")) == {"kind": "train"}

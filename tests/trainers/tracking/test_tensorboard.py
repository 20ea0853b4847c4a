import json

import pytest

from tests.trainers.tracking.tracking_helpers import tracked_training

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_a_tensorboard_user_finds_the_metrics_the_settings_the_manifest_and_sample_tables(tmp_path):
    """Read back with TensorBoard's own event reader."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    history, samples = tracked_training(tmp_path, "tensorboard", run_name="tb-run")
    events = EventAccumulator(str(tmp_path / "tensorboard"), size_guidance={"tensors": 0, "scalars": 0}).Reload()
    for key in ("reward/mean", "loss/policy", "entropy", "grad_norm"):
        scalars = events.Scalars(key)
        assert [e.step for e in scalars] == [1, 2]
        assert [e.value for e in scalars] == pytest.approx([row[key] for row in history], rel=1e-6)
    texts = {tag: [e.tensor_proto.string_val[0].decode() for e in events.Tensors(f"{tag}/text_summary")]
             for tag in ("run/settings", "run/manifest", "samples")}
    settings = json.loads(texts["run/settings"][0].strip("`\n"))
    assert settings["name"] == "tb-run" and settings["algorithm"]["name"] == "grpo"
    assert settings["config"]["steps"] == 2 and settings["config"]["report_to"] == "tensorboard"
    manifest = json.loads(texts["run/manifest"][0].strip("`\n"))
    assert manifest == json.loads((tmp_path / "manifest.json").read_text())
    assert len(texts["samples"]) == 2  # one table per logged step
    header, rule, *rows = texts["samples"][0].splitlines()
    assert header == "| step | prompt | completion | reward | status |" and len(rows) == 2
    for row, sample in zip(rows, samples[:2]):
        cells = row.strip("| ").split(" | ")
        assert cells[0] == "1" and cells[1] == sample["prompt"].replace("\n", "<br>")
        assert float(cells[-2]) == sample["reward"] and cells[-1] == sample["status"]

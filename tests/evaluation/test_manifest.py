"""Every eval, audit and training run writes manifest.json; ``rlenv compare`` warns when two runs differ in
anything but the model."""

import json
import logging

import pytest

from rlenv.cli import main
from rlenv.manifest import manifest_differences, record_outcome

ENV = "rlenv/Arithmetic-v0"


def samples_file(path, completion="#### 0"):
    path.write_text("".join(json.dumps({"index": i, "completion": completion}) + "\n" for i in range(4)))
    return path


def evaluate(tmp_path, name, *extra):
    assert main(["eval", ENV, "--samples", str(samples_file(tmp_path / f"{name}.jsonl")), "--out",
                 str(tmp_path / name), "--no-plot", "--no-report", *extra]) == 0
    return json.loads((tmp_path / name / "manifest.json").read_text())


def test_eval_manifest_records_how_the_run_was_made(tmp_path):
    manifest = evaluate(tmp_path, "a", "--env-arg", "level=2")
    assert manifest["kind"] == "eval" and manifest["rlenv"]["version"]
    assert manifest["env"]["id"] == ENV and manifest["env"]["kwargs"] == {"level": 2}
    assert manifest["env"]["verifier"]["name"] == "math" and manifest["env"]["verifier"]["version"]
    assert manifest["env"]["source"]["kind"] == "ProceduralSource"
    assert {"torch", "math-verify", "datasets", "gymnasium"} <= set(manifest["libraries"])
    assert manifest["settings"]["errors"] == "exclude" and manifest["settings"]["env_arg"] == ["level=2"]


def test_compare_warns_when_runs_differ_in_more_than_the_model(tmp_path, caplog):
    evaluate(tmp_path, "a", "--env-arg", "level=2")
    evaluate(tmp_path, "b", "--env-arg", "level=2")
    evaluate(tmp_path, "c", "--env-arg", "level=2", "--env-arg", "max_completion_chars=500")
    with caplog.at_level(logging.WARNING):
        assert main(["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--resamples", "99"]) == 0
    assert not [r for r in caplog.records if "differ in more than the model" in r.getMessage()]
    with caplog.at_level(logging.WARNING):
        assert main(["compare", str(tmp_path / "a"), str(tmp_path / "c"), "--resamples", "99"]) == 0
    warnings = [r.getMessage() for r in caplog.records if "differ in more than the model" in r.getMessage()]
    assert any("env.kwargs.max_completion_chars: None -> 500" in w for w in warnings), warnings


def test_manifest_differences_ignore_the_model_and_the_time():
    a = {"created": "t1", "settings": {"model": "m1", "temperature": 1.0}, "libraries": {"torch": "2.13"}}
    b = {"created": "t2", "settings": {"model": "m2", "temperature": 0.7}, "libraries": {"torch": "2.14"}}
    assert manifest_differences(a, b) == ["libraries.torch: '2.13' -> '2.14'", "settings.temperature: 1.0 -> 0.7"]


def test_audit_and_training_write_manifests(tmp_path):
    out = tmp_path / "audit.jsonl"
    assert main(["audit", ENV, "--samples", str(samples_file(tmp_path / "s.jsonl")), "--out", str(out),
                 "--no-report"]) == 0
    audit = json.loads((tmp_path / "audit.manifest.json").read_text())
    assert audit["kind"] == "audit" and audit["env"]["id"] == ENV and audit["settings"]["detectors"] == ["answer_hedging", "prompt_echo",
                                                                         "format_gaming", "repetition", "non_answer"]

    import rlenv
    from rlenv.trainers import Trainer
    from rlenv.trainers.tiny import tiny_causal_lm, tiny_tokenizer

    tokenizer = tiny_tokenizer()
    Trainer(tiny_causal_lm(tokenizer, hidden_size=32), rlenv.make(ENV, level=1), "grpo", tokenizer=tokenizer,
            config=dict(steps=1, num_tasks=2, group_size=2, max_new_tokens=4, progress=False,
                        output_dir=str(tmp_path / "run"))).train()
    train = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert train["kind"] == "train" and train["env"]["kwargs"] == {"level": 1}
    assert train["settings"]["algorithm"]["name"] == "grpo" and train["settings"]["config"]["seed"] == 0


def test_manifest_names_the_hub_dataset_a_catalog_env_read(tmp_path, catalog_hub):
    samples = samples_file(tmp_path / "s.jsonl", completion="#### 18")
    assert main(["eval", "rlenv/GSM8K-v0", "--samples", str(samples), "--out", str(tmp_path / "gsm8k"), "--no-plot",
                 "--no-report"]) == 0
    source = json.loads((tmp_path / "gsm8k" / "manifest.json").read_text())["env"]["source"]
    assert source["dataset"] == {"hub_id": "openai/gsm8k", "configs": ["main"], "split": "test"}
    assert source["kind"] == "DatasetSource" and source["size"] == 1319 and source["fingerprint"]
    local = evaluate(tmp_path, "local")  # procedural tasks: no dataset
    assert "dataset" not in local["env"]["source"] and "fingerprint" not in local["env"]["source"]


def test_a_long_list_that_differs_is_summarized_not_printed_whole():
    a = {"settings": {"task_indices": list(range(300))}}
    b = {"settings": {"task_indices": list(range(1, 301))}}
    (line,) = manifest_differences(a, b)
    assert line == "settings.task_indices: [0, 1, 2, ... 299] (300 items) -> [1, 2, 3, ... 300] (300 items)"
    assert len(line) < 120


def test_a_run_records_only_its_outcome_keys_in_an_existing_manifest(tmp_path):
    manifest = evaluate(tmp_path, "a")
    assert "judge_usage" not in manifest  # no judge, no usage
    record_outcome(tmp_path / "a", {"judge_usage": {"requests": 2}})
    assert json.loads((tmp_path / "a" / "manifest.json").read_text()) == {**manifest, "judge_usage": {"requests": 2}}
    with pytest.raises(ValueError, match=r"got \['loss'\]"):
        record_outcome(tmp_path / "a", {"loss": 1.0})
    with pytest.raises(FileNotFoundError, match="no manifest"):
        record_outcome(tmp_path / "missing", {"judge_usage": {}})

import json
import re
import subprocess
import sys
from pathlib import Path

from rlenv.trainers.tiny import save_tiny
from tests.trainers.trainer_helpers import tiny_policy

REPO = Path(__file__).resolve().parents[2]


def run_cli(*args):
    """``python -m rlenv ...`` from the repository root (so this checkout's code runs)."""
    return subprocess.run([sys.executable, "-m", "rlenv", *args], capture_output=True, text=True, cwd=REPO,
                          timeout=600)


def test_rlenv_train_runs_saves_and_resumes(tmp_path):
    model, tok = tiny_policy(hidden_size=32)
    model_dir = save_tiny(model, tok, tmp_path / "tiny")
    out = tmp_path / "run"
    common = ["train", "rlenv/ExactMatch-v0", "--model", str(model_dir), "--algorithm", "rloo", "--output", str(out),
              "--num-tasks", "2", "--group-size", "2", "--max-new-tokens", "6", "--lr", "1e-3",
              "--set", "progress=false", "--algo-set", "kl_coef=0.01", "--sft-steps", "3", "--sft-lr", "1e-3"]
    first = run_cli(*common, "--steps", "2")
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("rlenv train: rloo on rlenv/ExactMatch-v0, 2 steps\n")
    assert "{" not in first.stdout and all(line.startswith("  ") for line in first.stdout.splitlines()[1:])  # readable
    summary = json.loads((out / "train_summary.json").read_text())
    assert summary["algorithm"] == "rloo" and summary["steps"] == 2 and "reward/mean" in summary["last"]
    rows = [json.loads(x) for x in (out / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows] == [1.0, 2.0] and all("kl/ref" in r for r in rows)
    assert (out / "checkpoint-2" / "trainer_state.pt").exists()
    assert (out / "final" / "config.json").exists()
    logged = [json.loads(x) for x in (out / "samples.jsonl").read_text().splitlines()]
    assert [r["step"] for r in logged] == [1] * 4 and {r["status"] for r in logged} <= {"correct", "incorrect", "unparsable"}
    page = (out / "report.html").read_text()
    data = json.loads(re.search(r'<script type="application/json" id="rlenv-data">(.*?)</script>', page).group(1))
    assert data["runs"][0]["kind"] == "train" and data["runs"][0]["curves"]["steps"] == [1.0, 2.0]
    assert len(data["samples"]) == 4
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kind"] == "train" and manifest["env"]["id"] == "rlenv/ExactMatch-v0"
    assert manifest["settings"]["algorithm"]["name"] == "rloo" and manifest["settings"]["config"]["lr"] == 1e-3
    assert manifest["settings"]["warm_up"] == {"sft_steps": 3, "sft_lr": 1e-3}

    resumed = run_cli(*common, "--steps", "3", "--resume", str(out / "checkpoint-2"))
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads((out / "train_summary.json").read_text())["steps"] == 3
    assert [json.loads(x)["step"] for x in (out / "metrics.jsonl").read_text().splitlines()] == [1.0, 2.0, 3.0]


def test_rlenv_train_in_bf16_with_lora_saves_adapters_a_merged_final_model_and_tensorboard_logs(tmp_path):
    import torch
    from transformers import AutoModelForCausalLM

    model, tok = tiny_policy(hidden_size=32)
    model_dir = save_tiny(model, tok, tmp_path / "tiny")
    out = tmp_path / "run"
    done = run_cli("train", "rlenv/ExactMatch-v0", "--model", str(model_dir), "--algorithm", "grpo", "--output",
                   str(out), "--num-tasks", "2", "--group-size", "2", "--max-new-tokens", "6", "--lr", "1e-2",
                   "--steps", "2", "--dtype", "bfloat16", "--lora-r", "4", "--set", "progress=false",
                   "--algo-set", "entropy_coef=0.1",  # a gradient even when every reward is 0
                   "--report-to", "tensorboard", "--run-name", "cli-run")
    assert done.returncode == 0, done.stderr
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(out / "tensorboard"), size_guidance={"tensors": 0}).Reload()
    assert [e.step for e in events.Scalars("reward/mean")] == [1, 2]
    (settings,) = events.Tensors("run/settings/text_summary")
    settings = json.loads(settings.tensor_proto.string_val[0].decode().strip("`\n"))
    assert settings["name"] == "cli-run" and settings["config"]["report_to"] == "tensorboard"
    config = json.loads((out / "manifest.json").read_text())["settings"]["config"]
    assert config["dtype"] == "bfloat16" and config["lora_r"] == 4
    assert (out / "checkpoint-2" / "adapter_config.json").exists() and not (out / "checkpoint-2" / "model.safetensors").exists()
    final = AutoModelForCausalLM.from_pretrained(out / "final")
    assert final.dtype == torch.bfloat16
    changed = [name for name, value in final.state_dict().items() if not torch.equal(value, model.state_dict()[name].bfloat16())]
    assert changed  # the adapters' update is merged in


def test_rlenv_train_reports_bad_arguments(tmp_path):
    model, tok = tiny_policy(hidden_size=32)
    model_dir = save_tiny(model, tok, tmp_path / "tiny")
    bad = run_cli("train", "rlenv/ExactMatch-v0", "--model", str(model_dir), "--output", str(tmp_path / "o"),
                  "--algorithm", "chess")
    assert bad.returncode == 2 and "unknown algorithm 'chess'" in bad.stderr and "grpo" in bad.stderr
    bad = run_cli("train", "rlenv/ExactMatch-v0", "--model", str(model_dir), "--output", str(tmp_path / "o"),
                  "--algorithm", "dpo")
    assert bad.returncode == 2 and "trains on rows" in bad.stderr
    bad = run_cli("train", "rlenv/ExactMatch-v0", "--model", str(model_dir), "--output", str(tmp_path / "o"),
                  "--set", "lr_schedule=cosine")
    assert bad.returncode == 2 and "must be JSON" in bad.stderr


def test_rlenv_train_starts_the_other_families(tmp_path):
    """Self-training and online DPO start through the same command (make_trainer)."""
    model, tok = tiny_policy(hidden_size=32)
    model_dir = save_tiny(model, tok, tmp_path / "tiny")
    misplaced = run_cli("train", "rlenv/ExactMatch-v0", "--model", str(model_dir), "--algorithm", "raft", "--output",
                        str(tmp_path / "misplaced"), "--report-to", "tensorboard", "--dtype", "bfloat16")
    assert misplaced.returncode == 2, misplaced.stderr
    assert "set nothing of the self_training trainers" in misplaced.stderr
    assert "--dtype (applies to: policy_gradient)" in misplaced.stderr and "--report-to (applies to" in misplaced.stderr
    for algorithm in ("raft", "online_dpo"):
        out = tmp_path / algorithm
        run = run_cli("train", "rlenv/ExactMatch-v0", "--model", str(model_dir), "--algorithm", algorithm, "--output",
                      str(out), "--steps", "2", "--num-tasks", "2", "--group-size", "2", "--max-new-tokens", "4",
                      "--lr", "1e-3")
        assert run.returncode == 0, run.stderr
        assert "\r" not in run.stderr and "it/s" not in run.stderr  # no progress bars in a log file
        summary = json.loads((out / "train_summary.json").read_text())
        assert summary["algorithm"] == algorithm and summary["steps"] == 2 and (out / "final" / "config.json").exists()
        rows = [json.loads(x) for x in (out / "metrics.jsonl").read_text().splitlines()]
        assert [r["step"] for r in rows] == [1, 2] and all("reward/mean" in r for r in rows)  # the PG trainer's name
        assert (out / "report.html").exists()  # rlenv report reads the run
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["kind"] == "train" and manifest["env"]["id"] == "rlenv/ExactMatch-v0"
        settings = manifest["settings"]
        assert settings["algorithm"] == algorithm and settings["group_size"] == 2 and settings["model"] == str(model_dir)
        assert settings["config"]["seed"] == 0 and settings["config"]["sampling"]["max_new_tokens"] == 4
        assert settings["config"]["on_verifier_error"] == "mask" and settings["warm_up"]["sft_steps"] == 0


def test_rlenv_train_on_a_multi_turn_env_id(tmp_path):
    """A policy-gradient and a self-training run on ``rlenv/Arithmetic-Calculator-v0``: whole episodes are
    played (turns and the policy's token share in the metrics) and the trained model saved."""
    from rlenv.trainers.tiny import tiny_causal_lm, tiny_tokenizer

    tok = tiny_tokenizer()
    model_dir = save_tiny(tiny_causal_lm(tok, hidden_size=32, num_layers=1, num_heads=2, max_positions=1024), tok,
                          tmp_path / "tiny")
    for algorithm in ("grpo", "raft"):
        out = tmp_path / algorithm
        done = run_cli("train", "rlenv/Arithmetic-Calculator-v0", "--model", str(model_dir), "--algorithm", algorithm,
                       "--output", str(out), "--num-tasks", "2", "--group-size", "2", "--max-new-tokens", "6",
                       "--env-arg", "max_turns=2",
                       *(["--steps", "1", "--set", "progress=false"] if algorithm == "grpo" else ["--set", "rounds=1"]))
        assert done.returncode == 0, done.stderr
        assert (out / "final" / "config.json").exists()
        rows = [json.loads(x) for x in (out / "metrics.jsonl").read_text().splitlines()]
        if algorithm == "grpo":
            assert rows[0]["episodes"] == 4 and 1 <= rows[0]["turns/mean"] <= 2 and 0 < rows[0]["tokens/policy_share"] <= 1
        else:
            assert rows[0]["samples"] == 4

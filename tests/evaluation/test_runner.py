"""Resumable evaluation runs and the ``rlenv eval`` / ``rlenv compare`` commands, on ExactMatch-v0."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rlenv
from rlenv.evaluation import EvalOptions, evaluate_samples, pass_at_k, read_results
from rlenv.evaluation.runner import RESULTS_FILE
from tests.waiting import PATIENCE_S

ENV_ID = "rlenv/ExactMatch-v0"
WRONG = ["no idea", "", "London", "42"]
# run the CLI from temporary directories on this checkout's code
CLI_ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
    [str(Path(rlenv.__file__).resolve().parents[1]), os.environ.get("PYTHONPATH", "")])}


def make_samples(per_task=4, right_every=2):
    """Deterministic samples: task t's sample j is right when (t + j) % right_every == 0."""
    env = rlenv.make(ENV_ID)
    source = env.unwrapped.source
    rows, correct = [], {}
    for t in range(source.size):
        task = source[t]
        correct[task.id] = 0
        for j in range(per_task):
            ok = (t + j) % right_every == 0
            correct[task.id] += ok
            rows.append({"task_id": task.id, "completion": task.reference if ok else WRONG[(t + j) % len(WRONG)]})
    return rows, correct


def run_cli(*args, cwd):
    proc = subprocess.run([sys.executable, "-m", "rlenv", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=PATIENCE_S, env=CLI_ENV)
    assert proc.returncode == 0, proc.stderr
    return proc


def test_eval_evaluate_samples_scores_and_resumes(tmp_path):
    env = rlenv.make(ENV_ID)
    rows, correct = make_samples()
    options = EvalOptions(ks=[1, 2], n_resamples=200, plot=False, progress=False)
    summary = evaluate_samples(env, rows, tmp_path, options, config={"run": 1})
    expected = np.mean([pass_at_k(4, c, 2) for c in correct.values()])
    assert summary["metrics"]["pass@2"]["value"] == pytest.approx(expected)
    results = read_results(tmp_path / RESULTS_FILE)
    assert len(results) == len(rows)
    assert {(r["task_id"], r["sample"]) for r in results} == {(t, j) for t in correct for j in range(4)}

    # an interrupted run: the last line was cut mid-write and one sample is missing
    lines = (tmp_path / RESULTS_FILE).read_text().splitlines()
    (tmp_path / RESULTS_FILE).write_text("\n".join(lines[:-2]) + "\n" + lines[-2][:17])
    again = evaluate_samples(env, rows, tmp_path, options, config={"run": 1})
    assert again["metrics"] == summary["metrics"]
    assert len(read_results(tmp_path / RESULTS_FILE)) == len(rows)

    with pytest.raises(ValueError, match="other settings"):
        evaluate_samples(env, rows, tmp_path, options, config={"run": 2})
    changed = [dict(r) for r in rows]
    changed[0]["completion"] = "something else"
    with pytest.raises(ValueError, match="different completion"):
        evaluate_samples(env, changed, tmp_path, options, config={"run": 1})


def test_eval_cli_samples_writes_reports_and_compare(tmp_path):
    rows, correct = make_samples()
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps(r) + "\n" for r in rows))
    proc = run_cli("eval", ENV_ID, "--samples", str(samples), "--out", "a", "-k", "1,4", "--bootstrap", "300",
                   cwd=tmp_path)
    assert "| pass@1 |" in proc.stdout and "| maj@4 |" in proc.stdout
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert summary["metrics"]["pass@1"]["value"] == pytest.approx(sum(correct.values()) / len(rows))
    assert summary["num_tasks"] == len(correct)
    assert (tmp_path / "a" / "summary.md").read_text().startswith("# rlenv/ExactMatch-v0")
    assert (tmp_path / "a" / "pass_at_k.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    rerun = run_cli("eval", ENV_ID, "--samples", str(samples), "--out", "a", "-k", "1,4", "--bootstrap", "300",
                    cwd=tmp_path)
    assert "scored 0 new samples" in rerun.stderr

    better = [dict(r, completion=rlenv.make(ENV_ID).unwrapped.source[0].reference) if r["task_id"] == "capital-fr"
              else r for r in rows]
    (tmp_path / "better.jsonl").write_text("".join(json.dumps(r) + "\n" for r in better))
    run_cli("eval", ENV_ID, "--samples", "better.jsonl", "--out", "b", "-k", "1", "--no-plot", cwd=tmp_path)
    assert not (tmp_path / "b" / "pass_at_k.png").exists()
    out = json.loads(run_cli("compare", "b", "a/results.jsonl", "--json", cwd=tmp_path).stdout)
    assert out["num_tasks"] == len(correct)
    assert out["wins"] == 1 and out["losses"] == 0
    assert out["difference"]["value"] == pytest.approx((1 - correct["capital-fr"] / 4) / len(correct))
    text = run_cli("compare", "b", "a", cwd=tmp_path).stdout
    assert "A - B: +" in text and "p = " in text


def test_eval_cli_reports_bad_input(tmp_path):
    (tmp_path / "s.jsonl").write_text(json.dumps({"task_id": "nope", "completion": "x"}) + "\n")
    proc = subprocess.run([sys.executable, "-m", "rlenv", "eval", ENV_ID, "--samples", "s.jsonl", "--out", "o"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=PATIENCE_S, env=CLI_ENV)
    assert proc.returncode == 2 and "unknown task_id 'nope'" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "rlenv", "eval", ENV_ID, "--samples", "s.jsonl", "--out", "o",
                           "-k", "x"], capture_output=True, text=True, cwd=tmp_path, timeout=PATIENCE_S, env=CLI_ENV)
    assert proc.returncode == 2 and "comma-separated" in proc.stderr

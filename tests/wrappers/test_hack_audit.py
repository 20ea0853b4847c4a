"""Offline audit: rlenv.wrappers.audit(env, samples) and the ``rlenv audit`` CLI."""

import json
import subprocess
import sys

import pytest

import rlenv
from rlenv.wrappers import audit, default_detectors, env_family
from rlenv.wrappers.audit import FAMILY_DETECTORS

SAMPLES = [
    {"index": 0, "completion": "Paris"},
    {"index": 1, "completion": "<think></think><answer></answer>"},
    {"index": 2, "completion": "It is either 12 or 14."},
    {"task_id": "capital-fr", "completion": "Paris " * 30},
]


def test_audit_rows_and_summary():
    env = rlenv.make("rlenv/ExactMatch-v0")
    report = audit(env, SAMPLES, executor="serial")
    assert report.family == "generic" and report.detectors == ["format_gaming", "answer_hedging", "prompt_echo",
                                                                "repetition"]
    assert [r["sample"] for r in report.rows] == [0, 1, 2, 3]
    assert report.rows[0]["hacks"] == [] and report.rows[0]["raw_reward"] == 1.0 and report.rows[0]["status"] == "correct"
    assert [h["kind"] for h in report.rows[1]["hacks"]] == ["empty_answer"]
    assert [h["detector"] for h in report.rows[2]["hacks"]] == ["answer_hedging"]
    assert [h["detector"] for h in report.rows[3]["hacks"]] == ["repetition"]
    assert all(h["penalty"] == 0.0 for r in report.rows for h in r["hacks"])  # audits only flag
    summary = report.summary()
    assert summary["count"] == 4 and summary["flagged"] == 3 and summary["flagged_rate"] == 0.75
    assert summary["detectors"]["answer_hedging"] == {"count": 1, "rate": 0.25, "kinds": {"candidate_list": 1}}
    assert summary["detectors"]["prompt_echo"]["count"] == 0


def test_truncated_samples_and_custom_detectors():
    env = rlenv.make("rlenv/ExactMatch-v0")
    report = audit(env, [{"index": 0, "completion": "Paris", "truncated": True}],
                   detectors=[rlenv.wrappers.TruncationFlag])
    assert report.detectors == ["truncation"] and report.rows[0]["hacks"][0]["kind"] == "truncated"


def test_families():
    assert env_family(rlenv.make("rlenv/ExactMatch-v0")) == "generic" == env_family("rlenv/ExactMatch-v0")
    assert env_family(rlenv.make("rlenv/Format-v0", answer_check="exact_match")) == "format" == env_family("rlenv/Format-v0")
    assert set(FAMILY_DETECTORS) >= {"math", "code", "format", "generic"}
    assert rlenv.wrappers.CodeTampering in default_detectors("code")
    with pytest.raises(ValueError, match="unknown env family 'chess'"):
        default_detectors("chess")


def test_bad_samples_are_named():
    env = rlenv.make("rlenv/ExactMatch-v0")
    with pytest.raises(ValueError, match="sample 1 names no task"):
        audit(env, [{"index": 0, "completion": "x"}, {"completion": "y"}])


def test_cli_writes_rows_and_ends_with_the_json_summary(tmp_path):
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps(s) + "\n" for s in SAMPLES), encoding="utf-8")
    out = tmp_path / "audit" / "rows.jsonl"
    proc = subprocess.run([sys.executable, "-m", "rlenv", "audit", "rlenv/ExactMatch-v0", "--samples", str(samples),
                           "--out", str(out), "--executor", "serial"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    summary = json.loads(lines[-1])
    assert summary["flagged"] == 3 and summary["detectors"]["format_gaming"]["kinds"] == {"empty_answer": 1}
    assert any(line.startswith("answer_hedging") for line in lines[:-1])  # the human-readable table
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [len(r["hacks"]) for r in rows] == [0, 1, 1, 1] and rows[3]["task_id"] == "capital-fr"


def test_cli_env_args_reach_the_env(tmp_path):
    samples = tmp_path / "samples.jsonl"
    samples.write_text(json.dumps({"index": 0, "completion": "<think>.</think><answer>Paris</answer>"}) + "\n")
    out = tmp_path / "rows.jsonl"
    proc = subprocess.run([sys.executable, "-m", "rlenv", "audit", "rlenv/Format-v0", "--samples", str(samples),
                           "--env-arg", "format=think_answer_lenient", "--env-arg", "answer_check=exact_match",
                           "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    row = json.loads(out.read_text().splitlines()[0])
    assert row["raw_reward"] > 1.0 and row["hacks"][0]["kind"] == "empty_think"  # paid format + answer, flagged
    assert json.loads(proc.stdout.strip().splitlines()[-1])["family"] == "format"


def test_cli_reports_a_missing_file(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "rlenv", "audit", "rlenv/ExactMatch-v0", "--samples",
                           str(tmp_path / "nope.jsonl"), "--out", str(tmp_path / "o.jsonl")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "nope.jsonl" in proc.stderr

"""Offline audit: rlenv.wrappers.audit(env, samples) and the ``rlenv audit`` CLI."""

import json
import subprocess
import sys
import textwrap

import pytest

import rlenv
from rlenv import registry
from rlenv.envs.code import CodeTampering
from rlenv.wrappers import (
    GENERIC_DETECTORS,
    AnswerHedging,
    RepetitionPenalty,
    audit,
    default_detectors,
    detector,
    detector_names,
    list_detectors,
    register_detector,
)
from tests.waiting import PATIENCE_S

SAMPLES = [
    {"index": 0, "completion": "Paris"},
    {"index": 1, "completion": "<think></think><answer></answer>"},
    {"index": 2, "completion": "It is either 12 or 14."},
    {"task_id": "capital-fr", "completion": "Paris " * 30},
]


def test_audit_rows_and_summary():
    env = rlenv.make("rlenv/ExactMatch-v0")
    report = audit(env, SAMPLES, executor="serial")
    assert report.detectors == ["format_gaming", "answer_hedging", "prompt_echo", "repetition"]
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


def test_each_env_declares_its_detectors_in_its_registration():
    assert detector_names("rlenv/ExactMatch-v0") == GENERIC_DETECTORS == detector_names(rlenv.make("rlenv/ExactMatch-v0"))
    assert detector_names("rlenv/HumanEval-v0") == ("code_tampering", "repetition")
    assert detector_names("rlenv/GSM8K-v0") == ("answer_hedging", "prompt_echo", "format_gaming", "repetition", "non_answer")
    assert detector_names(rlenv.make("rlenv/Arithmetic-v0")) == detector_names("rlenv/Arithmetic-v0")
    assert detector_names(rlenv.make("rlenv/Format-v0", answer_check="exact_match")) == GENERIC_DETECTORS
    assert default_detectors("rlenv/HumanEval-v0") == [CodeTampering, RepetitionPenalty]
    assert {"code_tampering", "non_answer", *GENERIC_DETECTORS} <= set(list_detectors())
    # an env built without the registry (no spec) gets the generic set
    assert detector_names(rlenv.TextEnv(rlenv.make("rlenv/ExactMatch-v0").unwrapped.source,
                                        rlenv.make("rlenv/ExactMatch-v0").unwrapped.verifier)) == GENERIC_DETECTORS


def test_unknown_detectors_and_bad_declarations_are_named(clean_registry):
    with pytest.raises(KeyError, match="no detector registered as 'chess'"):
        detector("chess")
    with pytest.raises(KeyError, match="'chess'"):
        audit(rlenv.make("rlenv/ExactMatch-v0"), SAMPLES[:1], detectors=["chess"])
    with pytest.raises(TypeError, match="sequence of detector names"):
        rlenv.register("test/Bad-v0", "rlenv.exact_match:make_exact_match_env", detectors="repetition")
    with pytest.raises(ValueError, match="invalid detector name 'Bad Name'"):
        register_detector("Bad Name", "rlenv.wrappers.hedging:AnswerHedging")
    with pytest.raises(ValueError, match="module:callable"):
        register_detector("no_colon", "rlenv.wrappers.hedging.AnswerHedging")


def test_a_third_party_package_declares_its_env_and_detector(tmp_path, monkeypatch, clean_registry):
    """Through the real entry-point machinery (a dist-info on sys.path), as a pip-installed plugin does."""
    (tmp_path / "acme_checks.py").write_text(textwrap.dedent("""
        import rlenv
        from rlenv.wrappers import DetectorWrapper, Detection, register_detector

        class Shouting(DetectorWrapper):
            name = "shouting"

            def detect(self, task, completion, result, truncated):
                fired = completion.isupper()
                return Detection(self.name, fired, 1.0 if fired else 0.0, "all_caps" if fired else "",
                                 completion[:40] if fired else "")

        def register_all():
            register_detector("shouting", "acme_checks:Shouting")
            rlenv.register("acme/Loud-v1", "rlenv.exact_match:make_exact_match_env",
                           detectors=["shouting", "answer_hedging"])
    """))
    dist = tmp_path / "acme_checks-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-checks\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[rlenv.envs]\nacme = acme_checks:register_all\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_plugins_loaded", False)
    try:
        assert detector_names("acme/Loud-v1") == ("shouting", "answer_hedging")
        assert default_detectors("acme/Loud-v1")[1] is AnswerHedging
        report = audit("acme/Loud-v1", [{"index": 0, "completion": "PARIS"}, {"index": 1, "completion": "Berlin"}])
        assert report.detectors == ["shouting", "answer_hedging"]
        assert [[h["kind"] for h in row["hacks"]] for row in report.rows] == [["all_caps"], []]
    finally:
        sys.modules.pop("acme_checks", None)


def test_bad_samples_are_named():
    env = rlenv.make("rlenv/ExactMatch-v0")
    with pytest.raises(ValueError, match="row 2 names no task"):
        audit(env, [{"index": 0, "completion": "x"}, {"completion": "y"}])


def test_cli_writes_rows_and_ends_with_the_json_summary(tmp_path):
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps(s) + "\n" for s in SAMPLES), encoding="utf-8")
    out = tmp_path / "audit" / "rows.jsonl"
    proc = subprocess.run([sys.executable, "-m", "rlenv", "audit", "rlenv/ExactMatch-v0", "--samples", str(samples),
                           "--out", str(out), "--executor", "serial"], capture_output=True, text=True, timeout=PATIENCE_S)
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
                           "--out", str(out)], capture_output=True, text=True, timeout=PATIENCE_S)
    assert proc.returncode == 0, proc.stderr
    row = json.loads(out.read_text().splitlines()[0])
    assert row["raw_reward"] > 1.0 and row["hacks"][0]["kind"] == "empty_think"  # paid format + answer, flagged
    assert list(json.loads(proc.stdout.strip().splitlines()[-1])["detectors"]) == list(GENERIC_DETECTORS)


def test_cli_runs_the_detectors_named(tmp_path):
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps(s) + "\n" for s in SAMPLES), encoding="utf-8")
    run = [sys.executable, "-m", "rlenv", "audit", "rlenv/ExactMatch-v0", "--samples", str(samples), "--executor",
           "serial", "--no-report"]
    proc = subprocess.run([*run, "--out", str(tmp_path / "a.jsonl"), "--detectors", "repetition,answer_hedging"],
                          capture_output=True, text=True, timeout=PATIENCE_S)
    assert proc.returncode == 0, proc.stderr
    assert list(json.loads(proc.stdout.strip().splitlines()[-1])["detectors"]) == ["repetition", "answer_hedging"]
    proc = subprocess.run([*run, "--out", str(tmp_path / "b.jsonl"), "--detectors", "chess"],
                          capture_output=True, text=True, timeout=PATIENCE_S)
    assert proc.returncode == 2 and "no detector registered as 'chess'" in proc.stderr
    listed = subprocess.run([sys.executable, "-m", "rlenv", "list", "--detectors", "--json"], capture_output=True,
                            text=True, timeout=PATIENCE_S)
    rows = {r["detector"]: r["default_for"] for r in map(json.loads, listed.stdout.splitlines())}
    assert "rlenv/HumanEval-v0" in rows["code_tampering"] and "rlenv/GSM8K-v0" not in rows["code_tampering"]


def test_cli_reports_a_missing_file(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "rlenv", "audit", "rlenv/ExactMatch-v0", "--samples",
                           str(tmp_path / "nope.jsonl"), "--out", str(tmp_path / "o.jsonl")],
                          capture_output=True, text=True, timeout=PATIENCE_S)
    assert proc.returncode == 2 and "nope.jsonl" in proc.stderr


def test_a_length_budget_flags_overlong_completions_whatever_the_padding():
    padded = "Paris" + "\u200b" * 300  # invisible padding: no repetition measure sees it
    report = audit("rlenv/ExactMatch-v0", [{"index": 0, "completion": "Paris"}, {"index": 0, "completion": padded}],
                   executor="serial", max_len=100)
    assert report.detectors[-1] == "overlong"
    assert [[h["kind"] for h in r["hacks"]] for r in report.rows] == [[], ["overlong"]]
    assert report.rows[1]["reward"] == report.rows[1]["raw_reward"]  # flag-only
    with pytest.raises(ValueError, match="max_len must be None or a positive number of characters, got 0"):
        audit("rlenv/ExactMatch-v0", [], max_len=0)


def test_cli_max_len(tmp_path):
    samples = tmp_path / "samples.jsonl"
    samples.write_text(json.dumps({"index": 0, "completion": "Paris " + "9" * 60}) + "\n", encoding="utf-8")
    out = tmp_path / "rows.jsonl"
    proc = subprocess.run([sys.executable, "-m", "rlenv", "audit", "rlenv/ExactMatch-v0", "--samples", str(samples),
                           "--out", str(out), "--executor", "serial", "--no-report", "--max-len", "40"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1])["detectors"]["overlong"]["count"] == 1

"""Calibration of a pairwise judge on labeled preference rows, against the deterministic judge double
(a test double of an LLM judge with a chosen bias, :mod:`tests.envs.judge.judge_server`) at 127.0.0.1."""

import json

import pytest

from rlenv.cli import main
from rlenv.envs.judge import JudgeModel, PairwiseJudge
from rlenv.envs.judge.calibration import Calibration, calibrate

#: The labels prefer "good"; the chosen side is the shorter one in half of the rows.
ROWS = [{"prompt": f"Question {i}?", "chosen": "good" if i % 2 else "good, and a long explanation besides",
         "rejected": "bad, with a long explanation besides" if i % 2 else "bad"} for i in range(8)]


def judge(url: str, name: str) -> PairwiseJudge:
    return PairwiseJudge(JudgeModel("openai", name, base_url=url, max_retries=0))


def test_a_fair_judge_agrees_and_is_consistent(judge_url):
    assert calibrate(judge(judge_url, "fair"), ROWS) == Calibration(8, 0, 1.0, 1.0, 0.0)


def test_a_position_biased_judge_is_inconsistent_under_swap(judge_url):
    found = calibrate(judge(judge_url, "first"), ROWS)
    assert (found.swap_consistency, found.agreement, found.length_bias) == (0.0, 0.0, None)


def test_a_length_biased_judge_shows_its_length_bias(judge_url):
    found = calibrate(judge(judge_url, "longer"), ROWS)
    assert found.agreement == 0.5 and found.length_bias == pytest.approx(0.5)  # picks the longer 100% vs 50%


def test_errors_are_counted_apart_and_bad_rows_named(judge_url):
    assert calibrate(judge(judge_url, "garbage"), ROWS[:2]) == Calibration(2, 2, None, None, None)
    with pytest.raises(ValueError, match=r"rows \[0\] lack one"):
        calibrate(judge(judge_url, "fair"), [{"prompt": "q", "chosen": "a"}])


def test_a_measured_length_slope_corrects_a_length_biased_score_judge(judge_url):
    import statistics

    from rlenv.envs.judge import ScoreJudge
    from rlenv.envs.judge.calibration import length_slope
    from rlenv.types import Task

    model = JudgeModel("openai", "longer", base_url=judge_url, max_retries=0)
    texts = ["word " * n for n in (1, 2, 3, 4, 6, 8)]  # the same (empty) merit, padded: the double scores length
    tasks = [Task("t", "Say something.")] * len(texts)
    correction = length_slope(ScoreJudge(model), tasks, texts)
    assert correction.slope > 0.2
    raw = [r.value for r in ScoreJudge(model).score_batch(tasks, texts)]
    fixed = ScoreJudge(model, length_correction=correction).score_batch(tasks, texts)
    assert [r.components["uncorrected"] for r in fixed] == raw
    spread = statistics.pstdev(r.value for r in fixed)
    assert spread < 0.5 * statistics.pstdev(raw)


def _preferences(tmp_path, rows):
    path = tmp_path / "preferences.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def test_the_calibrate_command_prints_agreement_swap_consistency_length_bias_and_usage(judge_url, tmp_path, capsys):
    path = _preferences(tmp_path, ROWS)
    assert main(["judge", "calibrate", path, "--model", "longer", "--base-url", judge_url,
                 "--judge-option", "max_retries=0"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:4] == ["8 pairs, 0 without a verdict (judge errors)", "agreement         0.500",
                       "swap consistency  1.000", "length bias       +0.500"]
    assert out[4].startswith("judge usage       requests 16, cache_hits 0, failures 0,")  # 8 pairs, both orders
    assert main(["judge", "calibrate", path, "--model", "fair", "--base-url", judge_url, "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert (found["agreement"], found["swap_consistency"], found["length_bias"]) == (1.0, 1.0, 0.0)
    assert found["usage"]["requests"] == 16 and found["usage"]["prompt_tokens"] > 0


def test_the_calibrate_command_fails_when_nothing_was_judged_and_names_bad_rows(judge_url, tmp_path, capsys):
    assert main(["judge", "calibrate", _preferences(tmp_path, ROWS[:2]), "--model", "garbage",
                 "--base-url", judge_url, "--judge-option", "max_retries=0"]) == 1
    assert "nothing was measured" in capsys.readouterr().err
    assert main(["judge", "calibrate", _preferences(tmp_path, [{"prompt": "q", "chosen": "a"}]), "--model", "fair",
                 "--base-url", judge_url]) == 2
    assert "rejected" in capsys.readouterr().err
    assert main(["judge", "calibrate", _preferences(tmp_path, ROWS), "--model", "fair", "--judge-option", "oops"]) == 2
    assert "--judge-option 'oops' must look like KEY=VALUE" in capsys.readouterr().err

"""Lower-severity items of issue 34: errors a new user meets, each naming the bad value and what to do."""

import json

import pytest

import rlenv
from rlenv.cli import build_parser, main

ENV = "rlenv/Arithmetic-v0"


@pytest.mark.parametrize("typo", ["rlenv/GSM8-v0", "rlenv/GSMK-v0", "rlenv/Arithmetc-v0"])
def test_an_unknown_id_one_letter_off_is_suggested_and_rlenv_list_named(typo):
    with pytest.raises(KeyError) as info:
        rlenv.make(typo)
    message = str(info.value)
    assert "did you mean" in message and ("GSM8K" in message or "Arithmetic" in message)
    assert "rlenv list" in message and "list_envs()" not in message


def test_k_larger_than_n_is_refused_before_anything_runs(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["eval", ENV, "--model", "served", "--base-url", "http://127.0.0.1:9/v1", "--num-tasks", "2",
                 "-n", "2", "-k", "1,4", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "rlenv eval: error: -k 4 is larger than -n 2" in err and not out.exists()


def test_an_empty_samples_file_says_so(tmp_path, capsys):
    samples = tmp_path / "empty.jsonl"
    samples.write_text("")
    assert main(["eval", ENV, "--samples", str(samples), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert f"rlenv eval: error: {samples} holds no samples" in err and "index" not in err


def test_an_unknown_task_id_names_the_line_and_a_valid_id(tmp_path, capsys):
    samples = tmp_path / "samples.jsonl"
    first = rlenv.make(ENV).unwrapped.source[0].id
    samples.write_text(json.dumps({"task_id": first, "completion": "#### 1"}) + "\n"
                       + json.dumps({"task_id": "nope", "completion": "#### 1"}) + "\n")
    assert main(["eval", ENV, "--samples", str(samples), "--no-plot", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "row 2: unknown task_id 'nope'" in err and f"e.g. {first!r}" in err


def test_train_and_eval_both_take_out_and_output():
    parser = build_parser()
    for flag in ("--out", "--output"):
        assert str(parser.parse_args(["train", ENV, "--model", "m", flag, "d"]).output) == "d"
        assert str(parser.parse_args(["eval", ENV, "--model", "m", flag, "d"]).out) == "d"

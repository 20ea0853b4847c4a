import json
import subprocess
import sys

import pytest


def run_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "rlenv", *args], capture_output=True, text=True, cwd=cwd)


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_list_and_show():
    listed = run_cli("list")
    assert listed.returncode == 0 and "rlenv/ExactMatch-v0" in listed.stdout
    shown = run_cli("show", "rlenv/ExactMatch-v0")
    assert shown.returncode == 0
    assert json.loads(shown.stdout)["spec"]["id"] == "rlenv/ExactMatch-v0"


def test_score_end_to_end_with_user_data(tmp_path):
    data = write_jsonl(tmp_path / "tasks.jsonl", [
        {"id": 7, "question": "Say yes", "answer": "yes"},
        {"id": 8, "question": "Say no", "answer": "no"},
    ])
    samples = write_jsonl(tmp_path / "samples.jsonl", [
        {"task_id": 7, "completion": "Yes"},
        {"task_id": "7", "completion": "No"},
        {"index": 1, "completion": "no."},
        {"index": 1, "completion": ""},
    ])
    out = tmp_path / "results.jsonl"
    proc = run_cli("score", "rlenv/ExactMatch-v0", "--samples", str(samples), "--data", str(data),
                   "--field", "prompt=question", "--field", "reference=answer", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["task_id"], r["reward"], r["status"]) for r in rows] == [
        ("7", 1.0, "correct"), ("7", 0.0, "incorrect"), ("8", 1.0, "correct"), ("8", 0.0, "unparsable")]
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["count"] == 4 and summary["mean_reward"] == 0.5
    assert summary["status"] == {"correct": 2, "incorrect": 1, "unparsable": 1}
    assert summary["pass@k"] == {"1": 0.5, "2": 1.0}


@pytest.mark.parametrize(
    "sample_text, match",
    [
        ('{"task_id": "missing", "completion": "x"}\n', "unknown task_id 'missing'"),
        ('{"task_id": "capital-fr", "completion": "x"}\nnot json\n', "samples.jsonl:2: not valid JSON"),
        ('{"completion": "x"}\n', "names no task"),
    ],
)
def test_score_bad_input_exits_2_with_a_clear_message(tmp_path, sample_text, match):
    samples = tmp_path / "samples.jsonl"
    samples.write_text(sample_text)
    proc = run_cli("score", "rlenv/ExactMatch-v0", "--samples", str(samples), "--out", str(tmp_path / "r.jsonl"))
    assert proc.returncode == 2
    assert match in proc.stderr


def test_import_rlenv_does_not_import_torch():
    code = "import rlenv, sys; rlenv.make('rlenv/ExactMatch-v0'); assert 'torch' not in sys.modules, 'torch imported'"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_env_args_are_json_else_verbatim_strings():
    from rlenv.commands.env_args import parse_env_args

    assert parse_env_args(["level=3", " seed = 1", "prompt_template=Q: {prompt}\nA: "]) == {
        "level": 3, "seed": 1, "prompt_template": "Q: {prompt}\nA: "}
    with pytest.raises(ValueError, match="--env-arg 'level' must look like KEY=VALUE"):
        parse_env_args(["level"])


def _subcommands():
    import argparse

    from rlenv.cli import build_parser

    parser = build_parser()
    (choices,) = [a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return choices


@pytest.mark.parametrize("command", sorted(_subcommands()))
def test_every_help_shows_the_defaults_and_no_sphinx_markup(command):
    import argparse

    parser = _subcommands()[command]
    text = " ".join(parser.format_help().split())
    for action in parser._actions:
        if action.option_strings and action.default not in (None, False, [], argparse.SUPPRESS):
            assert f"(default: {action.default})" in text, (command, action.dest)
    for markup in ("``", ":func:", ":class:", ":mod:", ":data:", ":meth:"):
        assert markup not in text, (command, markup)


def test_import_loads_a_users_module_before_the_command(tmp_path, monkeypatch, capsys, clean_registry):
    from rlenv.cli import main

    (tmp_path / "my_envs_for_cli.py").write_text(
        "import rlenv\n"
        "from rlenv.exact_match import make_exact_match_env\n"
        "rlenv.register('mine/Exact-v0', make_exact_match_env)\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "my_envs_for_cli", raising=False)
    assert main(["show", "mine/Exact-v0", "--import", "my_envs_for_cli"]) == 0
    assert "mine/Exact-v0" in capsys.readouterr().out
    assert main(["show", "mine/Exact-v0", "--import", "no_such_module_here"]) == 2
    assert capsys.readouterr().err.strip() == ("rlenv show: error: --import no_such_module_here: No module named "
                                               "'no_such_module_here' (a module in the current directory, or on "
                                               "PYTHONPATH, or installed)")

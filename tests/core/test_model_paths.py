"""``--model`` of ``rlenv eval`` and ``rlenv train``: a local path that does not exist, or a directory
that holds no model, is an immediate one-line ``rlenv CMD: error:`` naming it (no hub retries)."""

import pytest

from rlenv.cli import main


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    (tmp_path / "runs" / "grpo" / "checkpoint-2").mkdir(parents=True)
    (tmp_path / "runs" / "grpo" / "checkpoint-2" / "trainer_state.pt").write_bytes(b"")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _cli(command: str, model: str, tmp_path) -> list[str]:
    out = ["--out", str(tmp_path / "eval")] if command == "eval" else ["--output", str(tmp_path / "train")]
    return [command, "rlenv/ExactMatch-v0", "--model", model, *out]


@pytest.mark.parametrize("command", ["eval", "train"])
@pytest.mark.parametrize("model", ["runs/grpo/finl", "runs/typo", "./typo", "/nonexistent/model"])
def test_a_local_path_that_does_not_exist_is_a_one_line_error(workdir, capsys, command, model):
    assert main(_cli(command, model, workdir)) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"rlenv {command}: error: --model {model}: no such directory") and err.count("\n") == 1
    assert not (workdir / "eval").exists() and not (workdir / "train").exists()


@pytest.mark.parametrize("command", ["eval", "train"])
def test_a_directory_without_a_model_says_so(workdir, capsys, command):
    assert main(_cli(command, "runs/grpo", workdir)) == 2
    err = capsys.readouterr().err
    assert f"rlenv {command}: error: --model runs/grpo: " in err and "no config.json" in err
    assert "it holds: checkpoint-2" in err

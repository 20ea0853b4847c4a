"""Ctrl-C: a real SIGINT sent to a real ``rlenv eval`` / ``rlenv train`` process ends it with one line
that says what was saved and how to resume; completions generated but not yet scored are kept, and
the resumed eval holds the same samples as an uninterrupted one."""

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from rlenv.cli import main
from tests.evaluation.test_served import ENV, NAME, RecordingServer, _completions
from tests.interrupts import default_sigint
from tests.waiting import PATIENCE_S, wait_until

REPO = Path(__file__).resolve().parents[2]


def _lines(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def _rlenv(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "rlenv", *args], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, preexec_fn=default_sigint)


class HoldingServer(RecordingServer):
    """A :class:`RecordingServer` that holds every request after the first ``answered`` until released."""

    def __init__(self, answered: int):
        super().__init__()
        self.release = threading.Event()
        self.answered = answered
        inner = self.server.config.app

        async def hold(scope, receive, send):
            if scope["type"] == "http" and scope["path"].endswith("completions"):
                self.arrived = getattr(self, "arrived", 0) + 1
                if self.arrived > self.answered:
                    await asyncio.to_thread(self.release.wait)
            await inner(scope, receive, send)

        self.server.config.app = hold


def test_ctrl_c_in_eval_says_what_was_saved_and_the_resumed_run_matches(tmp_path):
    eval_args = ["eval", ENV, "--model", NAME, "--num-tasks", "6", "-n", "2", "--batch-size", "2", "--no-plot",
                 "--no-report"]
    with RecordingServer() as server:
        assert main([*eval_args, "--base-url", server.url, "--out", str(tmp_path / "straight")]) == 0
    out = tmp_path / "interrupted"
    with HoldingServer(answered=1) as server:
        process = _rlenv(*eval_args, "--base-url", server.url, "--out", str(out))
        try:
            assert wait_until(lambda: _lines(out / "results.jsonl") == 2 and getattr(server, "arrived", 0) >= 2)
            process.send_signal(signal.SIGINT)  # while the second task's request is held
            _, err = process.communicate(timeout=PATIENCE_S)
        finally:
            server.release.set()
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
        assert process.returncode == 130, err
        assert "Traceback" not in err
        assert "HTTP Request" not in err  # no log line per request (the client library's INFO logs)
        (last,) = [line for line in err.splitlines() if line.startswith("rlenv eval: interrupted")]
        assert "2 samples scored" in last and str(out / "results.jsonl") in last and "resume" in last
        assert main([*eval_args, "--base-url", server.url, "--out", str(out)]) == 0  # the same command resumes
    assert _completions(out) == _completions(tmp_path / "straight")


def test_completions_generated_but_not_scored_are_kept_and_used_on_resume(tmp_path):
    import rlenv
    from rlenv import RewardResult, Status, TextEnv
    from rlenv.evaluation import EvalOptions, evaluate_policy

    calls = []

    class CtrlCWhileScoring:
        name, version = "ctrl_c", "1"

        def __call__(self, task, completion):
            calls.append(completion)
            if len(calls) == 3:  # the user presses Ctrl-C while the second batch is being scored
                raise KeyboardInterrupt
            return RewardResult(1.0, Status.CORRECT, verifier=self.name, verifier_version=self.version)

    base = rlenv.make(ENV).unwrapped
    env = TextEnv(base.source, CtrlCWhileScoring())
    generated = []

    def generate(prompts):
        generated.extend(prompts)
        return [f"#### {len(generated)}-{i}" for i in range(len(prompts))]

    options = EvalOptions(batch_size=2, executor="serial", plot=False, report=False, progress=False)
    with pytest.raises(KeyboardInterrupt):
        evaluate_policy(env, generate, [0, 1, 2], 2, tmp_path, options)
    assert _lines(tmp_path / "results.jsonl") == 2 and _lines(tmp_path / "generated.jsonl") == 2
    kept = [json.loads(line)["completion"] for line in (tmp_path / "generated.jsonl").read_text().splitlines()]
    evaluate_policy(env, generate, [0, 1, 2], 2, tmp_path, options)
    rows = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert [r["completion"] for r in rows if r["index"] == 1] == kept  # scored, not generated again
    assert len(generated) == 6 and not (tmp_path / "generated.jsonl").exists()


def test_ctrl_c_in_train_saves_a_checkpoint_and_says_how_to_resume(tmp_path):
    sys.path.insert(0, str(REPO / "tests" / "trainers"))
    from trainer_helpers import tiny_policy

    from rlenv.trainers.tiny import save_tiny

    model_dir = save_tiny(*tiny_policy(hidden_size=32), tmp_path / "tiny")
    out = tmp_path / "run"
    process = _rlenv("train", "rlenv/ExactMatch-v0", "--model", str(model_dir), "--output", str(out), "--steps",
                     "100000", "--num-tasks", "2", "--group-size", "2", "--max-new-tokens", "4", "--set",
                     "progress=false")
    try:
        assert wait_until(lambda: _lines(out / "metrics.jsonl") >= 1)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=PATIENCE_S)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130, err
    assert "Traceback" not in err
    (last,) = [line for line in err.splitlines() if line.startswith("rlenv train: interrupted")]
    step = _lines(out / "metrics.jsonl")
    assert f"checkpoint-{step}" in last and f"--resume {out / f'checkpoint-{step}'}" in last
    assert (out / f"checkpoint-{step}" / "trainer_state.pt").exists()


def test_a_resumed_local_model_eval_samples_what_the_uninterrupted_one_did(tmp_path):
    """``--backend hf`` at temperature 1: interrupted after the first batch and resumed, the same samples."""
    sys.path.insert(0, str(REPO / "tests" / "trainers"))
    from trainer_helpers import tiny_policy

    import rlenv
    from rlenv.evaluation import EvalOptions, evaluate_policy
    from rlenv.inference import Sampling, make_completer
    from rlenv.trainers.tiny import save_tiny

    model_dir = save_tiny(*tiny_policy(hidden_size=32), tmp_path / "tiny")
    env = rlenv.make(ENV)
    options = EvalOptions(batch_size=4, executor="serial", plot=False, report=False, progress=False)

    def generate_then(stop_after: int | None):
        inner = make_completer("hf", str(model_dir), Sampling(max_new_tokens=6, temperature=1.0, seed=7), chat="off")
        calls = []

        def generate(prompts):
            if stop_after is not None and len(calls) == stop_after:
                raise KeyboardInterrupt
            calls.append(prompts)
            return inner(prompts)

        return generate

    evaluate_policy(env, generate_then(None), range(6), 2, tmp_path / "straight", options)
    with pytest.raises(KeyboardInterrupt):
        evaluate_policy(env, generate_then(1), range(6), 2, tmp_path / "resumed", options)
    assert _lines(tmp_path / "resumed" / "results.jsonl") == 4
    evaluate_policy(env, generate_then(None), range(6), 2, tmp_path / "resumed", options)
    assert _completions(tmp_path / "resumed") == _completions(tmp_path / "straight")

"""Evaluation keeps verifier failures apart: reported on their own, left out of pass@k's n by default
(``--errors count-as-wrong`` keeps the old rule), and scored again by ``--retry-errors``."""

import json
import threading

import pytest

import rlenv
from rlenv import TextEnv
from rlenv.evaluation import EvalOptions, evaluate_samples
from rlenv.evaluation.report import markdown_summary
from rlenv.evaluation.results import summarize


def row(task, sample, status, reward=None, error=None):
    reward = (1.0 if status == "correct" else 0.0) if reward is None else reward
    return {"task_id": task, "sample": sample, "status": status, "reward": reward,
            "details": {"error": error} if error else {}}


ROWS = [row("a", 0, "correct"), row("a", 1, "error", error="sandbox died"), row("a", 2, "incorrect"),
        row("a", 3, "correct"), row("b", 0, "error", error="sandbox died"), row("b", 1, "error", error="OOM"),
        row("c", 0, "incorrect"), row("c", 1, "correct")]


def test_errors_are_left_out_of_n_by_default_and_reported_apart():
    excluded = summarize(ROWS, ks=[1], n_resamples=50)
    wrong = summarize(ROWS, ks=[1], n_resamples=50, errors="count-as-wrong")
    # exclude: a has 2/3 correct, c 1/2, b has no valid sample and is left out
    assert excluded["num_tasks"] == 2 and excluded["metrics"]["pass@1"]["value"] == pytest.approx((2 / 3 + 1 / 2) / 2)
    # count-as-wrong: a 2/4, b 0/2, c 1/2
    assert wrong["num_tasks"] == 3 and wrong["metrics"]["pass@1"]["value"] == pytest.approx((2 / 4 + 0 + 1 / 2) / 3)
    errors = excluded["errors"]
    assert errors == {"count": 3, "fraction": 3 / 8, "rule": "exclude", "tasks_without_valid_samples": 1,
                      "first_messages": ["sandbox died", "OOM"]}
    text = markdown_summary(excluded)
    assert "3 samples (37.5%) have status `error`" in text and "left out of every metric" in text
    assert "- `sandbox died`" in text and "--retry-errors" in text
    with pytest.raises(ValueError, match="errors must be one of"):
        summarize(ROWS, errors="ignore")
    with pytest.raises(ValueError, match="all 2 samples have status 'error'"):
        summarize([row("x", 0, "error", error="down"), row("x", 1, "error", error="down")])


class FailsOnce:
    """A verifier whose first call on each (task, completion) crashes: a transient failure."""

    name = "fails_once"

    def __init__(self, inner):
        self.inner, self.seen, self.lock, self.calls = inner, set(), threading.Lock(), 0

    def __call__(self, task, completion):
        with self.lock:
            self.calls += 1
            first = (task.id, completion) not in self.seen
            self.seen.add((task.id, completion))
        if first and task.id.endswith(("1", "3")):
            raise RuntimeError(f"transient failure on {task.id}")
        return self.inner(task, completion)


def test_retry_errors_scores_only_the_failed_samples_again(tmp_path):
    base = rlenv.make("rlenv/Arithmetic-v0").unwrapped
    verifier = FailsOnce(base.verifier)
    env = TextEnv(base.source, verifier)
    samples = [{"index": i, "completion": base.gold_completion(base.source[i])} for i in range(6)]
    options = EvalOptions(ks=[1], n_resamples=50, plot=False, report=False, progress=False)
    first = evaluate_samples(env, samples, tmp_path, options)
    assert first["errors"]["count"] == 2 and first["metrics"]["pass@1"]["value"] == 1.0  # errors left out
    assert first["num_tasks"] == 4 and verifier.calls == 6
    again = evaluate_samples(env, samples, tmp_path, options)
    assert again["errors"]["count"] == 2 and verifier.calls == 6  # a plain rerun keeps what is stored
    retried = evaluate_samples(env, samples, tmp_path, EvalOptions(**{**options.__dict__, "retry_errors": True}))
    assert retried["errors"]["count"] == 0 and retried["num_tasks"] == 6
    assert verifier.calls == 8  # only the two failed samples were scored again
    rows = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 6 and all(r["status"] == "correct" for r in rows)


def test_cli_errors_flags(tmp_path, capsys):
    from rlenv.cli import main

    samples = tmp_path / "s.jsonl"
    samples.write_text("".join(json.dumps({"index": i, "completion": "#### 0"}) + "\n" for i in range(3)))
    for rule in ("exclude", "count-as-wrong"):
        assert main(["eval", "rlenv/Arithmetic-v0", "--samples", str(samples), "--out", str(tmp_path / rule),
                     "--errors", rule, "--no-plot", "--no-report"]) == 0
        assert json.loads((tmp_path / rule / "summary.json").read_text())["errors"]["rule"] == rule
    assert main(["eval", "rlenv/Arithmetic-v0", "--samples", str(samples), "--out", str(tmp_path / "exclude"),
                 "--retry-errors", "--no-plot", "--no-report"]) == 0

"""Runs for the report tests: real ``rlenv eval`` directories on ``rlenv/MATH-v0``, on a local 14-task file in
MATH-500's schema (``tests/data/hub/math500.jsonl``: tests never reach the Hub)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import rlenv
from rlenv.evaluation import EvalOptions, evaluate_samples
from rlenv.wrappers import AnswerHedging

ENV_ID = "rlenv/MATH-v0"
#: The 14 tasks of the runs, and the CLI arguments that load them.
MATH_DATA = Path(__file__).resolve().parents[1] / "data" / "hub" / "math500.jsonl"
DATA_ARGS = ("--data", str(MATH_DATA))
# run the CLI on this checkout's code
CLI_ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
    [str(Path(rlenv.__file__).resolve().parents[1]), os.environ.get("PYTHONPATH", "")])}


def math_samples(better: bool = False) -> list[dict]:
    """Four samples per task: right (with inline math), code then a wrong answer, a hedge, no answer.

    ``better``: the fourth sample of the first five tasks is right instead (their verdicts flip).
    """
    source = rlenv.make(ENV_ID, data_files=str(MATH_DATA)).unwrapped.source
    rows = []
    for t in range(source.size):
        task = source[t]
        ref = task.reference
        rows += [
            {"task_id": task.id, "completion": f"We compute $x^2 + 1$ step by step, so the answer is \\boxed{{{ref}}}."},
            {"task_id": task.id, "completion": "```python\ndef f(n):\n    return n * 2  # double\nprint(f(21))\n```\n"
                                               "So the answer is \\boxed{999}." if t % 2 else f"\\boxed{{{ref}}}"},
            {"task_id": task.id, "completion": f"It is either \\boxed{{{ref}}} or \\boxed{{123}}."},
            {"task_id": task.id, "completion": f"\\boxed{{{ref}}}" if better and t < 5 else "I do not know."},
        ]
    return rows


def math_run(out: Path, better: bool = False) -> Path:
    """An evaluation directory of :func:`math_samples`, scored with the hedging detector (flag-only)."""
    env = AnswerHedging(rlenv.make(ENV_ID, data_files=str(MATH_DATA)))
    evaluate_samples(env, math_samples(better), out, EvalOptions(ks=[1, 2], by=("level",), n_resamples=200,
                                                                 progress=False), config={"better": better})
    return out


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "rlenv", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300, env=CLI_ENV)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc

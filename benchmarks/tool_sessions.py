"""Python tool sessions and multi-turn evaluation, in one run, as one table with ratios:

1. tool-session throughput: calls/s and episode latency of sessions on the warm pool, against a
   fresh container per call (one ``docker run`` of the same replay program). An episode is
   ``--calls`` tool calls that build on each other (a variable, a function, an import, a file,
   then results of all of them).
2. a multi-turn eval's wall time per episode (``evaluate_policy`` on ``rlenv/MathPython-v0``: a
   scripted policy computes the task with one Python call, then answers from its output),
   against single-turn (the same tasks on ``rlenv/Arithmetic-v0``, answered at once).

    python benchmarks/tool_sessions.py [--episodes 8] [--calls 5] [--docker-episodes 2] [--size 2] [--eval-tasks 8]
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import rlenv  # noqa: E402
from rlenv.evaluation import EvalOptions, evaluate_policy  # noqa: E402
from rlenv.sandbox import ContainerSpec, Limits, SandboxPool  # noqa: E402
from rlenv.sandbox.session import PythonSession, replay_program  # noqa: E402

CELLS = ["x = 21", "def double(n):\n    return 2 * n", "import math", "open('note.txt', 'w').write('ok')",
         "double(x) + math.isqrt(16)", "open('note.txt').read()", "sorted(globals())[:3]", "x * 3"]
LIMITS = Limits(timeout_s=10, test_timeout_s=5)


def pooled_episode(pool: SandboxPool, calls: int) -> float:
    session = PythonSession(pool, limits=LIMITS)
    began = time.perf_counter()
    for code in CELLS[:calls]:
        result = session.run(code)
        assert result.status == "ok", result
    session.close()
    return time.perf_counter() - began


def docker_run_episode(spec: ContainerSpec, calls: int) -> float:
    """The same episode, each call one ``docker run`` of the program the session would send."""
    began = time.perf_counter()
    for done_calls in range(calls):
        name = f"rlenv-bench-{uuid.uuid4().hex[:12]}"
        try:
            done = subprocess.run(["docker", "run", "--rm", "-i", "--name", name, "--workdir", "/tmp",
                                   *spec.cli_flags(), spec.image, "python3", "-I", "-c",
                                   replay_program(CELLS[:done_calls + 1])],
                                  capture_output=True, text=True, timeout=120)
        except BaseException:
            subprocess.run(["docker", "rm", "-f", name], capture_output=True)
            raise
        assert done.returncode == 0, done.stderr
    return time.perf_counter() - began


def expression(prompt: str) -> str:
    """The arithmetic of an ``rlenv/Arithmetic-v0`` prompt (``Compute: 4+8``)."""
    return prompt.split("Compute: ", 1)[1].split("\n", 1)[0]


def answer_at_once(prompts: list[str]) -> list[str]:
    """The single-turn policy: the answer, computed in this process."""
    return [f"\\boxed{{{eval(expression(p))}}}" for p in prompts]


def compute_with_python(conversations: list[str]) -> list[str]:
    """The multi-turn policy (text mode): a Python call that computes, then the answer it printed."""
    turns = []
    for text in conversations:
        if "<tool_response>" in text:
            turns.append(f"\\boxed{{{text.rsplit('<tool_response>', 1)[1].split()[0]}}}")
        else:
            code = f"print({expression(text)})"
            turns.append(f'<tool_call>{{"name": "python", "arguments": {{"code": "{code}"}}}}</tool_call>')
    return turns


def eval_episode_seconds(env_id: str, policy, tasks: int, batch: int, pool: SandboxPool) -> tuple[float, float]:
    """``(seconds per episode, pass@1)`` of one evaluation of ``policy`` on ``tasks`` tasks of ``env_id``."""
    kwargs = {"pool": pool} if env_id == "rlenv/MathPython-v0" else {}
    options = EvalOptions(ks=[1], n_resamples=10, batch_size=batch, plot=False, report=False, progress=False)
    with tempfile.TemporaryDirectory() as out:
        began = time.perf_counter()
        summary = evaluate_policy(rlenv.make(env_id, **kwargs), policy, range(tasks), 1, out, options,
                                  make_env=lambda: rlenv.make(env_id, **kwargs))
        seconds = time.perf_counter() - began
    return seconds / tasks, summary["metrics"]["pass@1"]["value"]


def row(latencies: list[float], rate: float) -> tuple:
    """``(episodes, calls/s, episode p50 ms, episode max ms)``."""
    return (len(latencies), f"{rate:.1f} calls/s", f"{1000 * statistics.median(latencies):.0f}",
            f"{1000 * max(latencies):.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=8, help="episodes through the pool")
    parser.add_argument("--calls", type=int, default=5, choices=range(1, len(CELLS) + 1), help="tool calls per episode")
    parser.add_argument("--docker-episodes", type=int, default=2, help="episodes with one docker run per call")
    parser.add_argument("--size", type=int, default=os.cpu_count() or 1, help="pool containers (= concurrency)")
    parser.add_argument("--eval-tasks", type=int, default=8, help="tasks of each evaluation (one episode each)")
    args = parser.parse_args()
    spec = ContainerSpec()
    with SandboxPool(args.size) as pool:
        pool.start()
        pooled_episode(pool, args.calls)  # warm-up
        began = time.perf_counter()
        with cf.ThreadPoolExecutor(args.size) as executor:
            pooled = list(executor.map(lambda _: pooled_episode(pool, args.calls), range(args.episodes)))
        pooled_s = time.perf_counter() - began
        for env_id, policy in (("rlenv/Arithmetic-v0", answer_at_once), ("rlenv/MathPython-v0", compute_with_python)):
            eval_episode_seconds(env_id, policy, 1, 1, pool)  # warm-up: the math verifier's workers start
        single_s, single_pass = eval_episode_seconds("rlenv/Arithmetic-v0", answer_at_once, args.eval_tasks,
                                                     args.size, pool)
        multi_s, multi_pass = eval_episode_seconds("rlenv/MathPython-v0", compute_with_python, args.eval_tasks,
                                                   args.size, pool)
    began = time.perf_counter()
    with cf.ThreadPoolExecutor(args.size) as executor:
        cold = list(executor.map(lambda _: docker_run_episode(spec, args.calls), range(args.docker_episodes)))
    cold_s = time.perf_counter() - began
    pooled_rate, cold_rate = len(pooled) * args.calls / pooled_s, len(cold) * args.calls / cold_s
    rows = [("measurement", "method", "n", "rate", "p50 ms", "max ms", "ratio"),
            ("tool session", "session on the warm pool", *row(pooled, pooled_rate), f"{pooled_rate / cold_rate:.0f}x"),
            ("tool session", "one `docker run` per call", *row(cold, cold_rate), "1x (baseline)"),
            ("eval wall time", "multi-turn: MathPython-v0, 2 turns", args.eval_tasks, f"pass@1 {multi_pass:.2f}",
             f"{1000 * multi_s:.0f} per episode", "", f"{multi_s / single_s:.1f}x"),
            ("eval wall time", "single-turn: Arithmetic-v0", args.eval_tasks, f"pass@1 {single_pass:.2f}",
             f"{1000 * single_s:.0f} per episode", "", "1x (baseline)")]
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    for line in rows:
        print("  ".join(str(v).ljust(w) for v, w in zip(line, widths, strict=True)).rstrip())
    print(f"\ntool sessions: {args.calls} calls per episode, concurrency {args.size} (rate: calls/s); "
          f"evals: {args.size} episodes at a time, one Python call per multi-turn episode; load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()

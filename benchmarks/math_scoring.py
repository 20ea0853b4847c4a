"""Batch scoring throughput of the math environments vs a raw single-process math-verify loop.

Items (default 1000): half GSM8K test gold solutions scored against their own answers, half
generated arithmetic problems (levels 1-5) answered in plain and LaTeX forms, a quarter of
them wrong. Both methods score the same (reference, completion) pairs in this run:

* baseline: ``verify(parse(reference), parse(completion))`` in a loop, one process, math-verify
  defaults;
* in-process grading: ``envs.math.grading.grade`` in a loop, one process, no isolation (shows
  what the grading itself costs);
* env: ``rlenv.score_tasks(MathVerifier(), tasks, completions)`` (the path ``rlenv.score`` and
  vector envs take), every check in a worker process under a deadline, with 1 worker and with
  all cores. "warm" starts the workers before the clock (fresh workers, empty caches, every
  repeat); "cold" includes starting them.

The in-process runs empty sympy's and math-verify's caches first, so no run profits from an
earlier one.

Run: ``python benchmarks/math_scoring.py [--items 1000] [--repeats 3] [--workers N]``.
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from envs.math.arithmetic import ArithmeticGenerator, level_config  # noqa: E402
from envs.math.gsm8k import default_data_file, gsm8k_task  # noqa: E402
from envs.math.pool import default_num_workers  # noqa: E402
from envs.math.verifier import MathVerifier  # noqa: E402
from rlenv.scoring import score_tasks  # noqa: E402
from rlenv.sources import DatasetSource  # noqa: E402
from rlenv.types import Task  # noqa: E402

_FORMS = (
    lambda a: f"We add things up.\n#### {a}",
    lambda a: f"Working it out step by step, the answer is {a}.",
    lambda a: f"So the result is $\\boxed{{{a}}}$.",
    lambda a: f"Therefore the answer is $\\boxed{{\\frac{{{2 * a}}}{{2}}}}$.",
)


def build_items(count: int, seed: int = 0) -> tuple[list[Task], list[str]]:
    """``count`` (task, completion) pairs: half GSM8K gold, half generated (plain and LaTeX)."""
    rng = random.Random(seed)
    gsm8k = DatasetSource(str(default_data_file("test")), {"prompt": "question", "gold_completion": "answer"},
                          row_to_task=gsm8k_task)
    n_gsm8k = count // 2
    tasks = [gsm8k[i] for i in rng.sample(range(gsm8k.size), n_gsm8k)]
    completions = [t.gold_completion for t in tasks]
    for i in range(count - n_gsm8k):
        level = 1 + i % 5
        task = ArithmeticGenerator(level_config(level, negative=True), level)(random.Random(f"{seed}:{i}"), i)
        answer = int(task.reference) + (1 if rng.random() < 0.25 else 0)
        tasks.append(task)
        completions.append(_FORMS[i % len(_FORMS)](answer))
    return tasks, completions


def clear_caches() -> None:
    """Empty sympy's, math-verify's and our parse caches, so no in-process run reuses an earlier one."""
    from math_verify import parser
    from sympy.core.cache import clear_cache

    from envs.math.grading import parse_answer, parse_reference

    clear_cache()
    for cached in (parser.parse_latex_cached, parser.parse_expr_cached, parser.extract_latex,
                   parse_answer, parse_reference):
        cached.cache_clear()


class Clock:
    """Wall seconds and CPU seconds of this process plus the given worker processes."""

    def __init__(self, pids: list[int] = ()):
        self.workers = [psutil.Process(p) for p in pids]
        self.wall, self.cpu = time.perf_counter(), self._cpu()

    def _cpu(self) -> float:
        return time.process_time() + sum(sum(w.cpu_times()[:2]) for w in self.workers)

    def stop(self) -> tuple[float, float]:
        return time.perf_counter() - self.wall, self._cpu() - self.cpu


def raw_loop(tasks: list[Task], completions: list[str]) -> tuple[tuple[float, float], list[bool]]:
    from math_verify import parse, verify

    clear_caches()
    clock = Clock()
    verdicts = [verify(parse(str(t.reference)), parse(c)) for t, c in zip(tasks, completions)]
    return clock.stop(), verdicts


def grade_loop(tasks: list[Task], completions: list[str]) -> tuple[float, list[bool]]:
    from envs.math.grading import grade

    clear_caches()
    config = MathVerifier().config
    clock = Clock()
    verdicts = [grade(config, str(t.reference), c)[0] == "correct" for t, c in zip(tasks, completions)]
    return clock.stop(), verdicts


def env_batch(
    verifier: MathVerifier, tasks: list[Task], completions: list[str], warm: bool
) -> tuple[tuple[float, float], list[bool]]:
    verifier.pool.close()  # fresh workers and empty caches for every repeat
    if warm:
        verifier.pool.start()
    clock = Clock(verifier.pool.worker_pids() if warm else [])
    results = score_tasks(verifier, tasks, completions)
    return clock.stop(), [r.correct for r in results]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3, help="timings are the median of this many runs")
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: all cores)")
    args = parser.parse_args()
    logging.getLogger("math_verify").setLevel(logging.ERROR)

    tasks, completions = build_items(args.items)
    workers = args.workers or default_num_workers()
    single, parallel = MathVerifier(num_workers=1), MathVerifier(num_workers=workers)
    runs: dict[str, list[tuple[float, float]]] = {}
    verdicts: dict[str, list[bool]] = {}
    methods = {
        "raw math_verify parse+verify loop (1 process)": lambda: raw_loop(tasks, completions),
        "envs.math grade() loop, in-process, no isolation": lambda: grade_loop(tasks, completions),
        "MathVerifier batch, warm, 1 worker": lambda: env_batch(single, tasks, completions, warm=True),
        f"MathVerifier batch, warm, {workers} workers": lambda: env_batch(parallel, tasks, completions, warm=True),
        f"MathVerifier batch, cold (incl. starting {workers} workers)":
            lambda: env_batch(parallel, tasks, completions, warm=False),
    }
    for _ in range(args.repeats):
        for name, method in methods.items():
            times, verdicts[name] = method()
            runs.setdefault(name, []).append(times)
    single.pool.close()
    parallel.pool.close()
    raw, *ours = verdicts.values()
    if any(v != ours[0] for v in ours):
        raise SystemExit("the in-process and worker-pool runs disagree: scoring is not deterministic")

    n = len(tasks)
    base = statistics.median(wall for wall, _ in next(iter(runs.values())))
    print(f"# math scoring: {n} items, median of {args.repeats} runs, "
          f"{platform.python_implementation()} {platform.python_version()}, {default_num_workers()} cores, "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"| {'method':<56} | {'wall s':>7} | {'items/s':>8} | {'vs raw':>6} | {'CPU s':>6} |")
    print(f"|{'-' * 58}|{'-' * 9}|{'-' * 10}|{'-' * 8}|{'-' * 8}|")
    for name, times in runs.items():
        wall = statistics.median(w for w, _ in times)
        cpu = statistics.median(c for _, c in times)
        cpu_text = f"{cpu:6.2f}" if "cold" not in name else "     -"
        print(f"| {name:<56} | {wall:7.3f} | {n / wall:8.0f} | {base / wall:5.2f}x | {cpu_text} |")
    print("\nCPU s: CPU time of this process plus its workers during the run (the workers' start-up is "
          "not counted; '-' where it would be).")
    env = ours[0]
    print(f"\ncorrect: raw {sum(raw)}, env {sum(env)}, both {sum(r and o for r, o in zip(raw, env))}; "
          f"env-only {sum(o and not r for r, o in zip(raw, env))}, raw-only {sum(r and not o for r, o in zip(raw, env))}")


if __name__ == "__main__":
    main()

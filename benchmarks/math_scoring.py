"""Batch scoring throughput of the math environments vs a raw single-process math-verify loop.

Two workloads (``--workload``, default both); every method scores the same (reference,
completion) pairs in this run.

``mixed`` (``--items``, default 1000): half GSM8K test gold solutions (``rlenv/GSM8K-v0``'s data:
``openai/gsm8k`` from the Hub, or ``--gsm8k test.jsonl`` offline) scored against their own
answers, half generated arithmetic problems (levels 1-5) answered in plain and LaTeX forms, a
quarter of them wrong.

* baseline: ``verify(parse(reference), parse(completion))`` in a loop, one process, math-verify
  defaults;
* in-process grading: ``rlenv.envs.math.grading.grade`` in a loop, one process, no isolation (shows
  what the grading itself costs);
* env: ``rlenv.scoring.score_tasks(MathVerifier(), tasks, completions)`` (the path ``rlenv.score`` and
  vector envs take), every check in a worker process under a deadline, with 1 worker and with
  all cores. "warm" starts the workers before the clock (fresh workers, empty caches, every
  repeat); "cold" includes starting them.

The in-process runs empty sympy's and math-verify's caches first, so no run profits from an
earlier one.

``grouped`` (``--problems``, default 64): GRPO-style groups of competition problems whose answers
are LaTeX (fractions, radicals, intervals, matrices, sets): 8 distinct completions per problem
(different reasoning, inline math, a ``\\boxed{}`` final answer; some hedge between two boxes,
some never answer) sharing a few final answers: the gold as written, the gold in another form, and
wrong answers.

* baseline: ``verify(parse("$" + reference + "$"), parse(completion))`` in a loop, one process,
  math-verify defaults (the gold in ``$...$``, as math-verify expects LaTeX);
* in-process grading: ``grade`` one completion at a time (no sharing);
* env: ``MathVerifier.score_batch`` with 1 worker and with all cores, warm: the workers are
  started before the clock (start-up is reported apart) and have scored an earlier batch of
  other problems, as in a training run. Every repeat scores new problems (no method has seen
  them), and every method ran that warm-up batch, so all are equally warm.

Run: ``python benchmarks/math_scoring.py [--workload mixed|grouped] [--items 1000]
[--problems 64] [--repeats 3] [--workers N] [--gsm8k FILE]``.
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
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rlenv.envs.math.arithmetic import ArithmeticGenerator, level_config  # noqa: E402
from rlenv.envs.math.gsm8k import make_gsm8k_env  # noqa: E402
from rlenv.envs.math.verifier import MathVerifier  # noqa: E402
from rlenv.scoring import score_tasks  # noqa: E402
from rlenv.scoring.worker_pool import default_num_workers  # noqa: E402
from rlenv.types import Task  # noqa: E402

_FORMS = (
    lambda a: f"We add things up.\n#### {a}",
    lambda a: f"Working it out step by step, the answer is {a}.",
    lambda a: f"So the result is $\\boxed{{{a}}}$.",
    lambda a: f"Therefore the answer is $\\boxed{{\\frac{{{2 * a}}}{{2}}}}$.",
)


def build_items(count: int, gsm8k_file: str | None = None, seed: int = 0) -> tuple[list[Task], list[str]]:
    """``count`` (task, completion) pairs: half GSM8K test gold (``gsm8k_file`` or the Hub's), half generated."""
    rng = random.Random(seed)
    gsm8k = make_gsm8k_env(data_files=gsm8k_file).unwrapped.source
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

    from rlenv.envs.math.grading import parse_answer, parse_reference

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
    from rlenv.envs.math.grading import grade

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


GROUP = 8
_FILLER = (
    "Let $x = {a}$ and note that $x^2 - {b}x + {c} = 0$.",
    "We substitute $y = \\frac{{{a}}}{{{b}}}$ into the equation.",
    "Since $\\sqrt{{{a}}} < {b}$, the bound $|t - {a}| \\le {c}$ holds.",
    "Expanding, $({a} + {b})^2 = {c}$ and $\\binom{{{a}}}{{2}} = {c}$.",
    "Thus $\\sum_{{k=1}}^{{{a}}} k = {c}$ and the area is ${b}\\pi$.",
)


def _fraction(value: Fraction) -> str:
    sign = "-" if value < 0 else ""
    value = abs(value)
    return f"{sign}\\frac{{{value.numerator}}}{{{value.denominator}}}" if value.denominator != 1 else f"{sign}{value.numerator}"


def _fraction_answers(rng: random.Random) -> list[str]:
    value = Fraction(rng.randint(1, 60), rng.choice([3, 4, 6, 7, 9, 11, 12, 13]))
    while value.denominator == 1:
        value += Fraction(1, 7)
    return [_fraction(value), f"\\dfrac{{{value.numerator}}}{{{value.denominator}}}", _fraction(value + 1),
            _fraction(2 * value), _fraction(-value)]


def _radical_answers(rng: random.Random) -> list[str]:
    a, b, c = rng.randint(1, 9), rng.choice([2, 3, 5, 6, 7, 10]), rng.randint(2, 9)
    return [f"\\frac{{{a}\\sqrt{{{b}}}}}{{{c}}}", f"\\frac{{{a}}}{{{c}}}\\sqrt{{{b}}}",
            f"\\frac{{{a}\\sqrt{{{b}}}}}{{{c + 1}}}", f"{a}\\sqrt{{{b}}}", f"\\frac{{{a}}}{{{c}\\sqrt{{{b}}}}}"]


def _interval_answers(rng: random.Random) -> list[str]:
    a, b = rng.randint(-9, 0), rng.randint(1, 9)
    return [f"(-\\infty, {a}] \\cup [{b}, \\infty)", f"(-\\infty,{a}]\\cup[{b},\\infty)",
            f"(-\\infty, {a}) \\cup ({b}, \\infty)", f"[{a}, {b}]", f"(-\\infty, {a}] \\cup [{b + 1}, \\infty)"]


def _matrix_answers(rng: random.Random) -> list[str]:
    m = [rng.randint(-9, 9) for _ in range(4)]
    wrong = list(m)
    wrong[rng.randrange(4)] += 1
    def matrix(a: int, b: int, c: int, d: int, sep: str = " & ", row: str = " \\\\ ") -> str:
        return f"\\begin{{pmatrix}} {a}{sep}{b}{row}{c}{sep}{d} \\end{{pmatrix}}"

    return [matrix(*m), matrix(*m, sep="&", row="\\\\"), matrix(*wrong), matrix(m[0], m[2], m[1], m[3]),
            matrix(*(-x for x in m))]


def _set_answers(rng: random.Random) -> list[str]:
    xs = sorted(rng.sample(range(-12, 20), 3))
    return ["\\{" + ", ".join(map(str, xs)) + "\\}", "\\{" + ", ".join(map(str, reversed(xs))) + "\\}",
            "\\{" + ", ".join(map(str, xs[:2])) + "\\}", "\\{" + ", ".join(str(x + 1) for x in xs) + "\\}",
            ", ".join(map(str, xs + [xs[-1] + 2]))]


_KINDS = (_fraction_answers, _radical_answers, _interval_answers, _matrix_answers, _set_answers)
#: How often a sampled completion ends in each answer of a problem: the gold as written, the gold
#: in another form, then three wrong answers.
_ANSWER_WEIGHTS = (8, 2, 3, 1, 1)


def build_groups(problems: int, seed: int) -> tuple[list[Task], list[str]]:
    """``problems`` competition problems x :data:`GROUP` completions (see the module docstring)."""
    rng = random.Random(f"grouped:{seed}")
    tasks, completions = [], []
    for p in range(problems):
        answers = _KINDS[p % len(_KINDS)](rng)
        task = Task(f"{seed}-{p}", "problem", reference=answers[0])
        for _ in range(GROUP):
            steps = " ".join(rng.choice(_FILLER).format(a=rng.randint(2, 30), b=rng.randint(2, 30), c=rng.randint(2, 900))
                             for _ in range(rng.randint(3, 8)))
            final = rng.choices(answers, _ANSWER_WEIGHTS)[0]
            roll = rng.random()
            if roll < 0.05:
                text = f"{steps} This is getting long, let me restart"
            elif roll < 0.15:
                first = rng.choices(answers, _ANSWER_WEIGHTS)[0]
                text = f"{steps}\nFirst I got $\\boxed{{{first}}}$. Checking again, the answer is $\\boxed{{{final}}}$."
            else:
                text = f"{steps}\nTherefore the answer is $\\boxed{{{final}}}$."
            tasks.append(task)
            completions.append(text)
    return tasks, completions


def distinct_final_answers(tasks: list[Task], completions: list[str]) -> float:
    """Mean number of distinct final answers per group."""
    from rlenv.envs.math.extraction import clean_answer, extract_answers

    finals = {(t.id, clean_answer(extract_answers(c).final)) for t, c in zip(tasks, completions) if extract_answers(c).answers}
    return len(finals) / len({t.id for t in tasks})


Method = Callable[[list[Task], list[str]], list[bool]]


def grouped_methods(verifiers: dict[str, MathVerifier]) -> dict[str, tuple[Method, MathVerifier | None]]:
    """The methods of the grouped workload: ``name -> (f(tasks, completions) -> verdicts, its verifier)``."""
    from math_verify import parse, verify

    from rlenv.envs.math.grading import grade

    config = MathVerifier().config

    def batch(verifier: MathVerifier) -> Method:
        return lambda tasks, completions: [r.correct for r in verifier.score_batch(tasks, completions)]

    methods: dict[str, tuple[Method, MathVerifier | None]] = {
        "raw math_verify parse+verify loop (1 process)": (
            lambda tasks, completions: [verify(parse(f"${t.reference}$"), parse(c)) for t, c in zip(tasks, completions)],
            None),
        "rlenv.envs.math grade() loop, in-process, one by one": (
            lambda tasks, completions: [grade(config, t.reference, c)[0] == "correct" for t, c in zip(tasks, completions)],
            None),
    }
    for label, verifier in verifiers.items():
        methods[f"MathVerifier.score_batch, warm, {label}"] = (batch(verifier), verifier)
    return methods


def run_grouped(problems: int, repeats: int, workers: int) -> None:
    verifiers = {f"{n} worker{'s' if n > 1 else ''}": MathVerifier(num_workers=n) for n in dict.fromkeys((1, workers))}
    startup = {}
    for label, verifier in verifiers.items():
        verifier.pool.close()
        start = time.perf_counter()
        verifier.pool.start()
        startup[label] = time.perf_counter() - start
    methods = grouped_methods(verifiers)
    warm_up = build_groups(problems, seed=-1)
    for method, _ in methods.values():
        method(*warm_up)
    load_before = os.getloadavg()
    runs: dict[str, list[tuple[float, float]]] = {}
    distinct, agreement = [], []
    for repeat in range(repeats):
        tasks, completions = build_groups(problems, seed=repeat)
        distinct.append(distinct_final_answers(tasks, completions))
        verdicts = {}
        for name, (method, verifier) in methods.items():
            clock = Clock(verifier.pool.worker_pids() if verifier else [])
            verdicts[name] = method(tasks, completions)
            runs.setdefault(name, []).append(clock.stop())
        raw, *ours = verdicts.values()
        if any(v != ours[0] for v in ours):
            raise SystemExit("grade() one by one and score_batch disagree")
        agreement.append((sum(raw), sum(ours[0]), sum(r and o for r, o in zip(raw, ours[0]))))
    for verifier in verifiers.values():
        verifier.pool.close()
    n = problems * GROUP
    print(f"# grouped competition answers: {problems} problems x {GROUP} completions ({n} items, "
          f"{statistics.mean(distinct):.1f} distinct final answers per group), median of {repeats} runs, "
          f"load average {load_before[0]:.1f} before / {os.getloadavg()[0]:.1f} after")
    print_table(runs, n)
    print("\nworker start-up (not in the table): " + ", ".join(f"{label} {t:.2f} s" for label, t in startup.items()))
    raw_correct, env_correct, both = (sum(x) for x in zip(*agreement))
    print(f"correct over all runs: raw {raw_correct}, env {env_correct}, both {both}")


def print_table(runs: dict[str, list[tuple[float, float]]], n: int) -> None:
    """Median wall and CPU seconds per method, with the speed-up over the first (the raw loop)."""
    base = statistics.median(wall for wall, _ in next(iter(runs.values())))
    print(f"| {'method':<56} | {'wall s':>7} | {'items/s':>8} | {'vs raw':>6} | {'CPU s':>6} |")
    print(f"|{'-' * 58}|{'-' * 9}|{'-' * 10}|{'-' * 8}|{'-' * 8}|")
    for name, times in runs.items():
        wall = statistics.median(w for w, _ in times)
        cpu = statistics.median(c for _, c in times)
        cpu_text = f"{cpu:6.2f}" if "cold" not in name else "     -"
        print(f"| {name:<56} | {wall:7.3f} | {n / wall:8.0f} | {base / wall:5.2f}x | {cpu_text} |")
    print("\nCPU s: CPU time of this process plus its workers during the run (the workers' start-up is "
          "not counted; '-' where it would be).")


def run_mixed(items: int, repeats: int, workers: int, gsm8k_file: str | None) -> None:
    tasks, completions = build_items(items, gsm8k_file)
    single, parallel = MathVerifier(num_workers=1), MathVerifier(num_workers=workers)
    runs: dict[str, list[tuple[float, float]]] = {}
    verdicts: dict[str, list[bool]] = {}
    methods = {
        "raw math_verify parse+verify loop (1 process)": lambda: raw_loop(tasks, completions),
        "rlenv.envs.math grade() loop, in-process, no isolation": lambda: grade_loop(tasks, completions),
        "MathVerifier batch, warm, 1 worker": lambda: env_batch(single, tasks, completions, warm=True),
        f"MathVerifier batch, warm, {workers} workers": lambda: env_batch(parallel, tasks, completions, warm=True),
        f"MathVerifier batch, cold (incl. starting {workers} workers)":
            lambda: env_batch(parallel, tasks, completions, warm=False),
    }
    for _ in range(repeats):
        for name, method in methods.items():
            times, verdicts[name] = method()
            runs.setdefault(name, []).append(times)
    single.pool.close()
    parallel.pool.close()
    raw, *ours = verdicts.values()
    if any(v != ours[0] for v in ours):
        raise SystemExit("the in-process and worker-pool runs disagree: scoring is not deterministic")

    print(f"# mixed GSM8K + arithmetic: {items} items, median of {repeats} runs, "
          f"load average {os.getloadavg()[0]:.1f}")
    print_table(runs, len(tasks))
    env = ours[0]
    print(f"\ncorrect: raw {sum(raw)}, env {sum(env)}, both {sum(r and o for r, o in zip(raw, env))}; "
          f"env-only {sum(o and not r for r, o in zip(raw, env))}, raw-only {sum(r and not o for r, o in zip(raw, env))}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", choices=("mixed", "grouped"), default=None, help="default: both")
    parser.add_argument("--items", type=int, default=1000, help="items of the mixed workload")
    parser.add_argument("--problems", type=int, default=64, help=f"problems of the grouped workload ({GROUP} completions each)")
    parser.add_argument("--repeats", type=int, default=3, help="timings are the median of this many runs")
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: all cores)")
    parser.add_argument("--gsm8k", default=None, help="GSM8K test split as a local JSONL (default: openai/gsm8k from the Hub)")
    args = parser.parse_args()
    logging.getLogger("math_verify").setLevel(logging.ERROR)
    workers = args.workers or default_num_workers()
    print(f"{platform.python_implementation()} {platform.python_version()}, {default_num_workers()} cores\n")
    if args.workload in (None, "mixed"):
        run_mixed(args.items, args.repeats, workers, args.gsm8k)
    if args.workload is None:
        print()
    if args.workload in (None, "grouped"):
        run_grouped(args.problems, args.repeats, workers)


if __name__ == "__main__":
    main()

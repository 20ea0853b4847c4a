"""Verdict accuracy of the math verifier vs raw math-verify on a labeled corpus of answer pairs.

The corpus (default ``tests/data/math_pairs.jsonl``) has one ``{"category", "gold", "completion",
"equal"}`` row per pair: ``equal`` says whether the completion's answer is the gold answer. Both
methods judge every pair in this run:

* rlenv: ``MathVerifier().score_batch`` (``correct`` means equal);
* baseline: raw math-verify, ``verify(parse("$gold$"), parse(completion))`` with its default
  extraction (the way it is documented), an exception counting as "not equal".

Prints, per category, how many pairs each method judges right, then the totals and rlenv's
misses. Run: ``python benchmarks/math_accuracy.py [--corpus PATH]``.
"""

from __future__ import annotations

import argparse
import collections
import json
import logging
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rlenv.envs.math.verifier import MathVerifier  # noqa: E402
from rlenv.types import Task  # noqa: E402

DEFAULT_CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "math_pairs.jsonl"


def load_pairs(path: Path) -> list[dict]:
    """The corpus rows; raises ValueError naming a row that lacks a field."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for n, row in enumerate(rows, 1):
        missing = {"category", "gold", "completion", "equal"} - set(row)
        if missing:
            raise ValueError(f"{path}:{n}: row lacks {sorted(missing)}")
    return rows


def rlenv_verdicts(rows: list[dict]) -> list[bool]:
    """Whether :class:`~rlenv.envs.math.verifier.MathVerifier` grades each completion ``correct``."""
    verifier = MathVerifier(timeout=30.0)
    try:
        tasks = [Task(str(n), "q", reference=row["gold"]) for n, row in enumerate(rows)]
        return [result.correct for result in verifier.score_batch(tasks, [row["completion"] for row in rows])]
    finally:
        verifier.pool.close()


def raw_verdicts(rows: list[dict]) -> list[bool]:
    """Whether raw math-verify accepts each completion against ``$gold$``."""
    from math_verify import parse, verify

    verdicts = []
    for row in rows:
        try:
            gold = parse(f"${row['gold']}$", parsing_timeout=None)
            verdicts.append(bool(verify(gold, parse(row["completion"], parsing_timeout=None), timeout_seconds=None)))
        except Exception:  # math-verify raising on an input is its verdict "not equal"
            verdicts.append(False)
    return verdicts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = parser.parse_args()
    logging.getLogger("math_verify").setLevel(logging.ERROR)

    rows = load_pairs(args.corpus)
    ours, raw = rlenv_verdicts(rows), raw_verdicts(rows)
    per: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0, 0])
    for row, mine, theirs in zip(rows, ours, raw, strict=True):
        counts = per[row["category"]]
        counts[0] += 1
        counts[1] += mine == row["equal"]
        counts[2] += theirs == row["equal"]
    print(f"# math verdict accuracy: {len(rows)} labeled pairs from {args.corpus.name}")
    print(f"| {'category':<22} | {'pairs':>5} | {'rlenv':>7} | {'raw math-verify':>15} |")
    print(f"|{'-' * 24}|{'-' * 7}|{'-' * 9}|{'-' * 17}|")
    for category, (count, mine, theirs) in sorted(per.items()):
        print(f"| {category:<22} | {count:>5} | {mine / count:7.1%} | {theirs / count:15.1%} |")
    right = sum(mine == row["equal"] for row, mine in zip(rows, ours))
    raw_right = sum(theirs == row["equal"] for row, theirs in zip(rows, raw))
    print(f"| {'all':<22} | {len(rows):>5} | {right / len(rows):7.1%} | {raw_right / len(rows):15.1%} |")
    misses = [row for row, mine in zip(rows, ours) if mine != row["equal"]]
    for row in misses:
        print(f"rlenv wrong ({row['category']}): gold {row['gold']!r}, completion {row['completion']!r}, "
              f"labeled {'equal' if row['equal'] else 'different'}")


if __name__ == "__main__":
    main()

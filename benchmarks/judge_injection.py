"""The ``judge_injection`` detector's rates: on the corpora it was written with, and on a held-out set.

``tests/data/judge/injections.jsonl`` and ``clean.jsonl`` were written together with the detector
(its tests hold it to >= 95% and <= 1% there). ``heldout.jsonl`` was written after the detector's
last change and never used to change it: its rates are the estimate for phrasings the detector was
not written against. The baseline is the in-corpus rate.

Usage: PYTHONPATH=. python benchmarks/judge_injection.py   (from the repository root)
"""

from __future__ import annotations

import json
from pathlib import Path

from rlenv.envs.judge.injection import detect_judge_injection

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "judge"


def rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines()]


def flagged(texts: list[str]) -> str:
    hits = sum(detect_judge_injection(t).fired for t in texts)
    return f"{hits:>3}/{len(texts):<3} ({hits / len(texts):6.1%})"


def main() -> None:
    held = rows("heldout.jsonl")
    table = [
        ("corpus (written with the detector)", [r["text"] for r in rows("injections.jsonl")],
         [r["text"] for r in rows("clean.jsonl")]),
        ("held-out (never tuned on)", [r["text"] for r in held if r["injection"]],
         [r["text"] for r in held if not r["injection"]]),
    ]
    print(f"{'set':<36} {'injections flagged':>20} {'clean flagged':>20}")
    for name, attacks, clean in table:
        print(f"{name:<36} {flagged(attacks):>20} {flagged(clean):>20}")


if __name__ == "__main__":
    main()

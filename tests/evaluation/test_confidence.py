"""Bootstrap intervals and paired comparisons over tasks."""

import numpy as np
import pytest

from rlenv.evaluation import bootstrap_ci, paired_comparison


def test_eval_bootstrap_ci_brackets_the_mean_and_is_seeded():
    values = np.random.default_rng(1).random(50)
    est = bootstrap_ci(values, n_resamples=1000, seed=3)
    assert est.value == pytest.approx(values.mean())
    assert est.low < est.value < est.high
    assert est.num_tasks == 50 and est.confidence == 0.95
    assert bootstrap_ci(values, n_resamples=1000, seed=3) == est
    assert bootstrap_ci(values, n_resamples=1000, seed=4) != est
    wider = bootstrap_ci(values, confidence=0.99, n_resamples=1000, seed=3)
    assert wider.low < est.low and wider.high > est.high


def test_eval_bootstrap_ci_width_matches_normal_theory():
    values = (np.random.default_rng(0).random(400) < 0.3).astype(float)
    est = bootstrap_ci(values, n_resamples=4000)
    half_width = 1.96 * values.std(ddof=1) / np.sqrt(values.size)
    assert (est.high - est.low) / 2 == pytest.approx(half_width, rel=0.1)


def test_eval_bootstrap_ci_coverage():
    rng = np.random.default_rng(7)
    hits = 0
    for trial in range(200):
        values = (rng.random(80) < 0.3).astype(float)
        est = bootstrap_ci(values, n_resamples=400, seed=trial)
        hits += est.low <= 0.3 <= est.high
    assert 0.88 <= hits / 200 <= 0.99


def test_eval_bootstrap_ci_degenerate_and_bad_inputs():
    est = bootstrap_ci([1.0, 1.0, 1.0], method="BCa")
    assert (est.value, est.low, est.high) == (1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="non-empty"):
        bootstrap_ci([])
    with pytest.raises(ValueError, match="finite"):
        bootstrap_ci([0.5, float("nan")])
    with pytest.raises(ValueError, match="method"):
        bootstrap_ci([0.0, 1.0], method="normal")
    with pytest.raises(ValueError, match="confidence"):
        bootstrap_ci([0.0, 1.0], confidence=95)


def test_eval_paired_comparison_exact_permutation_p_value():
    b = np.linspace(0.0, 0.5, 10)
    a = b + 0.2
    result = paired_comparison(a, b)
    assert result.difference.value == pytest.approx(0.2)
    assert result.mean_a - result.mean_b == pytest.approx(0.2)
    assert (result.wins, result.losses, result.ties) == (10, 0, 0)
    # 2**10 sign assignments, only all-plus and all-minus are as extreme: exact two-sided p = 2/1024
    assert result.p_value == pytest.approx(2 / 1024)


def test_eval_paired_comparison_no_difference():
    rng = np.random.default_rng(2)
    a = rng.random(60)
    b = a + rng.normal(0, 0.1, 60)
    result = paired_comparison(a, b, n_resamples=2000)
    assert result.difference.low < 0 < result.difference.high
    assert result.p_value > 0.05
    same = paired_comparison(a, a)
    assert same.p_value == 1.0 and same.ties == 60
    with pytest.raises(ValueError, match="one value per task"):
        paired_comparison(a, a[:-1])

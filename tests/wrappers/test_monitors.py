"""Batch monitors: length-reward correlation, hack rates, format-only share, proxy/gold divergence."""

import math

import numpy as np
import pytest

import rlenv
from rlenv.wrappers import AnswerHedging, RepetitionPenalty
from rlenv.wrappers.monitors import (
    batch_metrics,
    format_only_reward_share,
    gao_fit,
    hack_rates,
    infos_to_arrays,
    length_reward_metrics,
    pearson,
    proxy_gold_divergence,
    rankdata,
    spearman,
)


def test_correlations_against_numpy_and_hand_values():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=50), rng.normal(size=50)
    assert pearson(x, y) == pytest.approx(np.corrcoef(x, y)[0, 1])
    np.testing.assert_allclose(rankdata([10, 20, 20, 5]), [2.0, 3.5, 3.5, 1.0])
    assert spearman([1, 2, 3, 4], [1, 4, 9, 16]) == pytest.approx(1.0)
    assert spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert math.isnan(pearson([1, 1, 1], [1, 2, 3])) and math.isnan(pearson([1], [2]))


def _batch(seed, length_bias):
    """8 groups of 8: correctness independent of length; reward = correct + length_bias * length."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(20, 400, size=64).astype(float)
    correct = rng.random(64) < 0.5
    rewards = correct.astype(float) + length_bias * lengths
    return lengths, rewards, np.repeat(np.arange(8), 8), correct


def test_length_biased_reward_raises_the_alert():
    lengths, rewards, groups, correct = _batch(1, length_bias=0.002)
    m = length_reward_metrics(lengths, rewards, groups, correct)
    assert m["hacks/length_reward_given_correctness"] == pytest.approx(1.0)
    assert m["hacks/length_alert"] == 1.0
    assert m["hacks/reward_per_1k_length"] > 0 and 0 <= m["hacks/length_reward_r2"] <= 1


def test_verifier_reward_does_not_raise_the_alert():
    lengths, rewards, groups, correct = _batch(2, length_bias=0.0)
    m = length_reward_metrics(lengths, rewards, groups, correct)
    assert math.isnan(m["hacks/length_reward_given_correctness"])  # reward is constant within each stratum
    assert m["hacks/length_alert"] == 0.0
    assert abs(m["hacks/length_reward_pearson"]) < 0.3
    assert m["hacks/length_mean"] == pytest.approx(lengths.mean())


def test_within_group_correlation_without_correctness():
    lengths = [1, 2, 3, 10, 20, 30]
    rewards = [0.1, 0.2, 0.3, 0.3, 0.2, 0.1]  # rises with length in group 0, falls in group 1
    m = length_reward_metrics(lengths, rewards, group_ids=[0, 0, 0, 1, 1, 1])
    assert m["hacks/length_reward_within_group"] == pytest.approx(0.0)
    with pytest.raises(ValueError, match="expected 6"):
        length_reward_metrics(lengths, rewards[:5])


def test_hack_rates_and_format_only_share():
    hacks = [[], [{"detector": "answer_hedging"}], [{"detector": "answer_hedging"}, {"detector": "repetition"}], None]
    rates = hack_rates(hacks, detectors=["code_tampering"])
    assert rates == {"hacks/rate/answer_hedging": 0.5, "hacks/rate/code_tampering": 0.0,
                     "hacks/rate/repetition": 0.25, "hacks/rate/any": 0.5}
    assert format_only_reward_share([1.0, 0.2, 0.2, 0.0], [True, False, False, False]) == pytest.approx(0.4 / 1.4)
    assert math.isnan(format_only_reward_share([0.0, -1.0], [False, False]))


def test_proxy_gold_divergence_flags_rising_proxy_and_falling_gold():
    steps = np.arange(30)
    proxy = 0.2 + 0.02 * steps
    gold = 0.5 - 0.01 * np.clip(steps - 10, 0, None)
    m = proxy_gold_divergence(proxy, gold, window=10)
    assert m["hacks/proxy_gold_diverging"] == 1.0
    assert m["hacks/proxy_slope"] == pytest.approx(0.02) and m["hacks/gold_slope"] == pytest.approx(-0.01)
    assert m["hacks/proxy_gold_gap"] == pytest.approx(proxy[-1] - gold[-1])
    healthy = proxy_gold_divergence(proxy, 0.1 + 0.01 * steps, window=10)
    assert healthy["hacks/proxy_gold_diverging"] == 0.0
    early = proxy_gold_divergence([1.0, 1.1], [0.9, 0.8])  # two points are no trend yet
    assert early["hacks/proxy_gold_diverging"] == 0.0 and early["hacks/proxy_slope"] == pytest.approx(0.1)


@pytest.mark.parametrize("form, alpha, beta", [("bon", 1.2, 0.3), ("rl", 0.8, 0.25)])
def test_gao_fit_recovers_known_coefficients(form, alpha, beta):
    d = np.linspace(0.2, 6.0, 40)
    gold = d * (alpha - beta * d) if form == "bon" else d * (alpha - beta * np.log(d))
    fit = gao_fit(d**2, gold, form=form)
    assert fit["alpha"] == pytest.approx(alpha) and fit["beta"] == pytest.approx(beta) and fit["r2"] == pytest.approx(1.0)
    peak = alpha / (2 * beta) if form == "bon" else math.exp(alpha / beta - 1)
    assert fit["d_peak"] == pytest.approx(peak) and fit["kl_peak"] == pytest.approx(peak**2)
    with pytest.raises(ValueError, match="form"):
        gao_fit(d**2, gold, form="ppo")


def test_batch_metrics_from_a_wrapped_vector_env_step():
    vec = rlenv.make_vec("rlenv/ExactMatch-v0", num_tasks=2, group_size=3, executor="serial",
                         wrappers=[AnswerHedging, RepetitionPenalty])
    vec.reset(seed=0)
    completions = ["Paris", "Paris or Lyon", "Paris " * 30, "blue", "mice", "x"]
    _, rewards, _, truncated, infos = vec.step(completions)
    arrays = infos_to_arrays(infos)
    assert arrays["group_ids"].tolist() == [0, 0, 0, 1, 1, 1]
    m = batch_metrics([len(c) for c in completions], rewards, arrays["group_ids"], arrays["correct"],
                      arrays["hacks"], truncated, detectors=["answer_hedging", "repetition"])
    assert m["hacks/rate/answer_hedging"] == pytest.approx(1 / 6)
    assert m["hacks/rate/repetition"] == pytest.approx(1 / 6)
    assert m["hacks/rate/any"] == pytest.approx(2 / 6) and m["hacks/truncation_rate"] == 0.0
    assert "hacks/format_only_reward_share" in m and "hacks/length_reward_pearson" in m
    with pytest.raises(ValueError, match="one per episode"):
        batch_metrics([1, 2], [0.0, 1.0], hacks=[[]])

"""Length shaping: DAPO overlong punishment, cosine length reward, Kimi group reward, wrappers."""

import math

import numpy as np
import pytest
from trl.rewards import get_cosine_scaled_reward, get_soft_overlong_punishment

import rlenv
from rlenv.wrappers import (
    CosineLengthReward,
    OverlongPenalty,
    TruncationFlag,
    cosine_length_reward,
    kimi_length_reward,
    soft_overlong_penalty,
    token_length,
)


# -- DAPO soft overlong punishment --------------------------------------------------------------
@pytest.mark.parametrize(
    "length, expected",
    [(0, 0.0), (80, 0.0), (81, -0.05), (90, -0.5), (100, -1.0), (101, -1.0), (5000, -1.0)],
)
def test_dapo_reference_vector(length, expected):
    # TRL's docstring vector: L_max=100, L_cache=20, |y|=90 -> -0.5 (DAPO Eq. 13)
    assert soft_overlong_penalty(length, max_len=100, buffer=20) == pytest.approx(expected)


def test_dapo_matches_trl_on_every_length():
    trl_fn = get_soft_overlong_punishment(max_completion_len=64, soft_punish_cache=16)
    lengths = list(range(0, 80))
    ours = [soft_overlong_penalty(n, 64, 16) for n in lengths]
    assert ours == pytest.approx(trl_fn([[1] * n for n in lengths]))


def test_dapo_paper_config_and_errors():
    # DAPO: max_response_length 20480 = 16384 + 4096, overlong_buffer.len 4096
    assert soft_overlong_penalty(16384, 20480, 4096) == 0.0
    assert soft_overlong_penalty(16384 + 2048, 20480, 4096) == pytest.approx(-0.5)
    with pytest.raises(ValueError, match="buffer"):
        soft_overlong_penalty(10, max_len=100, buffer=200)
    with pytest.raises(ValueError, match="length"):
        soft_overlong_penalty(-1, max_len=100, buffer=20)


# -- cosine length reward -------------------------------------------------------------------------
def test_cosine_reference_vector_from_trl_docstring():
    # max_len=100, 50 tokens: correct -> 0.75, wrong -> -0.75
    assert cosine_length_reward(50, True, 100) == pytest.approx(0.75)
    assert cosine_length_reward(50, False, 100) == pytest.approx(-0.75)
    assert cosine_length_reward(0, True, 100) == pytest.approx(1.0)
    assert cosine_length_reward(100, True, 100) == pytest.approx(0.5)
    assert cosine_length_reward(0, False, 100) == pytest.approx(-1.0)
    assert cosine_length_reward(100, False, 100) == pytest.approx(-0.5)


def test_cosine_is_clipped_past_max_len():
    # Unclipped, progress 1.5 gives cos(1.5 pi) = 0 and the reward climbs back to 0.75 (open-r1 #312).
    unclipped = 0.5 + 0.5 * (1.0 - 0.5) * (1 + math.cos(math.pi * 1.5))
    assert unclipped == pytest.approx(0.75)
    assert cosine_length_reward(150, True, 100) == pytest.approx(0.5)
    assert cosine_length_reward(10**6, False, 100) == pytest.approx(-0.5)
    lengths = range(0, 300, 7)
    values = [cosine_length_reward(n, True, 100) for n in lengths]
    assert all(a >= b for a, b in zip(values, values[1:], strict=False)), "longer correct answers never earn more"


def test_cosine_matches_trl_with_its_math_verify_correctness():
    trl_fn = get_cosine_scaled_reward(max_len=100)
    completions = [[{"content": r"\boxed{\frac{1}{3}}"}], [{"content": r"\boxed{\frac{1}{2}}"}]] * 3
    ids = [[1] * n for n in (10, 10, 60, 60, 140, 140)]
    expected = trl_fn(completions, [r"\frac{1}{3}"] * 6, ids)
    ours = [cosine_length_reward(len(i), correct, 100) for i, correct in zip(ids, [True, False] * 3, strict=True)]
    assert ours == pytest.approx(expected)


# -- Kimi group length reward ---------------------------------------------------------------------
def test_kimi_length_reward_hand_values():
    # lengths 10, 20, 30: lambda = 0.5, 0.0, -0.5; the wrong one at 10 gets min(0, 0.5) = 0
    out = kimi_length_reward([10, 20, 30], [False, True, True])
    np.testing.assert_allclose(out, [0.0, 0.0, -0.5])
    np.testing.assert_allclose(kimi_length_reward([5, 5, 5], [True, False, True]), [0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="1-D"):
        kimi_length_reward([1, 2], [True])


# -- wrappers -------------------------------------------------------------------------------------
def _env(**kwargs):
    return rlenv.make("rlenv/ExactMatch-v0", **kwargs)


def test_overlong_penalty_on_step_keeps_the_raw_score():
    env = OverlongPenalty(_env(), max_len=20, buffer=10)
    env.reset(options={"index": 0})
    _, reward, terminated, truncated, info = env.step("Paris" + " " * 10)  # 15 chars, reward 1
    assert info["raw_reward"] == 1.0 and info["reward"].value == 1.0
    assert reward == pytest.approx(1.0 - 0.5)
    assert info["hacks"] == [{"detector": "overlong", "kind": "soft_overlong", "score": 0.5,
                              "evidence": "length 15 > 10 (max_len 20 - buffer 10)", "penalty": -0.5}]
    env.reset(options={"index": 0})
    _, reward, *_, info = env.step("Paris")
    assert reward == 1.0 and info["hacks"] == []


def test_overlong_penalty_in_vector_env_counts_tokens():
    class Words:
        def encode(self, text, add_special_tokens=False):
            return text.split()

    vec = rlenv.make_vec("rlenv/ExactMatch-v0", num_tasks=2, group_size=2, executor="serial",
                         wrappers=[lambda e: OverlongPenalty(e, max_len=4, buffer=2, length_fn=token_length(Words()))])
    vec.reset(seed=0)
    _, rewards, _, _, infos = vec.step(["a", "a b c", "a b c d", "a b c d e f"])
    np.testing.assert_allclose(rewards, [0.0, -0.5, -1.0, -1.0])
    assert [len(h) for h in infos["hacks"]] == [0, 1, 1, 1]
    assert infos["hacks"][3][0]["kind"] == "overlong"
    assert list(infos["raw_reward"]) == [0.0, 0.0, 0.0, 0.0]


def test_truncation_flag_reads_the_truncated_bit():
    env = TruncationFlag(_env(max_completion_chars=5), penalty=-0.25)
    env.reset(options={"index": 0})
    _, reward, _, truncated, info = env.step("Paris, the capital")
    assert truncated and reward == pytest.approx(1.0 - 0.25)
    assert info["hacks"][0]["detector"] == "truncation"
    env.reset(options={"index": 0})
    _, reward, _, truncated, info = env.step(rlenv.Completion("Paris", truncated=False))
    assert not truncated and info["hacks"] == [] and reward == 1.0


def test_cosine_length_reward_wrapper():
    env = CosineLengthReward(_env(), max_len=10)
    env.reset(options={"index": 0})
    _, reward, *_, info = env.step("Paris")
    assert reward == pytest.approx(cosine_length_reward(5, True, 10)) and info["raw_reward"] == 1.0
    assert info["length"] == 5
    with pytest.raises(TypeError, match="unknown CosineLengthReward argument"):
        CosineLengthReward(_env(), max_len=10, max_value=3.0)

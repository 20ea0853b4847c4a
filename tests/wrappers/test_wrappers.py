"""Composition of detector wrappers: raw score kept, hacks appended in order, step == vector path."""

import gymnasium
import numpy as np
import pytest

import rlenv
from rlenv.wrappers import (
    AnswerHedging,
    Detection,
    DetectorWrapper,
    FormatGaming,
    OverlongPenalty,
    RepetitionPenalty,
)


class ContainsVerifier:
    """A lenient grader of the kind hacks exploit: correct when the reference occurs in the completion."""

    name, version = "contains", "1"

    def __call__(self, task, completion):
        ok = task.reference.lower() in completion.lower()
        return rlenv.RewardResult(float(ok), "correct" if ok else "incorrect", verifier=self.name, verifier_version="1")


def _lenient_env():
    rows = [{"id": "fr", "prompt": "Capital of France?", "reference": "Paris"},
            {"id": "sky", "prompt": "Color of a clear sky?", "reference": "blue"}]
    return rlenv.TextEnv(rlenv.sources.DatasetSource(rows), ContainsVerifier())


def _chain(env):
    return AnswerHedging(OverlongPenalty(RepetitionPenalty(env, penalty=-1.0), max_len=40, buffer=20), penalty=-1.0)


def test_issue_example_composes_like_gymnasium_wrappers():
    env = rlenv.wrappers.AnswerHedging(rlenv.wrappers.OverlongPenalty(rlenv.make("rlenv/ExactMatch-v0"),
                                                                       max_len=1024, buffer=256), penalty=-1.0)
    env.reset(options={"index": 0})
    _, reward, terminated, truncated, info = env.step("Paris or Lyon")
    assert info["hacks"] == [{"detector": "answer_hedging", "kind": "candidate_list", "score": 1.0,
                              "evidence": "2 distinct final answers ('Paris', 'Lyon'); the reference has 1",
                              "penalty": -1.0}]
    assert info["raw_reward"] == 0.0 and reward == -1.0 and terminated and not truncated
    assert isinstance(env.unwrapped, rlenv.TextEnv) and isinstance(env, gymnasium.Wrapper)


def test_raw_reward_and_verifier_result_are_never_overwritten():
    env = _chain(_lenient_env())
    env.reset(options={"index": 0})
    text = "Paris " * 20  # paid by the lenient grader, repetitive, 120 chars (over budget)
    _, reward, *_, info = env.step(text)
    assert info["reward"].value == 1.0 and info["reward"].status is rlenv.Status.CORRECT
    assert info["raw_reward"] == 1.0
    assert [h["detector"] for h in info["hacks"]] == ["repetition", "overlong"]  # innermost first
    assert reward == pytest.approx(1.0 + sum(h["penalty"] for h in info["hacks"]))


def test_vector_env_applies_the_same_transform_as_step():
    completions = ["Paris", "Paris or Lyon", "blue " * 20, "red"]
    vec = rlenv.TextVectorEnv(_chain(_lenient_env()), num_tasks=2, group_size=2, executor="serial")
    vec.reset(options={"indices": [0, 1]})
    _, rewards, _, _, infos = vec.step(completions)
    single = _chain(_lenient_env())
    for i, (index, text) in enumerate(zip([0, 0, 1, 1], completions, strict=True)):
        single.reset(options={"index": index})
        _, reward, *_, info = single.step(text)
        assert rewards[i] == pytest.approx(reward)
        assert infos["hacks"][i] == info["hacks"] and infos["raw_reward"][i] == info["raw_reward"]
    assert np.array(infos["raw_reward"]).tolist() == [1.0, 1.0, 1.0, 0.0]
    assert [len(h) for h in infos["hacks"]] == [0, 1, 2, 0]  # hedging; repetition + overlong


def test_custom_detector_subclass_and_validation():
    class Shouting(DetectorWrapper):
        name = "shouting"

        def detect(self, task, completion, result, truncated):
            upper = sum(c.isupper() for c in completion) / max(1, sum(c.isalpha() for c in completion))
            return Detection(self.name, upper > 0.8, upper, "caps" if upper > 0.8 else "", f"{upper:.0%} upper case")

    env = Shouting(FormatGaming(rlenv.make("rlenv/ExactMatch-v0")), penalty=-0.5)
    env.reset(options={"index": 0})
    _, reward, *_, info = env.step("PARIS")
    assert reward == pytest.approx(0.5) and info["hacks"][0]["detector"] == "shouting"
    with pytest.raises(ValueError, match="penalty"):
        AnswerHedging(rlenv.make("rlenv/ExactMatch-v0"), penalty=float("nan"))
    with pytest.raises(ValueError, match="score"):
        Detection("x", True, 1.5)


def test_wrapped_env_still_passes_check_env():
    rlenv.check_env(_chain(rlenv.make("rlenv/ExactMatch-v0")))

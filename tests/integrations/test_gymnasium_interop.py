"""rlenv on environments built and wrapped by Gymnasium itself (gymnasium.make, standard wrappers,
Gymnasium's vector wrappers): every rlenv path must see through them."""

import gymnasium
import numpy as np
import pytest
from gymnasium.wrappers import OrderEnforcing, RecordEpisodeStatistics, TimeLimit
from gymnasium.wrappers.vector import DictInfoToList
from gymnasium.wrappers.vector import RecordEpisodeStatistics as VectorRecordEpisodeStatistics

import rlenv
from rlenv import TextVectorEnv
from rlenv.evaluation.runner import EvalOptions, evaluate_samples
from rlenv.integrations.trl import reward_funcs, to_dataset
from rlenv.wrappers import OverlongPenalty, audit

ENV_ID = "rlenv/Arithmetic-v0"
PAD = " " * 40  # makes a correct completion overlong for OverlongPenalty(max_len=20, buffer=10)


def overlong(env):
    return OverlongPenalty(env, max_len=20, buffer=10)


def gymnasium_stacks():
    """Gymnasium wrappers under, over and on both sides of an rlenv reward wrapper."""
    return {
        "gymnasium.make": lambda: overlong(gymnasium.make(ENV_ID)),
        "under": lambda: overlong(TimeLimit(RecordEpisodeStatistics(gymnasium.make(ENV_ID)), max_episode_steps=1)),
        "over": lambda: RecordEpisodeStatistics(OrderEnforcing(overlong(rlenv.make(ENV_ID)))),
        "both": lambda: TimeLimit(overlong(RecordEpisodeStatistics(gymnasium.make(ENV_ID))), max_episode_steps=1),
    }


def gold(env, index):
    return env.unwrapped.gold_completion(env.unwrapped.source[index])


@pytest.mark.parametrize("stack", sorted(gymnasium_stacks()))
def test_step_and_vector_env_apply_the_reward_wrapper_through_gymnasium_wrappers(stack):
    env = gymnasium_stacks()[stack]()
    _, info = env.reset(seed=0, options={"index": 3})
    _, reward, terminated, _, info = env.step(gold(env, 3) + PAD)
    assert terminated and info["status"] == "correct" and reward < 1.0  # the penalty applied to a correct answer
    vec = TextVectorEnv(env, num_tasks=2, group_size=2)
    vec.reset(options={"indices": [3, 4]})
    _, rewards, _, _, infos = vec.step([gold(env, 3), gold(env, 3) + PAD, "#### -1", gold(env, 4)])
    assert rewards[0] == 1.0 and rewards[1] == pytest.approx(reward) and rewards[2] == 0.0 and rewards[3] == 1.0
    assert [h != [] for h in infos["hacks"]] == [False, True, False, False]


def test_make_vec_accepts_gymnasium_wrappers():
    vec = rlenv.make_vec(ENV_ID, num_tasks=2, group_size=2,
                         wrappers=[OrderEnforcing, lambda e: TimeLimit(e, max_episode_steps=1), overlong])
    vec.reset(options={"indices": [0, 1]})
    env = vec.env
    _, rewards, *_ = vec.step([gold(env, 0) + PAD, gold(env, 0), gold(env, 1), "no"])
    assert list(rewards) == [pytest.approx(rewards[0]), 1.0, 1.0, 0.0] and rewards[0] < 1.0


def test_trl_reward_funcs_on_a_gymnasium_wrapped_env():
    env = gymnasium_stacks()["both"]()
    dataset = to_dataset(env, num_tasks=3)
    (reward,) = reward_funcs(env)
    completions = [gold(env, 0), gold(env, 1) + PAD, "#### -1"]
    scores = reward(prompts=dataset["prompt"], completions=completions, task_id=dataset["task_id"])
    assert scores[0] == 1.0 and scores[1] < 1.0 and scores[2] == 0.0


def test_audit_and_evaluate_on_a_gymnasium_wrapped_env(tmp_path):
    env = gymnasium_stacks()["over"]()
    samples = [{"index": 0, "completion": gold(env, 0)}, {"index": 0, "completion": gold(env, 0) + PAD},
               {"index": 1, "completion": "#### -1"}]
    report = audit(env, samples, detectors=[overlong])
    assert [row["status"] for row in report.rows] == ["correct", "correct", "incorrect"]
    assert [bool(row["hacks"]) for row in report.rows] == [False, True, False]
    summary = evaluate_samples(env, samples, tmp_path / "eval", EvalOptions(progress=False))
    assert summary["num_tasks"] == 2
    rows = [line for line in (tmp_path / "eval" / "results.jsonl").read_text().splitlines() if line]
    assert len(rows) == 3


def test_check_env_on_gymnasium_make():
    assert rlenv.check_env(gymnasium.make(ENV_ID)) == {"gymnasium": True, "seeded_reset": True,
                                                       "picklable_verifier": True, "gold": True}


def test_make_sets_a_spec_that_gymnasium_can_rebuild():
    env = rlenv.make(ENV_ID, level=3, max_completion_chars=50)
    assert env.spec.id == ENV_ID and env.spec.kwargs["level"] == 3
    again = gymnasium.make(env.spec)
    assert again.spec.kwargs == env.spec.kwargs
    assert again.unwrapped.max_completion_chars == 50
    assert again.reset(seed=5)[0] == env.reset(seed=5)[0]


def test_vector_infos_work_with_gymnasiums_vector_wrappers():
    vec = DictInfoToList(VectorRecordEpisodeStatistics(rlenv.make_vec(ENV_ID, num_tasks=2, group_size=2)))
    _, reset_infos = vec.reset(seed=0)
    assert len(reset_infos) == 4 and reset_infos[0]["group_id"] == 0 and reset_infos[3]["group_id"] == 1
    base = vec.unwrapped
    completions = [base.base.gold_completion(task) for task in base.tasks[:2]] + ["#### -1", "#### -1"]
    _, rewards, terminated, _, infos = vec.step(completions)
    assert list(rewards) == [1.0, 1.0, 0.0, 0.0] and terminated.all()
    assert [info["status"] for info in infos] == ["correct", "correct", "incorrect", "incorrect"]
    assert [info["episode"]["r"] for info in infos] == [1.0, 1.0, 0.0, 0.0]
    assert all(info["episode"]["l"] == 1 for info in infos)
    assert isinstance(infos[0]["components"], dict) and infos[0]["reward"].status.value == "correct"
    _, again = vec.reset(options={"reset_mask": np.ones(4, dtype=bool)})  # Gymnasium's full reset
    assert len(again) == 4


def test_vector_infos_carry_gymnasium_masks():
    vec = rlenv.make_vec(ENV_ID, num_tasks=2, group_size=1, wrappers=[overlong])
    vec.reset(options={"indices": [0, 1]})
    _, _, _, _, infos = vec.step([gold(vec.env, 0), "no"])
    for key in ("status", "reward", "task_id", "group_id", "hacks"):
        assert isinstance(infos[key], np.ndarray) and infos[f"_{key}"].dtype == bool and infos[f"_{key}"].all()
    assert infos["index"].dtype == np.int64 and infos["raw_reward"].dtype == np.float64


def test_vector_reset_refuses_per_env_seeds_and_partial_masks_with_the_alternative():
    vec = rlenv.make_vec(ENV_ID, num_tasks=2, group_size=2)
    with pytest.raises(TypeError, match="options=\\{'indices'"):
        vec.reset(seed=[1, 2, 3, 4])
    with pytest.raises(ValueError, match="must be all True"):
        vec.reset(options={"reset_mask": np.array([True, True, False, False])})
    with pytest.raises(ValueError, match="shape \\(4,\\)"):
        vec.reset(options={"reset_mask": np.ones(3, dtype=bool)})
    _, infos = vec.reset(seed=1, options={"reset_mask": np.ones(4, dtype=bool), "indices": [7, 8]})
    assert list(infos["index"]) == [7, 7, 8, 8]


def test_reward_wrapper_chains_are_rebuilt_from_their_spec():
    from rlenv.wrappers import RepetitionPenalty

    env = RepetitionPenalty(overlong(rlenv.make(ENV_ID, level=2)), penalty=-0.5, n=4)
    assert [(w.name, w.kwargs["penalty"]) for w in env.spec.additional_wrappers] == \
        [("OverlongPenalty", -1.0), ("RepetitionPenalty", -0.5)]
    again = gymnasium.make(env.spec)
    assert isinstance(again, RepetitionPenalty) and again.n == 4 and again.env.max_len == 20
    for built in (env, again):
        built.reset(options={"index": 0})
    assert again.step(gold(again, 0) + PAD)[1] == env.step(gold(env, 0) + PAD)[1] < 1.0

"""Every algorithm starts through one function, rlenv.trainers.train (the CLI and the example use it)."""

import pytest
import torch

import rlenv
from rlenv.envs.prm.synthetic import arithmetic_stepwise_rows
from rlenv.envs.safety.synthetic import safety_preference_pairs
from rlenv.trainers import ALGORITHMS, algorithm_names, train
from rlenv.trainers.launch import family_of
from rlenv.trainers.tiny import tiny_sequence_classifier, tiny_token_classifier, tiny_word_tokenizer
from tests.trainers.trainer_helpers import tiny_policy

pytestmark = pytest.mark.usefixtures("one_torch_thread")

PREFERENCE_ROWS = [{"prompt": f"{a}+{b}=", "chosen": str(a + b), "rejected": str(a + b + 1)}
                   for a in range(3) for b in range(3)]
SAMPLING = {"max_new_tokens": 4, "temperature": 1.0}


def changed(model, before):
    return any(not torch.equal(before[k], v) for k, v in model.state_dict().items())


def test_every_preset_and_family_has_a_name():
    names = algorithm_names()
    assert set(ALGORITHMS) | {"ppo_klpen", "trpo", "raft", "rest", "star", "online_dpo", "dpo", "ipo", "kto", "simpo",
                              "orpo", "reward_model", "prm"} == set(names)
    assert {family_of(n) for n in names} == {"policy_gradient", "self_training", "online_preference", "preference",
                                             "reward_model"}
    with pytest.raises(ValueError, match="unknown algorithm 'chess'"):
        family_of("chess")


@pytest.mark.parametrize("algorithm", ["grpo", "ppo", "ppo_klpen", "trpo", "raft", "star", "online_dpo"])
def test_env_algorithms_train_through_one_function(algorithm):
    model, tok = tiny_policy(hidden_size=32)
    env = rlenv.make("rlenv/Arithmetic-v0", level=1)
    calls = []
    if family_of(algorithm) == "policy_gradient":
        config = {"steps": 2, "num_tasks": 2, "group_size": 2, "max_new_tokens": 4, "lr": 1e-3, "progress": False}
    else:
        env = rlenv.TextVectorEnv(env, num_tasks=2, group_size=2, executor="serial")
        config = {"rounds": 2, "sampling": SAMPLING}
        config.update({"preference": {"lr": 1e-3}} if algorithm == "online_dpo" else {"lr": 1e-3, "min_reward": None})
    history = train(algorithm, model, tok, env=env, config=config,
                    callback=lambda step, metrics: calls.append(step))
    assert len(history) == 2 and calls == [1, 2]
    key = {"policy_gradient": "reward/mean", "self_training": "kept_fraction", "online_preference": "reward/mean"}
    assert all(key[family_of(algorithm)] in metrics for metrics in history), history[0].keys()


@pytest.mark.parametrize("algorithm", ["dpo", "simpo"])
def test_offline_preference_trains_on_rows(algorithm):
    model, tok = tiny_policy(hidden_size=32)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    history = train(algorithm, model, tok, data=PREFERENCE_ROWS, config={"lr": 1e-3, "batch_size": 3}, epochs=2,
                    progress=False)
    assert len(history) == 6 and all("loss" in h for h in history) and changed(model, before)


def test_reward_models_train_on_rows():
    pairs = safety_preference_pairs("train")[:16]
    tok = tiny_word_tokenizer([p["prompt"] + " " + p["chosen"] + " " + p["rejected"] for p in pairs])
    model = tiny_sequence_classifier(tok, hidden_size=16, seed=0)
    history = train("reward_model", model, tok, data=pairs, config={"lr": 1e-3, "batch_size": 8, "progress": False})
    assert len(history) == 2 and all(h["loss"] > 0 for h in history)
    rows = arithmetic_stepwise_rows(16, seed=0)
    tok = tiny_word_tokenizer([r["prompt"] + " " + " ".join(r["completions"]) for r in rows])
    model = tiny_token_classifier(tok, hidden_size=16, seed=0)
    history = train("prm", model, tok, data=rows, config={"lr": 1e-3, "batch_size": 8, "progress": False})
    assert len(history) == 2


def test_the_wrong_kind_of_input_is_named():
    model, tok = tiny_policy(hidden_size=32)
    with pytest.raises(ValueError, match="trains on rows: pass data="):
        train("dpo", model, tok, env=rlenv.make("rlenv/Arithmetic-v0"))
    with pytest.raises(ValueError, match="trains on an environment: pass env="):
        train("grpo", model, tok, data=PREFERENCE_ROWS)

"""Self-training: sample selection, pass rates, presets, STaR rationalization and one round of each preset."""

import pytest
import torch

from rlenv import TextVectorEnv
from rlenv.inference.policy import SamplingConfig
from rlenv.trainers.finetune import sft
from rlenv.trainers.rollout import run_episodes
from rlenv.trainers.self_training import (
    PRESETS,
    SelfTrainer,
    SelfTrainingConfig,
    group_pass_rates,
    select_samples,
    self_training_config,
)
from tests.trainers.trainer_helpers import addition_env, tiny_policy

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_selftrain_select_samples_by_hand():
    rewards = torch.tensor([0.2, 0.9, 0.9, 0.5, 0.0, 0.0, 1.0, 0.7])
    groups = torch.tensor([0, 0, 0, 0, 1, 1, 2, 2])
    # top-1 per group; ties go to the earlier sample; group 1 keeps its best even at reward 0
    assert select_samples(rewards, groups, top_k=1).tolist() == [0, 1, 0, 0, 1, 0, 1, 0]
    # a reward floor removes group 1 entirely
    assert select_samples(rewards, groups, top_k=2, min_reward=0.5).tolist() == [0, 1, 1, 0, 0, 0, 1, 1]
    # duplicates of a completion within a group count once; ineligible samples are never kept
    completions = ["a", "b", "b", "c", "x", "y", "z", "w"]
    eligible = torch.tensor([True, True, True, True, True, True, False, True])
    kept = select_samples(rewards, groups, top_k=2, completions=completions, eligible=eligible)
    assert kept.tolist() == [0, 1, 0, 1, 1, 1, 0, 1]
    assert select_samples(rewards, groups, top_k=None, min_reward=0.6).tolist() == [0, 1, 1, 0, 0, 0, 1, 1]


def test_selftrain_group_pass_rates_by_hand():
    correct = torch.tensor([0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1], dtype=torch.bool)
    groups = torch.arange(3).repeat_interleave(4)
    rates = group_pass_rates(correct, groups)
    assert rates["pass@1"] == pytest.approx((0 + 0.25 + 1) / 3)
    assert rates["pass@4"] == pytest.approx((0 + 1 + 1) / 3)


def test_selftrain_presets_and_validation():
    assert set(PRESETS) == {"raft", "rest", "star"}
    assert self_training_config("raft").top_k == 1
    rest = self_training_config("rest", rounds=2)
    assert rest.thresholds == (0.5, 0.75, 1.0) and rest.rounds == 2 and rest.top_k is None
    star = self_training_config("star")
    assert star.require_correct and star.rationalize and star.restart_from_initial
    with pytest.raises(ValueError, match="unknown self-training preset"):
        self_training_config("expert-iteration")
    with pytest.raises(ValueError, match="must rise"):
        SelfTrainingConfig(thresholds=(1.0, 0.5))
    with pytest.raises(ValueError, match="hint_template"):
        SelfTrainingConfig(rationalize=True, hint_template="{prompt}")


def test_selftrain_star_rationalization_pairs_hinted_chains_with_original_prompts():
    """A policy that can only copy the hinted answer fails unhinted prompts but rationalizes them."""
    model, tok = tiny_policy(hidden_size=32)
    sft(model, tok, [(f"{a}+{b}=[{a + b}]", str(a + b)) for a in range(10) for b in range(10)], steps=200,
        batch_size=16, lr=3e-3, progress=False)
    env = TextVectorEnv(addition_env(), num_tasks=8, group_size=2)
    trainer = SelfTrainer(model, tok, env, self_training_config(
        "star", sampling=SamplingConfig(max_new_tokens=3, temperature=0.3)))
    batch = run_episodes(env, trainer.generator, tok, seed=0)
    correct = torch.tensor([s == "correct" for s in batch.infos["status"]])
    examples = trainer.rationalize(batch, correct)
    unsolved = {batch.infos["prompt"][i] for i in range(len(batch))
                if not correct[batch.group_ids == batch.group_ids[i]].any()}
    assert len(examples) >= len(unsolved) // 2 > 0
    for prompt, chain in examples:
        assert prompt in unsolved and "[" not in prompt                  # the original prompt, no hint
        a, b = prompt.rstrip("=").split("+")
        assert chain.strip() == str(int(a) + int(b))                      # the chain reaches the answer


@pytest.mark.parametrize("preset", ["raft", "rest", "star"])
def test_selftrain_one_round_of_each_preset(preset):
    model, tok = tiny_policy(hidden_size=32)
    env = TextVectorEnv(addition_env(), num_tasks=6, group_size=4)
    config = self_training_config(preset, rounds=2, sampling=SamplingConfig(max_new_tokens=3, temperature=1.0),
                                  lr=1e-3)
    calls = []
    rounds = SelfTrainer(model, tok, env, config, evaluate=lambda m: calls.append(1) or {"heldout": 0.0}).train(
        progress=False)
    assert len(rounds) == 2 and len(calls) == 2
    for r in rounds:
        assert r["samples"] == 24 and r["pass@4"] >= r["pass@1"]
        steps = len(config.thresholds or (None,))
        assert [f"kept/{i}" in r for i in range(steps)] == [True] * steps
        assert r["kept_fraction"] == pytest.approx(r[f"kept/{steps - 1}"] / 24)
        if preset == "rest":
            assert r["kept/0"] >= r["kept/1"] >= r["kept/2"]            # rising thresholds keep fewer


def test_selftrain_restart_from_initial_restores_weights():
    model, tok = tiny_policy(hidden_size=32)
    initial = {k: v.clone() for k, v in model.state_dict().items()}
    env = TextVectorEnv(addition_env(), num_tasks=2, group_size=2)
    trainer = SelfTrainer(model, tok, env, self_training_config(
        "star", rounds=1, rationalize=False, sampling=SamplingConfig(max_new_tokens=2)))
    with torch.no_grad():
        for p in model.parameters():
            p.add_(1.0)                                   # drift away from the initial weights
    metrics = trainer.train_round(0)
    assert metrics["kept/0"] == 0                         # a random policy solves nothing: no SFT ran
    assert all(torch.equal(initial[k], v) for k, v in model.state_dict().items())


def test_selftrain_a_round_on_multi_turn_episodes_fine_tunes_on_the_kept_episodes_tokens():
    from rlenv.inference import Sampling
    from rlenv.trainers.tiny import tiny_causal_lm, tiny_tool_tokenizer
    from tests.trainers.multiturn_helpers import answering_vector_env

    tok = tiny_tool_tokenizer("qwen2", alphabet="ab")  # a dozen tokens: random turns often end with the EOS
    model = tiny_causal_lm(tok, hidden_size=32, num_layers=1, num_heads=2, seed=0)
    before = [p.detach().clone() for p in model.parameters()]
    env = answering_vector_env(num_tasks=3, group_size=4, max_turns=3, final_after=1)
    config = self_training_config("raft", rounds=1, sampling=Sampling(max_new_tokens=12, temperature=1.0), lr=1e-3,
                                  min_reward=1.0)
    metrics = SelfTrainer(model, tok, env, config).train_round(0)
    assert metrics["samples"] == 12 and 0 < metrics["kept/0"] <= 3 and metrics["sft_loss"] > 0
    assert any(not torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))

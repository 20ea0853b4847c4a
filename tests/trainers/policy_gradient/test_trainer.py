import json
import math

import pytest
import torch

from rlenv.trainers import (
    ALGORITHMS,
    EpisodeBatch,
    Trainer,
    TrainerConfig,
    batch_logprobs,
    gold_examples,
    sft,
)
from rlenv.trainers.rollout import zero_variance_groups
from tests.trainers.trainer_helpers import MAX_NEW_TOKENS, make_task_env, tiny_policy, training_split

BASE = dict(num_tasks=4, group_size=4, lr=1e-3, max_new_tokens=MAX_NEW_TOKENS, micro_batch_size=6, progress=False)


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def warm():
    """A tiny policy after a short SFT warm-up (rewards vary, so every loss term is exercised)."""
    model, tok = tiny_policy()
    sft(model, tok, gold_examples(make_task_env(), range(1600)), steps=100, batch_size=16, lr=3e-3, progress=False)
    return {k: v.clone() for k, v in model.state_dict().items()}, tok


def fresh(warm):
    state, tok = warm
    model, _ = tiny_policy()
    model.load_state_dict(state)
    return model, tok


def params(model):
    return {k: v.detach().clone() for k, v in model.named_parameters()}


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_every_preset_trains_and_logs(warm, name, tmp_path):
    model, tok = fresh(warm)
    before = params(model)
    trainer = Trainer(model, training_split(make_task_env()), name,
                      config=dict(BASE, steps=2, output_dir=str(tmp_path), report_to="tensorboard"), tokenizer=tok)
    history = trainer.train()
    assert len(history) == 2
    changed = any(not torch.equal(before[k], v) for k, v in params(model).items())
    assert changed, f"{name} did not change the policy"
    lines = [json.loads(x) for x in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert [row["step"] for row in lines] == [1.0, 2.0]
    last = lines[-1]
    assert all(math.isfinite(v) for v in last.values())
    assert sum(v for k, v in last.items() if k.startswith("status/")) == last["episodes"]
    for key in ("reward/mean", "entropy", "clip_frac", "length/mean", "grad_norm", "loss/policy", "adv/mean"):
        assert key in last, key
    assert ("kl/ref" in last) == (ALGORITHMS[name].kl_coef > 0)
    assert ("loss/value" in last) == ALGORITHMS[name].critic
    assert any((tmp_path / "tensorboard").iterdir())


def test_dynamic_sampling_keeps_only_informative_groups(warm):
    model, tok = fresh(warm)
    trainer = Trainer(model, training_split(make_task_env()), "dapo", config=dict(BASE, steps=1), tokenizer=tok)
    batch, stats = trainer.rollout()
    assert stats["groups_kept"] >= 1
    assert not zero_variance_groups(batch.rewards, batch.group_ids).any()
    assert len(batch) == stats["groups_kept"] * 4


def sgd_update(warm, algorithm, batch, **config):
    model, tok = fresh(warm)
    trainer = Trainer(model, None, algorithm, config=dict(BASE, optimizer="sgd", lr=0.5, max_grad_norm=None,
                                                          **config), tokenizer=tok)
    metrics = trainer.update(batch)
    return params(model), metrics, trainer


@pytest.fixture(scope="module")
def episodes(warm):
    model, tok = fresh(warm)
    trainer = Trainer(model, training_split(make_task_env()), "grpo", config=dict(BASE, num_tasks=6), tokenizer=tok)
    batch, _ = trainer.rollout()
    assert 0 < batch.rewards.mean() < 1
    return batch


@pytest.mark.parametrize("name", ["reinforce_pp", "grpo", "dr_grpo", "ppo"])
def test_micro_batching_and_gradient_checkpointing_give_the_same_update(warm, episodes, name):
    whole, _, _ = sgd_update(warm, name, episodes, micro_batch_size=64)
    micro, _, _ = sgd_update(warm, name, episodes, micro_batch_size=5)
    checkpointed, _, _ = sgd_update(warm, name, episodes, micro_batch_size=5, gradient_checkpointing=True)
    for key in whole:
        torch.testing.assert_close(micro[key], whole[key], atol=1e-6, rtol=1e-5)
        torch.testing.assert_close(checkpointed[key], micro[key], atol=1e-6, rtol=1e-5)


def test_update_on_a_user_batch_without_env_counts_hacks(warm):
    _, tok = warm
    eos = tok.eos_token_id
    batch = EpisodeBatch.from_token_lists(
        [tok.encode("1+2=")] * 2 + [tok.encode("4+4=")] * 2, [tok.encode("3") + [eos], tok.encode("4") + [eos],
                                                              tok.encode("8") + [eos], tok.encode("88") + [eos]],
        [1.0, 0.0, 1.0, 0.0], [0, 0, 1, 1], pad_token_id=tok.pad_token_id, eos_token_id=eos,
        infos={"status": ["correct", "incorrect", "correct", "incorrect"],
               "hacks": [[], [{"detector": "length"}], [], [{"detector": "length"}, {"detector": "hedging"}]]})
    _, metrics, trainer = sgd_update(warm, "grpo", batch)
    assert metrics["hacks/length"] == 2 and metrics["hacks/hedging"] == 1
    assert metrics["status/correct"] == 2 and metrics["reward/mean"] == 0.5
    with pytest.raises(ValueError, match="no environment"):
        trainer.train()


def test_shared_critic_backbone_trains(warm, episodes):
    after, metrics, trainer = sgd_update(warm, "ppo", episodes, critic_backbone="shared")
    assert trainer.critic is None and trainer.value_head is not None
    assert math.isfinite(metrics["loss/value"]) and metrics["values/mean"] != 0


@pytest.mark.parametrize("name", ["grpo", "ppo"])
def test_resume_from_checkpoint_reproduces_the_uninterrupted_run(warm, name, tmp_path):
    config = dict(BASE, steps=4, lr_schedule="cosine", warmup_steps=1)
    model, tok = fresh(warm)
    straight = Trainer(model, training_split(make_task_env()), name, config=config, tokenizer=tok)
    straight.train()

    model, tok = fresh(warm)
    first = Trainer(model, training_split(make_task_env()), name, config=config, tokenizer=tok)
    first.train(steps=2)
    first.save_checkpoint(tmp_path / "ckpt")
    model, tok = fresh(warm)  # a new process would start from the same initial weights
    resumed = Trainer(model, training_split(make_task_env()), name, config=config, tokenizer=tok)
    resumed.train(resume_from=tmp_path / "ckpt")

    assert resumed.step == 4
    for key, value in params(straight.policy).items():
        assert torch.equal(params(resumed.policy)[key], value), key
    strip = [{k: v for k, v in m.items() if not k.startswith("time/")} for m in straight.history]
    assert [{k: v for k, v in m.items() if not k.startswith("time/")} for m in resumed.history] == strip
    with pytest.raises(ValueError, match="different configuration"):
        Trainer(fresh(warm)[0], None, "rloo", config=config, tokenizer=tok).load_checkpoint(tmp_path / "ckpt")


def test_trainer_logs_samples_with_their_verdicts(warm, tmp_path):
    env = training_split(make_task_env())
    config = dict(BASE, steps=4, output_dir=str(tmp_path), log_samples=3, log_samples_every=2)
    Trainer(fresh(warm)[0], env, "grpo", config=config, tokenizer=warm[1]).train()
    rows = [json.loads(x) for x in (tmp_path / "samples.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows] == [1, 1, 1, 3, 3, 3]
    assert [r["sample"] for r in rows[:3]] == [0, 8, 15]  # spread over the 16 episodes
    source = env.unwrapped.source
    for row in rows:
        task = source[source.index_of(row["task_id"])]
        assert row["prompt"] == env.unwrapped.format_prompt(task)
        result = env.unwrapped.verifier(task, row["completion"])  # the logged verdict is the verifier's
        assert (row["status"], row["reward"], row["components"]) == (result.status.value, result.value,
                                                                     dict(result.components))
        assert row["group"] == row["sample"] // 4 and row["hacks"] == [] and row["metadata"] == dict(task.metadata)
    with pytest.raises(ValueError, match="log_samples_every"):
        TrainerConfig(log_samples_every=0)


def test_config_validation_names_the_bad_value():
    with pytest.raises(ValueError, match="lr_schedule"):
        TrainerConfig(lr_schedule="step")
    with pytest.raises(ValueError, match="unknown TrainerConfig"):
        TrainerConfig.from_dict({"learning_rate": 1.0})
    with pytest.raises(ValueError, match="critic"):
        ALGORITHMS["grpo"].replace(advantage="gae")
    with pytest.raises(KeyError, match="presets"):
        Trainer(None, None, "trpo")


def test_entropy_bonus_enters_the_total_loss(warm, episodes):
    plain, plain_metrics, _ = sgd_update(warm, "grpo", episodes)
    bonus_alg = ALGORITHMS["grpo"].replace(entropy_coef=0.5)
    bonus, metrics, _ = sgd_update(warm, bonus_alg, episodes)
    assert metrics["loss/total"] == pytest.approx(metrics["loss/policy"] - 0.5 * metrics["entropy"], rel=1e-5)
    assert plain_metrics["loss/total"] == pytest.approx(plain_metrics["loss/policy"], rel=1e-6)
    assert any(not torch.allclose(plain[k], bonus[k]) for k in plain)


def test_critic_values_are_read_before_each_token(warm):
    """V(s_t) must not see token t (verl #1758): changing token 2 changes values from position 3 on."""
    from rlenv.trainers.policy_gradient.critic import ValueModel

    model, tok = fresh(warm)
    critic = ValueModel.from_policy(model)
    torch.nn.init.normal_(critic.head.linear.weight)
    eos = tok.eos_token_id
    batch = EpisodeBatch.from_token_lists([tok.encode("Compute: 1+2")] * 2,
                                          [tok.encode("#### 3") + [eos], tok.encode("##x# 3") + [eos]], [1.0, 0.0],
                                          pad_token_id=tok.pad_token_id, eos_token_id=eos)
    with torch.no_grad():
        values = critic(batch.prompt_ids, batch.prompt_mask, batch.completion_ids, batch.completion_mask)
    assert torch.equal(values[0, :3], values[1, :3])
    assert not torch.allclose(values[0, 3:], values[1, 3:])


def test_truncated_importance_sampling_weights_each_token_by_the_capped_ratio(warm, episodes):
    """A sampler that gave every token half our probability: ratio 2, capped at 1.5 by TIS."""
    shifted = episodes.replace(rollout_logprobs=None)
    plain_params, _, _ = sgd_update(warm, "grpo", shifted)
    model, _ = fresh(warm)
    start = params(model)
    ours = batch_logprobs(model, shifted, micro_batch_size=64, temperature=1.0)
    sampled = shifted.replace(rollout_logprobs=(ours - math.log(2.0)) * shifted.completion_mask)
    tis_params, metrics, _ = sgd_update(warm, "grpo", sampled, tis_cap=1.5)
    no_tis_params, no_tis_metrics, _ = sgd_update(warm, "grpo", sampled)
    assert metrics["rollout/logprob_diff"] == pytest.approx(math.log(2.0), rel=1e-4)
    assert metrics["rollout/tis_weight"] == pytest.approx(1.5, rel=1e-4)
    for key in start:
        torch.testing.assert_close(no_tis_params[key], plain_params[key], atol=1e-7, rtol=1e-6)
        torch.testing.assert_close(tis_params[key] - start[key], 1.5 * (plain_params[key] - start[key]),
                                   atol=1e-6, rtol=1e-4)

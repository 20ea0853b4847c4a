"""Episodes whose verifier failed: masked out of the update (default), kept as 0 (``zero``), or scored
again (``resample``); a broken environment stops training with an error that names it."""

import pytest
import torch

from rlenv import RewardResult, TextVectorEnv
from rlenv.inference.policy import Generation, HFGenerator, SamplingConfig
from rlenv.trainers import ALGORITHMS, Trainer, TrainerConfig
from rlenv.trainers.policy_gradient.advantages import get as advantage
from rlenv.trainers.rollout import FailureLog, FailurePolicy, collect
from tests.trainers.trainer_helpers import MAX_NEW_TOKENS, addition_env, tiny_policy, with_failures

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def flaky_env(rate, transient=True, num_tasks=8, group_size=4):
    """Addition tasks whose verifier crashes on ``rate`` of its calls (``transient``: scoring again draws anew;
    otherwise the same episode always fails)."""
    failing = with_failures(addition_env(), rate, unit="call" if transient else "completion")
    return TextVectorEnv(failing, num_tasks=num_tasks, group_size=group_size)


def generator():
    model, tok = tiny_policy(hidden_size=32)
    return model, tok, HFGenerator(model, tok, SamplingConfig(max_new_tokens=4, temperature=1.0))


def test_mask_leaves_failed_episodes_out_and_zero_keeps_them():
    model, tok, gen = generator()
    zero_log, mask_log = FailureLog(), FailureLog()
    full, _ = collect(flaky_env(0.3, transient=False), gen, tok, seed=0, failures=FailurePolicy(on_verifier_error="zero"), log=zero_log)
    masked, _ = collect(flaky_env(0.3, transient=False), gen, tok, seed=0, failures=FailurePolicy(on_verifier_error="mask"),
                        log=mask_log)
    failed = torch.tensor([s == "error" for s in full.infos["status"]])
    assert 0 < int(failed.sum()) < len(full) and zero_log.failed == mask_log.failed == int(failed.sum())
    assert mask_log.masked == int(failed.sum()) and zero_log.masked == 0
    assert "injected crash" in mask_log.first_errors[0]
    expected = full.select(~failed)
    assert torch.equal(masked.completion_ids, expected.completion_ids)
    assert torch.equal(masked.group_ids, expected.group_ids) and torch.equal(masked.rewards, expected.rewards)
    assert "error" not in masked.infos["status"]


@pytest.mark.parametrize("estimator", ["grpo", "rloo", "reinforce_pp_baseline"])
def test_group_statistics_see_only_valid_members_and_lone_members_get_zero(estimator):
    rewards = torch.tensor([1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0])
    groups = torch.tensor([0, 0, 0, 0, 1, 1, 2, 2])
    failed = torch.tensor([False, False, True, False, False, True, False, False])
    mask = torch.ones(8, 3)
    kept = ~failed
    adv, _ = advantage(estimator)(rewards[kept].unsqueeze(1) * mask[kept], mask[kept], groups[kept])
    alone = groups[kept] == 1  # group 1 keeps one member: no baseline, advantage 0
    assert torch.all(adv[alone] == 0)
    # group 0 without its failed member: the same advantages as a group that never had it
    g0, _ = advantage(estimator)(torch.tensor([[1.0], [0.0], [1.0]]) * torch.ones(3, 3), torch.ones(3, 3),
                                 torch.zeros(3, dtype=torch.long))
    if estimator != "reinforce_pp_baseline":  # whitening is global, over the batch
        torch.testing.assert_close(adv[groups[kept] == 0], g0)


def alternating_answers(tok):
    """A scripted policy for :func:`addition_env`: right on the even members of each group, one off on the odd."""

    def generate(prompts):
        answers = []
        for i, prompt in enumerate(prompts):
            a, b = (int(x) for x in prompt.rstrip("=").split("+"))
            answers.append(str(a + b + i % 2))
        return Generation.from_token_lists([tok.encode(p) for p in prompts],
                                           [tok.encode(a) + [tok.eos_token_id] for a in answers],
                                           pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id)

    return generate


def test_dynamic_sampling_judges_groups_by_their_valid_members():
    """DAPO keeps a group only when its valid members' rewards differ: a group whose wrong answers
    crashed the verifier has nothing left to learn from under ``mask``, though its zeros would differ."""
    _, tok = tiny_policy(hidden_size=32)
    zero_batch, _ = collect(flaky_env(0.3, transient=False, num_tasks=16), alternating_answers(tok), tok, seed=0,
                            failures=FailurePolicy(on_verifier_error="zero"))
    valid = torch.tensor([s != "error" for s in zero_batch.infos["status"]])
    groups = [int(g) for g in torch.unique(zero_batch.group_ids)]

    def informative(group, members):
        rewards = zero_batch.rewards[(zero_batch.group_ids == group) & members]
        return bool(rewards.numel()) and bool(rewards.max() != rewards.min())

    with_valid = {g for g in groups if informative(g, valid)}
    with_zeros = {g for g in groups if informative(g, torch.ones_like(valid))}
    assert with_valid and with_valid != with_zeros  # some group only looks informative through its zeros
    masked, stats = collect(flaky_env(0.3, transient=False, num_tasks=16), alternating_answers(tok), tok, seed=0,
                            dynamic_sampling=True, max_refills=0, failures=FailurePolicy(on_verifier_error="mask"))
    assert {int(g) for g in torch.unique(masked.group_ids)} == with_valid and stats["groups_kept"] == len(with_valid)
    assert "error" not in masked.infos["status"]


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_masked_episodes_change_no_gradient(name):
    """For every preset, the update on a batch with failures masked equals the update on the batch
    without them, and differs from the update that counts them as 0."""
    model, tok = tiny_policy(hidden_size=32)
    zero_batch, _ = collect(flaky_env(0.3, transient=False), alternating_answers(tok), tok, seed=1,
                            failures=FailurePolicy(on_verifier_error="zero"))
    masked, _ = collect(flaky_env(0.3, transient=False), alternating_answers(tok), tok, seed=1,
                        failures=FailurePolicy(on_verifier_error="mask"))
    valid = zero_batch.select(torch.tensor([s != "error" for s in zero_batch.infos["status"]]))
    assert 0 < len(valid) < len(zero_batch)
    config = dict(num_tasks=8, group_size=4, optimizer="sgd", lr=0.5, max_grad_norm=None, progress=False,
                  max_new_tokens=MAX_NEW_TOKENS, seed=0)
    after = []
    for batch in (masked, valid, zero_batch):
        torch.manual_seed(0)
        policy, _ = tiny_policy(hidden_size=32)
        policy.load_state_dict(model.state_dict())
        Trainer(policy, None, name, config=config, tokenizer=tok).update(batch)
        after.append({k: v.detach().clone() for k, v in policy.named_parameters()})
    for key in after[0]:
        assert torch.equal(after[0][key], after[1][key]), key
    start = dict(model.named_parameters())
    assert any(not torch.equal(after[0][k], start[k]) for k in start)  # the update did something
    assert any(not torch.equal(after[0][k], after[2][k]) for k in start)  # and the zeros would have changed it


def test_resample_recovers_transient_failures():
    model, tok, gen = generator()
    log = FailureLog()
    batch, _ = collect(flaky_env(0.3), gen, tok, seed=0, failures=FailurePolicy(on_verifier_error="resample", rescore_attempts=3, regenerate_attempts=0),
                       log=log)
    assert log.rescored > 0 and log.recovered > 0
    assert len(batch) + log.masked == 32 and log.masked <= log.rescored - log.recovered
    persistent = FailureLog()
    collect(flaky_env(0.3, transient=False), gen, tok, seed=0,
            failures=FailurePolicy(on_verifier_error="resample", regenerate_attempts=0), log=persistent)
    assert persistent.recovered == 0 and persistent.masked > 0  # the same crash every time: masked in the end


def test_resample_generates_again_for_what_scoring_again_cannot_fix():
    """The same completion always crashes its verifier: re-scoring recovers nothing, a new completion
    for the same prompt usually scores; its tokens replace the failed ones in the batch."""
    model, tok, gen = generator()
    log = FailureLog()
    policy = FailurePolicy(on_verifier_error="resample", rescore_attempts=1, regenerate_attempts=3)
    batch, _ = collect(flaky_env(0.3, transient=False), gen, tok, seed=0, failures=policy, log=log)
    assert log.failed == 0 or log.failed < log.regenerated + log.rescored  # counted before masking: the final state
    assert log.regenerated > 0 and log.recovered > 0 and log.masked < log.regenerated
    assert len(batch) + log.masked == 32
    assert "error" not in batch.infos["status"]
    decoded = tok.batch_decode([ids[mask.bool()] for ids, mask in zip(batch.completion_ids, batch.completion_mask)],
                               skip_special_tokens=True)
    assert decoded == batch.infos["completion"]  # every row's tokens are the completion that was scored


def test_self_training_and_online_dpo_apply_the_policy_and_fail_fast():
    import rlenv
    from rlenv.trainers.preference import OnlineDPO, OnlineDPOConfig
    from rlenv.trainers.self_training import SelfTrainer, self_training_config

    sampling = SamplingConfig(max_new_tokens=4, temperature=1.0)
    for on_error in ("mask", "zero"):
        model, tok = tiny_policy(hidden_size=32)
        raft = SelfTrainer(model, tok, flaky_env(0.3, transient=False), self_training_config(
            "raft", rounds=1, sampling=sampling, on_verifier_error=on_error, min_reward=None, top_k=None))
        dpo = OnlineDPO(model, tok, flaky_env(0.3, transient=False), OnlineDPOConfig(
            rounds=1, sampling=sampling, on_verifier_error=on_error))
        for metrics in (raft.train(progress=False)[0], dpo.train(progress=False)[0]):
            assert metrics["failures/fraction"] > 0
            masked = metrics["failures/masked"]
            assert (masked > 0) if on_error == "mask" else masked == 0
        assert raft.rounds[0]["samples"] == 32 - raft.rounds[0]["failures/masked"]
    broken = with_failures(rlenv.make("rlenv/Arithmetic-v0"), 1.0)
    model, tok = tiny_policy(hidden_size=32)
    raft = SelfTrainer(model, tok, TextVectorEnv(broken, num_tasks=2, group_size=2),
                       self_training_config("raft", rounds=5, sampling=sampling, fail_fast_steps=2))
    with pytest.raises(RuntimeError, match="'rlenv/Arithmetic-v0' is failing"):
        raft.train(progress=False)
    assert len(raft.rounds) == 1
    dpo = OnlineDPO(model, tok, TextVectorEnv(broken, num_tasks=2, group_size=2),
                    OnlineDPOConfig(rounds=5, sampling=sampling, fail_fast_steps=1))
    with pytest.raises(RuntimeError, match="'rlenv/Arithmetic-v0' is failing"):
        dpo.train(progress=False)


def test_a_broken_environment_stops_training_and_names_it():
    import rlenv

    model, tok = tiny_policy(hidden_size=32)
    broken = with_failures(rlenv.make("rlenv/Arithmetic-v0"), 1.0)
    trainer = Trainer(model, broken, "grpo", tokenizer=tok,
                      config=dict(num_tasks=4, group_size=2, max_new_tokens=4, progress=False, fail_fast_steps=2))
    with pytest.raises(RuntimeError) as info:
        trainer.train(steps=5)
    message = str(info.value)
    assert "'rlenv/Arithmetic-v0'" in message and "2 steps in a row" in message
    assert "'error': 8" in message and "injected crash" in message
    assert trainer.step == 1  # the second failing step stopped before its update


def test_failure_settings_are_checked():
    with pytest.raises(ValueError, match="on_verifier_error must be one of"):
        TrainerConfig(on_verifier_error="ignore")
    with pytest.raises(ValueError, match="unknown failure status"):
        TrainerConfig(failure_statuses=("crashed",))
    with pytest.raises(ValueError, match="fail_fast_fraction"):
        TrainerConfig(fail_fast_fraction=1.5)
    assert RewardResult.error("x").status.value in TrainerConfig().failure_statuses


"""Episodes whose verifier failed: masked out of the update (default), kept as 0 (``zero``), or scored
again (``resample``); a broken environment stops training with an error that names it."""

import threading
import zlib

import pytest
import torch
from trainer_helpers import MAX_NEW_TOKENS, addition_env, tiny_policy

from rlenv import RewardResult, TextEnv, TextVectorEnv
from rlenv.inference.policy import HFGenerator, SamplingConfig
from rlenv.trainers import Trainer, TrainerConfig
from rlenv.trainers.policy_gradient.advantages import get as advantage
from rlenv.trainers.rollout import FailureLog, FailurePolicy, collect

pytestmark = pytest.mark.usefixtures("one_torch_thread")


class Flaky:
    """Wraps a verifier; fails on a chosen share of calls. ``transient``: a repeated call of the same
    (task, completion) draws again, so re-scoring can succeed; otherwise the same episode always fails."""

    name = "flaky"

    def __init__(self, inner, rate, transient=True):
        self.inner, self.rate, self.transient = inner, rate, transient
        self.calls: dict[tuple[str, str], int] = {}
        self.lock = threading.Lock()

    def __call__(self, task, completion):
        with self.lock:
            n = self.calls.get((task.id, completion), 0)
            self.calls[(task.id, completion)] = n + 1
        draw = zlib.crc32(f"{task.id}|{completion}|{n if self.transient else 0}".encode()) % 1000 / 1000
        if draw < self.rate:
            raise RuntimeError(f"injected crash on {task.id}")
        return self.inner(task, completion)


def flaky_env(rate, transient=True, num_tasks=8, group_size=4):
    base = addition_env()
    return TextVectorEnv(TextEnv(base.source, Flaky(base.verifier, rate, transient)), num_tasks=num_tasks,
                         group_size=group_size)


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


def test_masked_episodes_change_no_gradient():
    """The update on a batch with failures masked equals the update on the batch without them."""
    model, tok, gen = generator()
    full, _ = collect(flaky_env(0.3, transient=False), gen, tok, seed=1, failures=FailurePolicy(on_verifier_error="zero"))
    masked, _ = collect(flaky_env(0.3, transient=False), gen, tok, seed=1, failures=FailurePolicy(on_verifier_error="mask"))
    valid = full.select(torch.tensor([s != "error" for s in full.infos["status"]]))
    config = dict(num_tasks=8, group_size=4, optimizer="sgd", lr=0.5, max_grad_norm=None, progress=False,
                  max_new_tokens=MAX_NEW_TOKENS)
    after = []
    for batch in (masked, valid):
        policy, _ = tiny_policy(hidden_size=32)
        policy.load_state_dict(model.state_dict())
        Trainer(policy, None, "grpo", config=config, tokenizer=tok).update(batch)
        after.append({k: v.detach().clone() for k, v in policy.named_parameters()})
    for key in after[0]:
        assert torch.equal(after[0][key], after[1][key]), key


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
    env = rlenv.make("rlenv/Arithmetic-v0")
    broken = TextEnv(env.unwrapped.source, Flaky(env.unwrapped.verifier, 1.0))
    broken.spec = env.spec
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
    env = rlenv.make("rlenv/Arithmetic-v0")
    broken = TextEnv(env.unwrapped.source, Flaky(env.unwrapped.verifier, 1.0))
    broken.spec = env.spec
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


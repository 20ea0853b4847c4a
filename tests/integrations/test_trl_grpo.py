"""TRL's GRPOTrainer runs on CPU with rlenv reward functions and a tiny local model (no downloads)."""

import math
import threading

import pytest

import rlenv
from rlenv import RewardResult, Status
from rlenv.integrations.trl import reward_funcs, to_dataset
from rlenv.wrappers.base import RewardWrapper

pytest.importorskip("trl")


class DigitShare(RewardWrapper):
    """A dense shaped reward (share of digit characters) so a random policy's rewards vary within a group."""

    def transform(self, task, completion, reward, truncated, info):
        return sum(ch.isdigit() for ch in completion) / max(1, len(completion)), info


def test_trl_grpo_trainer_two_steps_on_arithmetic(tmp_path):
    import torch
    from trl import GRPOConfig, GRPOTrainer

    from rlenv.trainers.tiny import tiny_causal_lm, tiny_tokenizer

    env = rlenv.make("rlenv/Arithmetic-v0")
    funcs = reward_funcs(env) + reward_funcs(DigitShare(rlenv.make("rlenv/Arithmetic-v0")), name="digit_share")
    tokenizer = tiny_tokenizer()
    model = tiny_causal_lm(tokenizer, hidden_size=32)
    before = [p.detach().clone() for p in model.parameters()]
    args = GRPOConfig(output_dir=str(tmp_path), use_cpu=True, bf16=False, per_device_train_batch_size=8,
                      num_generations=4, max_completion_length=8, max_steps=2, logging_steps=1, report_to="none",
                      save_strategy="no", seed=0, learning_rate=1e-2, temperature=1.0)
    trainer = GRPOTrainer(model=model, reward_funcs=funcs, args=args, train_dataset=to_dataset(env, num_tasks=64),
                          processing_class=tokenizer)
    trainer.train()

    steps = [h for h in trainer.state.log_history if "reward" in h]
    assert len(steps) == 2
    for h in steps:
        assert 0.0 <= h["rewards/rlenv/math/mean"] <= 1.0 and math.isfinite(h["rewards/rlenv/math/std"])
        assert 0.0 <= h["rewards/digit_share/mean"] <= 1.0
        statuses = {k: v for k, v in h.items() if k.startswith("rlenv/math/")}
        assert statuses and sum(statuses.values()) == pytest.approx(1.0)
        assert math.isfinite(h["loss"]) and math.isfinite(h["reward"])
    assert any(h["grad_norm"] > 0 for h in steps)
    assert any(not torch.equal(a, b.detach()) for a, b in zip(before, model.parameters(), strict=True))


class AlternatingVerifier:
    """Every completion of an odd-numbered scoring call is an ``error``, of an even one ``incorrect``:
    a status that is absent from half the batches of each logging window."""

    name = "alternating"

    def __init__(self, batch: int):
        self.batch = batch
        self.calls = 0
        self.lock = threading.Lock()

    def __call__(self, task, completion):
        with self.lock:
            call, self.calls = self.calls, self.calls + 1
        if (call // self.batch) % 2 == 0:
            return RewardResult.error("injected failure", verifier=self.name)
        return RewardResult(0.0, Status.INCORRECT, verifier=self.name)


def test_trl_grpo_status_fractions_over_a_logging_window_on_an_endless_stream(tmp_path):
    from trl import GRPOConfig, GRPOTrainer

    from rlenv.trainers.tiny import tiny_causal_lm, tiny_tokenizer

    source = rlenv.make("rlenv/Arithmetic-v0").unwrapped.source
    env = rlenv.TextEnv(source, AlternatingVerifier(batch=8))
    dataset = to_dataset(env)  # an endless source: a streaming dataset
    tokenizer = tiny_tokenizer()
    args = GRPOConfig(output_dir=str(tmp_path), use_cpu=True, bf16=False, per_device_train_batch_size=8,
                      num_generations=4, max_completion_length=4, max_steps=4, logging_steps=2, report_to="none",
                      save_strategy="no", seed=0, learning_rate=1e-3)
    trainer = GRPOTrainer(model=tiny_causal_lm(tokenizer, hidden_size=32), reward_funcs=reward_funcs(env),
                          args=args, train_dataset=dataset, processing_class=tokenizer)
    trainer.train()

    logged = [h for h in trainer.state.log_history if "rlenv/alternating/error" in h]
    assert len(logged) == 2  # steps 2 and 4, each the mean of one failing and one wrong batch
    for h in logged:
        fractions = {status.value: h[f"rlenv/alternating/{status.value}"] for status in Status}
        assert fractions["error"] == pytest.approx(0.5) and fractions["incorrect"] == pytest.approx(0.5)
        assert sum(fractions.values()) == pytest.approx(1.0)
    # TRL's completions table keeps the last batch (the 4th scoring call: all incorrect), with our column
    statuses = list(trainer._logs["extra"]["rlenv/alternating/status"])
    assert statuses == ["incorrect"] * len(trainer._logs["prompt"]) and statuses


class EveryOtherFails:
    """Every other scoring call is a verifier crash; the rest are wrong answers with a varying reward."""

    name = "every_other"

    def __init__(self):
        self.calls = 0
        self.lock = threading.Lock()

    def __call__(self, task, completion):
        with self.lock:
            call, self.calls = self.calls, self.calls + 1
        if call % 2:
            return RewardResult.error("injected crash", verifier=self.name)
        return RewardResult(len(completion) / 8, Status.INCORRECT, verifier=self.name)


def test_trl_grpo_ignores_the_reward_of_failed_episodes_by_default(tmp_path):
    import math as _math

    from trl import GRPOConfig, GRPOTrainer

    from rlenv.trainers.tiny import tiny_causal_lm, tiny_tokenizer

    source = rlenv.make("rlenv/Arithmetic-v0").unwrapped.source
    env = rlenv.TextEnv(source, EveryOtherFails())
    tokenizer = tiny_tokenizer()
    args = GRPOConfig(output_dir=str(tmp_path), use_cpu=True, bf16=False, per_device_train_batch_size=8,
                      num_generations=4, max_completion_length=8, max_steps=1, logging_steps=1, report_to="none",
                      save_strategy="no", seed=0, temperature=1.0)
    trainer = GRPOTrainer(model=tiny_causal_lm(tokenizer, hidden_size=32),
                          reward_funcs=reward_funcs(env, executor="serial"), args=args,
                          train_dataset=to_dataset(env, num_tasks=32), processing_class=tokenizer)
    trainer.train()
    statuses = list(trainer._logs["extra"]["rlenv/every_other/status"])
    rewards = list(trainer._logs["rewards"]["rlenv/every_other"])
    advantages = list(trainer._logs["advantages"])
    assert statuses.count("error") == 4 and len(statuses) == 8
    for status, reward, adv in zip(statuses, rewards, advantages, strict=True):
        if status == "error":
            assert _math.isnan(reward) and adv == 0.0  # left out of the group baseline, no advantage
        else:
            assert not _math.isnan(reward)
    logged = [h for h in trainer.state.log_history if "rlenv/every_other/error" in h]
    assert logged and logged[0]["rlenv/every_other/error"] == pytest.approx(0.5)

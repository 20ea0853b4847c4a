"""TRL's GRPOTrainer runs on CPU with rlenv reward functions and a tiny local model (no downloads)."""

import math

import pytest

import rlenv
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

    from trainers.tiny import tiny_causal_lm, tiny_tokenizer

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

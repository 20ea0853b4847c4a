"""GRPO trains a tiny policy on a reasoning-gym environment, scored by reasoning-gym's own scorer."""

import math

import pytest
import torch

import rlenv
from rlenv.trainers import Trainer, gold_examples, sft
from rlenv.trainers.tiny import tiny_causal_lm, tiny_tokenizer

pytestmark = pytest.mark.usefixtures("entry_point_path", "one_torch_thread")


def test_grpo_smoke_run_on_basic_arithmetic(tmp_path):
    env = rlenv.make("reasoning_gym/basic_arithmetic-v0", size=2400, seed=0, min_terms=2, max_terms=2, min_digits=1,
                     max_digits=1, operators=["+"], allow_parentheses=False, allow_negation=False,
                     prompt_template="{prompt}")
    tok = tiny_tokenizer()
    model = tiny_causal_lm(tok, hidden_size=64, num_layers=2, seed=0)
    sft(model, tok, gold_examples(env, range(2400)), steps=150, batch_size=16, lr=3e-3, progress=False)
    before = {k: v.detach().clone() for k, v in model.named_parameters()}
    trainer = Trainer(model, env, "grpo", tokenizer=tok,
                      config=dict(num_tasks=8, group_size=4, steps=2, lr=1e-3, max_new_tokens=20, progress=False,
                                  output_dir=str(tmp_path)))
    history = trainer.train()
    assert len(history) == 2
    last = history[-1]
    assert all(math.isfinite(v) for v in last.values())
    statuses = {k: v for k, v in last.items() if k.startswith("status/")}
    assert sum(statuses.values()) == last["episodes"] == 32
    assert set(statuses) <= {"status/correct", "status/incorrect", "status/unparsable"}
    assert any(s.get("status/correct", 0) for s in history)  # the warm policy answers in <answer> tags, sometimes right
    assert any(not torch.equal(before[k], v) for k, v in model.named_parameters())

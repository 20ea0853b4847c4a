"""LoRA: only the adapters train, the KL reference is the base model, checkpoints hold the adapters
and merge into a loadable model."""

import copy

import pytest
import torch

from rlenv.trainers import Trainer
from rlenv.trainers.logprobs import completion_logprobs
from rlenv.trainers.lora import merge_adapters, merged_state_dict
from tests.trainers.test_distributed import global_batch
from tests.trainers.trainer_helpers import resumed_and_uninterrupted, tiny_policy

pytestmark = pytest.mark.usefixtures("one_torch_thread")

LORA = dict(lora_r=4, lora_alpha=8, optimizer="adamw", lr=5e-2, max_grad_norm=None, micro_batch_size=4,
            progress=False, max_new_tokens=8)


def logprobs(model, batch):
    with torch.no_grad():
        return completion_logprobs(model, batch.prompt_ids, batch.prompt_mask, batch.completion_ids,
                                   batch.completion_mask).logprobs


@pytest.mark.parametrize("algorithm", ["reinforce_pp", "grpo", "ppo"])
def test_only_adapters_change_and_the_reference_is_the_base_model(algorithm):
    model, tok = tiny_policy(seed=0, hidden_size=32)
    base = copy.deepcopy(model)
    trainer = Trainer(model, None, algorithm, config=LORA, tokenizer=tok)
    assert trainer.ref_model is None  # no second copy of the weights
    before = {k: v.clone() for k, v in trainer.policy.state_dict().items()}
    for _ in range(2):
        trainer.update(global_batch(tok))
    after = trainer.policy.state_dict()
    changed = {k for k in before if not torch.equal(before[k], after[k])}
    assert changed and all(".lora_" in k for k in changed), sorted(changed)
    assert any(".lora_B." in k for k in changed)  # B starts at 0: the adapted model now differs from the base
    batch = global_batch(tok)
    assert float((logprobs(trainer.policy, batch) - logprobs(base, batch)).abs().max()) > 1e-3
    if trainer.algorithm.kl_coef > 0:
        prepared, _ = trainer.prepare(batch)
        torch.testing.assert_close(prepared.ref_logprobs, logprobs(base, batch), atol=1e-6, rtol=0)


def test_checkpoints_hold_adapters_and_merge_into_a_loadable_model(tmp_path):
    from transformers import AutoModelForCausalLM

    from rlenv.trainers.tiny import save_tiny

    model, tok = tiny_policy(seed=0, hidden_size=32)
    save_tiny(model, tok, tmp_path / "base")
    trainer = Trainer(str(tmp_path / "base"), None, "grpo", config=LORA)
    trainer.update(global_batch(tok))
    checkpoint = trainer.save_checkpoint(tmp_path / "checkpoint-1")
    assert (checkpoint / "adapter_config.json").is_file() and (checkpoint / "adapter_model.safetensors").is_file()
    assert not (checkpoint / "model.safetensors").exists()  # adapters only
    merged = AutoModelForCausalLM.from_pretrained(merge_adapters(checkpoint, tmp_path / "merged"))
    batch = global_batch(tok)
    torch.testing.assert_close(logprobs(merged, batch), logprobs(trainer.policy, batch), atol=1e-5, rtol=0)
    in_memory = merged_state_dict(trainer.policy)
    assert set(in_memory) == set(merged.state_dict())
    for name, value in merged.state_dict().items():
        torch.testing.assert_close(in_memory[name], value, atol=1e-6, rtol=0)


def test_lora_resume_is_bit_identical(tmp_path):
    def trainer():
        model, tok = tiny_policy(seed=0, hidden_size=32)
        return Trainer(model, None, "reinforce_pp", config=LORA, tokenizer=tok), tok

    whole, resumed = resumed_and_uninterrupted(trainer, global_batch, tmp_path)
    for (name, a), b in zip(whole.policy.state_dict().items(), resumed.policy.state_dict().values()):
        assert torch.equal(a, b), name


def test_merge_command_writes_a_model(tmp_path):
    from transformers import AutoModelForCausalLM

    from rlenv.cli import main

    model, tok = tiny_policy(seed=0, hidden_size=32)
    trainer = Trainer(model, None, "grpo", config=LORA, tokenizer=tok)
    trainer.update(global_batch(tok))
    checkpoint = trainer.save_checkpoint(tmp_path / "checkpoint-1")
    base = tmp_path / "base"
    tiny_policy(seed=0, hidden_size=32)[0].save_pretrained(base)
    assert main(["merge-lora", str(checkpoint), "--base", str(base), "--output", str(tmp_path / "merged")]) == 0
    merged = AutoModelForCausalLM.from_pretrained(tmp_path / "merged")
    batch = global_batch(tok)
    torch.testing.assert_close(logprobs(merged, batch), logprobs(trainer.policy, batch), atol=1e-5, rtol=0)


def test_bad_lora_settings_are_named():
    model, tok = tiny_policy(hidden_size=32)
    with pytest.raises(ValueError, match="lora_dropout must be in \\[0, 1\\), got 1.5"):
        Trainer(model, None, "grpo", config=dict(lora_r=4, lora_dropout=1.5), tokenizer=tok)
    with pytest.raises(ValueError, match="lora_target_modules names no module: ' , '"):
        Trainer(model, None, "grpo", config=dict(lora_r=4, lora_target_modules=" , "), tokenizer=tok)

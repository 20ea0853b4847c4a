"""Precision: bf16 weights with fp32 master weights and optimizer state, bf16 autocast, fp32 log-probs."""

import pytest
import torch

from rlenv.trainers import Trainer
from rlenv.trainers.logprobs import completion_logprobs
from rlenv.trainers.precision import MasterWeights
from tests.trainers.test_distributed import global_batch
from tests.trainers.trainer_helpers import resumed_and_uninterrupted, tiny_policy

pytestmark = pytest.mark.usefixtures("one_torch_thread")

CONFIG = dict(optimizer="adamw", lr=1e-2, max_grad_norm=None, micro_batch_size=4, progress=False, max_new_tokens=8)


def bf16_representable_policy():
    """A tiny policy whose fp32 weights are exactly bf16 values (fp32 and bf16 runs then start equal)."""
    model, tok = tiny_policy(seed=0, hidden_size=32)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(p.to(torch.bfloat16).float())
    return model, tok


def test_bf16_weights_are_stepped_through_fp32_masters_and_track_the_fp32_update():
    sgd = dict(CONFIG, optimizer="sgd", lr=0.5)
    fp32_model, tok = bf16_representable_policy()
    fp32 = Trainer(fp32_model, None, "grpo", config=sgd, tokenizer=tok)
    bf16 = Trainer(bf16_representable_policy()[0], None, "grpo", config=dict(sgd, dtype="bfloat16"), tokenizer=tok)
    assert {p.dtype for p in bf16.policy.parameters()} == {torch.bfloat16}
    fp32.update(global_batch(tok))
    bf16.update(global_batch(tok))
    masters = bf16.master_weights.parameters()
    assert {m.dtype for m in masters} == {torch.float32}
    initial = bf16_representable_policy()[0].state_dict()
    with torch.no_grad():
        for (name, reference), master, weight in zip(fp32.policy.named_parameters(), masters,
                                                     bf16.policy.parameters()):
            assert torch.equal(weight, master.to(torch.bfloat16)), name  # the weights are the rounded masters
            step, error = reference - initial[name], master - reference
            # the bf16 forward/backward perturbs each gradient by ~1%: the update is the fp32 one, not another
            assert float(error.norm()) < 0.05 * float(step.norm()), name


def test_bf16_optimizer_state_is_fp32():
    model, tok = tiny_policy(seed=0, hidden_size=32)
    trainer = Trainer(model, None, "grpo", config=dict(CONFIG, dtype="bfloat16"), tokenizer=tok)
    trainer.update(global_batch(tok))
    states = [trainer.optimizer.state[m] for m in trainer.master_weights.parameters()]
    assert all(s["exp_avg"].dtype == s["exp_avg_sq"].dtype == torch.float32 for s in states)


def test_small_updates_accumulate_in_the_masters_where_bf16_weights_alone_lose_them():
    """A step far below bf16's resolution (8 mantissa bits) rounds away on a bf16 weight; the master keeps it."""
    weight = torch.nn.Parameter(torch.ones(4, dtype=torch.bfloat16))
    masters = MasterWeights([weight])
    plain = torch.nn.Parameter(torch.ones(4, dtype=torch.bfloat16))
    for _ in range(40):  # 40 steps of 1e-3: the master reaches 0.96, below 1 - 2^-8 (bf16's next value down)
        for p in (weight, plain):
            p.grad = torch.full_like(p, 1e-3)
        masters.gradients_to_masters()
        with torch.no_grad():
            masters.parameters()[0].sub_(masters.parameters()[0].grad)
            plain.sub_(plain.grad)
        masters.masters_to_model()
    assert torch.equal(plain, torch.ones(4, dtype=torch.bfloat16))  # every step was rounded away
    # (the bf16 gradient is 1e-3 to 3 digits)
    torch.testing.assert_close(masters.parameters()[0].detach(), torch.full((4,), 0.96), atol=5e-4, rtol=0)
    assert float(weight[0]) == pytest.approx(0.96, abs=4e-3)


def test_autocast_computes_in_bf16_over_fp32_weights_with_fp32_logprobs():
    model, tok = tiny_policy(seed=0, hidden_size=32)
    batch = global_batch(tok)
    args = (batch.prompt_ids, batch.prompt_mask, batch.completion_ids, batch.completion_mask)
    exact = completion_logprobs(model, *args).logprobs
    with torch.autocast("cpu", dtype=torch.bfloat16):
        mixed = completion_logprobs(model, *args).logprobs
    assert mixed.dtype == torch.float32
    assert 0 < float((mixed - exact).abs().max()) < 0.1  # bf16 matmuls: close, and not the fp32 values
    trainer = Trainer(model, None, "grpo", config=dict(CONFIG, autocast=True), tokenizer=tok)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    trainer.update(global_batch(tok))
    assert {p.dtype for p in trainer.policy.parameters()} == {torch.float32}
    assert trainer.master_weights.parameters()[0] is next(trainer.policy.parameters())  # fp32: no copy
    assert any(not torch.equal(v, before[k]) for k, v in model.state_dict().items())


def test_bf16_resume_is_bit_identical(tmp_path):
    def trainer():
        model, tok = tiny_policy(seed=0, hidden_size=32)
        return Trainer(model, None, "grpo", config=dict(CONFIG, dtype="bfloat16"), tokenizer=tok), tok

    whole, resumed = resumed_and_uninterrupted(trainer, global_batch, tmp_path)
    for a, b in zip(whole.master_weights.parameters(), resumed.master_weights.parameters()):
        assert torch.equal(a, b)
    for (name, a), b in zip(whole.policy.state_dict().items(), resumed.policy.state_dict().values()):
        assert torch.equal(a, b), name


@pytest.mark.parametrize("settings, message", [
    (dict(dtype="float16"), "dtype must be one of .*'float16'"),
    (dict(dtype="bfloat16", autocast=True), "autocast=True is bf16 compute over float32 weights"),
])
def test_bad_precision_settings_are_named(settings, message):
    with pytest.raises(ValueError, match=message):
        Trainer(tiny_policy(hidden_size=32)[0], None, "grpo", config=settings, tokenizer=tiny_policy()[1])

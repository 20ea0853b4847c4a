"""Losses pinned to shared/reference/trainers.md §4, and gradient checks on a tiny model."""

import copy
import math

import pytest
import torch

from rlenv.trainers.batch import EpisodeBatch
from rlenv.trainers.logprobs import completion_logprobs
from rlenv.trainers.policy_gradient import losses
from tests.trainers.trainer_helpers import tiny_policy

RATIOS = torch.tensor([1.5, 0.5, 1.1, 0.5, 1.5, 4.0])
ADVS = torch.tensor([1.0, -1.0, 1.0, 1.0, -1.0, -1.0])


def surrogate(name, ratio, adv, mask=None, **kw):
    logp = torch.log(ratio).unsqueeze(0)
    mask = torch.ones_like(logp) if mask is None else mask
    return losses.get(name)(logp, torch.zeros_like(logp), adv.unsqueeze(0), mask, **kw)


def test_registry_and_errors():
    assert {"cispo", "gspo", "pg", "ppo", "ppo_klpen"} <= set(losses.names())
    with pytest.raises(KeyError, match="registered"):
        losses.get("grpo_loss")
    with pytest.raises(ValueError, match="dual_clip"):
        surrogate("ppo", RATIOS, ADVS, dual_clip=0.5)
    with pytest.raises(ValueError, match="KL estimator"):
        losses.kl(torch.zeros(1), torch.zeros(1), "k4")
    with pytest.raises(ValueError, match="aggregation"):
        losses.aggregate(torch.zeros(1, 1), torch.ones(1, 1), "mean")


def test_clipped_surrogate_table():
    out = surrogate("ppo", RATIOS, ADVS)
    torch.testing.assert_close(out.loss[0], torch.tensor([-1.2, 0.8, -1.1, -0.5, 1.5, 4.0]))
    assert out.clipped[0].tolist() == [1, 1, 0, 0, 0, 0]
    dual = surrogate("ppo", RATIOS, ADVS, dual_clip=3.0)
    torch.testing.assert_close(dual.loss[0], torch.tensor([-1.2, 0.8, -1.1, -0.5, 1.5, 3.0]))
    assert dual.clipped[0, 5] == 1
    higher = surrogate("ppo", RATIOS, ADVS, clip_low=0.2, clip_high=0.28)
    torch.testing.assert_close(higher.loss[0], torch.tensor([-1.28, 0.8, -1.1, -0.5, 1.5, 4.0]))


def test_cispo_weight_and_gspo_sequence_ratio():
    ratio = torch.tensor([0.5, 1.0, 1.5, 6.0])
    out = surrogate("cispo", ratio, torch.ones(4))
    torch.testing.assert_close(out.loss[0], -torch.tensor([0.5, 1.0, 1.5, 5.0]) * torch.log(ratio))
    assert out.clipped[0].tolist() == [0, 0, 0, 1]
    out = surrogate("gspo", torch.tensor([1.5, 0.5, 1.1]), torch.ones(3), clip_low=1.0, clip_high=1.0)
    torch.testing.assert_close(out.ratio[0], torch.full((3,), 0.937889), atol=1e-6, rtol=0)
    # Padding does not enter the sequence ratio.
    padded = surrogate("gspo", torch.tensor([1.5, 0.5, 1.1, 9.0]), torch.ones(4), mask=torch.tensor([[1, 1, 1, 0]]))
    torch.testing.assert_close(padded.ratio[0, :3], torch.full((3,), 0.937889), atol=1e-6, rtol=0)


def test_kl_estimators_values_and_gradients():
    logp = torch.tensor([-1.0, -1.5, -2.0], requires_grad=True)
    ref = torch.tensor([-1.5, -1.0, -2.0])
    expected = {"k1": ([0.5, -0.5, 0.0], [1.0, 1.0, 1.0]), "k2": ([0.125, 0.125, 0.0], [0.5, -0.5, 0.0]),
                "k3": ([0.106531, 0.148721, 0.0], [0.393469, -0.648721, 0.0])}
    for kind, (value, grad) in expected.items():
        out = losses.kl(logp, ref, kind)
        (g,) = torch.autograd.grad(out.sum(), logp)
        torch.testing.assert_close(out.detach(), torch.tensor(value), atol=1e-6, rtol=0)
        torch.testing.assert_close(g, torch.tensor(grad), atol=1e-6, rtol=0)


def test_aggregation_reference_values_and_global_normalizers():
    loss = torch.tensor([[1.0, 2.0, 3.0, 0.0], [4.0, 0.0, 0.0, 0.0]])
    mask = torch.tensor([[1, 1, 1, 0], [1, 0, 0, 0]])
    assert float(losses.aggregate(loss, mask, "token_mean")) == 2.5
    assert float(losses.aggregate(loss, mask, "seq_mean_token_mean")) == 3.0
    assert float(losses.aggregate(loss, mask, "seq_mean_token_sum")) == 5.0
    assert float(losses.aggregate(loss, mask, "seq_mean_token_sum_norm")) == 1.25
    assert float(losses.aggregate(loss, mask, "seq_mean_token_sum_norm", max_len=8)) == 0.625
    # NaN on padding never leaks.
    assert float(losses.aggregate(loss.masked_fill(mask == 0, float("nan")), mask, "token_mean")) == 2.5
    # Micro-batch shares with the global normalizers add up to the whole-batch value.
    for mode in ("token_mean", "seq_mean_token_mean", "seq_mean_token_sum", "seq_mean_token_sum_norm"):
        whole = losses.aggregate(loss, mask, mode)
        parts = sum(losses.aggregate(loss[i: i + 1], mask[i: i + 1], mode, num_tokens=4, num_seqs=2, max_len=4)
                    for i in range(2))
        torch.testing.assert_close(parts, whole)


def test_value_loss_clips_around_old_values():
    v, old, ret = torch.tensor([1.0, 0.0]), torch.tensor([0.5, 0.5]), torch.tensor([2.0, 0.0])
    # token 0: unclipped (1-2)^2=1, clipped old+0.2=0.7 -> (0.7-2)^2=1.69 -> max 1.69
    # token 1: unclipped 0, clipped 0.3 -> 0.09
    torch.testing.assert_close(losses.value_loss(v, old, ret, 0.2), 0.5 * torch.tensor([1.69, 0.09]))
    torch.testing.assert_close(losses.value_loss(v, old, ret, None), 0.5 * torch.tensor([1.0, 0.0]))


# -- gradient checks on a tiny model ---------------------------------------------------------------
@pytest.fixture(scope="module")
def setup():
    model, tok = tiny_policy(seed=4, hidden_size=32)
    model = model.double()
    eos = tok.eos_token_id
    batch = EpisodeBatch.from_token_lists(
        [tok.encode(p) for p in ["1+2=", "7+7=", "0+0=", "12+5="]],
        [tok.encode(c) + [eos] for c in ["3", "14x", "0", "17"]], [1.0, 0.0, 1.0, 0.0],
        pad_token_id=tok.pad_token_id, eos_token_id=eos)
    with torch.no_grad():
        logp = completion_logprobs(model, batch.prompt_ids, batch.prompt_mask, batch.completion_ids,
                                   batch.completion_mask).logprobs.double()
    gen = torch.Generator().manual_seed(0)
    shift = (torch.rand(logp.shape, generator=gen, dtype=torch.float64) - 0.5) * 0.8   # ratios in ~[0.67, 1.5]
    old = (logp - shift) * batch.completion_mask
    adv = torch.tensor([[1.0], [-1.0], [0.5], [-0.7]], dtype=torch.float64) * batch.completion_mask
    return model, batch, old, adv


def our_loss(model, batch, old, adv, name, mode, **kw):
    logp = completion_logprobs(model, batch.prompt_ids, batch.prompt_mask, batch.completion_ids,
                               batch.completion_mask).logprobs.double()
    out = losses.get(name)(logp, old, adv, batch.completion_mask, **kw)
    return losses.aggregate(out.loss, batch.completion_mask, mode), logp


def explicit_weights(name, logp, old, adv, mask, clip_low, clip_high):
    """dL/dlogp_{i,t} derived by hand for each loss + aggregation."""
    m = mask.double()
    n_i = m.sum(1, keepdim=True)
    B, N = m.shape[0], m.sum()
    r = torch.exp(logp - old)
    if name == "ppo_token_mean":  # PPO-clip, token-mean: -A r / N where the clip is inactive
        active = ((adv > 0) & (r > 1 + clip_high)) | ((adv < 0) & (r < 1 - clip_low))
        return torch.where(active, 0.0, -adv * r / N) * m
    if name == "grpo":  # PPO-clip, per-sequence token mean: -A r / (B n_i)
        active = ((adv > 0) & (r > 1 + clip_high)) | ((adv < 0) & (r < 1 - clip_low))
        return torch.where(active, 0.0, -adv * r / (B * n_i)) * m
    if name == "gspo":  # L = mean_i max(-A s_i, -A clip(s_i)), s_i = exp(mean_t log r): dL/dlogp_t = -A s_i / (B n_i)
        s = torch.exp(((logp - old) * m).sum(1, keepdim=True) / n_i)
        a = adv[:, :1]
        active = ((a > 0) & (s > 1 + clip_high)) | ((a < 0) & (s < 1 - clip_low))
        return torch.where(active, 0.0, -a * s / (B * n_i)) * m
    if name == "cispo":  # -sg(min(r, cap)) A / N
        return -torch.clamp(r, max=clip_high) * adv / N * m
    raise AssertionError(name)


@pytest.mark.parametrize("case", [
    ("ppo_token_mean", "ppo", "token_mean", {"clip_low": 0.2, "clip_high": 0.2}),
    ("grpo", "ppo", "seq_mean_token_mean", {"clip_low": 0.2, "clip_high": 0.2}),
    ("gspo", "gspo", "seq_mean_token_mean", {"clip_low": 0.05, "clip_high": 0.1}),
    ("cispo", "cispo", "token_mean", {"clip_max": 1.2}),
])
def test_parameter_gradient_equals_explicit_formula(setup, case):
    model, batch, old, adv = setup
    label, name, mode, kw = case
    loss, logp = our_loss(model, batch, old, adv, name, mode, **kw)
    params = list(model.parameters())
    ours = torch.autograd.grad(loss, params, retain_graph=True)
    clip_low, clip_high = kw.get("clip_low", 0.0), kw.get("clip_high", kw.get("clip_max"))
    weights = explicit_weights(label, logp.detach(), old, adv, batch.completion_mask, clip_low, clip_high)
    mask = batch.completion_mask.bool()
    if label == "cispo":  # the cap must bind somewhere for the test to mean something
        assert (torch.exp(logp.detach() - old)[mask] > clip_high).any()
    else:  # some tokens sit in the clipped (zero-gradient) region, others do not
        assert (weights[mask] == 0).any() and (weights[mask] != 0).any()
    reference = torch.autograd.grad((weights * logp).sum(), params)
    for a, b in zip(ours, reference, strict=True):
        torch.testing.assert_close(a, b, atol=1e-10, rtol=1e-7)


@pytest.mark.parametrize("name,mode,kw", [("ppo", "seq_mean_token_mean", {}),
                                          ("gspo", "seq_mean_token_mean", {"clip_low": 0.05, "clip_high": 0.1})])
def test_head_gradient_matches_finite_differences(setup, name, mode, kw):
    """Central differences along a random unit direction of the (untied) LM head, all in float64.

    The head is the part computed in float64 end to end (the tiny Llama's RMSNorm rounds to
    float32, which would drown a finite difference taken through the backbone). CISPO is left to
    the explicit-formula test: its detached weight makes its gradient differ from the derivative
    of its value by design.
    """
    model, batch, old, adv = setup
    model = copy.deepcopy(model)
    model.lm_head.weight = torch.nn.Parameter(model.lm_head.weight.detach().clone())
    head = model.lm_head.weight
    direction = torch.randn(head.shape, generator=torch.Generator().manual_seed(1), dtype=head.dtype)
    direction /= direction.norm()
    loss, _ = our_loss(model, batch, old, adv, name, mode, **kw)
    (grad,) = torch.autograd.grad(loss, [head])
    analytic = float((grad * direction).sum())
    eps = 1e-6
    with torch.no_grad():
        head.add_(eps * direction)
        plus = float(our_loss(model, batch, old, adv, name, mode, **kw)[0])
        head.sub_(2 * eps * direction)
        minus = float(our_loss(model, batch, old, adv, name, mode, **kw)[0])
    numeric = (plus - minus) / (2 * eps)
    assert abs(analytic) > 1e-4
    assert math.isclose(analytic, numeric, rel_tol=1e-6, abs_tol=1e-10), (analytic, numeric)

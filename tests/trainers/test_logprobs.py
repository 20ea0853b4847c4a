import pytest
import torch

from rlenv.inference.policy import HFGenerator, SamplingConfig
from rlenv.trainers.batch import EpisodeBatch
from rlenv.trainers.logprobs import (
    batch_logprobs,
    completion_logprobs,
    entropy_from_logits,
    selective_log_softmax,
    sequence_logprobs,
)
from tests.trainers.trainer_helpers import tiny_policy


@pytest.fixture(scope="module")
def policy():
    return tiny_policy(seed=1)


def ragged_batch(tok):
    prompts = ["1+2=", "13+44=", "7"]
    completions = ["3", "57x", "abcd"]
    eos = tok.eos_token_id
    return prompts, completions, EpisodeBatch.from_token_lists(
        [tok.encode(p) for p in prompts], [tok.encode(c) + [eos] for c in completions], [0.0] * 3,
        pad_token_id=tok.pad_token_id, eos_token_id=eos)


def unpadded_reference(model, tok, prompt, completion, temperature):
    ids = torch.tensor([tok.encode(prompt) + tok.encode(completion) + [tok.eos_token_id]])
    logp = torch.log_softmax(model(ids).logits[0].float() / temperature, -1)
    P = len(tok.encode(prompt))
    return torch.stack([logp[P - 1 + t, ids[0, P + t]] for t in range(ids.shape[1] - P)])


@pytest.mark.parametrize("fused", [True, False])
def test_left_padded_logprobs_equal_unpadded_forward(policy, fused):
    model, tok = policy
    prompts, completions, b = ragged_batch(tok)
    out = completion_logprobs(model, b.prompt_ids, b.prompt_mask, b.completion_ids, b.completion_mask,
                              temperature=0.7, chunk_size=3, fused_head=fused)
    for i, (p, c) in enumerate(zip(prompts, completions, strict=True)):
        ref = unpadded_reference(model, tok, p, c, 0.7)
        n = len(ref)
        torch.testing.assert_close(out.logprobs[i, :n], ref, atol=1e-5, rtol=0)
        assert torch.all(out.logprobs[i, n:] == 0)


def test_chunked_gradient_and_entropy_equal_naive(policy):
    model, tok = policy
    _, _, b = ragged_batch(tok)
    args = (model, b.prompt_ids, b.prompt_mask, b.completion_ids, b.completion_mask)
    fused = completion_logprobs(*args, temperature=1.3, chunk_size=2, with_entropy=True)
    naive = completion_logprobs(*args, temperature=1.3, with_entropy=True, fused_head=False)
    torch.testing.assert_close(fused.entropy, naive.entropy, atol=1e-5, rtol=0)
    params = [p for p in model.parameters()]
    objective = lambda o: (o.logprobs * torch.linspace(-1, 1, o.logprobs.numel()).view_as(o.logprobs)).sum() + o.entropy.sum()  # noqa: E731
    g_fused = torch.autograd.grad(objective(fused), params)
    g_naive = torch.autograd.grad(objective(naive), params)
    for a, c in zip(g_fused, g_naive, strict=True):
        torch.testing.assert_close(a, c, atol=2e-5, rtol=1e-4)


def test_selective_log_softmax_matches_log_softmax_in_bf16_and_fp32():
    torch.manual_seed(0)
    logits = torch.randn(3, 5, 50) * 4
    index = torch.randint(0, 50, (3, 5))
    for dtype in (torch.float32, torch.bfloat16):
        x = logits.to(dtype)
        ref = torch.log_softmax(x.float(), -1).gather(-1, index.unsqueeze(-1)).squeeze(-1)
        torch.testing.assert_close(selective_log_softmax(x, index, chunk_size=4), ref)
    p = torch.softmax(logits, -1)
    torch.testing.assert_close(entropy_from_logits(logits, chunk_size=7), -(p * p.log()).sum(-1))


def test_sampler_logprobs_match_trainer_at_temperature(policy):
    """trl #4159: at T != 1 the sampler's and the trainer's log-probs must agree on the same weights."""
    model, tok = policy
    torch.manual_seed(3)
    gen = HFGenerator(model, tok, SamplingConfig(max_new_tokens=8, temperature=0.6))(["1+2=", "30+4=", "9"] * 2)
    out = completion_logprobs(model, gen.prompt_ids, gen.prompt_mask, gen.completion_ids, gen.completion_mask,
                              temperature=0.6)
    assert gen.logprobs is not None and gen.completion_mask.sum() > 6
    torch.testing.assert_close(out.logprobs, gen.logprobs, atol=1e-4, rtol=0)


def test_sequence_and_batch_logprobs(policy):
    model, tok = policy
    _, _, b = ragged_batch(tok)
    per_token = batch_logprobs(model, b, micro_batch_size=2)
    total = sequence_logprobs(model, b.prompt_ids, b.prompt_mask, b.completion_ids, b.completion_mask)
    torch.testing.assert_close(per_token.sum(1), total, atol=1e-5, rtol=0)
    avg = sequence_logprobs(model, b.prompt_ids, b.prompt_mask, b.completion_ids, b.completion_mask, average=True)
    torch.testing.assert_close(avg, total / b.lengths, atol=1e-6, rtol=0)


def test_empty_prompt_and_unsupported_logit_scale_raise(policy):
    model, tok = policy
    _, _, b = ragged_batch(tok)
    with pytest.raises(ValueError, match="at least one real token"):
        completion_logprobs(model, b.prompt_ids[:, :0], b.prompt_mask[:, :0], b.completion_ids, b.completion_mask)
    model.config.logit_scale = 0.5
    try:
        with pytest.raises(NotImplementedError, match="fused_head=False"):
            completion_logprobs(model, b.prompt_ids, b.prompt_mask, b.completion_ids, b.completion_mask)
    finally:
        del model.config.logit_scale

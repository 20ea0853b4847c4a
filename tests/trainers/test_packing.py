"""Sequence packing: a packed micro-batch gives the padded one's log-probs, entropies and losses (fp32, CPU),
and token-budget micro-batches give the same update as episode-count ones."""

import random

import pytest
import torch

from rlenv.trainers import EpisodeBatch, Trainer
from rlenv.trainers.logprobs import completion_logprobs
from rlenv.trainers.packing import pack, token_budget_batches
from tests.trainers.test_distributed import global_batch
from tests.trainers.trainer_helpers import tiny_policy

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def varied_batch(tok, n=12, seed=0):
    """Episodes of prompt lengths 1-20 and completion lengths 1-30, random characters."""
    rng = random.Random(seed)
    alphabet = "0123456789+-=abcxyz "
    prompts = [tok.encode("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 20)))) for _ in range(n)]
    completions = [tok.encode("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 29)))) + [tok.eos_token_id]
                   for _ in range(n)]
    return EpisodeBatch.from_token_lists(prompts, completions, [float(rng.random() > 0.5) for _ in range(n)],
                                         [i // 2 for i in range(n)], pad_token_id=tok.pad_token_id,
                                         eos_token_id=tok.eos_token_id)


def outputs(model, batch, packed):
    return completion_logprobs(model, batch.prompt_ids, batch.prompt_mask, batch.completion_ids, batch.completion_mask,
                               with_entropy=True, with_hidden=True, packed=packed)


def test_packed_logprobs_entropies_and_hidden_states_equal_the_padded_ones():
    model, tok = tiny_policy(seed=0, hidden_size=32)
    batch = varied_batch(tok)
    padded, packed = outputs(model, batch, False), outputs(model, batch, True)
    mask = batch.completion_mask.bool()
    assert float(padded.logprobs[mask].abs().min()) > 0  # real log-probs, not zeros
    for name in ("logprobs", "entropy"):
        torch.testing.assert_close(getattr(packed, name), getattr(padded, name), atol=1e-5, rtol=0, msg=name)
    torch.testing.assert_close(packed.hidden[mask], padded.hidden[mask], atol=1e-5, rtol=0)  # padding: unused


def test_packed_episodes_do_not_attend_to_each_other():
    """Control for the test above: the sequence boundaries come from the restarting position ids. The same
    row as one sequence (positions 0..N-1, so one causal mask over all of it) gives the first episode's
    hidden states and other ones for every episode after it."""
    model, tok = tiny_policy(seed=0, hidden_size=32)
    batch = varied_batch(tok, n=3)
    packed = pack(batch.prompt_ids, batch.prompt_mask, batch.completion_ids, batch.completion_mask)
    separate = model.model(input_ids=packed.input_ids, position_ids=packed.position_ids).last_hidden_state[0]
    one_sequence = torch.arange(packed.input_ids.shape[1]).unsqueeze(0)
    joined = model.model(input_ids=packed.input_ids, position_ids=one_sequence).last_hidden_state[0]
    first_end = int(batch.prompt_mask[0].sum() + batch.completion_mask[0].sum())
    torch.testing.assert_close(separate[:first_end], joined[:first_end], atol=1e-5, rtol=0)
    assert float((separate[first_end:] - joined[first_end:]).abs().max()) > 1e-3  # 100x the tolerance above


@pytest.mark.parametrize("algorithm", ["grpo", "reinforce_pp", "ppo"])
def test_a_packed_update_equals_the_padded_update(algorithm):
    results = {}
    for packed in (False, True):
        model, tok = tiny_policy(seed=0, hidden_size=32)
        config = dict(optimizer="sgd", lr=0.5, max_grad_norm=None, micro_batch_size=4, progress=False,
                      max_new_tokens=30, pack_sequences=packed, critic_backbone="shared")
        trainer = Trainer(model, None, algorithm, config=config, tokenizer=tok)
        metrics = trainer.update(varied_batch(tok))
        results[packed] = ({k: v.detach().clone() for k, v in model.named_parameters()}, metrics)
    (padded, padded_metrics), (packed, packed_metrics) = results[False], results[True]
    initial = tiny_policy(seed=0, hidden_size=32)[0].state_dict()
    assert max(float((padded[k] - initial[k]).abs().max()) for k in padded) > 1e-3  # the update moved
    for name, value in padded.items():
        torch.testing.assert_close(packed[name], value, atol=1e-5, rtol=1e-5, msg=name)
    for key in ("loss/policy", "loss/total", "entropy"):
        assert packed_metrics[key] == pytest.approx(padded_metrics[key], abs=1e-5), key


def test_token_budget_micro_batches_give_the_episode_count_update():
    results = []
    for budget in (None, 40):
        model, tok = tiny_policy(seed=0, hidden_size=32)
        config = dict(optimizer="sgd", lr=0.5, max_grad_norm=None, micro_batch_size=12, progress=False,
                      max_new_tokens=30, micro_batch_tokens=budget, pack_sequences=budget is not None)
        Trainer(model, None, "grpo", config=config, tokenizer=tok).update(varied_batch(tok))
        results.append({k: v.detach().clone() for k, v in model.named_parameters()})
    for name, value in results[0].items():
        torch.testing.assert_close(results[1][name], value, atol=1e-5, rtol=1e-5, msg=name)


def test_token_budget_batches_fill_up_to_the_budget():
    rows = token_budget_batches(torch.tensor([5, 5, 3, 9, 20, 1, 1]), 10)
    assert [r.tolist() for r in rows] == [[0, 1], [2], [3], [4], [5, 6]]
    with pytest.raises(ValueError, match="max_tokens must be >= 1, got 0"):
        token_budget_batches(torch.tensor([1]), 0)


def test_pack_refuses_padding_inside_a_completion():
    tok = tiny_policy(hidden_size=32)[1]
    batch = global_batch(tok)
    holed = batch.completion_mask.clone()
    holed[0, 0] = 0
    with pytest.raises(ValueError, match="right-padded prefixes"):
        pack(batch.prompt_ids, batch.prompt_mask, batch.completion_ids, holed)

"""Off-policy corrections: weights pinned against hand-computed values, and their effect on a real update."""

import math

import pytest
import torch

from rlenv.trainers import EpisodeBatch, Trainer, TrainerConfig, batch_logprobs
from rlenv.trainers.policy_gradient import corrections
from tests.trainers.trainer_helpers import tiny_policy

pytestmark = pytest.mark.usefixtures("one_torch_thread")

#: Token ratios rho_t = pi_trainer / pi_sampler: row 0 (3, 1/4, padding), row 1 (2, 1.5, 1).
RATIOS = [[3.0, 0.25, 1.0], [2.0, 1.5, 1.0]]
MASK = torch.tensor([[1, 1, 0], [1, 1, 1]])


def weights(name, low, high):
    sampler = torch.full((2, 3), -1.0)
    trainer = sampler + torch.log(torch.tensor(RATIOS))
    return corrections.correct(name, trainer, sampler, MASK, low=low, high=high)


# row 0's sequence ratio is 3 * 1/4 = 0.75; row 1's is 2 * 1.5 * 1 = 3
@pytest.mark.parametrize("name, low, high, expected, masked, truncated", [
    ("tis", 0.0, 2.0, [[2.0, 0.25, 0.0], [2.0, 1.5, 1.0]], [], [(0, 0)]),
    ("token_mask", 0.5, 5.0, [[3.0, 0.0, 0.0], [2.0, 1.5, 1.0]], [(0, 1)], []),
    ("token_mask", 0.5, 1.8, [[0.0, 0.0, 0.0], [0.0, 1.5, 1.0]], [(0, 0), (0, 1), (1, 0)], []),
    ("sequence_tis", 0.0, 2.0, [[0.75, 0.75, 0.0], [2.0, 2.0, 2.0]], [], [(1, 0), (1, 1), (1, 2)]),
    ("sequence_mask", 0.5, 2.0, [[0.75, 0.75, 0.0], [0.0, 0.0, 0.0]], [(1, 0), (1, 1), (1, 2)], []),
])
def test_correction_weights_match_hand_computed_values(name, low, high, expected, masked, truncated):
    result = weights(name, low, high)
    torch.testing.assert_close(result.weight, torch.tensor(expected), rtol=1e-6, atol=1e-6)
    assert sorted(map(tuple, result.masked.nonzero().tolist())) == masked
    assert sorted(map(tuple, result.truncated.nonzero().tolist())) == truncated
    stats = corrections.statistics(name, result, MASK)
    assert stats["rollout/masked_frac"] == (len(masked), 5.0)
    assert stats["rollout/truncated_frac"] == (len(truncated), 5.0)
    assert stats[f"rollout/{name}_weight"][0] == pytest.approx(sum(map(sum, expected)), rel=1e-6)
    assert stats["rollout/ratio_mean"][0] == pytest.approx(3.0 + 0.25 + 2.0 + 1.5 + 1.0, rel=1e-6)


def test_defaults_and_validation_name_the_bad_value():
    assert TrainerConfig().active_correction() is None
    assert TrainerConfig(tis_cap=1.5).active_correction() == "tis"
    assert TrainerConfig(tis_cap=1.5).correction_band() == (0.0, 1.5)
    assert TrainerConfig(async_rollouts=True, max_staleness=0).active_correction() is None
    assert TrainerConfig(async_rollouts=True, max_staleness=2).active_correction() == "tis"
    assert TrainerConfig(async_rollouts=True, correction="none").active_correction() is None
    assert TrainerConfig(correction="token_mask").correction_band() == (0.5, 5.0)
    assert TrainerConfig(correction="sequence_mask", correction_high=3.0).correction_band() == (0.5, 3.0)
    with pytest.raises(ValueError, match="correction must be one of .* got 'icepop'"):
        TrainerConfig(correction="icepop")
    with pytest.raises(ValueError, match="tis_cap=2.0 is the cap of the 'tis' correction, but correction='token_mask'"):
        TrainerConfig(tis_cap=2.0, correction="token_mask")
    with pytest.raises(ValueError, match="correction_low=1.2"):
        TrainerConfig(correction="token_mask", correction_low=1.2)


def sgd_update(model, tok, batch, **config):
    """Parameters and metrics after one SGD step of GRPO on ``batch``."""
    trainer = Trainer(model, None, "grpo", config=dict(num_tasks=2, group_size=2, lr=0.5, optimizer="sgd",
                                                       max_grad_norm=None, progress=False, **config), tokenizer=tok)
    metrics = trainer.update(batch)
    return {k: v.detach().clone() for k, v in model.named_parameters()}, metrics


def test_a_correction_weighs_the_real_update():
    """A sampler that gave every token half the trainer's probability (ratio 2): masking outside [0.5, 1.8]
    drops every token (no update), the mask of [0.5, 5] weighs each by 2 (twice the plain update)."""
    model, tok = tiny_policy(seed=3)
    start = {k: v.detach().clone() for k, v in model.named_parameters()}
    eos = tok.eos_token_id
    batch = EpisodeBatch.from_token_lists([tok.encode("1+2=")] * 2 + [tok.encode("2+2=")] * 2,
                                          [tok.encode(t) + [eos] for t in ("3", "12", "4", "5")], [1.0, 0.0, 1.0, 0.0],
                                          group_ids=[0, 0, 1, 1], pad_token_id=tok.pad_token_id, eos_token_id=eos)
    ours = batch_logprobs(model, batch, micro_batch_size=4, temperature=1.0)
    sampled = batch.replace(rollout_logprobs=(ours - math.log(2.0)) * batch.completion_mask)

    def update(**config):
        model.load_state_dict(start, strict=False)
        return sgd_update(model, tok, sampled, **config)

    plain, _ = update(correction="none")
    none_kept, masked_metrics = update(correction="token_mask", correction_high=1.8)
    doubled, doubled_metrics = update(correction="token_mask")
    assert masked_metrics["rollout/masked_frac"] == 1.0 and doubled_metrics["rollout/masked_frac"] == 0.0
    assert doubled_metrics["rollout/token_mask_weight"] == pytest.approx(2.0, rel=1e-4)
    assert doubled_metrics["rollout/ratio_mean"] == pytest.approx(2.0, rel=1e-4)
    assert any(not torch.equal(plain[k], start[k]) for k in start)
    for key in start:
        torch.testing.assert_close(none_kept[key], start[key], atol=0, rtol=0)
        torch.testing.assert_close(doubled[key] - start[key], 2.0 * (plain[key] - start[key]), atol=1e-6, rtol=1e-4)

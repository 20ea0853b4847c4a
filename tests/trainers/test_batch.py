import pytest
import torch

from rlenv import StepReward
from rlenv.trainers.batch import EpisodeBatch, outcome_token_rewards, step_rewards_to_tokens
from tests.trainers.trainer_helpers import tiny_policy

EOS, PAD = 2, 0


def make_batch(**kw):
    return EpisodeBatch.from_token_lists(
        [[5, 6], [7], [8, 9, 10]], [[11, EOS, 12], [13, 14, 15, 16], [EOS]], [1.0, 0.0, 0.5], [0, 0, 1],
        pad_token_id=PAD, eos_token_id=EOS, **kw)


def test_from_token_lists_pads_and_masks_up_to_first_eos():
    b = make_batch()
    assert b.prompt_ids.tolist() == [[PAD, 5, 6], [PAD, PAD, 7], [8, 9, 10]]
    assert b.prompt_mask.tolist() == [[0, 1, 1], [0, 0, 1], [1, 1, 1]]
    assert b.completion_ids.tolist() == [[11, EOS, PAD, PAD], [13, 14, 15, 16], [EOS, PAD, PAD, PAD]]
    assert b.completion_mask.tolist() == [[1, 1, 0, 0], [1, 1, 1, 1], [1, 0, 0, 0]]
    assert b.truncated.tolist() == [False, True, False]
    assert b.lengths.tolist() == [2, 4, 1]
    assert b.num_tokens == 7


def test_pad_equal_to_eos_keeps_the_real_eos_in_the_mask():
    b = EpisodeBatch.from_token_lists([[5]], [[11, EOS]], [1.0], pad_token_id=EOS, eos_token_id=EOS)
    assert b.completion_mask.tolist() == [[1, 1]]


def test_select_split_concat_trim_round_trip():
    b = make_batch(infos={"status": ["a", "b", "c"]})
    parts = b.split(2)
    assert [len(p) for p in parts] == [2, 1]
    assert parts[1].infos["status"] == ["c"]
    joined = EpisodeBatch.concat([p.trim() for p in parts], pad_token_id=PAD)
    assert torch.equal(joined.completion_ids, b.completion_ids)
    assert torch.equal(joined.prompt_ids, b.prompt_ids)
    assert joined.group_ids.tolist() == [0, 0, 1]
    picked = b.select(torch.tensor([False, True, True]))
    assert picked.rewards.tolist() == [0.0, 0.5] and picked.infos["status"] == ["b", "c"]
    trimmed = b.select([2]).trim()
    assert trimmed.completion_ids.shape == (1, 1) and trimmed.prompt_ids.shape == (1, 3)


def test_validate_names_the_bad_field():
    b = make_batch()
    with pytest.raises(ValueError, match="rewards"):
        b.replace(rewards=torch.zeros(2))
    with pytest.raises(ValueError, match="old_logprobs"):
        b.replace(old_logprobs=torch.zeros(3, 2))


def test_outcome_token_rewards_on_last_valid_token_plus_dense():
    mask = torch.tensor([[1, 1, 0], [1, 1, 1], [0, 0, 0]])
    dense = torch.tensor([[0.5, 0.0, 9.0], [0.0, 0.25, 0.0], [1.0, 1.0, 1.0]])
    out = outcome_token_rewards(torch.tensor([1.0, 2.0, 3.0]), mask, dense)
    assert out.tolist() == [[0.5, 1.0, 0.0], [0.0, 0.25, 2.0], [0.0, 0.0, 0.0]]


def test_step_rewards_land_on_step_end_tokens():
    _, tok = tiny_policy()
    text = "ab\ncd\nef"
    ids = torch.tensor([tok(text, add_special_tokens=False)["input_ids"] + [tok.eos_token_id]])
    mask = torch.ones_like(ids)
    steps = [StepReward(0.5, 0, 3), StepReward(-1.0, 3, 6), StepReward(2.0, 6, 8)]
    out = step_rewards_to_tokens(tok, ids, mask, [steps])
    expected = torch.zeros(1, 9)
    expected[0, 2], expected[0, 5], expected[0, 7] = 0.5, -1.0, 2.0
    assert torch.equal(out, expected)

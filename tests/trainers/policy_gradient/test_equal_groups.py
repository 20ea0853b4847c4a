"""A group whose rewards are all equal gets exactly zero advantage, also when the rewards are not
representable in float32 (0.1, 0.7, 1.1, 1.0 + 0.1): GRPO's ``(r - mean) / (std + eps)`` would
otherwise turn one ulp of rounding into a large advantage for every member."""

import pytest
import torch

from rlenv.trainers import ALGORITHMS
from rlenv.trainers.policy_gradient import advantages as adv
from rlenv.trainers.policy_gradient.advantages import zero_variance_groups

#: Presets whose estimator has a per-group baseline (GAE uses a critic; REINFORCE++ a batch one).
GROUP_PRESETS = sorted(name for name, a in ALGORITHMS.items() if a.advantage in ("grpo", "rloo", "reinforce_pp_baseline"))
VALUES = [0.1, 0.7, 1.1, float(torch.tensor(1.0) + torch.tensor(0.1)), 1 / 3]


def batch(value: float, size: int, length: int = 3):
    """One group of ``size`` equal rewards followed by a group with a learning signal."""
    rewards = torch.tensor([value] * size + [0.0, 1.0, 0.25], dtype=torch.float32)
    group_ids = torch.tensor([7] * size + [9, 9, 9])
    mask = torch.ones(len(rewards), length)
    return rewards, mask, group_ids


def test_group_presets_cover_the_group_estimators():
    assert {"grpo", "dr_grpo", "dapo", "gspo", "cispo", "rloo", "reinforce_pp_baseline"} <= set(GROUP_PRESETS)


@pytest.mark.parametrize("preset", GROUP_PRESETS)
@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize("size", range(2, 17))
def test_equal_group_gets_exactly_zero(preset, value, size):
    algorithm = ALGORITHMS[preset]
    rewards, mask, group_ids = batch(value, size)
    advantages, _ = adv.get(algorithm.advantage)(rewards, mask, group_ids, **algorithm.advantage_kwargs)
    equal = zero_variance_groups(rewards, group_ids)
    assert equal.sum() == size
    assert torch.equal(advantages[equal], torch.zeros_like(advantages[equal]))
    assert advantages[~equal].abs().sum() > 0  # the other group still learns


@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize("scale", ["group", "batch", "none"])
def test_token_level_rewards_of_an_equal_group(value, scale):
    """Token-level rewards that sum to the same score in every member count as equal too."""
    token = torch.zeros(4, 3)
    token[:, -1] = value
    token[2:, -1] = torch.tensor([0.0, 1.0])
    advantages, _ = adv.get("grpo")(token, torch.ones(4, 3), torch.tensor([0, 0, 1, 1]), scale=scale)
    assert torch.equal(advantages[:2], torch.zeros(2, 3))


@pytest.mark.parametrize("estimator", ["reinforce_pp", "reinforce_pp_baseline"])
@pytest.mark.parametrize("value", VALUES)
def test_whitening_a_batch_of_equal_rewards_gives_zeros(estimator, value):
    rewards = torch.full((6,), value)
    advantages, _ = adv.get(estimator)(rewards, torch.ones(6, 4), torch.tensor([0, 0, 0, 1, 1, 1]))
    assert torch.equal(advantages, torch.zeros(6, 4))


def test_rounding_would_have_leaked_without_the_exact_rule():
    """The failure this guards against is real: float32 group means of such rewards are off."""
    rewards = torch.full((11,), 0.1, dtype=torch.float32)
    mean = torch.zeros(1).index_add(0, torch.zeros(11, dtype=torch.long), rewards) / 11  # a float32 group sum
    std = (((rewards - mean) ** 2).sum() / 10).sqrt()
    assert std > 0 and ((rewards - mean) / (std + 1e-6)).abs().max() > 0.01

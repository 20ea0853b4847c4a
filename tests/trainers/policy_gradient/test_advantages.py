"""Advantage estimators pinned to shared/reference/trainers.md §4 (trainer_refcases.py)."""

import pytest
import torch

from rlenv.trainers.policy_gradient import advantages
from rlenv.trainers.policy_gradient.advantages import group_stats, masked_whiten, overlong_penalty

ONE_GROUP = torch.tensor([0.0, 0.0, 1.0, 0.0])
GROUP_IDS = torch.zeros(4, dtype=torch.long)


def lengths_mask(lengths, T=None):
    T = T or max(lengths)
    return (torch.arange(T).unsqueeze(0) < torch.tensor(lengths).unsqueeze(1)).long()


def per_seq(adv):
    return adv[:, 0]


def test_registry_lists_every_estimator_and_names_unknown_ones():
    assert {"gae", "grpo", "reinforce", "reinforce_pp", "reinforce_pp_baseline", "rloo"} <= set(advantages.names())
    with pytest.raises(KeyError, match="registered"):
        advantages.get("nope")
    with pytest.raises(ValueError, match="already registered"):
        advantages.register("grpo")(lambda *a: a)


@pytest.mark.parametrize("lengths", [[1, 1, 1, 1], [3, 2, 4, 1]])
def test_group_estimators_on_one_group(lengths):
    mask = lengths_mask(lengths)
    grpo = advantages.get("grpo")
    adv, returns = grpo(ONE_GROUP, mask, GROUP_IDS, eps=0.0)
    torch.testing.assert_close(per_seq(adv), torch.tensor([-0.5, -0.5, 1.5, -0.5]))
    assert torch.all(adv[mask == 0] == 0) and torch.all(adv == per_seq(adv).unsqueeze(1) * mask)
    torch.testing.assert_close(per_seq(returns), ONE_GROUP)
    adv, _ = grpo(ONE_GROUP, mask, GROUP_IDS)  # default eps=1e-6, as verl
    torch.testing.assert_close(per_seq(adv), torch.tensor([-0.499999, -0.499999, 1.499997, -0.499999]), atol=1e-6,
                               rtol=0)
    adv, _ = grpo(ONE_GROUP, mask, GROUP_IDS, scale="none")
    torch.testing.assert_close(per_seq(adv), torch.tensor([-0.25, -0.25, 0.75, -0.25]))
    adv, _ = advantages.get("rloo")(ONE_GROUP, mask, GROUP_IDS)
    torch.testing.assert_close(per_seq(adv), torch.tensor([-1 / 3, -1 / 3, 1.0, -1 / 3]))


@pytest.mark.parametrize("lengths,expected", [
    ([1, 1, 1, 1], [-0.577350, -0.577350, 1.732051, -0.577350]),
    ([2, 2, 2, 2], [-0.577350, -0.577350, 1.732051, -0.577350]),
    ([3, 2, 4, 1], [-0.816497, -0.816497, 1.224745, -0.816497]),
])
def test_reinforce_pp_baseline_whitens_over_tokens(lengths, expected):
    mask = lengths_mask(lengths)
    adv, _ = advantages.get("reinforce_pp_baseline")(ONE_GROUP, mask, GROUP_IDS)
    torch.testing.assert_close(per_seq(adv), torch.tensor(expected), atol=1e-6, rtol=0)


@pytest.mark.parametrize("lengths,expected", [
    ([2, 2, 2, 2], [-0.540062, -0.540062, 1.620185, -0.540062]),
    ([3, 2, 4, 1], [-0.774597, -0.774597, 1.161895, -0.774597]),
])
def test_reinforce_pp_baseline_unbiased_matches_verl(lengths, expected):
    adv, _ = advantages.get("reinforce_pp_baseline")(ONE_GROUP, lengths_mask(lengths), GROUP_IDS, unbiased=True)
    torch.testing.assert_close(per_seq(adv), torch.tensor(expected), atol=1e-6, rtol=0)


def test_grpo_batch_scale_uses_global_std_and_group_means():
    rewards = torch.tensor([0.0, 1.0, 2.0, 4.0])
    groups = torch.tensor([0, 0, 1, 1])
    adv, _ = advantages.get("grpo")(rewards, torch.ones(4, 2), groups, scale="batch", eps=0.0)
    std = rewards.std()  # unbiased over the batch
    torch.testing.assert_close(per_seq(adv), torch.tensor([-0.5, 0.5, -1.0, 1.0]) / std)
    with pytest.raises(ValueError, match="scale"):
        advantages.get("grpo")(rewards, torch.ones(4, 2), groups, scale="True")


def test_zero_variance_and_singleton_groups_give_zero_not_nan():
    rewards = torch.tensor([1.0, 1.0, 1.0, 1.0, 0.7])
    groups = torch.tensor([0, 0, 0, 0, 1])
    mask = torch.ones(5, 3)
    for name, kwargs in [("grpo", {}), ("grpo", {"scale": "none"}), ("grpo", {"scale": "batch"}), ("rloo", {}),
                         ("reinforce_pp_baseline", {})]:
        adv, returns = advantages.get(name)(rewards, mask, groups, **kwargs)
        assert torch.isfinite(adv).all() and torch.isfinite(returns).all(), name
        assert torch.all(adv[:4] == 0), name
        if name != "grpo" or kwargs.get("scale") != "batch":
            assert torch.all(adv[4] == 0), name


def test_gae_reference_cases():
    rewards = torch.tensor([[0.0, 0.0, 1.0]])
    values = torch.tensor([[0.5, 0.6, 0.7]])
    mask = torch.ones(1, 3)
    gae = advantages.get("gae")
    cases = [
        (1.0, 0.95, [0.46575, 0.385, 0.3], [0.96575, 0.985, 1.0], [0.991344, 0.017092, -1.008436]),
        (1.0, 1.0, [0.5, 0.4, 0.3], [1.0, 1.0, 1.0], [1.0, 0.0, -1.0]),
        (0.99, 0.95, [0.446829, 0.37515, 0.3], [0.946829, 0.97515, 1.0], [0.992026, 0.015760, -1.007786]),
    ]
    for gamma, lam, raw, ret, whitened in cases:
        adv, returns = gae(rewards, mask, None, values=values, gamma=gamma, lam=lam, whiten=False)
        torch.testing.assert_close(adv[0], torch.tensor(raw), atol=1e-6, rtol=0)
        torch.testing.assert_close(returns[0], torch.tensor(ret), atol=1e-6, rtol=0)
        adv, _ = gae(rewards, mask, None, values=values, gamma=gamma, lam=lam)
        torch.testing.assert_close(adv[0], torch.tensor(whitened), atol=1e-5, rtol=0)
    adv, _ = gae(rewards, mask, None, values=values, gamma=1.0, lam=0.95, unbiased=False)
    torch.testing.assert_close(adv[0], torch.tensor([1.214144, 0.020934, -1.235077]), atol=1e-5, rtol=0)
    # Outcome (B,) rewards go on the last valid token.
    adv, _ = gae(torch.tensor([1.0]), mask, None, values=values, gamma=1.0, lam=0.95, whiten=False)
    torch.testing.assert_close(adv[0], torch.tensor([0.46575, 0.385, 0.3]), atol=1e-6, rtol=0)


def test_gae_with_kl_shaped_rewards_and_masked_observation_tokens():
    token_rewards = torch.tensor([[-0.02, 0.01, 0.995]])
    adv, returns = advantages.get("gae")(token_rewards, torch.ones(1, 3), None,
                                         values=torch.tensor([[0.5, 0.6, 0.7]]), lam=0.95, whiten=False)
    torch.testing.assert_close(adv[0], torch.tensor([0.450737, 0.39025, 0.295]), atol=1e-6, rtol=0)
    torch.testing.assert_close(returns[0], torch.tensor([0.950737, 0.99025, 0.995]), atol=1e-6, rtol=0)
    # verl's multi-turn case: observation tokens (mask 0, value 9.0) must not matter.
    mask = torch.tensor([[1, 0, 0, 1]])
    adv, _ = advantages.get("gae")(torch.tensor([[0.0, 0.0, 0.0, 1.0]]), mask, None,
                                   values=torch.tensor([[0.5, 9.0, 9.0, 0.7]]), lam=0.95, whiten=False)
    torch.testing.assert_close(adv[0], torch.tensor([0.485, 0.0, 0.0, 0.3]), atol=1e-6, rtol=0)


def test_reinforce_pp_reference_cases():
    mask = torch.ones(2, 3)
    outcome = torch.tensor([1.0, 0.0])
    adv, returns = advantages.get("reinforce_pp")(outcome, mask, None)
    torch.testing.assert_close(returns, torch.tensor([[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]]))
    torch.testing.assert_close(adv, torch.tensor([[1.0] * 3, [-1.0] * 3]), atol=1e-6, rtol=0)
    adv, _ = advantages.get("reinforce_pp")(outcome, mask, None, unbiased=True)
    torch.testing.assert_close(adv, torch.tensor([[0.912871] * 3, [-0.912871] * 3]), atol=1e-6, rtol=0)
    kl = torch.tensor([[0.2, -0.1, 0.05], [0.0, 0.3, 0.1]])
    shaped = -0.1 * kl
    shaped[:, -1] += outcome
    adv, returns = advantages.get("reinforce_pp")(shaped, mask, None)
    torch.testing.assert_close(returns, torch.tensor([[0.985, 1.005, 0.995], [-0.04, -0.04, -0.01]]), atol=1e-6,
                               rtol=0)
    torch.testing.assert_close(adv.flatten(), torch.tensor([0.980239, 1.019254, 0.999746, -1.019254, -1.019254,
                                                            -0.960732]), atol=1e-5, rtol=0)
    adv, _ = advantages.get("reinforce_pp")(shaped, mask, None, unbiased=True)
    torch.testing.assert_close(adv.flatten(), torch.tensor([0.894832, 0.930447, 0.912639, -0.930447, -0.930447,
                                                            -0.877024]), atol=1e-5, rtol=0)
    adv, _ = advantages.get("reinforce")(outcome, mask, None, gamma=0.5)
    torch.testing.assert_close(adv, torch.tensor([[0.25, 0.5, 1.0], [0.0, 0.0, 0.0]]))


def test_helpers_group_stats_whitening_and_overlong_penalty():
    mean, std, count = group_stats(torch.tensor([1.0, 3.0, 5.0]), torch.tensor([7, 7, 2]))
    assert mean.tolist() == [2.0, 2.0, 5.0] and count.tolist() == [2.0, 2.0, 1.0]
    torch.testing.assert_close(std, torch.tensor([2.0 ** 0.5, 2.0 ** 0.5, 0.0]))
    x = torch.tensor([[1.0, 2.0, 100.0], [3.0, 0.0, 0.0]])
    m = torch.tensor([[1, 1, 0], [1, 0, 0]])
    w = masked_whiten(x, m, unbiased=True)
    assert w[0, 2] == 0 and w[1, 1] == 0
    torch.testing.assert_close(w[m.bool()], torch.tensor([-1.0, 0.0, 1.0]), atol=1e-6, rtol=0)
    penalty = overlong_penalty(torch.tensor([16000, 16384, 18432, 20480]), 20480, 4096)
    torch.testing.assert_close(penalty, torch.tensor([0.0, 0.0, -0.5, -1.0]))

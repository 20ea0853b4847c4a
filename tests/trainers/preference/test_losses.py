"""Preference losses pinned to values derived by hand, plus gradient checks for DPO and SimPO.

Every expected number is worked out in the comment beside it from the loss formula, using
sigma(x) = 1 / (1 + e^-x), so -log sigma(x) = log(1 + e^-x).
"""

import math

import pytest
import torch

from rlenv.trainers.preference.losses import (
    average_logps,
    dpo_loss,
    ipo_loss,
    kto_loss,
    kto_reference_point,
    log1mexp,
    orpo_loss,
    simpo_loss,
)


def t(*values):
    return torch.tensor(values, dtype=torch.float64)


# Two DPO pairs (beta = 0.5):
#   pair 0: chosen ratio -1 - (-1.5) = 0.5, rejected ratio -2 - (-1.5) = -0.5, h = 1, beta*h = 0.5
#   pair 1: chosen ratio -3 - (-2) = -1,   rejected ratio -1 - (-2) = 1,     h = -2, beta*h = -1
PC, PR, RC, RR = t(-1.0, -3.0), t(-2.0, -1.0), t(-1.5, -2.0), t(-1.5, -2.0)


def test_pref_dpo_reference_values():
    out = dpo_loss(PC, PR, RC, RR, beta=0.5)
    # log(1 + e^-0.5) = log(1.6065307) = 0.4740770 ; log(1 + e^1) = log(3.7182818) = 1.3132617
    torch.testing.assert_close(out.losses, t(0.4740770, 1.3132617), atol=1e-6, rtol=0)
    torch.testing.assert_close(out.chosen_rewards, t(0.25, -0.5))      # beta * chosen ratio
    torch.testing.assert_close(out.rejected_rewards, t(-0.25, 0.5))


def test_pref_dpo_label_smoothing_reference_value():
    # eps = 0.1, beta*h = 0.5: 0.9*log(1+e^-0.5) + 0.1*log(1+e^0.5);
    # log(1+e^0.5) = 0.5 + log(1+e^-0.5), so the loss is log(1+e^-0.5) + 0.1*0.5 = 0.5240770
    out = dpo_loss(PC[:1], PR[:1], RC[:1], RR[:1], beta=0.5, label_smoothing=0.1)
    torch.testing.assert_close(out.losses, t(0.5240770), atol=1e-6, rtol=0)


def test_pref_ipo_reference_values():
    # beta = 0.5 -> target gap 1/(2*beta) = 1. pair 0: h = 1 -> 0. pair 1: h = -2 -> (-3)^2 = 9.
    # pair 2: chosen ratio -1-(-1) = 0, rejected ratio -1.5-(-1) = -0.5, h = 0.5 -> (-0.5)^2 = 0.25
    pc, pr, rc, rr = torch.cat([PC, t(-1.0)]), torch.cat([PR, t(-1.5)]), torch.cat([RC, t(-1.0)]), torch.cat([RR, t(-1.0)])
    out = ipo_loss(pc, pr, rc, rr, beta=0.5)
    torch.testing.assert_close(out.losses, t(0.0, 9.0, 0.25))
    torch.testing.assert_close(out.chosen_rewards, t(0.25, -0.5, 0.0))


def test_pref_kto_reference_point():
    # differences [0.5, 0.5, -1.0] average to 0; [0.3, 0.5] average to 0.4; [-0.5] clamps to 0.
    assert kto_reference_point(t(-1.0, -2.0, -3.0), t(-1.5, -2.5, -2.0)).item() == pytest.approx(0.0, abs=1e-12)
    assert kto_reference_point(t(-1.0, -1.0), t(-1.3, -1.5)).item() == pytest.approx(0.4)
    assert kto_reference_point(t(-2.0), t(-1.5)).item() == 0.0
    policy = t(-1.0, -2.0).requires_grad_()
    assert not kto_reference_point(policy, t(-2.0, -2.0)).requires_grad


def test_pref_kto_reference_values():
    # beta = 0.5, z0 = 0.2, weights (desirable 1.0, undesirable 1.5)
    #   desirable, ratio 1.2:   1 - sigma(0.5*(1.2-0.2)) = 1 - sigma(0.5) = 1 - 0.6224593 = 0.3775407
    #   undesirable, ratio -0.8: 1.5*(1 - sigma(0.5*(0.2+0.8))) = 1.5*0.3775407 = 0.5663110
    #   desirable, ratio 0.2:   1 - sigma(0) = 0.5
    policy, ref = t(-1.0, -2.8, -3.0), t(-2.2, -2.0, -3.2)
    desirable = torch.tensor([True, False, True])
    out = kto_loss(policy, ref, desirable, reference_point=0.2, beta=0.5, desirable_weight=1.0, undesirable_weight=1.5)
    torch.testing.assert_close(out.losses, t(0.3775407, 0.5663110, 0.5), atol=1e-6, rtol=0)
    torch.testing.assert_close(out.rewards, t(0.6, -0.4, 0.1))


def test_pref_simpo_reference_values():
    # beta = 2, gamma = 1.
    #   pair 0: chosen -2 over 4 tokens -> reward 2*(-0.5) = -1; rejected -6 over 3 -> 2*(-2) = -4;
    #           -log sigma(-1 - (-4) - 1) = log(1 + e^-2) = 0.1269280
    #   pair 1: chosen -3 over 2 -> -3; rejected -2 over 4 -> -1; -log sigma(-3) = log(1 + e^3) = 3.0485874
    out = simpo_loss(t(-2.0, -3.0), t(-6.0, -2.0), t(4, 2), t(3, 4), beta=2.0, gamma=1.0)
    torch.testing.assert_close(out.losses, t(0.1269280, 3.0485874), atol=1e-6, rtol=0)
    torch.testing.assert_close(out.chosen_rewards, t(-1.0, -3.0))
    torch.testing.assert_close(out.rejected_rewards, t(-4.0, -1.0))


def test_pref_orpo_reference_values():
    # lam = 0.1. Average log-probs: log 0.5 (odds 1, log odds 0) and log 0.2 (odds 0.25, log odds -log 4).
    #   pair 0: chosen avg log 0.5 (sum 2*log 0.5 over 2 tokens), rejected log 0.2 (1 token):
    #           log-odds ratio log 4, sigma(log 4) = 0.8: loss = log 2 - 0.1*log 0.8 = 0.6931472 + 0.0223144
    #   pair 1: swapped: sigma(-log 4) = 0.2: loss = -log 0.2 - 0.1*log 0.2 = 1.1*1.6094379 = 1.7703817
    chosen = t(2 * math.log(0.5), math.log(0.2))
    rejected = t(math.log(0.2), 2 * math.log(0.5))
    out = orpo_loss(chosen, rejected, t(2, 1), t(1, 2), lam=0.1)
    torch.testing.assert_close(out.losses, t(0.7154616, 1.7703817), atol=1e-6, rtol=0)
    torch.testing.assert_close(out.chosen_rewards, t(0.1 * math.log(0.5), 0.1 * math.log(0.2)))


def test_pref_log1mexp_stable_on_both_branches():
    x = t(-1e-8, -0.1, -0.6931471805599453, -5.0, -50.0)
    expected = t(math.log(1e-8), math.log(1 - math.exp(-0.1)), math.log(0.5), math.log(1 - math.exp(-5.0)), 0.0)
    torch.testing.assert_close(log1mexp(x), expected, atol=1e-12, rtol=1e-6)
    with pytest.raises(ValueError, match="x < 0"):
        log1mexp(t(-1.0, 0.0))


def test_pref_dpo_gradient_matches_explicit_formula():
    # dL/d pc = -beta*(1-eps)*sigma(-beta h) + eps*beta*sigma(beta h) = -dL/d pr
    beta, eps = 0.5, 0.1
    pc, pr = PC.clone().requires_grad_(), PR.clone().requires_grad_()
    dpo_loss(pc, pr, RC, RR, beta=beta, label_smoothing=eps).losses.sum().backward()
    z = beta * ((PC - RC) - (PR - RR))
    expected = -beta * (1 - eps) * torch.sigmoid(-z) + eps * beta * torch.sigmoid(z)
    torch.testing.assert_close(pc.grad, expected)
    torch.testing.assert_close(pr.grad, -expected)


def test_pref_simpo_gradient_matches_explicit_formula():
    # m = beta*(pc/Lc - pr/Lr) - gamma; dL/d pc = -(beta/Lc) sigma(-m); dL/d pr = (beta/Lr) sigma(-m)
    beta, gamma = 2.0, 1.0
    lc, lr = t(4, 2), t(3, 4)
    pc, pr = t(-2.0, -3.0).requires_grad_(), t(-6.0, -2.0).requires_grad_()
    simpo_loss(pc, pr, lc, lr, beta=beta, gamma=gamma).losses.sum().backward()
    m = beta * (t(-2.0, -3.0) / lc - t(-6.0, -2.0) / lr) - gamma
    torch.testing.assert_close(pc.grad, -(beta / lc) * torch.sigmoid(-m))
    torch.testing.assert_close(pr.grad, (beta / lr) * torch.sigmoid(-m))


def _sequence_logps(table: torch.Tensor, tokens: list[list[int]]) -> torch.Tensor:
    """Sequence log-probs under a context-free categorical policy ``softmax(table)``."""
    logp = torch.log_softmax(table, dim=-1)
    return torch.stack([logp[seq].sum() for seq in tokens])


@pytest.mark.parametrize("loss", ["dpo", "simpo"])
def test_pref_gradcheck_through_a_policy(loss):
    """Finite differences agree with autograd through the policy parameters (float64)."""
    torch.manual_seed(0)
    table = torch.randn(5, dtype=torch.float64, requires_grad=True)
    chosen, rejected = [[0, 1, 2], [3]], [[4, 4], [1, 2, 0, 3]]
    ref = torch.randn(5, dtype=torch.float64)
    ref_c, ref_r = _sequence_logps(ref, chosen), _sequence_logps(ref, rejected)
    lc, lr = t(3, 1), t(2, 4)

    def objective(param):
        pc, pr = _sequence_logps(param, chosen), _sequence_logps(param, rejected)
        if loss == "dpo":
            return dpo_loss(pc, pr, ref_c, ref_r, beta=0.7).losses.mean()
        return simpo_loss(pc, pr, lc, lr, beta=2.0, gamma=0.5).losses.mean()

    assert torch.autograd.gradcheck(objective, (table,), eps=1e-6, atol=1e-7)


def test_pref_losses_reject_bad_input():
    with pytest.raises(ValueError, match="shape"):
        dpo_loss(t(-1.0, -2.0), t(-1.0), t(-1.0, -2.0), t(-1.0, -2.0))
    with pytest.raises(ValueError, match="beta"):
        ipo_loss(PC, PR, RC, RR, beta=0.0)
    with pytest.raises(ValueError, match="label_smoothing"):
        dpo_loss(PC, PR, RC, RR, label_smoothing=0.5)
    with pytest.raises(ValueError, match=">= 1 token"):
        average_logps(t(-1.0), t(0))
    with pytest.raises(TypeError, match="bool"):
        kto_loss(t(-1.0), t(-1.0), torch.tensor([1]), 0.0)
    with pytest.raises(ValueError, match="detach"):
        kto_loss(t(-1.0), t(-1.0), torch.tensor([True]), t(0.1).requires_grad_().sum())

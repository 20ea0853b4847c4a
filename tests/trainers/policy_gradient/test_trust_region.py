"""Trust-region pieces as pure functions: adaptive KL coefficient, CG, Fisher products, line search, TRPO."""

import math

import pytest
import torch
from torch import nn

from rlenv.trainers.policy_gradient.trust_region import (
    AdaptiveKLController,
    conjugate_gradient,
    fisher_vector_product,
    kl_line_search,
    klpen_token_loss,
    trpo_step,
)


def test_trpo_adaptive_kl_rule():
    ctl = AdaptiveKLController(init_coef=1.0, target=0.01)
    assert ctl.update(0.02) == 2.0           # 0.02 > 1.5 * 0.01: double
    assert ctl.update(0.012) == 2.0          # inside [0.00667, 0.015]: keep
    assert ctl.update(0.001) == 1.0          # below 0.01 / 1.5: halve
    restored = AdaptiveKLController()
    restored.load_state_dict(ctl.state_dict())
    assert restored.value == 1.0 and restored.target == 0.01
    with pytest.raises(ValueError, match="finite"):
        ctl.update(float("nan"))
    with pytest.raises(ValueError, match="target"):
        AdaptiveKLController(target=0.0)


@pytest.mark.parametrize("init_coef", [1e-3, 1e3])
def test_trpo_adaptive_kl_coefficient_moves_toward_target(init_coef):
    """With a KL that shrinks as the penalty grows (kl = 0.05 / beta), beta converges to the band."""
    ctl = AdaptiveKLController(init_coef=init_coef, target=0.01)
    kls = []
    for _ in range(30):
        kls.append(0.05 / ctl.value)
        ctl.update(kls[-1])
    assert abs(math.log(kls[0] / 0.01)) > math.log(1.5)          # started outside the band
    assert all(0.01 / 1.5 <= k <= 0.01 * 1.5 for k in kls[-5:])    # ends inside it
    assert 0.05 / 0.015 <= ctl.value <= 0.05 / (0.01 / 1.5)


def test_trpo_klpen_token_loss_reference_value():
    # log r = log 2, A = 1, beta = 0.5: KL = (2 - 1) - log 2 = 0.3068528; loss = -2 + 0.5*0.3068528 = -1.8465736
    logp = torch.tensor([[math.log(2.0), 0.0]], dtype=torch.float64, requires_grad=True)
    old = torch.zeros(1, 2, dtype=torch.float64)
    adv = torch.tensor([[1.0, -1.0]], dtype=torch.float64)
    loss, kl = klpen_token_loss(logp, old, adv, kl_coef=0.5)
    torch.testing.assert_close(loss.detach(), torch.tensor([[-1.8465736, 1.0]], dtype=torch.float64), atol=1e-7, rtol=0)
    torch.testing.assert_close(kl.detach(), torch.tensor([[0.3068528, 0.0]], dtype=torch.float64), atol=1e-7, rtol=0)
    loss.sum().backward()
    # d/dlogp [-e^x A + beta(e^x - 1 - x)] = -e^x A + beta(e^x - 1): x = log 2 -> -2 + 0.5; x = 0 -> 1
    torch.testing.assert_close(logp.grad, torch.tensor([[-1.5, 1.0]], dtype=torch.float64))


def test_trpo_conjugate_gradient_solves_spd_system():
    torch.manual_seed(0)
    m = torch.randn(6, 6, dtype=torch.float64)
    a = m @ m.T + 0.5 * torch.eye(6, dtype=torch.float64)
    b = torch.randn(6, dtype=torch.float64)
    x = conjugate_gradient(lambda v: a @ v, b, iters=6)
    torch.testing.assert_close(x, torch.linalg.solve(a, b), atol=1e-8, rtol=1e-8)
    calls = []
    conjugate_gradient(lambda v: calls.append(1) or 3.0 * v, b, iters=6)     # A = 3I: one step suffices
    assert len(calls) == 1
    with pytest.raises(ValueError, match="positive definite"):
        conjugate_gradient(lambda v: -v, b)


def test_trpo_fisher_vector_product_equals_explicit_fisher():
    """For a softmax policy over 4 actions, the Hessian of KL(p_old || p_theta) at theta_old is diag(p) - p p^T."""
    theta = torch.tensor([0.3, -0.2, 1.0, 0.0], dtype=torch.float64, requires_grad=True)
    old = torch.softmax(theta.detach(), -1)
    kl = (old * (torch.log(old) - torch.log_softmax(theta, -1))).sum()
    fvp = fisher_vector_product(kl, [theta], damping=0.1)
    fisher = torch.diag(old) - torch.outer(old, old)
    for v in torch.eye(4, dtype=torch.float64):
        torch.testing.assert_close(fvp(v), fisher @ v + 0.1 * v)


def test_trpo_line_search_accepts_within_bound_and_restores_on_failure():
    x = nn.Parameter(torch.zeros(2, dtype=torch.float64))
    # surrogate -|x - 1|^2 (maximized at 1), "KL" = |x|^2 / 2
    def evaluate():
        return -((x - 1) ** 2).sum(), 0.5 * (x ** 2).sum()

    step = torch.full((2,), 4.0, dtype=torch.float64)
    result = kl_line_search([x], step, expected_improvement=16.0, evaluate=evaluate, max_kl=0.5)
    # f = 1 overshoots (surrogate -18 < -2); f = 0.5 gives x = 2 (KL 4 > 0.5); f = 0.25 gives x = 1,
    # surrogate 0 > -2 and KL 1 > 0.5; f = 0.125 gives x = 0.5: KL 0.25, improvement 1.5 >= 0.1*2
    assert result.accepted and result.step_fraction == 0.125 and result.backtracks == 3
    torch.testing.assert_close(x.detach(), torch.full((2,), 0.5, dtype=torch.float64))
    assert result.kl == pytest.approx(0.25) and result.improvement == pytest.approx(1.5)
    x.data.zero_()
    rejected = kl_line_search([x], -step, expected_improvement=16.0, evaluate=evaluate, max_kl=0.5)
    assert not rejected.accepted and torch.equal(x.detach(), torch.zeros(2, dtype=torch.float64))


class BanditPolicy(nn.Module):
    """A small contextual-bandit policy: 3-d context -> logits over 4 actions."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 4))

    def forward(self, x):
        return self.net(x)


def bandit_objectives(policy, contexts, actions, old_logp_all, adv):
    """``(surrogate, kl)`` closures of one TRPO update on a batch sampled from the old policy."""
    old_logp = old_logp_all.gather(1, actions[:, None]).squeeze(1)

    def surrogate():
        logp = torch.log_softmax(policy(contexts), -1).gather(1, actions[:, None]).squeeze(1)
        return (torch.exp(logp - old_logp) * adv).mean()

    def kl():
        logp_all = torch.log_softmax(policy(contexts), -1)
        return (old_logp_all.exp() * (old_logp_all - logp_all)).sum(-1).mean()

    return surrogate, kl


def test_trpo_steps_respect_kl_bound_and_never_decrease_the_surrogate():
    torch.manual_seed(0)
    policy = BanditPolicy().double()
    contexts = torch.randn(256, 3, dtype=torch.float64)
    best = contexts.argmax(-1) % 4                                 # the rewarded action per context
    max_kl = 0.02
    expected_rewards = []
    accepted = 0
    for _ in range(15):
        with torch.no_grad():
            old_logits = policy(contexts)
            old_logp_all = torch.log_softmax(old_logits, -1)
            actions = torch.distributions.Categorical(logits=old_logits).sample()
            reward = (actions == best).double()
            expected_rewards.append(old_logp_all.exp().gather(1, best[:, None]).mean().item())
        surrogate, kl = bandit_objectives(policy, contexts, actions, old_logp_all, reward - reward.mean())
        with torch.no_grad():
            before = surrogate().item()
            params_before = [p.clone() for p in policy.parameters()]
        info = trpo_step(policy, surrogate, kl, max_kl=max_kl, damping=0.01, cg_iters=20)
        with torch.no_grad():
            after, measured_kl = surrogate().item(), kl().item()
        if info.accepted:
            accepted += 1
            assert measured_kl <= max_kl + 1e-12
            assert after >= before
            assert measured_kl == pytest.approx(info.kl) and after - before == pytest.approx(info.improvement)
        else:
            assert all(torch.equal(a, b) for a, b in zip(params_before, policy.parameters(), strict=True))
    assert accepted >= 12
    assert expected_rewards[-1] > expected_rewards[0] + 0.3

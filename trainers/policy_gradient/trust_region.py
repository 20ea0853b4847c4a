"""Classic trust-region policy updates: PPO's adaptive KL penalty (PPO-KLPEN) and TRPO.

* :class:`AdaptiveKLController` is Schulman et al.'s (2017, PPO paper §4) rule: after each
  update, halve the penalty coefficient ``β`` when the measured KL is below ``target / 1.5`` and
  double it when above ``target · 1.5``. :func:`klpen_token_loss` is the matching per-token
  loss ``-ratio·A + β·KL(π_old ‖ π)``.
* TRPO (Schulman et al. 2015) maximizes a surrogate subject to ``KL(π_old ‖ π_θ) ≤ δ``:
  :func:`conjugate_gradient` solves ``F x = g`` with Fisher-vector products from
  :func:`fisher_vector_product` (double backprop through the KL, exact Hessian of the KL at
  ``θ_old``), the step is rescaled to the KL boundary, and :func:`kl_line_search` backtracks
  until the step keeps the KL bound and improves the surrogate. :func:`trpo_step` ties them
  together on any ``nn.Module`` given two closures, so it works for a small MLP policy and for a
  small language model alike.
"""

from __future__ import annotations

import dataclasses
import logging
import math
from collections.abc import Callable, Sequence

import torch
from torch import Tensor, nn
from torch.nn.utils import parameters_to_vector, vector_to_parameters

logger = logging.getLogger(__name__)


class AdaptiveKLController:
    """PPO-KLPEN's adaptive KL coefficient (Schulman et al. 2017, §4).

    Args:
        init_coef: Initial penalty coefficient ``β`` (> 0).
        target: KL target ``d_targ`` per update, in nats (> 0), measured the way the caller
            measures KL (e.g. token-mean ``KL(π_old ‖ π)`` over a batch).
        tolerance: The band ``[target / tolerance, target · tolerance]`` in which ``β`` is kept
            (the paper: 1.5).
        factor: Multiplier applied when the KL leaves the band (the paper: 2).
    """

    def __init__(self, init_coef: float = 1.0, target: float = 0.01, tolerance: float = 1.5, factor: float = 2.0):
        for name, value in (("init_coef", init_coef), ("target", target)):
            if not value > 0:
                raise ValueError(f"{name} must be > 0, got {value!r}")
        if not tolerance > 1:
            raise ValueError(f"tolerance must be > 1, got {tolerance!r}")
        if not factor > 1:
            raise ValueError(f"factor must be > 1, got {factor!r}")
        self.value = float(init_coef)
        self.target = float(target)
        self.tolerance = float(tolerance)
        self.factor = float(factor)

    def update(self, kl: float) -> float:
        """Adjust ``β`` after an update whose measured KL was ``kl`` (nats); returns the new ``β``."""
        kl = float(kl)
        if not math.isfinite(kl):
            raise ValueError(f"measured KL must be finite, got {kl!r}")
        if kl < self.target / self.tolerance:
            self.value /= self.factor
        elif kl > self.target * self.tolerance:
            self.value *= self.factor
        return self.value

    def state_dict(self) -> dict[str, float]:
        """The controller's state, for checkpoints."""
        return {"value": self.value, "target": self.target, "tolerance": self.tolerance, "factor": self.factor}

    def load_state_dict(self, state: dict[str, float]) -> None:
        """Restore a state written by :meth:`state_dict`."""
        self.value, self.target = float(state["value"]), float(state["target"])
        self.tolerance, self.factor = float(state["tolerance"]), float(state["factor"])


def klpen_token_loss(logp: Tensor, old_logp: Tensor, advantages: Tensor, kl_coef: float) -> tuple[Tensor, Tensor]:
    """PPO-KLPEN's per-token loss ``-r·A + β·((r - 1) - log r)`` with ``r = π/π_old``.

    ``(r - 1) - log r`` (the k3 estimator on tokens sampled from ``π_old``) is an unbiased,
    non-negative estimate of ``KL(π_old ‖ π)``. All inputs are response-aligned ``(B, T)``;
    returns ``(loss, kl)`` per token, both ``(B, T)``, for the caller to mask and aggregate.
    """
    if not (logp.shape == old_logp.shape == advantages.shape):
        raise ValueError(f"logp, old_logp, advantages must share a shape, got {logp.shape}, {old_logp.shape}, "
                         f"{advantages.shape}")
    if kl_coef < 0:
        raise ValueError(f"kl_coef must be >= 0, got {kl_coef!r}")
    log_ratio = logp - old_logp.detach()
    ratio = torch.exp(log_ratio)
    kl = (ratio - 1.0) - log_ratio
    return -ratio * advantages + kl_coef * kl, kl


def flat_grad(output: Tensor, params: Sequence[Tensor], create_graph: bool = False) -> Tensor:
    """Gradient of a scalar ``output`` w.r.t. ``params`` as one flat vector (zeros for unused params)."""
    grads = torch.autograd.grad(output, params, create_graph=create_graph, retain_graph=True, allow_unused=True)
    return torch.cat([(torch.zeros_like(p) if g is None else g).reshape(-1) for g, p in zip(grads, params, strict=True)])


def fisher_vector_product(kl: Tensor, params: Sequence[Tensor], damping: float = 0.1) -> Callable[[Tensor], Tensor]:
    """Build ``v -> (∇²KL + damping·I) v`` by double backprop.

    ``kl`` must be the mean ``KL(π_old ‖ π_θ)`` evaluated at ``θ = θ_old`` with ``π_old``
    detached: its Hessian there is the Fisher information matrix. The first-order gradient graph is
    built once and reused by every product.
    """
    if kl.dim() != 0:
        raise ValueError(f"kl must be a scalar tensor, got shape {tuple(kl.shape)}")
    if damping < 0:
        raise ValueError(f"damping must be >= 0, got {damping!r}")
    grad_kl = flat_grad(kl, params, create_graph=True)

    def product(vector: Tensor) -> Tensor:
        if vector.shape != grad_kl.shape:
            raise ValueError(f"vector has shape {tuple(vector.shape)}, expected {tuple(grad_kl.shape)}")
        return flat_grad(grad_kl @ vector.detach(), params).detach() + damping * vector

    return product


def conjugate_gradient(
    matvec: Callable[[Tensor], Tensor], b: Tensor, iters: int = 10, residual_tol: float = 1e-10
) -> Tensor:
    """Approximately solve ``A x = b`` for symmetric positive-definite ``A`` given only ``v -> A v``.

    Runs at most ``iters`` conjugate-gradient iterations from ``x = 0`` and stops early when the
    squared residual norm falls below ``residual_tol``. Exact after ``n`` iterations for an
    ``n``-dimensional system (in exact arithmetic).
    """
    if b.dim() != 1:
        raise ValueError(f"b must be a flat vector, got shape {tuple(b.shape)}")
    if iters < 1:
        raise ValueError(f"iters must be >= 1, got {iters}")
    x = torch.zeros_like(b)
    r = b.clone()
    p = b.clone()
    rs = r @ r
    for _ in range(iters):
        if rs < residual_tol:
            break
        ap = matvec(p)
        curvature = p @ ap
        if curvature <= 0:
            raise ValueError(f"matvec is not positive definite along a search direction (p·Ap = {curvature.item():.3g})")
        alpha = rs / curvature
        x = x + alpha * p
        r = r - alpha * ap
        new_rs = r @ r
        p = r + (new_rs / rs) * p
        rs = new_rs
    return x


@dataclasses.dataclass(frozen=True)
class LineSearchResult:
    """Outcome of :func:`kl_line_search`.

    Attributes:
        accepted: True when a step was taken; otherwise the parameters are unchanged.
        step_fraction: Fraction of the full step taken (0 when rejected).
        kl: ``KL(π_old ‖ π_new)`` after the step (0 when rejected).
        improvement: ``surrogate_new - surrogate_old`` (0 when rejected).
        backtracks: Number of halvings tried before acceptance (or in total when rejected).
    """

    accepted: bool
    step_fraction: float
    kl: float
    improvement: float
    backtracks: int


def kl_line_search(
    params: Sequence[Tensor],
    full_step: Tensor,
    expected_improvement: float,
    evaluate: Callable[[], tuple[Tensor, Tensor]],
    max_kl: float,
    backtrack_ratio: float = 0.5,
    max_backtracks: int = 10,
    accept_ratio: float = 0.1,
) -> LineSearchResult:
    """Backtracking line search along ``full_step`` that keeps the KL bound and improves the surrogate.

    Tries ``θ_old + f·full_step`` for ``f = 1, ρ, ρ², …`` (``ρ = backtrack_ratio``) and accepts the
    first step with ``KL ≤ max_kl``, a positive surrogate improvement and an improvement at least
    ``accept_ratio`` times the linear prediction ``f·expected_improvement``. If none qualifies the
    parameters are restored to ``θ_old``.

    Args:
        params: The policy parameters, updated in place.
        full_step: Flat step vector (same size as the flattened ``params``).
        expected_improvement: ``g · full_step``, the first-order predicted surrogate gain (> 0).
        evaluate: ``() -> (surrogate, kl)`` at the current parameters (called under ``no_grad``).
        max_kl: The trust-region radius ``δ`` in nats.
    """
    if not 0 < backtrack_ratio < 1:
        raise ValueError(f"backtrack_ratio must be in (0, 1), got {backtrack_ratio!r}")
    if max_backtracks < 0:
        raise ValueError(f"max_backtracks must be >= 0, got {max_backtracks}")
    params = list(params)
    old = parameters_to_vector(params).detach().clone()
    with torch.no_grad():
        old_surrogate = float(evaluate()[0])
        fraction = 1.0
        for attempt in range(max_backtracks + 1):
            vector_to_parameters(old + fraction * full_step, params)
            surrogate, new_kl = evaluate()
            improvement, kl = float(surrogate) - old_surrogate, float(new_kl)
            predicted = fraction * expected_improvement
            if kl <= max_kl and improvement > 0 and improvement >= accept_ratio * predicted:
                return LineSearchResult(True, fraction, kl, improvement, attempt)
            fraction *= backtrack_ratio
        vector_to_parameters(old, params)
    return LineSearchResult(False, 0.0, 0.0, 0.0, max_backtracks + 1)


@dataclasses.dataclass(frozen=True)
class TRPOStep:
    """Diagnostics of one :func:`trpo_step` (all floats; ``accepted`` says whether θ moved)."""

    accepted: bool
    step_fraction: float
    kl: float
    improvement: float
    expected_improvement: float
    grad_norm: float
    backtracks: int


def trpo_step(
    policy: nn.Module,
    surrogate: Callable[[], Tensor],
    kl: Callable[[], Tensor],
    max_kl: float = 0.01,
    damping: float = 0.1,
    cg_iters: int = 10,
    backtrack_ratio: float = 0.5,
    max_backtracks: int = 10,
    accept_ratio: float = 0.1,
) -> TRPOStep:
    """One TRPO update of ``policy``'s trainable parameters.

    Args:
        policy: The module whose parameters (those with ``requires_grad``) are updated in place.
        surrogate: ``() -> L(θ)``, the scalar surrogate to **maximize**, e.g. the token-mean of
            ``exp(logp - old_logp) · A`` over the batch, recomputed at the current parameters.
        kl: ``() -> KL(π_old ‖ π_θ)``, a scalar mean over the batch's states with ``π_old``
            detached; exact (full-distribution) KL gives an exact Fisher.
        max_kl: Trust-region radius ``δ`` (nats).
        damping: Tikhonov damping added to the Fisher-vector products.
        cg_iters: Conjugate-gradient iterations.
        backtrack_ratio, max_backtracks, accept_ratio: See :func:`kl_line_search`.

    Returns:
        :class:`TRPOStep`. When the surrogate gradient is zero or the line search rejects every
        step, the parameters are left unchanged and ``accepted`` is False.
    """
    if not max_kl > 0:
        raise ValueError(f"max_kl must be > 0, got {max_kl!r}")
    params = [p for p in policy.parameters() if p.requires_grad]
    if not params:
        raise ValueError("policy has no trainable parameters")
    grad = flat_grad(surrogate(), params).detach()
    grad_norm = float(grad.norm())
    if grad_norm == 0.0:
        return TRPOStep(False, 0.0, 0.0, 0.0, 0.0, 0.0, 0)
    fvp = fisher_vector_product(kl(), params, damping)
    direction = conjugate_gradient(fvp, grad, iters=cg_iters)
    quad = float(direction @ fvp(direction))
    full_step = direction * math.sqrt(2.0 * max_kl / quad)
    expected = float(grad @ full_step)

    def evaluate() -> tuple[Tensor, Tensor]:
        return surrogate(), kl()

    result = kl_line_search(params, full_step, expected, evaluate, max_kl, backtrack_ratio, max_backtracks,
                            accept_ratio)
    if not result.accepted:
        logger.info("TRPO line search rejected all %d steps (expected improvement %.3g)", result.backtracks, expected)
    return TRPOStep(result.accepted, result.step_fraction, result.kl, result.improvement, expected, grad_norm,
                    result.backtracks)

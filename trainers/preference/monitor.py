"""Monitors for the failure modes of preference optimization, updated every optimizer step.

* **Likelihood displacement** (Razin et al. 2024; Pal et al. 2024): DPO can widen the margin
  between chosen and rejected completions while *lowering* the chosen completion's likelihood,
  moving probability mass to completions that appear in neither. Measured against the frozen
  reference on the same batch: ``Δ_w = log π(y_w) - log π_ref(y_w) < 0`` while the margin
  ``Δ_w - Δ_l > 0`` (at the start ``π = π_ref`` so both are 0).
* **Implicit-reward drift**: the DPO loss sees only ``Δ_w - Δ_l``, so the common level
  ``β (Δ_w + Δ_l) / 2`` can drift freely; a steady fall means both likelihoods are being pushed
  down together.
* **Reward-margin drift**: the change of the mean implicit margin since the previous step; a
  margin that keeps growing without bound signals over-optimization of the preference data.
"""

from __future__ import annotations

import logging

import torch
from torch import Tensor

logger = logging.getLogger(__name__)


class PreferenceMonitor:
    """Per-step preference metrics with a warning when likelihood displacement persists.

    Args:
        beta: The implicit-reward scale ``β`` (use the loss's ``β``; any positive value for
            reference-free losses, which are monitored against the frozen reference all the same).
        patience: Consecutive displaced steps before a warning is logged (once per episode of
            displacement).
    """

    def __init__(self, beta: float, patience: int = 3):
        if not beta > 0:
            raise ValueError(f"beta must be > 0, got {beta!r}")
        if patience < 1:
            raise ValueError(f"patience must be >= 1, got {patience}")
        self.beta = float(beta)
        self.patience = patience
        self.displaced_streak = 0
        self.previous_margin: float | None = None

    def update(
        self, policy_chosen_logps: Tensor, policy_rejected_logps: Tensor, ref_chosen_logps: Tensor,
        ref_rejected_logps: Tensor,
    ) -> dict[str, float]:
        """Metrics for one batch of pairs; all inputs are sequence log-probs ``(B,)`` in nats.

        Returns (means over the batch): ``logps/chosen``, ``logps/rejected``, ``logratio/chosen``
        (``Δ_w``), ``logratio/rejected`` (``Δ_l``), ``rewards/chosen``, ``rewards/rejected``
        (``β Δ``), ``rewards/margin``, ``rewards/accuracy`` (fraction with ``Δ_w > Δ_l``),
        ``displacement/fraction`` (pairs with ``Δ_w < 0`` and ``Δ_w > Δ_l``),
        ``displacement/active`` (1.0 when the batch means have ``Δ_w < 0`` and margin ``> 0``),
        ``drift/implicit_reward`` (``β·mean(Δ_w + Δ_l)/2``) and ``drift/margin_change`` (margin
        minus the previous step's; 0 on the first step).
        """
        shapes = {tuple(t.shape) for t in (policy_chosen_logps, policy_rejected_logps, ref_chosen_logps,
                                           ref_rejected_logps)}
        if len(shapes) != 1 or len(next(iter(shapes))) != 1 or policy_chosen_logps.numel() == 0:
            raise ValueError(f"expected four non-empty (B,) tensors of one shape, got shapes {sorted(shapes)}")
        with torch.no_grad():
            chosen = (policy_chosen_logps - ref_chosen_logps).double()
            rejected = (policy_rejected_logps - ref_rejected_logps).double()
            pair_margin = chosen - rejected
            margin = self.beta * pair_margin.mean().item()
            mean_chosen = chosen.mean().item()
            displaced = mean_chosen < 0 and margin > 0
            metrics = {
                "logps/chosen": policy_chosen_logps.double().mean().item(),
                "logps/rejected": policy_rejected_logps.double().mean().item(),
                "logratio/chosen": mean_chosen,
                "logratio/rejected": rejected.mean().item(),
                "rewards/chosen": self.beta * mean_chosen,
                "rewards/rejected": self.beta * rejected.mean().item(),
                "rewards/margin": margin,
                "rewards/accuracy": (pair_margin > 0).double().mean().item(),
                "displacement/fraction": ((chosen < 0) & (pair_margin > 0)).double().mean().item(),
                "displacement/active": float(displaced),
                "drift/implicit_reward": self.beta * (chosen + rejected).mean().item() / 2.0,
                "drift/margin_change": 0.0 if self.previous_margin is None else margin - self.previous_margin,
            }
        self.previous_margin = margin
        self.displaced_streak = self.displaced_streak + 1 if displaced else 0
        if self.displaced_streak == self.patience:
            logger.warning(
                "likelihood displacement for %d steps: chosen log-ratio %.3f nats < 0 while the margin %.3f > 0",
                self.patience, mean_chosen, margin,
            )
        return metrics

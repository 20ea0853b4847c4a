"""Policy losses, KL estimators, the value loss and the one loss aggregator.

Policy losses are pure functions in a registry, each
``fn(logp, old_logp, advantages, mask, **cfg) -> PolicyLossOutput`` returning a **per-token**
``(B, T)`` loss matrix; :func:`aggregate` turns any per-token matrix into a scalar.

Per-token loss with ratio ``r = exp(logp - old_logp)`` and advantage ``A``:

=========  ==========================================================================
``pg``     ``-A * logp`` (vanilla policy gradient, no ratio)
``ppo``    ``max(-A r, -A clip(r, 1 - clip_low, 1 + clip_high))``; ``clip_high`` > ``clip_low``
           is DAPO's clip-higher; ``dual_clip = c`` caps the loss at ``-c A`` when ``A < 0``
``gspo``   the PPO clip on the sequence ratio ``s = exp(mean_t log r)`` in GSPO-token form
           ``sg(s) * pi / sg(pi)`` (clip ranges of order 3e-4 / 4e-4)
``cispo``  ``-sg(clamp(r, clip_min, clip_max)) * A * logp`` (one-sided cap, MiniMax-M1)
=========  ==========================================================================

Log-ratios are clamped to ``[-20, 20]`` before ``exp``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import torch

from rlenv.named_registry import Registry

LOG_RATIO_CLAMP = 20.0
KL_KINDS = ("k1", "k2", "k3")
AGGREGATIONS = ("token_mean", "seq_mean_token_mean", "seq_mean_token_sum", "seq_mean_token_sum_norm")


@dataclasses.dataclass
class PolicyLossOutput:
    """A per-token policy loss and its diagnostics, all ``(B, T)``.

    Attributes:
        loss: per-token loss (not yet masked or aggregated).
        ratio: the importance ratio used (1 for ``pg``).
        clipped: float 0/1, tokens where clipping changed the loss or its weight.
    """

    loss: torch.Tensor
    ratio: torch.Tensor
    clipped: torch.Tensor


PolicyLossFn = Callable[..., PolicyLossOutput]
_LOSSES: Registry[PolicyLossFn] = Registry("policy loss")


#: Register a policy loss (decorator), look one up, list them (see :class:`rlenv.named_registry.Registry`).
register, get, names = _LOSSES.register, _LOSSES.get, _LOSSES.names


def _log_ratio(logp: torch.Tensor, old_logp: torch.Tensor) -> torch.Tensor:
    return torch.clamp(logp - old_logp.detach(), -LOG_RATIO_CLAMP, LOG_RATIO_CLAMP)


def _clipped_surrogate(ratio: torch.Tensor, advantages: torch.Tensor, clip_low: float, clip_high: float | None,
                       dual_clip: float | None) -> tuple[torch.Tensor, torch.Tensor]:
    clip_high = clip_low if clip_high is None else clip_high
    unclipped = -advantages * ratio
    clipped = -advantages * torch.clamp(ratio, 1.0 - clip_low, 1.0 + clip_high)
    loss = torch.maximum(unclipped, clipped)
    active = clipped > unclipped
    if dual_clip is not None:
        if dual_clip <= 1.0:
            raise ValueError(f"dual_clip must be > 1, got {dual_clip}")
        capped = torch.minimum(loss, -dual_clip * advantages)
        active = active | ((advantages < 0) & (capped < loss))
        loss = torch.where(advantages < 0, capped, loss)
    return loss, active.float()


@register("pg")
def pg(logp: torch.Tensor, old_logp: torch.Tensor | None, advantages: torch.Tensor,
       mask: torch.Tensor) -> PolicyLossOutput:
    """Vanilla policy gradient ``-A * logp`` (on-policy; ``old_logp`` is ignored)."""
    ones = torch.ones_like(logp)
    return PolicyLossOutput(-advantages.detach() * logp, ones, torch.zeros_like(logp))


@register("ppo")
def ppo(logp: torch.Tensor, old_logp: torch.Tensor, advantages: torch.Tensor, mask: torch.Tensor, *,
        clip_low: float = 0.2, clip_high: float | None = None, dual_clip: float | None = None) -> PolicyLossOutput:
    """PPO's clipped surrogate on the token ratio (asymmetric with ``clip_high``; optional dual clip)."""
    ratio = torch.exp(_log_ratio(logp, old_logp))
    loss, active = _clipped_surrogate(ratio, advantages.detach(), clip_low, clip_high, dual_clip)
    return PolicyLossOutput(loss, ratio, active)


@register("gspo")
def gspo(logp: torch.Tensor, old_logp: torch.Tensor, advantages: torch.Tensor, mask: torch.Tensor, *,
         clip_low: float = 3e-4, clip_high: float | None = 4e-4) -> PolicyLossOutput:
    """GSPO: clipped surrogate on the length-normalized sequence ratio ``exp(mean_t log r_t)``.

    Uses the GSPO-token form ``s_t = sg(s) * exp(logp_t - sg(logp_t))``: its value is the sequence
    ratio on every token and its gradient is ``s * grad logp_t``, so with a per-sequence advantage
    and ``seq_mean_token_mean`` aggregation it is exactly GSPO.
    """
    m = mask.float()
    log_ratio = _log_ratio(logp, old_logp)
    seq_log_ratio = (log_ratio * m).sum(1, keepdim=True) / m.sum(1, keepdim=True).clamp(min=1)
    token_log_s = seq_log_ratio.detach() + logp - logp.detach()
    ratio = torch.exp(torch.clamp(token_log_s, max=LOG_RATIO_CLAMP))
    loss, active = _clipped_surrogate(ratio, advantages.detach(), clip_low, clip_high, None)
    return PolicyLossOutput(loss, ratio, active)


@register("cispo")
def cispo(logp: torch.Tensor, old_logp: torch.Tensor, advantages: torch.Tensor, mask: torch.Tensor, *,
          clip_max: float = 5.0, clip_min: float | None = None) -> PolicyLossOutput:
    """CISPO: REINFORCE weighted by the detached, clipped IS ratio ``-sg(clamp(r, clip_min, clip_max)) A logp``."""
    ratio = torch.exp(_log_ratio(logp, old_logp)).detach()
    weight = torch.clamp(ratio, min=clip_min, max=clip_max)
    active = (weight != ratio).float()
    return PolicyLossOutput(-weight * advantages.detach() * logp, ratio, active)


@register("ppo_klpen")
def ppo_klpen(logp: torch.Tensor, old_logp: torch.Tensor, advantages: torch.Tensor, mask: torch.Tensor, *,
              kl_coef: float) -> PolicyLossOutput:
    """PPO-KLPEN's per-token loss ``-r·A + kl_coef·((r - 1) - log r)``, ``r = π/π_old`` (no clipping;
    :class:`~rlenv.trainers.policy_gradient.trust_region_trainer.KLPenaltyTrainer` adapts ``kl_coef``)."""
    from rlenv.trainers.policy_gradient.trust_region import klpen_token_loss

    log_ratio = _log_ratio(logp, old_logp)
    loss, _ = klpen_token_loss(old_logp.detach() + log_ratio, old_logp, advantages.detach(), kl_coef)
    return PolicyLossOutput(loss, torch.exp(log_ratio).detach(), torch.zeros_like(logp))


def kl(logp: torch.Tensor, ref_logp: torch.Tensor, kind: str = "k3") -> torch.Tensor:
    """Per-token estimator of KL(pi || pi_ref) from sampled tokens, with ``d = logp - ref_logp``.

    ``k1 = d``, ``k2 = d**2 / 2``, ``k3 = exp(-d) - 1 + d`` (Schulman's low-variance estimator;
    ``d`` is clamped to +-20). Gradients flow through ``logp`` only.
    """
    if kind not in KL_KINDS:
        raise ValueError(f"unknown KL estimator {kind!r}: expected one of {KL_KINDS}")
    d = logp - ref_logp.detach()
    if kind == "k1":
        return d
    if kind == "k2":
        return 0.5 * d * d
    d = torch.clamp(d, -LOG_RATIO_CLAMP, LOG_RATIO_CLAMP)
    return torch.exp(-d) - 1.0 + d


def value_loss(values: torch.Tensor, old_values: torch.Tensor, returns: torch.Tensor,
               clip: float | None = 0.2) -> torch.Tensor:
    """Per-token clipped value loss ``0.5 * max((v - R)^2, (old + clamp(v - old, +-clip) - R)^2)``, ``(B, T)``."""
    unclipped = (values - returns) ** 2
    if clip is None:
        return 0.5 * unclipped
    clipped_values = old_values + torch.clamp(values - old_values, -clip, clip)
    return 0.5 * torch.maximum(unclipped, (clipped_values - returns) ** 2)


def aggregate(
    loss: torch.Tensor,
    mask: torch.Tensor,
    mode: str = "token_mean",
    *,
    num_tokens: float | torch.Tensor | None = None,
    num_seqs: float | torch.Tensor | None = None,
    max_len: int | None = None,
) -> torch.Tensor:
    """Reduce a per-token ``(B, T)`` loss to a scalar.

    Modes (``n_i`` = valid tokens of row ``i``):

    * ``token_mean``: ``sum(l * m) / num_tokens`` (DAPO, verl default);
    * ``seq_mean_token_mean``: ``sum_i(sum_t l * m / n_i) / num_seqs`` (original GRPO);
    * ``seq_mean_token_sum``: ``sum(l * m) / num_seqs``;
    * ``seq_mean_token_sum_norm``: ``sum(l * m) / (num_seqs * max_len)`` (Dr.GRPO; ``max_len`` is
      the generation limit).

    Normalizers default to this batch's own counts (tokens, non-empty rows, ``T``). Pass the
    counts of the **whole optimizer step** (all micro-batches, all ranks) and the micro-batch
    results *add up* to the global value: gradient accumulation and data parallelism then give
    exactly the single-batch loss (ranks sum their gradients, see :mod:`rlenv.trainers.distributed`).
    """
    m = mask.bool()
    masked = torch.where(m, loss, torch.zeros_like(loss))
    counts = m.float().sum(1)
    if num_tokens is None:
        num_tokens = counts.sum().clamp(min=1)
    if num_seqs is None:
        num_seqs = (counts > 0).float().sum().clamp(min=1)
    if mode == "token_mean":
        return masked.sum() / num_tokens
    if mode == "seq_mean_token_mean":
        return (masked.sum(1) / counts.clamp(min=1)).sum() / num_seqs
    if mode == "seq_mean_token_sum":
        return masked.sum() / num_seqs
    if mode == "seq_mean_token_sum_norm":
        return masked.sum() / (num_seqs * (loss.shape[1] if max_len is None else max_len))
    raise ValueError(f"unknown aggregation {mode!r}: expected one of {AGGREGATIONS}")

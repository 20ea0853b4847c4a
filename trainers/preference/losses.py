"""Preference-optimization losses as pure functions on sequence log-probabilities.

Every function takes per-example sequence log-probs, shape ``(B,)`` in nats (the sum over the
completion tokens of ``log pi(token | prefix)``), and returns *per-example* losses ``(B,)``: the
caller reduces them (the training loops in :mod:`rlenv.trainers.preference` take the mean). Implicit
rewards are returned detached, for logging and for the monitors in
:mod:`rlenv.trainers.preference.monitor`.

==========  ==================================================================  ===================
loss        per-example loss                                                    needs
==========  ==================================================================  ===================
``dpo``     ``-(1-ε) logσ(βh) - ε logσ(-βh)``, ``h = Δ_w - Δ_l``                 frozen reference
``ipo``     ``(h - 1/(2β))²``                                                   frozen reference
``kto``     ``w_D (1 - σ(β(Δ - z0)))`` / ``w_U (1 - σ(β(z0 - Δ)))``             reference, unpaired
``simpo``   ``-logσ(β(ā_w - ā_l) - γ)``, ``ā = logπ(y)/|y|``                    lengths, no reference
``orpo``    ``-ā_w - λ logσ(log odds(ā_w) - log odds(ā_l))``                    lengths, no reference
==========  ==================================================================  ===================

with ``Δ = log π(y|x) - log π_ref(y|x)`` (the log-ratio against the frozen reference), ``w``/``l``
the chosen/rejected completion and ``odds(p) = p / (1 - p)``.

References: DPO (Rafailov et al. 2023, eq. 7; label smoothing = conservative DPO), IPO (Azar et
al. 2023, eq. 17), KTO (Ethayarajh et al. 2024, eq. 8; ``z0`` estimated from mismatched pairs),
SimPO (Meng et al. 2024, eq. 6), ORPO (Hong et al. 2024, eq. 6-7). Conventions follow TRL where
the papers leave a choice open (IPO on length-averaged log-probs is the trainers' default).
"""

from __future__ import annotations

import dataclasses

import torch
import torch.nn.functional as F
from torch import Tensor


@dataclasses.dataclass(frozen=True)
class PairLoss:
    """Output of a paired preference loss.

    Attributes:
        losses: Per-pair loss, shape ``(B,)``, differentiable.
        chosen_rewards: Implicit reward of each chosen completion, ``(B,)``, detached.
        rejected_rewards: Implicit reward of each rejected completion, ``(B,)``, detached.
    """

    losses: Tensor
    chosen_rewards: Tensor
    rejected_rewards: Tensor


@dataclasses.dataclass(frozen=True)
class UnpairedLoss:
    """Output of KTO: per-example losses ``(B,)`` and detached implicit rewards ``(B,)``."""

    losses: Tensor
    rewards: Tensor


def _check_same_shape(**tensors: Tensor) -> None:
    shapes = {name: tuple(t.shape) for name, t in tensors.items()}
    first = next(iter(shapes.values()))
    if len(first) != 1 or any(s != first for s in shapes.values()):
        raise ValueError(f"expected 1-D tensors of one shape (B,), got shapes {shapes}")


def _check_positive(name: str, value: float) -> None:
    if not value > 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")


def average_logps(logps: Tensor, lengths: Tensor) -> Tensor:
    """Length-normalized log-probs ``logps / lengths`` (nats per token), shapes ``(B,)``.

    Raises when a length is not positive: an empty completion has no per-token average.
    """
    _check_same_shape(logps=logps, lengths=lengths)
    if bool((lengths <= 0).any()):
        raise ValueError(f"completion lengths must be >= 1 token, got {lengths.tolist()}")
    return logps / lengths.to(logps.dtype)


def dpo_loss(
    policy_chosen_logps: Tensor,
    policy_rejected_logps: Tensor,
    ref_chosen_logps: Tensor,
    ref_rejected_logps: Tensor,
    beta: float = 0.1,
    label_smoothing: float = 0.0,
) -> PairLoss:
    """DPO's sigmoid loss on ``h = Δ_chosen - Δ_rejected`` (conservative DPO when ``label_smoothing > 0``).

    Args:
        policy_chosen_logps, policy_rejected_logps: Policy sequence log-probs ``(B,)``, nats.
        ref_chosen_logps, ref_rejected_logps: Frozen reference sequence log-probs ``(B,)``.
        beta: Inverse temperature of the implicit reward ``β Δ``.
        label_smoothing: Assumed probability ``ε`` in ``[0, 0.5)`` that a preference label is flipped.

    Returns:
        :class:`PairLoss` with implicit rewards ``β Δ``.
    """
    _check_same_shape(policy_chosen_logps=policy_chosen_logps, policy_rejected_logps=policy_rejected_logps,
                      ref_chosen_logps=ref_chosen_logps, ref_rejected_logps=ref_rejected_logps)
    _check_positive("beta", beta)
    if not 0.0 <= label_smoothing < 0.5:
        raise ValueError(f"label_smoothing must be in [0, 0.5), got {label_smoothing!r}")
    chosen_ratio = policy_chosen_logps - ref_chosen_logps
    rejected_ratio = policy_rejected_logps - ref_rejected_logps
    logits = beta * (chosen_ratio - rejected_ratio)
    losses = -(1.0 - label_smoothing) * F.logsigmoid(logits) - label_smoothing * F.logsigmoid(-logits)
    return PairLoss(losses, beta * chosen_ratio.detach(), beta * rejected_ratio.detach())


def ipo_loss(
    policy_chosen_logps: Tensor,
    policy_rejected_logps: Tensor,
    ref_chosen_logps: Tensor,
    ref_rejected_logps: Tensor,
    beta: float = 0.1,
) -> PairLoss:
    """IPO's squared loss ``(h - 1/(2β))²`` with ``h = Δ_chosen - Δ_rejected``.

    The log-probs are used as given; pass length-averaged log-probs (:func:`average_logps`) to
    get the form TRL and the IPO authors use, which keeps ``β`` comparable across lengths.
    Implicit rewards are ``β Δ``.
    """
    _check_same_shape(policy_chosen_logps=policy_chosen_logps, policy_rejected_logps=policy_rejected_logps,
                      ref_chosen_logps=ref_chosen_logps, ref_rejected_logps=ref_rejected_logps)
    _check_positive("beta", beta)
    chosen_ratio = policy_chosen_logps - ref_chosen_logps
    rejected_ratio = policy_rejected_logps - ref_rejected_logps
    losses = (chosen_ratio - rejected_ratio - 1.0 / (2.0 * beta)) ** 2
    return PairLoss(losses, beta * chosen_ratio.detach(), beta * rejected_ratio.detach())


def kto_reference_point(policy_mismatched_logps: Tensor, ref_mismatched_logps: Tensor) -> Tensor:
    """KTO's reference point ``z0 = max(0, mean(log π(y'|x) - log π_ref(y'|x)))``, detached.

    ``y'`` are *mismatched* completions (another example's completion for prompt ``x``), which
    makes the mean a biased but low-variance estimate of ``KL(π || π_ref)``. Returns a 0-d tensor.
    """
    _check_same_shape(policy_mismatched_logps=policy_mismatched_logps, ref_mismatched_logps=ref_mismatched_logps)
    return (policy_mismatched_logps - ref_mismatched_logps).mean().clamp(min=0).detach()


def kto_loss(
    policy_logps: Tensor,
    ref_logps: Tensor,
    desirable: Tensor,
    reference_point: Tensor | float,
    beta: float = 0.1,
    desirable_weight: float = 1.0,
    undesirable_weight: float = 1.0,
) -> UnpairedLoss:
    """KTO's prospect-theoretic loss on unpaired completions labelled desirable or undesirable.

    Args:
        policy_logps, ref_logps: Sequence log-probs ``(B,)`` of each (prompt, completion).
        desirable: Bool ``(B,)``: True for a good completion, False for a bad one.
        reference_point: ``z0`` from :func:`kto_reference_point` (0-d tensor or float, no gradient).
        beta: Inverse temperature.
        desirable_weight, undesirable_weight: ``λ_D``, ``λ_U`` (rebalance unequal class counts).

    Returns:
        :class:`UnpairedLoss` with losses ``λ_D (1 - σ(β(Δ - z0)))`` for desirable and
        ``λ_U (1 - σ(β(z0 - Δ)))`` for undesirable examples, and implicit rewards ``β Δ``.
    """
    _check_same_shape(policy_logps=policy_logps, ref_logps=ref_logps, desirable=desirable)
    if desirable.dtype != torch.bool:
        raise TypeError(f"desirable must be a bool tensor, got dtype {desirable.dtype}")
    _check_positive("beta", beta)
    _check_positive("desirable_weight", desirable_weight)
    _check_positive("undesirable_weight", undesirable_weight)
    z0 = torch.as_tensor(reference_point, dtype=policy_logps.dtype, device=policy_logps.device)
    if z0.requires_grad:
        raise ValueError("reference_point must carry no gradient: detach it (see kto_reference_point)")
    ratio = policy_logps - ref_logps
    good = desirable_weight * (1.0 - torch.sigmoid(beta * (ratio - z0)))
    bad = undesirable_weight * (1.0 - torch.sigmoid(beta * (z0 - ratio)))
    return UnpairedLoss(torch.where(desirable, good, bad), beta * ratio.detach())


def simpo_loss(
    policy_chosen_logps: Tensor,
    policy_rejected_logps: Tensor,
    chosen_lengths: Tensor,
    rejected_lengths: Tensor,
    beta: float = 2.0,
    gamma: float = 1.0,
) -> PairLoss:
    """SimPO: reference-free, length-normalized, with a target reward margin ``γ``.

    Args:
        policy_chosen_logps, policy_rejected_logps: Summed sequence log-probs ``(B,)``, nats.
        chosen_lengths, rejected_lengths: Completion lengths in tokens ``(B,)``, each >= 1.
        beta: Reward scale; the implicit reward is ``β · logπ(y|x) / |y|``.
        gamma: Target margin ``γ`` between chosen and rejected rewards (>= 0).

    Returns:
        :class:`PairLoss` with losses ``-logσ(r_w - r_l - γ)``.
    """
    _check_same_shape(policy_chosen_logps=policy_chosen_logps, policy_rejected_logps=policy_rejected_logps,
                      chosen_lengths=chosen_lengths, rejected_lengths=rejected_lengths)
    _check_positive("beta", beta)
    if gamma < 0:
        raise ValueError(f"gamma must be >= 0, got {gamma!r}")
    chosen_rewards = beta * average_logps(policy_chosen_logps, chosen_lengths)
    rejected_rewards = beta * average_logps(policy_rejected_logps, rejected_lengths)
    losses = -F.logsigmoid(chosen_rewards - rejected_rewards - gamma)
    return PairLoss(losses, chosen_rewards.detach(), rejected_rewards.detach())


def log1mexp(x: Tensor) -> Tensor:
    """``log(1 - exp(x))`` for ``x < 0``, stable on both sides of ``-log 2``."""
    if bool((x >= 0).any()):
        raise ValueError(f"log1mexp needs x < 0 (a log-probability below 0), got max {x.max().item()!r}")
    return torch.where(x < -0.6931471805599453, torch.log1p(-torch.exp(x)), torch.log(-torch.expm1(x)))


def orpo_loss(
    policy_chosen_logps: Tensor,
    policy_rejected_logps: Tensor,
    chosen_lengths: Tensor,
    rejected_lengths: Tensor,
    lam: float = 0.1,
) -> PairLoss:
    """ORPO: the chosen completion's NLL plus ``λ`` times an odds-ratio preference term.

    With ``ā = logπ(y|x)/|y|`` (per-token average) and ``log odds(y) = ā - log(1 - e^ā)``, the
    per-pair loss is ``-ā_w - λ logσ(log odds(y_w) - log odds(y_l))``: the first term is the
    token-averaged SFT loss on the chosen completion. Implicit rewards are ``λ ā`` (TRL's logging
    convention). Reference-free.
    """
    _check_same_shape(policy_chosen_logps=policy_chosen_logps, policy_rejected_logps=policy_rejected_logps,
                      chosen_lengths=chosen_lengths, rejected_lengths=rejected_lengths)
    _check_positive("lam", lam)
    chosen_avg = average_logps(policy_chosen_logps, chosen_lengths)
    rejected_avg = average_logps(policy_rejected_logps, rejected_lengths)
    log_odds = (chosen_avg - log1mexp(chosen_avg)) - (rejected_avg - log1mexp(rejected_avg))
    losses = -chosen_avg - lam * F.logsigmoid(log_odds)
    return PairLoss(losses, lam * chosen_avg.detach(), lam * rejected_avg.detach())

"""Off-policy corrections: per-token weights on the policy loss for the gap between the policy that
sampled an episode (the *sampler*: a vLLM engine, a generator process a few optimizer steps behind)
and the policy the trainer computes (the *trainer*).

With ``rho_t = pi_trainer(y_t) / pi_sampler(y_t)`` (the trainer's recomputed probability over the
sampler's, from the episode's ``rollout_logprobs``) and the sequence ratio ``rho = prod_t rho_t``:

=================  ============================================================================
``tis``            truncated IS per token: ``w_t = min(rho_t, high)`` (Yao et al. 2025, "Your
                   efficient RL framework secretly brings you off-policy RL training"; high = 2)
``token_mask``     masked IS per token: ``w_t = rho_t`` inside ``[low, high]``, 0 outside: tokens
                   whose ratio leaves the band are dropped from the gradient (IcePop's ``M(k)``,
                   band ``[0.5, 5]``; the token masking of DPPO is the same rule)
``sequence_tis``   truncated IS per sequence: every token of episode ``i`` weighs ``min(rho, high)``
                   (high = 2)
``sequence_mask``  masked IS per sequence: every token of episode ``i`` weighs ``rho`` when
                   ``low <= rho <= high``, else 0 (the whole episode leaves the update; ``[0.5, 2]``)
=================  ============================================================================

Weights are detached (they scale the gradient, they are not differentiated) and are 0 on padding.
:class:`OffPolicyCorrection` holds the trainer's settings; :func:`correct` computes the weights and
the statistics the trainer logs (``rollout/{name}_weight``, ``rollout/ratio_mean``,
``rollout/masked_frac``, ``rollout/truncated_frac``).

Default: no correction for a synchronous run (its sampler is the trainer's own policy, the ratios
are 1 up to numerics, and a correction would only change the update by that noise: ``tis_cap``
switches ``tis`` on for a vLLM sampler); ``tis`` when ``max_staleness >= 1`` (stale samples have
real ratios; truncation keeps every token and bounds the variance, while masking throws data
away, so it is the conservative choice).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import torch

from rlenv.named_registry import Registry

#: Log-ratios are clamped to this before ``exp``, as in :mod:`~rlenv.trainers.policy_gradient.losses`.
LOG_RATIO_CLAMP = 20.0


@dataclasses.dataclass(frozen=True)
class Correction:
    """The weights of one correction and what it did, all ``(B, T)``.

    Attributes:
        weight: the detached loss weight of each token (0 on padding).
        ratio: ``rho_t``, the trainer/sampler probability ratio of each token.
        masked: bool, tokens the correction removed from the update (weight 0).
        truncated: bool, tokens whose weight the correction capped.
    """

    weight: torch.Tensor
    ratio: torch.Tensor
    masked: torch.Tensor
    truncated: torch.Tensor


#: ``fn(log_ratio, mask, low, high) -> (weight, masked, truncated)``, tensors ``(B, T)``.
CorrectionFn = Callable[[torch.Tensor, torch.Tensor, float, float], tuple[torch.Tensor, torch.Tensor, torch.Tensor]]
_CORRECTIONS: Registry[CorrectionFn] = Registry("off-policy correction")
#: Register a correction (decorator), look one up, list them (see :class:`rlenv.named_registry.Registry`).
register, get, names = _CORRECTIONS.register, _CORRECTIONS.get, _CORRECTIONS.names
#: The band ``(low, high)`` of each correction when the settings leave it out (see the module doc).
DEFAULT_BANDS: dict[str, tuple[float, float]] = {"tis": (0.0, 2.0), "token_mask": (0.5, 5.0),
                                                 "sequence_tis": (0.0, 2.0), "sequence_mask": (0.5, 2.0)}


def _sequence_log_ratio(log_ratio: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``log rho`` of each sequence, broadcast over its tokens ``(B, T)``."""
    return (log_ratio * mask).sum(1, keepdim=True).expand_as(log_ratio)


def _truncate(ratio: torch.Tensor, high: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return ratio.clamp(max=high), torch.zeros_like(ratio, dtype=torch.bool), ratio > high


def _mask(ratio: torch.Tensor, low: float, high: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    outside = (ratio < low) | (ratio > high)
    return torch.where(outside, torch.zeros_like(ratio), ratio), outside, torch.zeros_like(outside)


@register("tis")
def tis(log_ratio: torch.Tensor, mask: torch.Tensor, low: float, high: float):
    """Truncated importance sampling per token: ``min(rho_t, high)``."""
    return _truncate(torch.exp(log_ratio), high)


@register("token_mask")
def token_mask(log_ratio: torch.Tensor, mask: torch.Tensor, low: float, high: float):
    """Masked importance sampling per token: ``rho_t`` inside ``[low, high]``, else 0 (IcePop)."""
    return _mask(torch.exp(log_ratio), low, high)


@register("sequence_tis")
def sequence_tis(log_ratio: torch.Tensor, mask: torch.Tensor, low: float, high: float):
    """Truncated importance sampling per sequence: ``min(rho, high)`` on each of its tokens."""
    return _truncate(torch.exp(_sequence_log_ratio(log_ratio, mask).clamp(max=LOG_RATIO_CLAMP)), high)


@register("sequence_mask")
def sequence_mask(log_ratio: torch.Tensor, mask: torch.Tensor, low: float, high: float):
    """Masked importance sampling per sequence: ``rho`` inside ``[low, high]``, else 0, on each of its tokens."""
    return _mask(torch.exp(_sequence_log_ratio(log_ratio, mask).clamp(max=LOG_RATIO_CLAMP)), low, high)


@dataclasses.dataclass
class OffPolicyCorrection:
    """Settings of the off-policy correction (a part of :class:`~rlenv.trainers.policy_gradient.TrainerConfig`).

    Attributes:
        correction: the per-token weight of the policy loss for the sampler/trainer gap: ``"tis"``,
            ``"token_mask"`` (IcePop), ``"sequence_tis"``, ``"sequence_mask"``, ``"none"``; None =
            the default: ``"tis"`` when ``tis_cap`` is set or ``max_staleness >= 1`` with
            ``async_rollouts``, else none (see :mod:`rlenv.trainers.policy_gradient.corrections`).
        correction_low: lower edge of the masking band (None = the correction's default).
        correction_high: truncation cap, or upper edge of the masking band (None = the
            correction's default; ``tis_cap`` when set).
    """

    correction: str | None = None
    correction_low: float | None = None
    correction_high: float | None = None

    def __post_init__(self) -> None:
        super_init = getattr(super(), "__post_init__", None)
        if super_init is not None:
            super_init()
        if self.correction is not None and self.correction != "none" and self.correction not in _CORRECTIONS:
            raise ValueError(f"correction must be one of {['none', *names()]} or None, got {self.correction!r}")
        tis_cap = getattr(self, "tis_cap", None)
        if tis_cap is not None and self.correction not in (None, "tis"):
            raise ValueError(f"tis_cap={tis_cap} is the cap of the 'tis' correction, but correction="
                             f"{self.correction!r}: set correction_high instead")
        if tis_cap is not None and self.correction_high is not None:
            raise ValueError(f"tis_cap={tis_cap} and correction_high={self.correction_high} both set the TIS cap")
        low, high = self.correction_low, self.correction_high
        if not ((low is None or 0 <= low <= 1) and (high is None or high >= 1)):
            raise ValueError(f"the band of a correction must hold 1 (0 <= correction_low <= 1 <= correction_high), "
                             f"got correction_low={low}, correction_high={high}")

    def active_correction(self) -> str | None:
        """The correction in force once the default is resolved (None = none)."""
        if self.correction == "none":
            return None
        if self.correction is not None:
            return self.correction
        stale = getattr(self, "async_rollouts", False) and getattr(self, "max_staleness", 0) >= 1
        return "tis" if getattr(self, "tis_cap", None) is not None or stale else None

    def correction_band(self) -> tuple[float, float]:
        """``(low, high)`` of the active correction, defaults filled in."""
        name = self.active_correction()
        if name is None:
            raise ValueError("no correction is active")
        low, high = DEFAULT_BANDS[name]
        high = getattr(self, "tis_cap", None) or high
        return (low if self.correction_low is None else float(self.correction_low),
                high if self.correction_high is None else float(self.correction_high))


def correct(name: str, trainer_logp: torch.Tensor, sampler_logp: torch.Tensor, mask: torch.Tensor, *,
            low: float, high: float) -> Correction:
    """The weights of correction ``name`` for tokens with the trainer's log-probs ``trainer_logp`` and the
    sampler's ``sampler_logp`` (both ``(B, T)``; ``mask`` marks the completion tokens)."""
    m = mask.float()
    log_ratio = (trainer_logp.detach() - sampler_logp.detach()).clamp(-LOG_RATIO_CLAMP, LOG_RATIO_CLAMP) * m
    weight, masked, truncated = get(name)(log_ratio, m, low, high)
    on = m.bool()
    return Correction(weight=(weight * m).detach(), ratio=torch.exp(log_ratio), masked=masked & on,
                      truncated=truncated & on)


def statistics(name: str, result: Correction, mask: torch.Tensor) -> dict[str, tuple[float, float]]:
    """The logged statistics of ``result`` as ``{metric: (sum, count)}`` over the tokens of ``mask``:
    ``rollout/{name}_weight`` (mean weight), ``rollout/ratio_mean``, ``rollout/masked_frac`` and
    ``rollout/truncated_frac`` (shares of the tokens)."""
    m = mask.bool()
    n = float(m.sum())
    return {f"rollout/{name}_weight": (float(result.weight[m].sum()), n),
            "rollout/ratio_mean": (float(result.ratio[m].sum()), n),
            "rollout/masked_frac": (float(result.masked[m].float().sum()), n),
            "rollout/truncated_frac": (float(result.truncated[m].float().sum()), n)}

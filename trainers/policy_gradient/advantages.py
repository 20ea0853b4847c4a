"""Advantage estimators: a registry of small pure functions.

Every estimator has the signature ``fn(rewards, mask, group_ids, **cfg) -> (advantages, returns)``:

* ``rewards``: ``(B,)`` outcome rewards, or ``(B, T)`` token-level rewards (outcome on the last
  valid token, plus dense/process rewards and a folded-in KL penalty, see
  :func:`rlenv.trainers.batch.outcome_token_rewards`). Group estimators use the per-episode sum.
* ``mask``: ``(B, T)`` completion mask; masked positions inside a completion (e.g. tool output)
  are skipped by the temporal estimators.
* ``group_ids``: ``(B,)`` ids of the prompt groups; each group must be complete on this rank.
* outputs: ``(B, T)`` float32 tensors, zero on masked positions.

Statistics that span the batch (REINFORCE++'s whitening, GRPO's ``scale="batch"``, GAE's
whitening) are computed over all data-parallel ranks (:mod:`rlenv.trainers.distributed`), so a
sharded batch gets the same advantages as the whole batch in one process.

Conventions (pinned in the tests):

=========================  ===============================================================
``reinforce``              discounted return, no baseline
``reinforce_pp``           discounted return of the KL-shaped token rewards, whitened over
                           the global batch (biased variance, as OpenRLHF / the paper)
``reinforce_pp_baseline``  ``r - mean_group(r)`` on every token, then global whitening
``rloo``                   ``r_i - mean_{j != i} r_j``; singleton groups get 0
``grpo``                   ``(r - mean_group) / (std + eps)``, unbiased std; ``scale``:
                           ``group``, ``batch`` (global std, LitePPO) or ``none`` (Dr.GRPO)
``gae``                    mask-aware GAE(gamma, lambda) on ``values``; returns = A + V; then
                           whitening (unbiased variance, as TRL / verl PPO)
=========================  ===============================================================

A group whose rewards are all exactly equal gets exactly zero advantage from every group
estimator (never NaN, and never the tiny non-zero mean/std that float32 rounding gives rewards
such as 0.1 or 1.1, which ``(r - mean) / (std + eps)`` would blow up); whitening a batch whose
values are all equal gives zeros.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from rlenv.errors import check_choice
from rlenv.named_registry import Registry
from rlenv.trainers.batch import outcome_token_rewards
from rlenv.trainers.distributed import all_reduce

AdvantageFn = Callable[..., tuple[torch.Tensor, torch.Tensor]]
_ESTIMATORS: Registry[AdvantageFn] = Registry("advantage estimator")
#: GRPO ``scale`` values.
GRPO_SCALES = ("group", "batch", "none")


#: Register an estimator (decorator), look one up, list them (see :class:`rlenv.named_registry.Registry`).
register, get, names = _ESTIMATORS.register, _ESTIMATORS.get, _ESTIMATORS.names


# -- helpers -----------------------------------------------------------------------------------
def _check(rewards: torch.Tensor, mask: torch.Tensor, group_ids: torch.Tensor | None) -> None:
    if mask.dim() != 2:
        raise ValueError(f"mask must be (B, T), got shape {tuple(mask.shape)}")
    B = mask.shape[0]
    if tuple(rewards.shape) not in ((B,), tuple(mask.shape)):
        raise ValueError(f"rewards must be (B,)=({B},) or (B, T)={tuple(mask.shape)}, got {tuple(rewards.shape)}")
    if group_ids is not None and tuple(group_ids.shape) != (B,):
        raise ValueError(f"group_ids must be (B,)=({B},), got {tuple(group_ids.shape)}")


def token_level(rewards: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``(B, T)`` token rewards: ``(B,)`` outcomes go on the last valid token; ``(B, T)`` passes through masked."""
    if rewards.dim() == 1:
        return outcome_token_rewards(rewards, mask)
    return rewards.float() * mask


def sequence_scores(rewards: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``(B,)`` per-episode score: the outcome, or the sum of valid token rewards."""
    return rewards.float() if rewards.dim() == 1 else (rewards.float() * mask).sum(1)


def zero_variance_groups(scores: torch.Tensor, group_ids: torch.Tensor) -> torch.Tensor:
    """``(B,)`` bool: True for episodes whose group's scores (``(B,)``) are all exactly equal (no
    learning signal)."""
    _, inverse = torch.unique(group_ids, return_inverse=True)
    n = int(inverse.max()) + 1 if inverse.numel() else 0
    hi = torch.full((n,), -torch.inf, device=scores.device).scatter_reduce(0, inverse, scores.float(), "amax")
    lo = torch.full((n,), torch.inf, device=scores.device).scatter_reduce(0, inverse, scores.float(), "amin")
    return (hi == lo)[inverse]


def group_stats(scores: torch.Tensor, group_ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Per-episode ``(group mean, group unbiased std, group size)``, each ``(B,)``.

    The std of a singleton group is 0. In a group whose scores are all equal, the mean is
    exactly that score and the std exactly 0 (a float32 sum would round them off).
    """
    _, inverse = torch.unique(group_ids, return_inverse=True)
    n_groups = int(inverse.max()) + 1 if inverse.numel() else 0
    zeros = torch.zeros(n_groups, dtype=torch.float32, device=scores.device)
    count = zeros.index_add(0, inverse, torch.ones_like(scores, dtype=torch.float32))
    mean = zeros.index_add(0, inverse, scores.float()) / count
    sq = zeros.index_add(0, inverse, (scores.float() - mean[inverse]) ** 2)
    std = torch.where(count > 1, sq / (count - 1).clamp(min=1), zeros).sqrt()
    uniform = zero_variance_groups(scores, group_ids)
    return (torch.where(uniform, scores.float(), mean[inverse]), torch.where(uniform, 0.0, std[inverse]),
            count[inverse])


def masked_whiten(
    values: torch.Tensor, mask: torch.Tensor, *, unbiased: bool, shift_mean: bool = True, eps: float = 1e-8,
) -> torch.Tensor:
    """``(values - mean) / sqrt(var + eps)`` over the valid tokens of **all ranks**, zero on padding.

    ``unbiased`` picks the ``N - 1`` (TRL / verl) or ``N`` (OpenRLHF) variance; with fewer than
    two valid tokens the values are only centered.
    """
    m = mask.float()
    valid = mask.bool()
    extremes = all_reduce(torch.stack([torch.where(valid, values.float(), -torch.inf).max(),
                                       -torch.where(valid, values.float(), torch.inf).min()]), op="max")
    if shift_mean and bool(extremes[0] == -extremes[1]):  # every valid value equal (on all ranks): all zero
        return torch.zeros_like(values, dtype=torch.float32)
    stats = all_reduce(torch.stack([(values * m).sum(), m.sum()]).float())
    total, n = stats[0], stats[1]
    mean = total / n.clamp(min=1)
    sq = all_reduce((((values - mean) ** 2) * m).sum().float())
    denom = (n - 1) if unbiased else n
    centered = values - mean
    if float(n) < 2:
        return centered * m
    scaled = centered * torch.rsqrt(sq / denom + eps)
    return (scaled if shift_mean else scaled + mean) * m


def discounted_returns(token_rewards: torch.Tensor, mask: torch.Tensor, gamma: float = 1.0) -> torch.Tensor:
    """``G_t = r_t + gamma * G_{t+1}`` over valid tokens; masked positions are skipped (carry ``G``)."""
    m = mask.float()
    returns = torch.zeros_like(token_rewards, dtype=torch.float32)
    running = torch.zeros(token_rewards.shape[0], dtype=torch.float32, device=token_rewards.device)
    for t in reversed(range(token_rewards.shape[1])):
        updated = token_rewards[:, t].float() + gamma * running
        running = torch.where(m[:, t] > 0, updated, running)
        returns[:, t] = running
    return returns * m


def overlong_penalty(lengths: torch.Tensor, max_length: int, buffer: int, factor: float = 1.0) -> torch.Tensor:
    """DAPO's soft overlong punishment ``min(-(len - (max - buffer)) / buffer * factor, 0)``, ``(B,)``."""
    if buffer <= 0 or buffer > max_length:
        raise ValueError(f"buffer must be in (0, max_length={max_length}], got {buffer}")
    excess = lengths.float() - (max_length - buffer)
    return torch.clamp(-excess / buffer * factor, max=0.0)


# -- estimators --------------------------------------------------------------------------------
@register("reinforce")
def reinforce(rewards: torch.Tensor, mask: torch.Tensor, group_ids: torch.Tensor | None = None, *,
              gamma: float = 1.0) -> tuple[torch.Tensor, torch.Tensor]:
    """REINFORCE without baseline: advantage = discounted return of the token rewards."""
    _check(rewards, mask, group_ids)
    returns = discounted_returns(token_level(rewards, mask), mask, gamma)
    return returns, returns


@register("reinforce_pp")
def reinforce_pp(rewards: torch.Tensor, mask: torch.Tensor, group_ids: torch.Tensor | None = None, *,
                 gamma: float = 1.0, unbiased: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    """REINFORCE++: discounted return, whitened over the valid tokens of the global batch.

    Fold the token-level KL penalty into ``rewards`` (``(B, T)``) before calling: ``r_t = -beta *
    kl_t (+ outcome on the last token)``.
    """
    _check(rewards, mask, group_ids)
    returns = discounted_returns(token_level(rewards, mask), mask, gamma)
    return masked_whiten(returns, mask, unbiased=unbiased), returns


@register("reinforce_pp_baseline")
def reinforce_pp_baseline(rewards: torch.Tensor, mask: torch.Tensor, group_ids: torch.Tensor, *,
                          unbiased: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    """REINFORCE++-baseline: ``r - mean_group(r)`` broadcast to tokens, then global whitening."""
    _check(rewards, mask, group_ids)
    scores = sequence_scores(rewards, mask)
    mean, _, _ = group_stats(scores, group_ids)
    centered = (scores - mean).unsqueeze(1) * mask
    signal = ~zero_variance_groups(scores, group_ids)  # whitening's shift must not move equal groups off 0
    return masked_whiten(centered, mask, unbiased=unbiased) * signal.unsqueeze(1), scores.unsqueeze(1) * mask


@register("rloo")
def rloo(rewards: torch.Tensor, mask: torch.Tensor, group_ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """RLOO: ``r_i - mean_{j != i} r_j`` within each group; a singleton group has no baseline and gets 0."""
    _check(rewards, mask, group_ids)
    scores = sequence_scores(rewards, mask)
    mean, _, count = group_stats(scores, group_ids)
    adv = torch.where(count > 1, (scores - mean) * count / (count - 1).clamp(min=1), torch.zeros_like(scores))
    return adv.unsqueeze(1) * mask, scores.unsqueeze(1) * mask


@register("grpo")
def grpo(rewards: torch.Tensor, mask: torch.Tensor, group_ids: torch.Tensor, *, scale: str = "group",
         eps: float = 1e-6) -> tuple[torch.Tensor, torch.Tensor]:
    """GRPO: ``(r - mean_group) / (std + eps)`` broadcast to tokens.

    Args:
        scale: ``"group"`` (unbiased std of the group), ``"batch"`` (unbiased std of all episodes of
            all ranks, mean still per group) or ``"none"`` (Dr.GRPO: ``r - mean_group``).
        eps: added to the std. A zero std gives a zero advantage (never NaN).
    """
    _check(rewards, mask, group_ids)
    check_choice("grpo scale", scale, GRPO_SCALES)
    scores = sequence_scores(rewards, mask)
    mean, std, _ = group_stats(scores, group_ids)
    centered = scores - mean
    if scale == "none":
        adv = centered
    else:
        if scale == "batch":
            ones = torch.ones_like(scores).unsqueeze(1)
            batch_std = global_std(scores.unsqueeze(1), ones)
            std = batch_std.expand_as(scores)
        adv = torch.where(std > 0, centered / (std + eps), torch.zeros_like(centered))
    return adv.unsqueeze(1) * mask, scores.unsqueeze(1) * mask


def global_std(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Unbiased std of the valid entries of ``values`` over all ranks (a 0-dim tensor; 0 below two entries)."""
    m = mask.float()
    stats = all_reduce(torch.stack([(values * m).sum(), m.sum()]).float())
    n = stats[1]
    mean = stats[0] / n.clamp(min=1)
    sq = all_reduce((((values - mean) ** 2) * m).sum().float())
    return torch.where(n > 1, sq / (n - 1).clamp(min=1), torch.zeros_like(sq)).sqrt()


@register("gae")
def gae(rewards: torch.Tensor, mask: torch.Tensor, group_ids: torch.Tensor | None = None, *,
        values: torch.Tensor, gamma: float = 1.0, lam: float = 0.95, whiten: bool = True,
        unbiased: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
    """Generalized advantage estimation (PPO), mask-aware.

    Args:
        values: ``(B, T)`` critic values ``V(s_t)`` read at the position before token ``t``;
            the value after the last token is 0 (episodes end there).
        gamma, lam: discount and GAE lambda.
        whiten: whiten the advantages over the valid tokens of all ranks.
        unbiased: variance estimator of the whitening.

    Masked positions inside a completion are skipped: the next value and the running advantage
    are carried through them unchanged (so observation tokens do not affect the result).
    Returns are ``A + V`` before whitening.
    """
    _check(rewards, mask, group_ids)
    if tuple(values.shape) != tuple(mask.shape):
        raise ValueError(f"values must be (B, T)={tuple(mask.shape)}, got {tuple(values.shape)}")
    token_rewards = token_level(rewards, mask)
    m = mask.float()
    v = values.float().detach()
    B, T = mask.shape
    adv = torch.zeros((B, T), dtype=torch.float32, device=mask.device)
    next_value = torch.zeros(B, dtype=torch.float32, device=mask.device)
    running = torch.zeros(B, dtype=torch.float32, device=mask.device)
    for t in reversed(range(T)):
        delta = token_rewards[:, t] + gamma * next_value - v[:, t]
        updated = delta + gamma * lam * running
        valid = m[:, t] > 0
        running = torch.where(valid, updated, running)
        next_value = torch.where(valid, v[:, t], next_value)
        adv[:, t] = running
    returns = (adv + v) * m
    adv = adv * m
    if whiten:
        adv = masked_whiten(adv, mask, unbiased=unbiased)
    return adv, returns

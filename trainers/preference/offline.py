"""Offline preference optimization on pairs (:class:`~rlenv.trainers.preference.data.PreferenceBatch`).

* :class:`PreferenceTrainer` runs optimizer steps with any loss of
  :mod:`rlenv.trainers.preference.losses` (``dpo``, ``ipo``, ``kto``, ``simpo``, ``orpo``) on the
  sequence log-probs of :func:`rlenv.trainers.logprobs.sequence_logprobs`, against a frozen reference,
  and logs the :class:`~rlenv.trainers.preference.monitor.PreferenceMonitor` metrics every step.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
from collections.abc import Callable

import torch
from torch import Tensor, nn
from tqdm.auto import tqdm

from rlenv.trainers.logprobs import sequence_logprobs
from rlenv.trainers.preference.config import PreferenceConfig
from rlenv.trainers.preference.data import PreferenceBatch
from rlenv.trainers.preference.losses import (
    PairLoss,
    average_logps,
    dpo_loss,
    ipo_loss,
    kto_loss,
    kto_reference_point,
    orpo_loss,
    simpo_loss,
)
from rlenv.trainers.preference.monitor import PreferenceMonitor

logger = logging.getLogger(__name__)

#: Losses that do not use the reference model (it is still used by the monitors).
REFERENCE_FREE = frozenset({"simpo", "orpo"})


@dataclasses.dataclass
class PairLogps:
    """Sequence log-probs of a :class:`PreferenceBatch` under one model, all ``(B,)``."""

    chosen: Tensor
    rejected: Tensor


def pair_logps(model: nn.Module, pairs: PreferenceBatch, temperature: float = 1.0) -> PairLogps:
    """Summed sequence log-probs (nats) of chosen and rejected completions, in one forward of ``2B`` rows."""
    logps = sequence_logprobs(model, *pairs.stacked(), temperature=temperature, loss_mask=pairs.stacked_loss_mask())
    chosen, rejected = logps.chunk(2)
    return PairLogps(chosen, rejected)


def _mismatched_logps(model: nn.Module, pairs: PreferenceBatch, temperature: float) -> Tensor:
    """Log-probs of each prompt with the *previous* pair's chosen completion (KTO's KL estimate)."""
    shift = torch.roll(torch.arange(len(pairs)), 1)
    loss_mask = None if pairs.chosen_loss_mask is None else pairs.chosen_loss_mask[shift]
    return sequence_logprobs(model, pairs.prompt_ids, pairs.prompt_mask, pairs.chosen_ids[shift],
                             pairs.chosen_mask[shift], temperature=temperature, loss_mask=loss_mask)


def preference_loss(
    config: PreferenceConfig, policy: PairLogps, reference: PairLogps, pairs: PreferenceBatch,
    kto_point: Tensor | None = None,
) -> PairLoss:
    """Per-pair losses of ``config.loss`` (plus ``nll_weight`` times the chosen NLL) on the given log-probs.

    ``kto_point`` is KTO's reference point ``z0`` (required for ``kto``). For KTO the two
    returned loss halves are averaged per pair, so the batch mean equals KTO's mean over its
    ``2B`` unpaired examples.
    """
    out = _pair_loss(config, policy, reference, pairs, kto_point)
    if config.nll_weight == 0:
        return out
    nll = -average_logps(policy.chosen, pairs.chosen_lengths.to(policy.chosen.dtype))
    return dataclasses.replace(out, losses=out.losses + config.nll_weight * nll)


def _pair_loss(
    config: PreferenceConfig, policy: PairLogps, reference: PairLogps, pairs: PreferenceBatch,
    kto_point: Tensor | None,
) -> PairLoss:
    name, beta = config.loss, config.loss_beta
    lc, lr = pairs.chosen_lengths.to(policy.chosen.dtype), pairs.rejected_lengths.to(policy.chosen.dtype)
    if name == "dpo":
        return dpo_loss(policy.chosen, policy.rejected, reference.chosen, reference.rejected, beta,
                        config.label_smoothing)
    if name == "ipo":
        if config.ipo_average:
            return ipo_loss(average_logps(policy.chosen, lc), average_logps(policy.rejected, lr),
                            average_logps(reference.chosen, lc), average_logps(reference.rejected, lr), beta)
        return ipo_loss(policy.chosen, policy.rejected, reference.chosen, reference.rejected, beta)
    if name == "simpo":
        return simpo_loss(policy.chosen, policy.rejected, lc, lr, beta, config.simpo_gamma)
    if name == "orpo":
        return orpo_loss(policy.chosen, policy.rejected, lc, lr, beta)
    if kto_point is None:
        raise ValueError("the kto loss needs its reference point z0 (kto_point)")
    n = len(pairs)
    desirable = torch.cat([torch.ones(n, dtype=torch.bool), torch.zeros(n, dtype=torch.bool)]).to(lc.device)
    out = kto_loss(torch.cat([policy.chosen, policy.rejected]), torch.cat([reference.chosen, reference.rejected]),
                   desirable, kto_point, beta, config.kto_desirable_weight, config.kto_undesirable_weight)
    good, bad = out.losses.chunk(2)
    chosen_rewards, rejected_rewards = out.rewards.chunk(2)
    return PairLoss((good + bad) / 2.0, chosen_rewards, rejected_rewards)


def frozen_copy(model: nn.Module) -> nn.Module:
    """A deep copy of ``model`` in eval mode with gradients off (the frozen reference)."""
    ref = copy.deepcopy(model)
    ref.eval()
    ref.requires_grad_(False)
    return ref


class PreferenceTrainer:
    """Optimizer steps of a preference loss on a policy, against a frozen reference.

    Args:
        policy: A ``transformers`` causal LM, trained in place.
        config: A :class:`PreferenceConfig`.
        ref_model: The frozen reference; defaults to a copy of ``policy`` taken now. It is used by
            ``dpo``/``ipo``/``kto`` and, for every loss, by the monitors.
        optimizer: Defaults to AdamW over the policy's trainable parameters.
        log_fn: Called as ``log_fn(metrics, step)`` after every step (e.g. a JSONL/TensorBoard
            writer); metrics are also kept in :attr:`history`.
    """

    def __init__(
        self, policy: nn.Module, config: PreferenceConfig | None = None, ref_model: nn.Module | None = None,
        optimizer: torch.optim.Optimizer | None = None, log_fn: Callable[[dict[str, float], int], None] | None = None,
    ):
        self.policy = policy
        self.config = config or PreferenceConfig()
        self.ref_model = frozen_copy(policy) if ref_model is None else ref_model
        self.optimizer = optimizer or torch.optim.AdamW(
            [p for p in policy.parameters() if p.requires_grad], lr=self.config.lr,
            weight_decay=self.config.weight_decay)
        self.monitor = PreferenceMonitor(self.config.loss_beta, self.config.monitor_patience)
        self.log_fn = log_fn
        self.step_count = 0
        self.history: list[dict[str, float]] = []

    def sync_reference(self) -> None:
        """Copy the policy's current weights into the reference (iterative DPO's reference update)."""
        self.ref_model.load_state_dict(self.policy.state_dict())

    def step(self, pairs: PreferenceBatch) -> dict[str, float]:
        """One optimizer step on all of ``pairs`` (accumulated over micro-batches); returns the step's metrics."""
        if len(pairs) == 0:
            raise ValueError("step() needs at least one pair")
        cfg = self.config
        device = next(self.policy.parameters()).device
        pairs = pairs.to(device)
        self.policy.train()
        kto_point = None
        if cfg.loss == "kto":
            with torch.no_grad():
                kto_point = kto_reference_point(_mismatched_logps(self.policy, pairs, cfg.temperature),
                                                _mismatched_logps(self.ref_model, pairs, cfg.temperature))
        self.optimizer.zero_grad(set_to_none=True)
        parts: dict[str, list[Tensor]] = {"loss": [], "pc": [], "pr": [], "rc": [], "rr": []}
        for start in range(0, len(pairs), cfg.micro_batch_size):
            micro = pairs.select(slice(start, start + cfg.micro_batch_size))
            with torch.no_grad():
                reference = pair_logps(self.ref_model, micro, cfg.temperature)
            policy = pair_logps(self.policy, micro, cfg.temperature)
            out = preference_loss(cfg, policy, reference, micro, kto_point)
            (out.losses.sum() / len(pairs)).backward()
            for key, value in (("loss", out.losses), ("pc", policy.chosen), ("pr", policy.rejected),
                               ("rc", reference.chosen), ("rr", reference.rejected)):
                parts[key].append(value.detach())
        params = [p for p in self.policy.parameters() if p.requires_grad]
        max_norm = cfg.max_grad_norm if cfg.max_grad_norm is not None else float("inf")
        grad_norm = float(torch.nn.utils.clip_grad_norm_(params, max_norm))
        self.optimizer.step()
        joined = {k: torch.cat(v) for k, v in parts.items()}
        metrics = {"loss": joined["loss"].mean().item(), "grad_norm": grad_norm, "pairs": float(len(pairs))}
        if kto_point is not None:
            metrics["kto/reference_point"] = float(kto_point)
        metrics.update(self.monitor.update(joined["pc"], joined["pr"], joined["rc"], joined["rr"]))
        self.step_count += 1
        self.history.append(metrics)
        if self.log_fn is not None:
            self.log_fn(metrics, self.step_count)
        logger.debug("preference step %d: %s", self.step_count, metrics)
        return metrics

    def fit(self, pairs: PreferenceBatch, epochs: int = 1, seed: int = 0, progress: bool = True) -> list[dict[str, float]]:
        """Offline training: ``epochs`` shuffled passes over ``pairs`` in steps of ``config.batch_size``."""
        if epochs < 1:
            raise ValueError(f"epochs must be >= 1, got {epochs}")
        generator = torch.Generator().manual_seed(seed)
        size = self.config.batch_size
        steps = epochs * -(-len(pairs) // size)
        out = []
        with tqdm(total=steps, desc=f"{self.config.loss} offline", disable=None if progress else True) as bar:
            for _ in range(epochs):
                order = torch.randperm(len(pairs), generator=generator)
                for start in range(0, len(pairs), size):
                    metrics = self.step(pairs.select(order[start: start + size]))
                    out.append(metrics)
                    bar.update(1)
                    bar.set_postfix(loss=f"{metrics['loss']:.4f}", margin=f"{metrics['rewards/margin']:.3f}")
        return out

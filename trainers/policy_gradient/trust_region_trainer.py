"""PPO-KLPEN and TRPO as :class:`~rlenv.trainers.policy_gradient.trainer.Trainer` variants on language-model policies.

Both reuse the Trainer's rollout, advantage estimators, metrics, logging and checkpoints; only
the policy update differs.

* :class:`KLPenaltyTrainer` (PPO-KLPEN, Schulman et al. 2017 §4): the per-token loss
  ``-r·A + β·KL(π_old ‖ π)`` (policy loss ``ppo_klpen`` of :mod:`~rlenv.trainers.policy_gradient.losses`), several epochs per rollout, and after
  each update ``β`` is halved or doubled by :class:`~rlenv.trainers.policy_gradient.trust_region.AdaptiveKLController`
  from the measured ``KL(π_old ‖ π_new)``. Preset: :data:`PPO_KLPEN` (PPO's critic, GAE and
  reference-KL settings with the penalty in place of the clip).
* :class:`TRPOTrainer` (Schulman et al. 2015): one natural-gradient step per rollout, solved by
  conjugate gradient on Fisher-vector products of the exact per-token ``KL(π_old ‖ π)`` (full
  vocabulary), scaled to the trust region ``max_kl`` and accepted by a KL line search. Meant for
  small policies: it materializes ``(B, T, V)`` log-probabilities. It uses a critic-free
  estimator (``grpo``, ``rloo``, ``reinforce``...): TRPO's value-function fit is not implemented.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path
from typing import Any

import torch
from torch import Tensor
from torch.nn.attention import SDPBackend, sdpa_kernel

from rlenv.trainers import distributed as dist
from rlenv.trainers.batch import EpisodeBatch
from rlenv.trainers.logprobs import batch_logprobs, completion_hidden_states
from rlenv.trainers.policy_gradient import losses
from rlenv.trainers.policy_gradient.algorithms import ALGORITHMS, Algorithm
from rlenv.trainers.policy_gradient.trainer import CHECKPOINT_FILE, Trainer
from rlenv.trainers.policy_gradient.trust_region import AdaptiveKLController, trpo_step

#: PPO-KLPEN: PPO's critic, GAE and reference-KL settings, the adaptive old-policy KL penalty instead of the clip.
PPO_KLPEN = ALGORITHMS["ppo"].replace(
    name="ppo_klpen", policy_loss="ppo_klpen", loss_kwargs={"kl_coef": 1.0},
    description="PPO-KLPEN (Schulman et al. 2017): -r*A + beta*KL(old||new) per token, beta halved/doubled "
                "toward kl_target after each update; critic and GAE as the ppo preset")


def _masked_mean(values: Tensor, mask: Tensor) -> float:
    m = mask.bool()
    totals = dist.all_reduce(torch.stack([values[m].double().sum(), m.double().sum()]).cpu())
    return float(totals[0] / totals[1].clamp(min=1))


def old_policy_kl(new_logp: Tensor, old_logp: Tensor, mask: Tensor) -> float:
    """Token-mean of ``(r - 1) - log r`` (``r = π_new/π_old``): an unbiased estimate of ``KL(π_old ‖ π_new)`` in nats."""
    log_ratio = new_logp - old_logp
    return _masked_mean(torch.expm1(log_ratio) - log_ratio, mask)


class KLPenaltyTrainer(Trainer):
    """PPO with Schulman's adaptive KL penalty (PPO-KLPEN).

    Args:
        policy, env_or_source, config, **kwargs: As for :class:`~rlenv.trainers.policy_gradient.trainer.Trainer`.
        algorithm: An algorithm whose ``policy_loss`` is ``ppo_klpen`` (default :data:`PPO_KLPEN`);
            its ``loss_kwargs["kl_coef"]`` is the initial ``β``.
        kl_target: ``d_targ``, the wanted token-mean ``KL(π_old ‖ π_new)`` per update (nats).

    Metrics added each step: ``klpen/coef`` (the ``β`` used), ``klpen/kl`` (measured KL after the
    update) and ``klpen/next_coef``.
    """

    def __init__(self, policy: Any, env_or_source: Any, algorithm: str | Algorithm = PPO_KLPEN,
                 config: Any = None, *, kl_target: float = 0.01, **kwargs: Any):
        super().__init__(policy, env_or_source, algorithm, config, **kwargs)
        if self.algorithm.policy_loss != "ppo_klpen":
            raise ValueError(f"KLPenaltyTrainer needs policy_loss='ppo_klpen', got {self.algorithm.policy_loss!r}")
        self.kl_controller = AdaptiveKLController(self.algorithm.loss_kwargs.get("kl_coef", 1.0), kl_target)

    def update(self, batch: EpisodeBatch) -> dict[str, float]:
        batch = batch.to(self.device)
        kwargs: dict[str, Any] = dict(micro_batch_size=self.config.micro_batch_size, temperature=self.config.temperature,
                                      chunk_size=self.config.logprob_chunk_size)
        old_logprobs = batch.old_logprobs
        if old_logprobs is None:
            old_logprobs = batch_logprobs(self.policy, batch, **kwargs)
            batch = batch.replace(old_logprobs=old_logprobs)
        base, coef = self.algorithm, self.kl_controller.value
        self.algorithm = base.replace(loss_kwargs={**base.loss_kwargs, "kl_coef": coef})
        try:
            metrics = super().update(batch)
        finally:
            self.algorithm = base
        kl = old_policy_kl(batch_logprobs(self.policy, batch, **kwargs), old_logprobs, batch.loss_mask)
        metrics.update({"klpen/coef": coef, "klpen/kl": kl, "klpen/next_coef": self.kl_controller.update(kl)})
        return metrics

    def state_dict(self) -> dict[str, Any]:
        return {**super().state_dict(), "kl_controller": self.kl_controller.state_dict()}

    def load_checkpoint(self, path: str | Path) -> None:
        super().load_checkpoint(path)
        path = Path(path)
        file = path / CHECKPOINT_FILE if path.is_dir() else path
        self.kl_controller.load_state_dict(torch.load(file, map_location="cpu", weights_only=False)["kl_controller"])


@dataclasses.dataclass
class TRPOConfig:
    """TRPO's step settings (see :func:`~rlenv.trainers.policy_gradient.trust_region.trpo_step`).

    Attributes:
        max_kl: Trust-region radius ``δ``: token-mean ``KL(π_old ‖ π_new)`` in nats.
        damping: Damping added to the Fisher-vector products.
        cg_iters: Conjugate-gradient iterations.
        backtrack_ratio, max_backtracks, accept_ratio: Line-search settings.
    """

    max_kl: float = 0.01
    damping: float = 0.1
    cg_iters: int = 10
    backtrack_ratio: float = 0.5
    max_backtracks: int = 10
    accept_ratio: float = 0.1


class TRPOTrainer(Trainer):
    """TRPO on a (small) language-model policy, with any critic-free advantage estimator.

    The surrogate is the algorithm's aggregation (e.g. GRPO's per-sequence token mean) of
    ``r_t · A_t``; the constraint is the token-mean of the exact ``KL(π_old(·|s_t) ‖ π(·|s_t))``
    over the vocabulary. The Trainer's optimizer is not used.

    Args:
        policy, env_or_source, algorithm, config, **kwargs: As for :class:`~rlenv.trainers.policy_gradient.trainer.Trainer`
            (default algorithm ``grpo``; ``kl_coef`` must be 0 or its KL placed in the reward).
        trpo: A :class:`TRPOConfig`.

    Metrics added each step: ``trpo/accepted``, ``trpo/kl``, ``trpo/improvement``,
    ``trpo/expected_improvement``, ``trpo/step_fraction``, ``trpo/grad_norm``, ``trpo/backtracks``.
    """

    def __init__(self, policy: Any, env_or_source: Any, algorithm: str | Algorithm = "grpo", config: Any = None, *,
                 trpo: TRPOConfig | None = None, **kwargs: Any):
        super().__init__(policy, env_or_source, algorithm, config, **kwargs)
        alg = self.algorithm
        if alg.critic:
            raise ValueError(f"TRPOTrainer uses critic-free estimators; algorithm {alg.name!r} has a critic")
        if alg.kl_coef > 0 and alg.kl_placement == "loss":
            raise ValueError("TRPOTrainer's surrogate has no KL loss term: use kl_coef=0 or kl_placement='reward'")
        if dist.is_distributed():
            raise NotImplementedError("TRPOTrainer runs in one process (its CG solve is not sharded)")
        self.trpo = trpo or TRPOConfig()

    def _token_log_dists(self, batch: EpisodeBatch) -> Tensor:
        """``(B, T, V)`` log-probabilities of the tempered next-token distribution at each completion position."""
        hidden = completion_hidden_states(self.policy, batch.prompt_ids, batch.prompt_mask, batch.completion_ids,
                                          batch.completion_mask)
        logits = self.policy.get_output_embeddings()(hidden).float() / self.config.temperature
        return torch.log_softmax(logits, dim=-1)

    def update(self, batch: EpisodeBatch) -> dict[str, float]:
        batch, extra = self.prepare(batch)
        advantages, mask = extra["advantages"], batch.loss_mask
        alg, cfg = self.algorithm, self.config
        index = batch.completion_ids.unsqueeze(-1)
        with torch.no_grad():
            old_dists = self._token_log_dists(batch)
            old_logp = old_dists.gather(-1, index).squeeze(-1)

        def surrogate() -> Tensor:
            logp = self._token_log_dists(batch).gather(-1, index).squeeze(-1)
            return losses.aggregate(torch.exp(logp - old_logp) * advantages, mask, alg.aggregation,
                                    max_len=cfg.max_new_tokens)

        def kl() -> Tensor:
            per_token = (old_dists.exp() * (old_dists - self._token_log_dists(batch))).sum(-1)
            return losses.aggregate(per_token, mask, "token_mean")

        t = self.trpo
        with sdpa_kernel(SDPBackend.MATH):  # Fisher-vector products need double backward through attention
            info = trpo_step(self.policy, surrogate, kl, max_kl=t.max_kl, damping=t.damping, cg_iters=t.cg_iters,
                             backtrack_ratio=t.backtrack_ratio, max_backtracks=t.max_backtracks,
                             accept_ratio=t.accept_ratio)
        rewards = batch.rewards.float()
        metrics = {"reward/mean": float(rewards.mean()), "reward/sq_mean": float((rewards ** 2).mean()),
                   "length/mean": float(batch.lengths.float().mean()), "episodes": float(len(batch)),
                   "adv/abs_mean": _masked_mean(advantages.abs(), mask)}
        metrics.update({f"status/{s}": float(n) for s, n in Counter(batch.infos.get("status", [])).items()})
        metrics.update({f"trpo/{k}": float(v) for k, v in dataclasses.asdict(info).items()})
        return metrics


__all__ = ["PPO_KLPEN", "KLPenaltyTrainer", "TRPOConfig", "TRPOTrainer", "old_policy_kl"]

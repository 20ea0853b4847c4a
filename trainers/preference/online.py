"""Online (iterative) DPO on rlenv environments: :class:`OnlineDPO` alternates sampling groups from
the current policy, ranking them with the environment, and preference steps on the resulting pairs
(:class:`~rlenv.trainers.preference.offline.PreferenceTrainer`)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

import torch
from torch import nn

from rlenv.trainers.preference.config import OnlineDPOConfig
from rlenv.trainers.preference.data import pairs_from_groups
from rlenv.trainers.preference.offline import PreferenceTrainer
from rlenv.trainers.rollout import EpisodeEnv, FailFast
from rlenv.trainers.rounds import RoundCallback, run_rounds, sample_round
from rlenv.trainers.stall import StallWarning

logger = logging.getLogger(__name__)


class OnlineDPO:
    """Online / iterative DPO: pairs built each round from on-policy groups ranked by an environment.

    Each round resets ``env`` (a vector env with ``group_size >= 2``, e.g.
    ``rlenv.make_vec(id, num_tasks=16, group_size=4)``), samples one completion per episode from
    the current policy, takes the best vs the worst completion of every group by env reward
    (ties skipped) and runs preference steps on those pairs.

    Args:
        policy, tokenizer: The policy and its tokenizer.
        env: The vector env (see :class:`rlenv.trainers.rollout.EpisodeEnv`).
        config: An :class:`OnlineDPOConfig`.
        ref_model: Frozen reference (default: a copy of the policy at construction).
        evaluate: Optional ``evaluate(policy) -> dict`` run after every round (e.g. held-out pass@1).
        log_fn: Receives every preference step's metrics and every round's metrics (keys prefixed
            ``round/``).
    """

    def __init__(
        self, policy: nn.Module, tokenizer: Any, env: EpisodeEnv, config: OnlineDPOConfig | None = None,
        ref_model: nn.Module | None = None, evaluate: Callable[[nn.Module], Mapping[str, float]] | None = None,
        log_fn: Callable[[dict[str, float], int], None] | None = None,
    ):
        self.config = config or OnlineDPOConfig()
        self.policy = policy
        self.tokenizer = tokenizer
        self.env = env
        self.fail_fast = FailFast(self.config, env)
        self.stall = StallWarning(self.config.stall_warning_rounds, self.config.preference.lr,
                                  self.fail_fast.env_name, unit="round")
        self.evaluate = evaluate
        self.log_fn = log_fn
        self.trainer = PreferenceTrainer(policy, self.config.preference, ref_model, log_fn=log_fn)
        self.generator = self.config.rollout_generator(policy, tokenizer)
        self.pad_token_id = int(tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id)
        self.rounds: list[dict[str, float]] = []

    def train_round(self, round_index: int) -> dict[str, float]:
        """Sample, pair, update; returns the round's metrics."""
        cfg = self.config
        batch, failures = sample_round(self.env, self.generator, self.tokenizer, cfg.seed + round_index, cfg,
                                       self.fail_fast)
        self.stall.observe(round_index + 1, batch)
        if len(batch) == 0:
            logger.warning("round %d: every episode's verifier failed, nothing to learn from", round_index)
            return {"round": float(round_index), "samples": 0.0, **failures.metrics()}
        pairs, stats = pairs_from_groups(batch, self.pad_token_id)
        metrics = {"round": float(round_index), "reward/mean": batch.rewards.mean().item(), **stats,
                   **failures.metrics()}
        statuses = batch.infos.get("status")
        if statuses is not None:
            metrics["correct_fraction"] = sum(s == "correct" for s in statuses) / len(statuses)
        if pairs is not None:
            generator = torch.Generator().manual_seed(cfg.seed + round_index)
            size = cfg.preference.batch_size
            steps = []
            for _ in range(cfg.updates_per_round):
                order = torch.randperm(len(pairs), generator=generator)
                steps += [self.trainer.step(pairs.select(order[s: s + size])) for s in range(0, len(pairs), size)]
            metrics["loss"] = sum(m["loss"] for m in steps) / len(steps)
            metrics["rewards/margin"] = steps[-1]["rewards/margin"]
            metrics["displacement/active"] = steps[-1]["displacement/active"]
        else:
            logger.info("round %d: every group tied, no preference pairs", round_index)
        if cfg.sync_reference_every and (round_index + 1) % cfg.sync_reference_every == 0:
            self.trainer.sync_reference()
        if self.evaluate is not None:
            metrics.update(self.evaluate(self.policy))
        return metrics

    def train(self, progress: bool = True, callback: RoundCallback | None = None) -> list[dict[str, float]]:
        """Run ``config.rounds`` rounds; returns (and keeps in :attr:`rounds`) the per-round metrics.
        ``callback(round, metrics)`` is called after every round (rounds count from 1)."""
        log_fn = self.log_fn
        log = None if log_fn is None else (
            lambda r, metrics: log_fn({f"round/{k}": v for k, v in metrics.items()}, self.trainer.step_count))
        return run_rounds(self.config.rounds, self.train_round, self.rounds, desc="online DPO", progress=progress,
                          callbacks=(callback, log))

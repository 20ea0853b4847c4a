"""Self-training on an rlenv environment: sample, filter by reward, fine-tune, repeat.

One loop, three presets (:data:`PRESETS`, :func:`self_training_config`):

* ``raft`` (Dong et al. 2023): sample ``N`` completions per prompt (the env's ``group_size``),
  keep the top-``k`` by env reward, fine-tune on them. With a 0/1 verifier set ``min_reward=1``
  so an all-wrong group contributes nothing (RAFT++, Xiong et al. 2025).
* ``rest`` (Gulcehre et al. 2023): each round is a *grow* step (sample from the current policy)
  followed by several *improve* steps that fine-tune on the same samples filtered with a rising
  reward threshold (``thresholds``).
* ``star`` (Zelikman et al. 2022): keep the chains whose status is ``correct``; with
  ``rationalize`` the problems no sample solved are re-asked with the reference answer as a hint
  (``hint_template``) and the hinted chains that reach it are kept, paired with the *original*
  prompt. Each round fine-tunes from the initial weights (``restart_from_initial``).

Every round logs the kept fraction, pass@1 and pass@k of the sampled groups (``k`` = group size)
and, when an ``evaluate`` callback is given, its held-out metrics. Fine-tuning uses the loss and
batching of :mod:`rlenv.trainers.finetune` (the RL warm-up's SFT) with one AdamW optimizer that persists
across rounds, as an RL trainer's does. Truncated samples (no EOS before the
length limit) are never kept: training on them would teach the policy to stop where the sampler
was cut.
"""

from __future__ import annotations

import copy
import logging
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
import torch
from torch import Tensor, nn

from rlenv.evaluation import pass_at_k
from rlenv.inference.policy import decode_completions
from rlenv.scoring import score_tasks
from rlenv.trainers.batch import EpisodeBatch
from rlenv.trainers.finetune import Example, SFTExample, fine_tune, sft_loss_fn
from rlenv.trainers.rollout import EpisodeEnv, FailFast
from rlenv.trainers.rounds import RoundCallback, run_rounds, sample_round
from rlenv.trainers.self_training.config import SelfTrainingConfig
from rlenv.trainers.stall import StallWarning
from rlenv.types import Task


@runtime_checkable
class HintableEnv(Protocol):
    """What rationalization needs of the env (``rlenv.TextVectorEnv`` has it): the episodes' tasks
    and the verifier of the env under it."""

    tasks: list[Task] | None
    base: Any

logger = logging.getLogger(__name__)


def select_samples(
    rewards: Tensor,
    group_ids: Tensor,
    *,
    top_k: int | None,
    min_reward: float | None = None,
    eligible: Tensor | None = None,
    completions: Sequence[str] | None = None,
) -> Tensor:
    """Which samples to fine-tune on: a ``(B,)`` bool mask.

    Within each group, the candidates are the samples with ``eligible`` True (default: all) and
    ``reward >= min_reward``; with ``completions`` given, a completion already seen in the group
    is dropped; the ``top_k`` highest rewards are kept (ties: earlier sample first).
    """
    if rewards.shape != group_ids.shape or rewards.dim() != 1:
        raise ValueError(f"rewards and group_ids must be (B,) of one shape, got {tuple(rewards.shape)} and "
                         f"{tuple(group_ids.shape)}")
    if completions is not None and len(completions) != len(rewards):
        raise ValueError(f"got {len(completions)} completions for {len(rewards)} rewards")
    keep = torch.zeros(len(rewards), dtype=torch.bool)
    ok = torch.ones(len(rewards), dtype=torch.bool) if eligible is None else eligible.cpu().bool()
    values = rewards.detach().cpu().double()
    if min_reward is not None:
        ok &= values >= min_reward
    for group in torch.unique(group_ids.cpu()).tolist():
        rows = [int(i) for i in (group_ids.cpu() == group).nonzero().flatten() if ok[i]]
        if completions is not None:
            first_of: dict[str, int] = {}
            for i in rows:
                first_of.setdefault(completions[i], i)
            rows = list(first_of.values())
        rows.sort(key=lambda i: -float(values[i]))
        keep[rows if top_k is None else rows[:top_k]] = True
    return keep


def group_pass_rates(correct: Tensor, group_ids: Tensor) -> dict[str, float]:
    """``pass@1`` and ``pass@k`` (k = the smallest group size) of sampled groups, averaged over groups."""
    counts, sizes = [], []
    for group in torch.unique(group_ids).tolist():
        rows = group_ids == group
        sizes.append(int(rows.sum()))
        counts.append(int(correct[rows].sum()))
    k = min(sizes)
    return {"pass@1": float(np.mean(pass_at_k(sizes, counts, 1))),
            f"pass@{k}": float(np.mean(pass_at_k(sizes, counts, k)))}


class SelfTrainer:
    """The RAFT / ReST / STaR loop on a vector env.

    Args:
        policy, tokenizer: The policy (trained in place) and its tokenizer.
        env: A vector env whose ``group_size`` is the number of samples per prompt (e.g.
            ``rlenv.make_vec(id, num_tasks=32, group_size=8)``). Rationalization needs an
            :class:`rlenv.TextVectorEnv` (it reads the tasks' references and verifier).
        config: A :class:`SelfTrainingConfig` (see :func:`self_training_config`).
        evaluate: Optional ``evaluate(policy) -> dict`` after each round (held-out metrics).
        log_fn: Called as ``log_fn(metrics, round)`` after each round.
    """

    def __init__(
        self, policy: nn.Module, tokenizer: Any, env: EpisodeEnv, config: SelfTrainingConfig,
        evaluate: Callable[[nn.Module], Mapping[str, float]] | None = None,
        log_fn: Callable[[dict[str, float], int], None] | None = None,
    ):
        if config.rationalize and not isinstance(env, HintableEnv):
            raise TypeError(f"rationalization needs a rlenv.TextVectorEnv (tasks + verifier), got {type(env).__name__}")
        self.policy = policy
        self.tokenizer = tokenizer
        self.env = env
        self.config = config
        self.fail_fast = FailFast(config, env)
        self.stall = StallWarning(config.stall_warning_rounds, config.lr, self.fail_fast.env_name, unit="round")
        self.evaluate = evaluate
        self.log_fn = log_fn
        self.generator = config.rollout_generator(policy, tokenizer)
        self.initial_state = copy.deepcopy(policy.state_dict()) if config.restart_from_initial else None
        self.optimizer = self._new_optimizer()
        self.rounds: list[dict[str, float]] = []

    def _new_optimizer(self) -> torch.optim.Optimizer:
        params = [p for p in self.policy.parameters() if p.requires_grad]
        return torch.optim.AdamW(params, lr=self.config.lr, weight_decay=self.config.weight_decay)

    def fine_tune(self, examples: Sequence[SFTExample], seed: int) -> list[float]:
        """``epochs`` shuffled passes of SFT over ``examples`` with the loop's persistent optimizer
        (:func:`~rlenv.trainers.finetune.fine_tune`). Returns the loss (nats per token) of every step."""
        cfg = self.config
        steps = max(1, math.ceil(cfg.epochs * len(examples) / cfg.batch_size))
        return fine_tune(self.policy, examples, sft_loss_fn(self.tokenizer), self.optimizer, batch_size=cfg.batch_size,
                         steps=steps, seed=seed, max_grad_norm=cfg.max_grad_norm, progress=False, desc="self-training sft")

    def rationalize(self, batch: EpisodeBatch, correct: Tensor) -> list[Example]:
        """Hinted re-asks of the problems no sample solved; returns the ``(original prompt, chain)`` that reach the answer."""
        rows = [int((batch.group_ids == g).nonzero()[0]) for g in torch.unique(batch.group_ids).tolist()
                if not bool(correct[batch.group_ids == g].any())]
        if not rows:
            return []
        observations = [batch.infos["prompt"][i] for i in rows]
        if not all(isinstance(o, str) for o in observations):
            raise TypeError("rationalization supports plain-text prompts only (the hint is appended to the text)")
        env = self.env
        assert isinstance(env, HintableEnv) and env.tasks is not None  # checked at build; the round's reset drew them
        tasks = [env.tasks[i] for i in rows]
        hinted = [self.config.hint_template.format(prompt=o, answer=t.reference) for o, t in zip(observations, tasks,
                                                                                                   strict=True)]
        gen = self.generator(hinted)
        texts = decode_completions(self.tokenizer, gen.completion_ids, gen.completion_mask)
        results = score_tasks(env.base.verifier, tasks, texts, executor="serial")
        return [(o, text) for o, text, result, cut in zip(observations, texts, results, gen.truncated.tolist(),
                                                         strict=True) if result.correct and not cut]

    def train_round(self, round_index: int) -> dict[str, float]:
        """Grow (sample), then one improve step per threshold (filter + SFT); returns the round's metrics."""
        cfg = self.config
        batch, failures = sample_round(self.env, self.generator, self.tokenizer, cfg.seed + round_index, cfg,
                                       self.fail_fast)
        self.stall.observe(round_index + 1, batch)
        if len(batch) == 0:
            logger.warning("round %d: every episode's verifier failed, nothing to learn from", round_index)
            return {"round": float(round_index), "samples": 0.0, **failures.metrics()}
        statuses = batch.infos.get("status")
        if statuses is None:
            raise ValueError("the env's step infos carry no 'status': cannot tell correct samples apart")
        correct = torch.tensor([s == "correct" for s in statuses], dtype=torch.bool)
        group_ids = batch.group_ids.cpu()
        metrics = {"round": float(round_index), "samples": float(len(batch)),
                   "reward/mean": batch.rewards.mean().item(), **group_pass_rates(correct, group_ids)}
        rationalized = self.rationalize(batch, correct) if cfg.rationalize else []
        metrics["rationalized"] = float(len(rationalized))
        assert batch.truncated is not None  # EpisodeBatch fills it in
        eligible = ~batch.truncated.cpu()
        if cfg.require_correct:
            eligible &= correct
        completions = batch.infos["completion"] if cfg.dedupe else None
        if self.initial_state is not None:
            self.policy.load_state_dict(self.initial_state)
            self.optimizer = self._new_optimizer()
        for step, threshold in enumerate(cfg.thresholds or (cfg.min_reward,)):
            keep = select_samples(batch.rewards.cpu(), group_ids, top_k=cfg.top_k, min_reward=threshold,
                                  eligible=eligible, completions=completions)
            kept = keep.nonzero().flatten().tolist()
            examples = ([batch.select([i]).trim() for i in kept] if batch.policy_mask is not None  # multi-turn
                        else [(batch.infos["prompt"][i], batch.infos["completion"][i]) for i in kept]) + rationalized
            metrics[f"kept/{step}"] = float(keep.sum())
            if not examples:
                logger.info("round %d improve step %d: no sample passed the filters", round_index, step)
                continue
            metrics["sft_loss"] = self.fine_tune(examples, seed=cfg.seed + round_index)[-1]
        metrics["kept_fraction"] = float(keep.sum()) / len(batch)
        metrics.update(failures.metrics())
        if self.evaluate is not None:
            metrics.update(self.evaluate(self.policy))
        return metrics

    def train(self, progress: bool = True, callback: RoundCallback | None = None) -> list[dict[str, float]]:
        """Run ``config.rounds`` rounds; returns (and keeps in :attr:`rounds`) the per-round metrics.
        ``callback(round, metrics)`` is called after every round (rounds count from 1)."""
        def log(done: int, metrics: dict[str, float]) -> None:
            logger.debug("self-training round %d: %s", done - 1, metrics)
            if self.log_fn is not None:
                self.log_fn(metrics, done - 1)

        return run_rounds(self.config.rounds, self.train_round, self.rounds, desc="self-training", progress=progress,
                          callbacks=(callback, log))

"""The training loop: rollout -> advantages -> clipped policy update, for every preset in ``ALGORITHMS``.

One step of :class:`Trainer`:

1. **rollout** (:func:`rlenv.trainers.rollout.collect`): ``num_tasks x group_size`` episodes sampled
   from the policy and scored by the environment (dynamic sampling when the algorithm asks);
2. **prepare**: old log-probs (when the update is not fully on-policy or KL goes in the reward),
   reference log-probs (when ``kl_coef > 0``), critic values (PPO); token rewards = outcome on
   the last token + dense rewards (+ overlong penalty) ``- beta * kl(old, ref)`` when the KL
   sits in the reward; the algorithm's advantage estimator;
3. **update**: ``ppo_epochs`` passes of ``num_mini_batches`` optimizer steps, each accumulated
   over micro-batches of ``micro_batch_size`` episodes. Losses are normalized by the token and
   sequence counts of the whole optimizer step across micro-batches and ranks, so gradient
   accumulation and data parallelism give exactly the single-batch update (ranks sum their
   gradients, :mod:`rlenv.trainers.distributed`).

Data parallelism: launch with ``accelerate launch`` or ``torchrun``; each rank samples its own
prompts (seeded by rank), statistics spanning the batch (REINFORCE++ whitening, GAE whitening,
GRPO's batch scale) are global. Randomness is re-seeded from ``(seed, step, rank)`` at every
step, so resuming from a checkpoint continues exactly as the uninterrupted run.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import shutil
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm.auto import tqdm

from rlenv.inference import Sampling, make_rollout_generator
from rlenv.inference.policy import GenerateFn
from rlenv.interrupts import deferred_interrupt
from rlenv.manifest import MANIFEST_FILE, run_manifest, write_manifest
from rlenv.trainers import distributed as dist
from rlenv.trainers import lora, sharding, tracking
from rlenv.trainers.batch import EpisodeBatch, outcome_token_rewards
from rlenv.trainers.logprobs import batch_logprobs, completion_logprobs, micro_batches
from rlenv.trainers.multiturn import multiturn_metrics
from rlenv.trainers.policy_gradient import advantages as advantage_registry
from rlenv.trainers.policy_gradient import corrections, losses
from rlenv.trainers.policy_gradient.advantages import overlong_penalty
from rlenv.trainers.policy_gradient.algorithms import Algorithm, resolve
from rlenv.trainers.policy_gradient.asynchronous import AsyncRollouts, GeneratorProcess
from rlenv.trainers.policy_gradient.config import TrainerConfig
from rlenv.trainers.policy_gradient.critic import ValueHead, ValueModel
from rlenv.trainers.precision import MasterWeights, autocast, torch_dtype
from rlenv.trainers.rollout import EpisodeEnv, FailFast, FailureLog, collect
from rlenv.trainers.stall import StallWarning

logger = logging.getLogger(__name__)

CHECKPOINT_FILE = "trainer_state.pt"
#: Each rank's shards of the weights and optimizer state in an FSDP checkpoint (``torch.distributed.checkpoint``).
SHARDED_DIR = "sharded"
#: Completions logged during training (see ``TrainerConfig.log_samples``).
SAMPLES_FILE = "samples.jsonl"


def logged_sample(batch: EpisodeBatch, i: int, step: int) -> dict[str, Any]:
    """Episode ``i`` of ``batch`` as a ``samples.jsonl`` row: ``step``, ``sample`` (its position in
    the batch), ``group``, ``task_id``, ``prompt``, ``completion``, ``reward`` (after reward wrappers),
    ``status``, ``truncated``, ``components``, ``details``, ``hacks`` and the task's ``metadata``."""
    infos = batch.infos

    def info(key: str) -> Any:
        values = infos.get(key)
        return None if values is None else values[i]

    result = info("reward")
    return {"step": step, "sample": i, "group": int(batch.group_ids[i]), "task_id": info("task_id"),
            "prompt": info("prompt"), "completion": info("completion"), "reward": float(batch.rewards[i]),
            "status": info("status"), "truncated": bool(filled(batch.truncated, "truncated")[i]),
            "components": dict(getattr(result, "components", None) or {}),
            "details": dict(getattr(result, "details", None) or {}), "hacks": info("hacks") or [],
            "metadata": info("metadata") or {}}


def filled(value: torch.Tensor | None, name: str) -> torch.Tensor:
    """``value``, a field of an :class:`EpisodeBatch` that construction or
    :meth:`PolicyGradientTrainer.prepare` fills in for the algorithm at hand."""
    if value is None:
        raise RuntimeError(f"the batch has no {name}: prepare it with PolicyGradientTrainer.prepare first")
    return value


def _seed(*parts: int) -> int:
    """A 31-bit seed derived from integers (stable across runs and platforms)."""
    return int(np.random.SeedSequence([int(p) for p in parts]).generate_state(1)[0] & 0x7FFFFFFF)


class _Sums:
    """Weighted metric sums reduced over ranks: ``mean = sum(value * weight) / sum(weight)``."""

    def __init__(self) -> None:
        self.totals: dict[str, float] = {}
        self.weights: dict[str, float] = {}
        self.counts: set[str] = set()

    def add(self, name: str, total: float, weight: float) -> None:
        self.totals[name] = self.totals.get(name, 0.0) + float(total)
        self.weights[name] = self.weights.get(name, 0.0) + float(weight)

    def count(self, name: str, n: float) -> None:
        """A count summed over calls and ranks (reported as the total)."""
        self.totals[name] = self.totals.get(name, 0.0) + float(n)
        self.counts.add(name)

    def means(self) -> dict[str, float]:
        names = dist.union(self.totals)  # a metric only some ranks produced is still reduced by every rank
        if not names:
            return {}
        counts = set(dist.union(self.counts))  # every rank weighs a count 1/world_size: the mean is the total
        weights = [1.0 / dist.world_size() if n in counts else self.weights.get(n, 0.0) for n in names]
        packed = dist.all_reduce(torch.tensor([[self.totals.get(n, 0.0) for n in names], weights], dtype=torch.float64))
        return {n: float(packed[0, i] / packed[1, i]) for i, n in enumerate(names) if packed[1, i] > 0}


class Trainer:
    """RL fine-tuning of a causal LM on an environment with a preset or custom :class:`Algorithm`.

    Args:
        policy: a ``transformers`` causal LM, or a path / hub id for ``from_pretrained``.
        env_or_source: a registered env id, a :class:`rlenv.TextEnv` (possibly wrapped), a vector
            env with ``reset``/``step`` (:class:`rlenv.TextVectorEnv`,
            :class:`rlenv.trainers.rollout.ScoreFnEnv`), or None (then only :meth:`update` is usable).
        algorithm: a preset name of :data:`rlenv.trainers.ALGORITHMS` or an :class:`Algorithm`.
        config: a :class:`TrainerConfig` or a dict of its fields.
        tokenizer: required when ``policy`` is a model object.
        ref_model: frozen reference for the KL term (default: a copy of ``policy`` at start,
            only when ``kl_coef > 0``; with LoRA, the policy with its adapters disabled).
        critic: a :class:`~rlenv.trainers.policy_gradient.critic.ValueModel` for PPO (default built from the policy).
        generate_fn: replaces the generator of ``config.rollout_backend`` (any :data:`~rlenv.trainers.rollout.GenerateFn`).

    Example::

        trainer = Trainer(model, "rlenv/ExactMatch-v0", algorithm="grpo",
                          config={"steps": 10, "lr": 1e-5}, tokenizer=tokenizer)
        history = trainer.train()
    """

    def __init__(
        self,
        policy: Any,
        env_or_source: Any,
        algorithm: str | Algorithm = "grpo",
        config: TrainerConfig | dict[str, Any] | None = None,
        *,
        tokenizer: Any = None,
        ref_model: Any = None,
        critic: ValueModel | None = None,
        generate_fn: GenerateFn | None = None,
    ):
        self.config = config if isinstance(config, TrainerConfig) else TrainerConfig.from_dict(dict(config or {}))
        self.algorithm = resolve(algorithm)
        self.device = self._setup_device()
        self.policy, self.tokenizer = self._load_policy(policy, tokenizer)
        self.group_size = self.config.group_size or self.algorithm.group_size
        self.env = self._make_env(env_or_source)
        self.ref_model = self._make_reference(ref_model)
        self.critic, self.value_head = self._make_critic(critic)
        cfg = self.config
        sampling = Sampling(max_new_tokens=cfg.max_new_tokens, temperature=cfg.temperature, top_p=cfg.top_p,
                            top_k=cfg.top_k)
        if cfg.fsdp:
            self._shard()
        if generate_fn is not None and cfg.async_rollouts:
            raise ValueError("generate_fn= replaces the in-process generator, but async_rollouts=True samples in a "
                             f"generator process built from rollout_backend={cfg.rollout_backend!r}")
        # None with async_rollouts: the generator lives in its own process, started by the first rollout
        self.generate_fn: GenerateFn | None = None if cfg.async_rollouts else (
            generate_fn or make_rollout_generator(self.policy, self.tokenizer, sampling, cfg.rollout_backend,
                                                  cfg.generation_batch_size, synced_gpus=cfg.fsdp, **cfg.rollout_options))
        self.master_weights = MasterWeights([p for p in self.policy.parameters() if p.requires_grad]
                                            + self._critic_parameters())
        self.optimizer = self._make_optimizer()
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, self._lr_factor)
        self.step = 0
        self._fail_fast = FailFast(self.config, self.env)
        self._stall = StallWarning(self.config.stall_warning_steps, self.config.lr, self._fail_fast.env_name)
        self.history: list[dict[str, float]] = []
        self._trackers: tracking.Trackers | None = None
        self._run_manifest: dict[str, Any] | None = None  # the manifest train() wrote
        self._async: AsyncRollouts | None = None
        self._sampling = sampling

    # -- construction ---------------------------------------------------------------------------
    def _setup_device(self) -> torch.device:
        from accelerate import PartialState

        state = PartialState()  # initializes torch.distributed under accelerate launch / torchrun
        return torch.device(self.config.device) if self.config.device else state.device

    def _load_policy(self, policy: Any, tokenizer: Any) -> tuple[Any, Any]:
        if isinstance(policy, (str, Path)):
            from transformers import AutoModelForCausalLM, AutoTokenizer

            tokenizer = tokenizer or AutoTokenizer.from_pretrained(str(policy), padding_side="left")
            policy = AutoModelForCausalLM.from_pretrained(str(policy), dtype=torch_dtype(self.config.dtype))
        if tokenizer is None:
            raise ValueError("pass tokenizer= when policy is a model object")
        if tokenizer.eos_token_id is None:
            raise ValueError("the tokenizer needs an eos_token_id (generation must be able to stop)")
        cfg = self.config
        # FSDP keeps its sharded parameters in fp32 (the master copy) and computes in cfg.dtype
        policy.to(self.device, dtype=torch.float32 if cfg.fsdp else torch_dtype(cfg.dtype))
        if cfg.disable_dropout:
            for module in policy.modules():
                if isinstance(module, torch.nn.Dropout):
                    module.p = 0.0
            if hasattr(policy.config, "attention_dropout"):
                policy.config.attention_dropout = 0.0
        if cfg.lora_r:  # after disable_dropout: the adapters keep their own lora_dropout
            policy = lora.add_adapters(policy, cfg.lora_r, cfg.lora_alpha, cfg.lora_dropout, cfg.lora_target_modules)
        if cfg.gradient_checkpointing:
            model = lora.base_causal_lm(policy)
            enable = getattr(model, "activation_checkpointing_enable", None)  # transformers >= 5.x
            if enable is not None:
                enable(activation_checkpointing_kwargs={"use_reentrant": False})
            else:
                model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        policy.train()
        return policy, tokenizer

    def _make_env(self, env_or_source: Any) -> EpisodeEnv | None:
        if env_or_source is None:
            return None
        if isinstance(env_or_source, str):
            import rlenv

            env_or_source = rlenv.make(env_or_source)
        from rlenv.multiturn import MultiTurnEnv
        from rlenv.vector import MultiTurnVectorEnv

        if isinstance(getattr(env_or_source, "unwrapped", None), MultiTurnEnv):
            env_or_source = MultiTurnVectorEnv.from_env(env_or_source, self.config.num_tasks, self.group_size)
        if isinstance(env_or_source, MultiTurnVectorEnv) and self.config.async_rollouts:
            raise ValueError("async_rollouts samples single-turn episodes in a generator process; a multi-turn env "
                             "is played in process: set async_rollouts=False")
        if isinstance(env_or_source, MultiTurnVectorEnv) or (hasattr(env_or_source, "num_envs")
                                                             and hasattr(env_or_source, "step")):
            if self.config.group_size is not None and getattr(env_or_source, "group_size", None) not in (
                    None, self.config.group_size):
                raise ValueError(f"config.group_size={self.config.group_size} but the vector env has "
                                 f"group_size={env_or_source.group_size}")
            self.group_size = getattr(env_or_source, "group_size", self.group_size)
            return env_or_source
        from rlenv.env import TextEnv
        from rlenv.vector import TextVectorEnv

        if not isinstance(getattr(env_or_source, "unwrapped", None), TextEnv):
            raise TypeError(f"env_or_source must be an env id, a rlenv TextEnv, a vector env or None; "
                            f"got {type(env_or_source).__name__}")
        return TextVectorEnv(env_or_source, num_tasks=self.config.num_tasks, group_size=self.group_size)

    def _make_reference(self, ref_model: Any) -> Any:
        if self.algorithm.kl_coef == 0 or (ref_model is None and lora.is_lora(self.policy)):
            return None  # LoRA: the reference is the policy with its adapters disabled (_reference_logprobs)
        import copy

        ref = ref_model if ref_model is not None else copy.deepcopy(self.policy)
        ref.to(self.device).eval()
        for p in ref.parameters():
            p.requires_grad_(False)
        return ref

    def _make_critic(self, critic: ValueModel | None) -> tuple[ValueModel | None, ValueHead | None]:
        if not self.algorithm.critic:
            if critic is not None:
                raise ValueError(f"algorithm {self.algorithm.name!r} uses no critic, but critic= was given")
            return None, None
        if self.config.critic_backbone == "shared":
            return None, ValueHead(self.policy.config.hidden_size).to(self.device)
        critic = critic if critic is not None else ValueModel.from_policy(self.policy)
        return critic.to(self.device).train(), None

    def _shard(self) -> None:
        """FSDP2 over the ranks: the policy, the reference and the critic (:mod:`rlenv.trainers.sharding`)."""
        compute = None if self.config.dtype == "float32" else torch_dtype(self.config.dtype)
        for module in (self.policy, self.ref_model, self.critic, self.value_head):
            if module is not None:
                sharding.shard(module, compute)

    def _trained_modules(self) -> torch.nn.ModuleDict:
        """The policy and its critic (or value head), as one module (sharded checkpoints)."""
        critic = self.critic if self.critic is not None else self.value_head
        return torch.nn.ModuleDict({"policy": self.policy, **({"critic": critic} if critic is not None else {})})

    def _passes(self, micro_batches: list[torch.Tensor]) -> list[tuple[torch.Tensor, bool]]:
        """``(rows, idle)`` of each forward pass: the micro-batches, then under FSDP idle passes (on the
        first micro-batch, results dropped) up to the count of the rank with the most."""
        passes = [(rows, False) for rows in micro_batches]
        if self.config.fsdp:
            total = sharding.passes_on_every_rank(len(passes))
            if total > len(passes) and not passes:
                raise RuntimeError(f"rank {dist.rank()} has no episode to run the idle passes of FSDP on")
            passes += [(micro_batches[0], True)] * (total - len(passes))
        return passes

    def _critic_parameters(self) -> list[torch.nn.Parameter]:
        module = self.critic if self.critic is not None else self.value_head
        return [] if module is None else [p for p in module.parameters() if p.requires_grad]

    def _parameters(self) -> list[torch.nn.Parameter]:
        """The parameters the optimizer steps: the policy's trained ones, then the critic's (fp32 masters
        of low-precision weights)."""
        return self.master_weights.parameters()

    def _make_optimizer(self) -> torch.optim.Optimizer:
        cfg = self.config
        params = self._parameters()
        n_policy = len(params) - len(self._critic_parameters())
        groups = [{"params": params[:n_policy], "lr": cfg.lr}]
        if n_policy < len(params):
            groups.append({"params": params[n_policy:], "lr": cfg.critic_lr or cfg.lr})
        if cfg.optimizer == "sgd":
            return torch.optim.SGD(groups, lr=cfg.lr, weight_decay=cfg.weight_decay)
        return torch.optim.AdamW(groups, lr=cfg.lr, betas=cfg.adam_betas, weight_decay=cfg.weight_decay)

    @property
    def total_optimizer_steps(self) -> int:
        """Optimizer steps of a full :meth:`train` run."""
        return max(1, self.config.steps * self.algorithm.ppo_epochs * self.algorithm.num_mini_batches)

    def _lr_factor(self, n: int) -> float:
        cfg = self.config
        if n < cfg.warmup_steps:
            return (n + 1) / cfg.warmup_steps
        if cfg.lr_schedule == "constant":
            return 1.0
        progress = min(1.0, (n - cfg.warmup_steps) / max(1, self.total_optimizer_steps - cfg.warmup_steps))
        return 1.0 - progress if cfg.lr_schedule == "linear" else 0.5 * (1.0 + math.cos(math.pi * progress))

    # -- the loop -------------------------------------------------------------------------------
    def train(self, steps: int | None = None, *, resume_from: str | Path | None = None,
              callback: Callable[[int, dict[str, float]], None] | None = None) -> list[dict[str, float]]:
        """Run until ``steps`` (default ``config.steps``) steps are done; returns the metrics of each step.

        ``resume_from`` loads a checkpoint first (the run then continues exactly).
        ``callback(step, metrics)`` is called after every step.
        """
        if self.env is None:
            raise ValueError("this Trainer has no environment: pass env_or_source, or call update(batch)")
        if resume_from is not None:
            self.load_checkpoint(resume_from)
            if self.config.output_dir and dist.rank() == 0:
                self._drop_logged_after(self.step)
        if self.config.output_dir and dist.rank() == 0:
            self._run_manifest = self._manifest()
            write_manifest(Path(self.config.output_dir) / MANIFEST_FILE, self._run_manifest)
        total = self.config.steps if steps is None else steps
        bar = tqdm(total=total, initial=self.step, desc=f"{self.algorithm.name}",
                   disable=None if self.config.progress and dist.rank() == 0 else True)  # a terminal only
        try:
            while self.step < total:
                metrics = self.train_step()
                bar.update(1)
                bar.set_postfix(reward=f"{metrics.get('reward/mean', float('nan')):.3f}",
                                kl=f"{metrics.get('kl/ref', 0.0):.4f}")
                if callback is not None:
                    callback(self.step, metrics)
                if self.config.save_every and self.config.output_dir and self.step % self.config.save_every == 0:
                    self.save_checkpoint(Path(self.config.output_dir) / f"checkpoint-{self.step}")
        finally:
            bar.close()
            if self._trackers is not None:
                self._trackers.close()
                self._trackers = None
            if self._async is not None:
                self._async.close()
                self._async = None
        return self.history

    def train_step(self) -> dict[str, float]:
        """One rollout and update; returns (and logs) its metrics."""
        start = time.perf_counter()
        failures = FailureLog()
        batch, stats = self.rollout(failures)
        self._fail_fast.check(failures)
        self._stall.observe(self.step + 1, batch)
        rollout_time = time.perf_counter() - start
        # the update, the step count and the logged rows change together: a checkpoint saved on Ctrl-C agrees with all
        with deferred_interrupt(f"step {self.step + 1}"):
            metrics = self.update(batch)
            metrics.update({f"sampling/{k}": v for k, v in stats.items()})
            # status/* counts the trained batch; failures/* every sampled episode, before masking
            metrics.update(failures.metrics())
            metrics["time/rollout_s"] = rollout_time
            metrics["time/step_s"] = time.perf_counter() - start
            self.step += 1
            if self._async is not None:
                self._async.push_weights(self.policy, self.step)
            metrics["step"] = float(self.step)
            self._log(metrics)
            self._log_samples(batch)
        return metrics

    def rollout(self, failures: FailureLog | None = None) -> tuple[EpisodeBatch, dict[str, float]]:
        """Sample and score this step's episodes (seeded by ``(seed, step, rank)``); episodes whose
        verifier failed are handled by ``config.on_verifier_error`` and counted in ``failures``."""
        alg = self.algorithm
        seed = _seed(self.config.seed, self.step, dist.rank(), 0)
        if self.env is None:
            raise RuntimeError("this trainer was built without an env: pass batches to update() instead")
        if self.generate_fn is None:
            return self._async_rollouts(self.env).next_batch(self.step, failures)
        return collect(self.env, self.generate_fn, self.tokenizer, seed=seed,
                       dynamic_sampling=alg.dynamic_sampling, max_refills=alg.max_refills,
                       failures=self.config.failure_policy(), log=failures)

    def _async_rollouts(self, env: EpisodeEnv) -> AsyncRollouts:
        """The generator process and collector of ``config.async_rollouts``, started at the current step."""
        if self._async is None:
            cfg, alg = self.config, self.algorithm
            generator = GeneratorProcess(self.policy, self.tokenizer, self._sampling, cfg.rollout_backend,
                                         cfg.generation_batch_size, cfg.rollout_options, version=self.step,
                                         start_timeout_s=cfg.generator_timeout_s + cfg.weight_sync_timeout_s,
                                         weight_sync_timeout_s=cfg.weight_sync_timeout_s)
            self._async = AsyncRollouts(env, generator, self.tokenizer,
                                        lambda step: _seed(cfg.seed, step, dist.rank(), 0), first_step=self.step,
                                        max_staleness=cfg.max_staleness, timeout_s=cfg.generator_timeout_s,
                                        dynamic_sampling=alg.dynamic_sampling, max_refills=alg.max_refills,
                                        failures=cfg.failure_policy())
        return self._async

    def _manifest(self) -> dict[str, Any]:
        """The run's ``manifest.json``: env, data, verifier, algorithm, settings and library versions."""
        env = getattr(self.env, "env", None)
        settings = {"config": dataclasses.asdict(self.config), "algorithm": dataclasses.asdict(self.algorithm),
                    "model": getattr(self.policy, "name_or_path", None), "world_size": dist.world_size()}
        return run_manifest("train", env, settings)

    # -- update ---------------------------------------------------------------------------------
    @torch.no_grad()
    def prepare(self, batch: EpisodeBatch) -> tuple[EpisodeBatch, dict[str, torch.Tensor]]:
        """Old/reference log-probs, values, token rewards and advantages of ``batch``.

        Returns ``(batch with old_logprobs/ref_logprobs/old_values filled, {"advantages",
        "returns", "token_rewards"})``, the tensors ``(B, T)``.
        """
        alg, cfg = self.algorithm, self.config
        batch = batch.to(self.device)
        mask = batch.loss_mask
        kl_in_reward = alg.kl_coef > 0 and alg.kl_placement == "reward"
        kwargs: dict[str, Any] = dict(micro_batch_size=cfg.micro_batch_size, temperature=cfg.temperature,
                                      chunk_size=cfg.logprob_chunk_size, micro_batch_tokens=cfg.micro_batch_tokens,
                                      packed=cfg.pack_sequences, passes=self._passes)
        off_policy = alg.ppo_epochs > 1 or alg.num_mini_batches > 1
        with autocast(self.device, cfg.autocast):
            if batch.old_logprobs is None and (off_policy or kl_in_reward):
                batch = batch.replace(old_logprobs=batch_logprobs(self.policy, batch, **kwargs))
            if alg.kl_coef > 0 and batch.ref_logprobs is None:
                batch = batch.replace(ref_logprobs=self._reference_logprobs(batch, **kwargs))
            if alg.critic and batch.old_values is None:
                batch = batch.replace(old_values=self._values(batch))
        outcome = batch.rewards.float()
        if alg.overlong_buffer is not None:
            if batch.policy_mask is not None:
                raise ValueError(f"overlong_buffer={alg.overlong_buffer} penalizes one completion's length against "
                                 "max_new_tokens; a multi-turn episode has several turns: set overlong_buffer=None")
            outcome = outcome + overlong_penalty(batch.lengths, cfg.max_new_tokens, alg.overlong_buffer,
                                                 alg.overlong_factor)
        token_rewards = outcome_token_rewards(outcome, mask, batch.token_rewards)
        if kl_in_reward:
            token_rewards = token_rewards - alg.kl_coef * losses.kl(filled(batch.old_logprobs, "old_logprobs"),
                                                                    filled(batch.ref_logprobs, "ref_logprobs"),
                                                                    alg.kl_kind) * mask
        adv_kwargs = dict(alg.advantage_kwargs)
        if alg.critic:
            adv_kwargs["values"] = batch.old_values
        advantages, returns = advantage_registry.get(alg.advantage)(token_rewards, mask, batch.group_ids,
                                                                    **adv_kwargs)
        return batch, {"advantages": advantages, "returns": returns, "token_rewards": token_rewards}

    def _reference_logprobs(self, batch: EpisodeBatch, **kwargs: Any) -> torch.Tensor:
        """``(B, T)`` log-probs of the KL reference: the reference model, or the LoRA policy's base weights."""
        if self.ref_model is not None:
            return batch_logprobs(self.ref_model, batch, **kwargs)
        with lora.adapters_disabled(self.policy):
            return batch_logprobs(self.policy, batch, **kwargs)

    def _values(self, batch: EpisodeBatch) -> torch.Tensor:
        if len(batch) == 0:
            return torch.zeros(batch.completion_ids.shape, device=self.device)
        parts = []
        cfg = self.config
        for rows, idle in self._passes(micro_batches(batch, cfg.micro_batch_size, cfg.micro_batch_tokens)):
            micro = batch.select(rows)
            hidden = None
            if self.critic is None:
                hidden = completion_logprobs(self.policy, micro.prompt_ids, micro.prompt_mask, micro.completion_ids,
                                             micro.completion_mask, temperature=cfg.temperature,
                                             chunk_size=cfg.logprob_chunk_size, with_hidden=True,
                                             packed=cfg.pack_sequences).hidden
            if not idle:
                parts.append(self._critic_values(micro, hidden))
            else:
                self._critic_values(micro, hidden)
        return torch.cat(parts)

    def _critic_values(self, micro: EpisodeBatch, hidden: torch.Tensor | None) -> torch.Tensor:
        """``(B, T)`` values of ``micro``: the critic's, or the value head's on the policy's ``hidden`` states."""
        mask = micro.completion_mask
        if self.critic is not None:
            return self.critic(micro.prompt_ids, micro.prompt_mask, micro.completion_ids, mask)
        if self.value_head is None or hidden is None:
            raise RuntimeError("values need a critic, or a value head and the policy's hidden states")
        return self.value_head(hidden) * mask

    def update(self, batch: EpisodeBatch) -> dict[str, float]:
        """Advantages and ``ppo_epochs x num_mini_batches`` optimizer steps on ``batch`` (this rank's share).

        Usable without an environment, on episodes a user produced (e.g. with
        :meth:`EpisodeBatch.from_token_lists`). Every rank must call it once per step.
        """
        alg = self.algorithm
        sums = _Sums()
        batch, extra = self.prepare(batch)
        self._batch_metrics(batch, sums)
        mask = batch.loss_mask.bool()
        n_tok = mask.float().sum()
        sums.add("adv/mean", float((extra["advantages"] * mask).sum()), float(n_tok))
        sums.add("adv/abs_mean", float((extra["advantages"].abs() * mask).sum()), float(n_tok))
        shuffle = torch.Generator().manual_seed(_seed(self.config.seed, self.step, dist.rank(), 1))
        B = len(batch)
        for _ in range(alg.ppo_epochs):
            order = torch.randperm(B, generator=shuffle) if alg.ppo_epochs * alg.num_mini_batches > 1 else torch.arange(B)
            for rows in torch.tensor_split(order, alg.num_mini_batches):
                self._optimizer_step(batch.select(rows), {k: v[rows.to(v.device)] for k, v in extra.items()}, sums)
        metrics = sums.means()
        metrics["lr"] = float(self.scheduler.get_last_lr()[0])
        return metrics

    def _optimizer_step(self, mini: EpisodeBatch, extra: dict[str, torch.Tensor], sums: _Sums) -> None:
        cfg = self.config
        counts = mini.loss_mask.long().sum(1)
        totals = dist.all_reduce(torch.tensor([float(counts.sum()), float((counts > 0).sum())], dtype=torch.float64))
        num_tokens, num_seqs = float(totals[0]), float(totals[1])
        if num_tokens == 0:  # the same decision on every rank: nothing to learn from
            logger.warning("step %d: an optimizer step has no completion tokens on any rank; skipped", self.step)
            return
        self.optimizer.zero_grad(set_to_none=True)
        shares: Counter[str] = Counter()
        for rows, idle in self._passes(micro_batches(mini, cfg.micro_batch_size, cfg.micro_batch_tokens)):
            shares.update(self._micro_step(mini.select(rows), {k: v[rows] for k, v in extra.items()}, num_tokens,
                                           num_seqs, sums, idle))
        self.master_weights.gradients_to_masters()
        params = self._parameters()
        if not cfg.fsdp:  # FSDP's reduce-scatter has summed the gradients already
            dist.all_reduce_gradients(params)
        if cfg.max_grad_norm is not None:
            grad_norm = torch.nn.utils.clip_grad_norm_(params, cfg.max_grad_norm)
        else:
            grad_norm = torch.nn.utils.get_total_norm([p.grad for p in params if p.grad is not None])
        grad_norm = grad_norm.full_tensor() if hasattr(grad_norm, "full_tensor") else grad_norm  # a DTensor (FSDP)
        # Each rank holds a share of each loss: their sum over ranks is the step's loss.
        ws = dist.world_size()
        for name in ("loss/policy", "loss/total") + (("loss/value",) if self.algorithm.critic else ()):
            sums.add(name, shares.get(name, 0.0), 1.0 / ws)
        sums.add("grad_norm", float(grad_norm) / ws, 1.0 / ws)
        self.optimizer.step()
        self.master_weights.masters_to_model()
        self.scheduler.step()

    def _micro_step(self, micro: EpisodeBatch, extra: dict[str, torch.Tensor], num_tokens: float, num_seqs: float,
                    sums: _Sums, idle: bool = False) -> dict[str, float]:
        """Forward and backward of one micro-batch; returns its shares of the step's losses. ``idle``: a pass
        whose loss counts 0 (FSDP ranks with fewer micro-batches), recording nothing."""
        alg, cfg = self.algorithm, self.config
        sums = _Sums() if idle else sums  # an idle pass's metrics are dropped
        mask = micro.loss_mask
        with autocast(self.device, cfg.autocast):
            out = completion_logprobs(self.policy, micro.prompt_ids, micro.prompt_mask, micro.completion_ids,
                                      micro.completion_mask,
                                      temperature=cfg.temperature, chunk_size=cfg.logprob_chunk_size,
                                      with_entropy=True, with_hidden=self.value_head is not None,
                                      packed=cfg.pack_sequences)
        logp, entropy = out.logprobs, filled(out.entropy, "entropy")
        old = micro.old_logprobs if micro.old_logprobs is not None else logp.detach()
        pl = losses.get(alg.policy_loss)(logp, old, extra["advantages"], mask, **alg.loss_kwargs)
        per_token = pl.loss
        if micro.rollout_logprobs is not None:  # the sampler's log-probs vs ours (on-policy: this forward's)
            sampler = micro.rollout_logprobs.to(old.device)
            sums.add("rollout/logprob_diff", float(((old - sampler).abs() * mask).sum()), float(mask.sum()))
            if (correction := cfg.active_correction()) is not None:
                low, high = cfg.correction_band()
                corrected = corrections.correct(correction, old, sampler, mask, low=low, high=high)
                per_token = per_token * corrected.weight
                for metric, (value_sum, count) in corrections.statistics(correction, corrected, mask).items():
                    sums.add(metric, value_sum, count)
        if alg.kl_coef > 0:
            kl_tokens = losses.kl(logp, filled(micro.ref_logprobs, "ref_logprobs"), alg.kl_kind)
            if alg.kl_placement == "loss":
                per_token = per_token + alg.kl_coef * kl_tokens
        norm: dict[str, Any] = dict(num_tokens=num_tokens, num_seqs=num_seqs, max_len=cfg.max_new_tokens)
        shares: dict[str, float] = {}
        policy_loss = losses.aggregate(per_token, mask, alg.aggregation, **norm)
        total = policy_loss
        if alg.entropy_coef > 0:
            total = total - alg.entropy_coef * losses.aggregate(entropy, mask, "token_mean", **norm)
        if alg.critic:
            with autocast(self.device, cfg.autocast):
                values = self._critic_values(micro, out.hidden)
            vf = losses.value_loss(values, filled(micro.old_values, "old_values"), extra["returns"], alg.value_clip)
            value_loss = losses.aggregate(vf, mask, "token_mean", **norm)
            total = total + alg.vf_coef * value_loss
            shares["loss/value"] = float(value_loss.detach())
            sums.add("values/mean", float((values.detach() * mask).sum()), float(mask.sum()))
        if idle:
            (0.0 * total).backward()
            return {}
        total.backward()
        m = mask.bool()
        n = float(m.sum())
        shares["loss/policy"] = float(policy_loss.detach())
        shares["loss/total"] = float(total.detach())
        sums.add("entropy", float(entropy.detach()[m].sum()), n)
        sums.add("clip_frac", float(pl.clipped.detach()[m].sum()), n)
        sums.add("ratio/mean", float(pl.ratio.detach()[m].sum()), n)
        if alg.kl_coef > 0:
            sums.add("kl/ref", float(kl_tokens.detach()[m].sum()), n)
        return shares

    def _batch_metrics(self, batch: EpisodeBatch, sums: _Sums) -> None:
        B = float(len(batch))
        if not B:
            return
        rewards = batch.rewards.float()
        lengths = batch.lengths.float()
        sums.add("reward/mean", float(rewards.sum()), B)
        sums.add("reward/sq_mean", float((rewards ** 2).sum()), B)
        sums.add("length/mean", float(lengths.sum()), B)
        sums.add("truncated_frac", float(filled(batch.truncated, "truncated").float().sum()), B)
        sums.count("episodes", B)
        for status, count in Counter(batch.infos.get("status", [])).items():
            sums.count(f"status/{status}", count)
        for hacks in batch.infos.get("hacks", []):
            for detector in {h.get("detector", "unknown") for h in (hacks or []) if isinstance(h, dict)}:
                sums.count(f"hacks/{detector}", 1)
        for name, (total, weight) in multiturn_metrics(batch).items():
            sums.add(name, total, weight)

    def _log(self, metrics: dict[str, float]) -> None:
        if "reward/mean" in metrics and "reward/sq_mean" in metrics:
            metrics["reward/std"] = math.sqrt(max(0.0, metrics.pop("reward/sq_mean") - metrics["reward/mean"] ** 2))
        self.history.append(metrics)
        if dist.rank() != 0:
            return
        logger.debug("step %d: %s", self.step, {k: round(v, 4) for k, v in metrics.items()})
        if self.config.output_dir is None:
            return
        out = Path(self.config.output_dir)
        out.mkdir(parents=True, exist_ok=True)
        with (out / "metrics.jsonl").open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(metrics) + "\n")
        trackers = self._tracking()
        if trackers is not None:
            trackers.log_metrics(metrics, self.step)

    def _tracking(self) -> tracking.Trackers | None:
        """The runs of ``config.report_to`` (rank 0; None when it names no backend), opened at the first
        logged step with the run's name, settings and manifest; :meth:`train` closes them at its end."""
        cfg = self.config
        if cfg.output_dir is None or not tracking.backend_names(cfg.report_to):
            return None
        if self._trackers is None:
            out = Path(cfg.output_dir)
            settings = {"algorithm": dataclasses.asdict(self.algorithm), "config": dataclasses.asdict(cfg)}
            run = tracking.TrackedRun(name=cfg.run_name or out.resolve().name, project=cfg.tracking_project,
                                      output_dir=out, config=json.loads(json.dumps(settings, default=str)),
                                      manifest=self._run_manifest or self._manifest())
            self._trackers = tracking.start(cfg.report_to, run)
        return self._trackers

    def _log_samples(self, batch: EpisodeBatch) -> None:
        """Append ``config.log_samples`` of this step's episodes to ``samples.jsonl`` (rank 0, logged steps)."""
        cfg = self.config
        if (dist.rank() != 0 or cfg.output_dir is None or not cfg.log_samples or not len(batch)
                or (self.step - 1) % cfg.log_samples_every):
            return
        picks = np.unique(np.linspace(0, len(batch) - 1, min(cfg.log_samples, len(batch))).round().astype(int))
        out = Path(cfg.output_dir)
        out.mkdir(parents=True, exist_ok=True)
        rows = [logged_sample(batch, i, self.step) for i in picks.tolist()]
        with (out / SAMPLES_FILE).open("a", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row, default=str) + "\n")
        trackers = self._tracking()
        if trackers is not None:
            trackers.log_samples(rows, self.step)

    # -- checkpoints ----------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """Everything needed to continue exactly: weights (with LoRA, the adapters only; with bf16
        weights, their fp32 masters), optimizer, schedule, step."""
        critic = self.critic if self.critic is not None else self.value_head
        if self.config.fsdp:  # the weights and optimizer state are sharded: save_checkpoint writes them
            return {"step": self.step, "sharded": True, "scheduler": self.scheduler.state_dict(),
                    "algorithm": self.algorithm.to_dict(), "config": dataclasses.asdict(self.config),
                    "history": self.history}
        policy = self.policy.state_dict()
        if lora.is_lora(self.policy):
            trained = {name for name, p in self.policy.named_parameters() if p.requires_grad}
            policy = {name: value for name, value in policy.items() if name in trained}
        return {
            "step": self.step, "policy": policy, "master_weights": self.master_weights.state_dict(),
            "critic": None if critic is None else critic.state_dict(),
            "optimizer": self.optimizer.state_dict(), "scheduler": self.scheduler.state_dict(),
            "algorithm": self.algorithm.to_dict(), "config": dataclasses.asdict(self.config),
            "history": self.history,
        }

    def save_checkpoint(self, path: str | Path) -> Path:
        """Write a loadable model directory at ``path`` (rank 0): the policy and tokenizer
        (``from_pretrained``, ``rlenv eval --model``) and ``trainer_state.pt`` (``resume_from``).
        Then, with ``config.save_total_limit``, remove the oldest ``checkpoint-N`` directories of
        ``path``'s parent beyond the limit. Returns ``path``.

        Under FSDP every rank must call it: the weights are gathered for the model directory, and each
        rank writes its shards of the weights and optimizer state under ``path/sharded``."""
        path = Path(path)
        full = sharding.full_state_dict(self.policy) if self.config.fsdp else None
        if dist.rank() == 0:
            path.mkdir(parents=True, exist_ok=True)
            self.policy.save_pretrained(path, **({} if full is None else {"state_dict": full}))
            self.tokenizer.save_pretrained(path)
            torch.save(self.state_dict(), path / CHECKPOINT_FILE)
            logger.info("saved checkpoint at step %d to %s", self.step, path)
            if self.config.save_total_limit is not None:
                self._prune_checkpoints(path.parent, keep=path, limit=self.config.save_total_limit)
        if self.config.fsdp:
            sharding.save_sharded(self._trained_modules(), self.optimizer, path / SHARDED_DIR)
        if dist.is_distributed():
            torch.distributed.barrier()
        return path

    def save_model(self, path: str | Path) -> Path:
        """Write the trained policy and tokenizer at ``path`` as a ``from_pretrained`` directory: with LoRA,
        merged into the base weights; under FSDP, gathered (every rank must call it). Returns ``path``."""
        path = Path(path)
        full = sharding.full_state_dict(self.policy) if self.config.fsdp else None
        if dist.rank() == 0:
            if lora.is_lora(self.policy):
                lora.save_merged(self.policy, path)
            else:
                self.policy.save_pretrained(path, **({} if full is None else {"state_dict": full}))
            self.tokenizer.save_pretrained(path)
        if dist.is_distributed():
            torch.distributed.barrier()
        return path

    def _drop_logged_after(self, step: int) -> None:
        """Remove the rows of steps after ``step`` from ``metrics.jsonl`` and ``samples.jsonl``: a run
        resumed from an earlier checkpoint logs those steps again, once."""
        if self.config.output_dir is None:
            return
        for name in ("metrics.jsonl", SAMPLES_FILE):
            path = Path(self.config.output_dir) / name
            if not path.exists():
                continue
            lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
            kept = [line for line in lines if line.strip() and json.loads(line)["step"] <= step]
            if len(kept) != len(lines):
                path.write_text("".join(kept), encoding="utf-8")

    def _prune_checkpoints(self, folder: Path, keep: Path, limit: int) -> None:
        steps = sorted((int(p.name.split("-", 1)[1]), p) for p in folder.glob("checkpoint-*")
                       if p.is_dir() and p.name.split("-", 1)[1].isdigit() and p != keep)
        for _, old in steps[:max(0, len(steps) + 1 - limit)]:
            shutil.rmtree(old)
            logger.info("removed %s (save_total_limit=%d)", old, limit)

    def load_checkpoint(self, path: str | Path) -> None:
        """Restore a checkpoint written by :meth:`save_checkpoint` (a directory or the ``.pt`` file)."""
        path = Path(path)
        file = path / CHECKPOINT_FILE if path.is_dir() else path
        if not file.exists():
            raise FileNotFoundError(f"no checkpoint at {file}")
        state = torch.load(file, map_location=self.device, weights_only=False)
        if state["algorithm"] != self.algorithm.to_dict():
            raise ValueError(f"checkpoint {file} was written by algorithm {state['algorithm']['name']!r} with a "
                             f"different configuration than {self.algorithm.name!r}")
        if bool(state.get("sharded")) != self.config.fsdp:
            raise ValueError(f"checkpoint {file} was written with fsdp={bool(state.get('sharded'))}, this trainer "
                             f"has fsdp={self.config.fsdp}")
        if self.config.fsdp:
            sharding.load_sharded(self._trained_modules(), self.optimizer, file.parent / SHARDED_DIR)
        else:
            self._load_weights(state, file)
        self.scheduler.load_state_dict(state["scheduler"])
        self.step = int(state["step"])
        self.history = list(state["history"])

    def _load_weights(self, state: dict[str, Any], file: Path) -> None:
        """The policy, critic, master weights and optimizer of an unsharded checkpoint."""
        missing, unexpected = self.policy.load_state_dict(state["policy"], strict=not lora.is_lora(self.policy))
        missing_trained = sorted({n for n, p in self.policy.named_parameters() if p.requires_grad} & set(missing))
        if unexpected or missing_trained:
            raise ValueError(f"checkpoint {file} does not fit this policy: missing trained weights "
                             f"{missing_trained[:5]}, unexpected weights {unexpected[:5]}")
        critic = self.critic if self.critic is not None else self.value_head
        if (critic is None) != (state["critic"] is None):
            raise ValueError(f"checkpoint {file} and this trainer disagree on having a critic")
        if critic is not None:
            critic.load_state_dict(state["critic"])
        self.master_weights.load_state_dict(state.get("master_weights", []))
        self.optimizer.load_state_dict(state["optimizer"])

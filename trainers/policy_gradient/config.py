"""Settings of the policy-gradient training loop: :class:`TrainerConfig` (the algorithm itself is an
:class:`~rlenv.trainers.policy_gradient.algorithms.Algorithm`)."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

from rlenv.deprecation import warn_moved
from rlenv.errors import check_choice
from rlenv.trainers.policy_gradient.asynchronous import AsyncRolloutSettings
from rlenv.trainers.policy_gradient.corrections import OffPolicyCorrection
from rlenv.trainers.precision import DTYPES
from rlenv.trainers.rollout import FailurePolicy
from rlenv.trainers.tracking import backend_names

LR_SCHEDULES = ("constant", "linear", "cosine")
OPTIMIZERS = ("adamw", "sgd")
CRITIC_BACKBONES = ("separate", "shared")


@dataclasses.dataclass
class TrainerConfig(AsyncRolloutSettings, OffPolicyCorrection, FailurePolicy):
    """Settings of the training loop (the algorithm itself is an :class:`~rlenv.trainers.policy_gradient.algorithms.Algorithm`).

    Asynchronous rollouts (``async_rollouts``, ``max_staleness``, ...) are the fields of
    :class:`~rlenv.trainers.policy_gradient.asynchronous.AsyncRolloutSettings`; the off-policy
    correction (``correction``, ...) those of
    :class:`~rlenv.trainers.policy_gradient.corrections.OffPolicyCorrection`.

    Attributes:
        steps: rollout + update iterations of :meth:`Trainer.train`.
        num_tasks: prompts per step and rank.
        group_size: completions per prompt (None = the algorithm's default).
        max_new_tokens: generation limit; also Dr.GRPO's length constant.
        temperature, top_p, top_k: sampling; log-probs use the same temperature.
        generation_batch_size: prompts per ``generate`` call (None = all; ``hf`` backend).
        rollout_backend: ``"hf"`` (``transformers`` ``generate``) or ``"vllm"`` (a colocated vLLM
            engine whose weights follow the policy after every optimizer step).
        rollout_options: keyword arguments of the rollout backend's generator (vLLM's
            ``gpu_memory_utilization``, ``max_model_len``, ...).
        on_verifier_error, failure_statuses, rescore_attempts, regenerate_attempts,
            fail_fast_fraction, fail_fast_steps: what an episode whose verifier failed does to the
            update, and when training stops on a broken environment (see
            :class:`~rlenv.trainers.rollout.FailurePolicy`).
        tis_cap: truncated importance sampling (TIS) of the sampler/trainer mismatch: each
            token's policy loss is weighted by ``min(pi_old / pi_sampler, tis_cap)``, with
            ``pi_old`` the trainer's own recomputed probability (None = off, the default).
        micro_batch_size: episodes per forward/backward pass (gradient accumulation below it).
        micro_batch_tokens: form micro-batches by a budget of real (prompt + completion) tokens
            instead of ``micro_batch_size`` episodes (None = by episodes; an episode longer than the
            budget is a micro-batch of its own).
        pack_sequences: run each micro-batch of the policy as one padding-free packed sequence
            (:mod:`rlenv.trainers.packing`; same log-probs and losses as padded batches).
        dtype: the policy's weights, ``"float32"`` or ``"bfloat16"`` (then the optimizer steps an fp32
            master copy of the trained weights, see :mod:`rlenv.trainers.precision`).
        autocast: run the forward and backward passes under bf16 autocast (with ``dtype="float32"``).
        fsdp: shard the policy, reference and critic over the data-parallel ranks with FSDP2, one unit
            per decoder layer (each rank holds a share of the parameters, gradients and optimizer
            state; see :mod:`rlenv.trainers.sharding`); needs ``torchrun`` / ``accelerate launch``.
        lora_r: rank of LoRA adapters on the policy (0 = none: full fine-tuning); the base weights
            are frozen and the KL reference is the policy with its adapters disabled.
        lora_alpha: LoRA scaling numerator (the update is scaled by ``lora_alpha / lora_r``).
        lora_dropout: dropout on the adapters' input (kept by ``disable_dropout``).
        lora_target_modules: comma-separated names of the adapted modules, or ``"all-linear"``
            (every linear layer but the LM head).
        lr: policy learning rate.
        critic_lr: critic learning rate (None = ``lr``).
        weight_decay, adam_betas: optimizer settings.
        optimizer: ``"adamw"`` or ``"sgd"``.
        lr_schedule: ``"constant"``, ``"linear"`` or ``"cosine"`` decay to 0 over all optimizer steps.
        warmup_steps: linear warm-up, in optimizer steps.
        max_grad_norm: gradient clipping (None = off).
        logprob_chunk_size: rows of ``(rows, V)`` logits materialized at once.
        gradient_checkpointing: recompute the policy's activations in the backward pass.
        critic_backbone: ``"separate"`` (a copy of the policy backbone, TRL/OpenRLHF) or
            ``"shared"`` (a value head on the policy's own hidden states).
        disable_dropout: set every dropout probability of the policy to 0 (log-probs of the
            update then match the rollout's).
        seed: base seed of tasks, sampling and shuffling.
        device: torch device (None = ``accelerate``'s choice: this rank's GPU, else CPU).
        output_dir: where metrics (``metrics.jsonl``), logged samples (``samples.jsonl``),
            the trackers' local files and checkpoints go.
        log_samples: completions written to ``output_dir/samples.jsonl`` at each logged step
            (spread over the batch; 0 = none), with their prompt, reward, status, components,
            verifier details and hacks, for ``rlenv report``.
        log_samples_every: samples are logged at step 1 and every this many steps after.
        save_every: checkpoint every N steps (0 = only when asked) into ``output_dir/checkpoint-N``.
        save_total_limit: keep only the newest this many ``checkpoint-N`` directories of
            ``output_dir`` (None = keep all).
        stall_warning_steps: warn once when this many consecutive steps had every episode
            unparsable or every group's rewards equal (no learning signal; 0 = never).
        report_to: experiment trackers that also get each step's metrics, the run's name, settings and
            manifest and tables of the logged samples: comma-separated names among ``tensorboard``,
            ``wandb``, ``trackio``, ``mlflow`` (each an extra, ``pip install 'rlenv-lm[wandb]'``; see
            :mod:`rlenv.trainers.tracking`; "" = none). Needs ``output_dir``.
        run_name: the run's name in the trackers (None = the name of ``output_dir``).
        tracking_project: the wandb project, Trackio project or MLflow experiment of the run.
        progress: show a progress bar.
    """

    steps: int = 100
    num_tasks: int = 8
    group_size: int | None = None
    max_new_tokens: int = 256
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = 0
    generation_batch_size: int | None = None
    rollout_backend: str = "hf"
    rollout_options: dict[str, Any] = dataclasses.field(default_factory=dict)
    tis_cap: float | None = None
    micro_batch_size: int = 8
    micro_batch_tokens: int | None = None
    pack_sequences: bool = False
    dtype: str = "float32"
    autocast: bool = False
    fsdp: bool = False
    lora_r: int = 0
    lora_alpha: float = 16.0
    lora_dropout: float = 0.0
    lora_target_modules: str = "all-linear"
    lr: float = 1e-6
    critic_lr: float | None = None
    weight_decay: float = 0.0
    adam_betas: tuple[float, float] = (0.9, 0.999)
    optimizer: str = "adamw"
    lr_schedule: str = "constant"
    warmup_steps: int = 0
    max_grad_norm: float | None = 1.0
    logprob_chunk_size: int = 256
    gradient_checkpointing: bool = False
    critic_backbone: str = "separate"
    disable_dropout: bool = True
    seed: int = 0
    device: str | None = None
    output_dir: str | None = None
    log_samples: int = 4
    log_samples_every: int = 10
    save_every: int = 0
    save_total_limit: int | None = None
    stall_warning_steps: int = 10
    report_to: str = ""
    run_name: str | None = None
    tracking_project: str = "rlenv"
    progress: bool = True

    def __post_init__(self) -> None:
        if self.stall_warning_steps < 0:
            raise ValueError(f"stall_warning_steps must be >= 0, got {self.stall_warning_steps}")
        if self.save_total_limit is not None and self.save_total_limit < 1:
            raise ValueError(f"save_total_limit must be None or >= 1, got {self.save_total_limit}")
        if self.temperature <= 0:
            raise ValueError(f"temperature must be > 0 for RL sampling, got {self.temperature}")
        super().__post_init__()
        if self.tis_cap is not None and not self.tis_cap >= 1:
            raise ValueError(f"tis_cap must be >= 1 (or None = off), got {self.tis_cap}")
        if self.steps < 0:
            raise ValueError(f"steps must be >= 0, got {self.steps}")
        if self.log_samples < 0:
            raise ValueError(f"log_samples must be >= 0, got {self.log_samples}")
        for name in ("num_tasks", "max_new_tokens", "micro_batch_size", "logprob_chunk_size", "log_samples_every"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        check_choice("lr_schedule", self.lr_schedule, LR_SCHEDULES)
        check_choice("optimizer", self.optimizer, OPTIMIZERS)
        check_choice("critic_backbone", self.critic_backbone, CRITIC_BACKBONES)
        if backend_names(self.report_to) and self.output_dir is None:
            raise ValueError(f"report_to={self.report_to!r} needs output_dir (the trackers' files and the run's "
                             "name come from it)")
        if self.micro_batch_tokens is not None and self.micro_batch_tokens < 1:
            raise ValueError(f"micro_batch_tokens must be None or >= 1, got {self.micro_batch_tokens}")
        check_choice("dtype", self.dtype, tuple(DTYPES))
        if self.autocast and self.dtype != "float32":
            raise ValueError(f"autocast=True is bf16 compute over float32 weights; with dtype={self.dtype!r} "
                             "the weights already compute in that dtype")
        if self.fsdp and self.lora_r:
            raise ValueError("fsdp=True with LoRA (lora_r > 0) is not supported: adapters are small enough to "
                             "replicate; shard full fine-tuning only")
        if self.fsdp and self.rollout_backend != "hf":
            raise ValueError(f"fsdp=True samples with the sharded policy (rollout_backend='hf'), got "
                             f"rollout_backend={self.rollout_backend!r}")
        if self.async_rollouts and (self.fsdp or self.lora_r):
            raise ValueError("async_rollouts=True with " + ("fsdp=True" if self.fsdp else f"LoRA (lora_r={self.lora_r})")
                             + " is not supported: the generator process takes the full, unsharded weights")
        if self.lora_r < 0:
            raise ValueError(f"lora_r must be >= 0 (0 = no adapters), got {self.lora_r}")
        if not 0 <= self.lora_dropout < 1:
            raise ValueError(f"lora_dropout must be in [0, 1), got {self.lora_dropout}")
        beta1, beta2 = self.adam_betas
        self.adam_betas = (float(beta1), float(beta2))

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> TrainerConfig:
        """Build from a dict, naming unknown keys in the error."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(values) - known
        if unknown:
            raise ValueError(f"unknown TrainerConfig field(s) {sorted(unknown)}; known: {sorted(known)}")
        return cls(**values)


def _accept_tensorboard_switch(cls: type) -> None:
    """Let ``TrainerConfig(tensorboard=True)`` (the switch ``report_to`` replaced) work for one release:
    it warns and adds ``tensorboard`` to ``report_to``; ``tensorboard=False`` warns and changes nothing."""
    init = cls.__dict__["__init__"]  # the dataclass's own

    @functools.wraps(init)
    def __init__(self: Any, *args: Any, tensorboard: bool | None = None, **kwargs: Any) -> None:
        if tensorboard is not None:
            warn_moved("TrainerConfig(tensorboard=...)", "TrainerConfig(report_to='tensorboard')")
            if tensorboard and "tensorboard" not in backend_names(kwargs.get("report_to", "")):
                kwargs["report_to"] = ",".join(filter(None, (kwargs.get("report_to", ""), "tensorboard")))
        init(self, *args, **kwargs)

    setattr(cls, "__init__", __init__)  # noqa: B010  (mypy refuses assigning a class's __init__)


_accept_tensorboard_switch(TrainerConfig)  # the old switch, for one release

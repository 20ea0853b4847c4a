"""Algorithms as data: each preset is a named combination of estimator, loss, aggregation and KL placement.

``ALGORITHMS[name]`` is an :class:`Algorithm`; change a part with
``ALGORITHMS["grpo"].replace(kl_coef=0.001)``. Defaults follow the papers and the
reference implementations (TRL, verl, OpenRLHF); deviations are stated per preset.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from rlenv.trainers.policy_gradient import advantages as adv_registry
from rlenv.trainers.policy_gradient import losses as loss_registry

KL_PLACEMENTS = ("loss", "reward")


@dataclasses.dataclass(frozen=True)
class Algorithm:
    """One RL algorithm as a configuration.

    Attributes:
        name: the preset name.
        advantage: estimator name in :mod:`rlenv.trainers.policy_gradient.advantages`.
        advantage_kwargs: keyword arguments of the estimator (e.g. ``scale``, ``gamma``, ``lam``).
        policy_loss: loss name in :mod:`rlenv.trainers.policy_gradient.losses` (``pg``, ``ppo``, ``gspo``, ``cispo``).
        loss_kwargs: keyword arguments of the loss (clip ranges, ``dual_clip``, ...).
        aggregation: :func:`rlenv.trainers.policy_gradient.losses.aggregate` mode.
        kl_coef: KL coefficient beta; 0 loads no reference model.
        kl_kind: ``k1``/``k2``/``k3`` estimator.
        kl_placement: ``"reward"`` (``-beta * kl(old, ref)`` folded into the token rewards before the
            estimator) or ``"loss"`` (``beta * kl(logp, ref)`` added to the per-token loss).
        entropy_coef: entropy bonus (subtracted token-mean entropy times this).
        group_size: default completions per prompt.
        ppo_epochs: passes over each rollout batch.
        num_mini_batches: optimizer steps per pass.
        critic: train a value model (needed by ``gae``).
        vf_coef: value-loss weight (when the value head shares the policy's optimizer step).
        value_clip: value clipping range (None = off).
        dynamic_sampling: drop groups whose rewards are all equal, refill up to ``max_refills`` times.
        max_refills: extra rollouts allowed per step to refill dropped groups.
        overlong_buffer: DAPO soft overlong penalty buffer in tokens (None = off); the limit is
            the trainer's ``max_new_tokens``.
        overlong_factor: maximum overlong penalty.
        description: one line for docs and ``rlenv train --help``.
    """

    name: str
    advantage: str
    policy_loss: str
    aggregation: str
    advantage_kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)
    loss_kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)
    kl_coef: float = 0.0
    kl_kind: str = "k3"
    kl_placement: str = "loss"
    entropy_coef: float = 0.0
    group_size: int = 8
    ppo_epochs: int = 1
    num_mini_batches: int = 1
    critic: bool = False
    vf_coef: float = 0.1
    value_clip: float | None = 0.2
    dynamic_sampling: bool = False
    max_refills: int = 0
    overlong_buffer: int | None = None
    overlong_factor: float = 1.0
    description: str = ""

    def __post_init__(self) -> None:
        adv_registry.get(self.advantage)
        loss_registry.get(self.policy_loss)
        if self.aggregation not in loss_registry.AGGREGATIONS:
            raise ValueError(f"{self.name}: aggregation must be one of {loss_registry.AGGREGATIONS}, "
                             f"got {self.aggregation!r}")
        if self.kl_kind not in loss_registry.KL_KINDS:
            raise ValueError(f"{self.name}: kl_kind must be one of {loss_registry.KL_KINDS}, got {self.kl_kind!r}")
        if self.kl_placement not in KL_PLACEMENTS:
            raise ValueError(f"{self.name}: kl_placement must be one of {KL_PLACEMENTS}, got {self.kl_placement!r}")
        if self.kl_coef < 0 or self.entropy_coef < 0:
            raise ValueError(f"{self.name}: kl_coef and entropy_coef must be >= 0")
        if self.group_size < 1 or self.ppo_epochs < 1 or self.num_mini_batches < 1:
            raise ValueError(f"{self.name}: group_size, ppo_epochs and num_mini_batches must be >= 1")
        if (self.advantage == "gae") != self.critic:
            raise ValueError(f"{self.name}: the gae estimator needs critic=True and only it uses a critic")
        object.__setattr__(self, "advantage_kwargs", dict(self.advantage_kwargs))
        object.__setattr__(self, "loss_kwargs", dict(self.loss_kwargs))

    def replace(self, **changes: Any) -> Algorithm:
        """A copy with some fields changed (validated again)."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serializable dict of the configuration."""
        return dataclasses.asdict(self)


_PRESETS = [
    Algorithm(
        "reinforce_pp", "reinforce_pp", "ppo", "token_mean", loss_kwargs={"clip_low": 0.2},
        kl_coef=0.01, kl_kind="k1", kl_placement="reward", group_size=1,
        description="REINFORCE++ (OpenRLHF): k1 KL folded into token rewards, return whitened over the global "
                    "batch, PPO clip 0.2, token-mean"),
    Algorithm(
        "reinforce_pp_baseline", "reinforce_pp_baseline", "ppo", "token_mean", loss_kwargs={"clip_low": 0.2},
        kl_coef=1e-5, kl_kind="k2", kl_placement="loss", group_size=8,
        description="REINFORCE++-baseline (OpenRLHF script): group-mean baseline, global whitening, k2 KL loss"),
    Algorithm(
        "rloo", "rloo", "ppo", "token_mean", loss_kwargs={"clip_low": 0.2},
        kl_coef=0.05, kl_kind="k1", kl_placement="reward", group_size=4,
        description="RLOO (TRL defaults beta=0.05, k1 KL in the reward): leave-one-out baseline; token-level "
                    "PPO clip instead of TRL's sequence-product ratio (unstable in bf16)"),
    Algorithm(
        "grpo", "grpo", "ppo", "seq_mean_token_mean", advantage_kwargs={"scale": "group"},
        loss_kwargs={"clip_low": 0.2}, kl_coef=0.0, kl_kind="k3", kl_placement="loss", group_size=8,
        description="GRPO (DeepSeekMath loss, TRL beta=0 default): group-normalized advantage, PPO clip 0.2, "
                    "per-sequence token mean"),
    Algorithm(
        "dr_grpo", "grpo", "ppo", "seq_mean_token_sum_norm", advantage_kwargs={"scale": "none"},
        loss_kwargs={"clip_low": 0.2}, group_size=8,
        description="Dr.GRPO: no std scaling, loss summed and divided by B * max_new_tokens"),
    Algorithm(
        "dapo", "grpo", "ppo", "token_mean", advantage_kwargs={"scale": "group"},
        loss_kwargs={"clip_low": 0.2, "clip_high": 0.28}, group_size=8, dynamic_sampling=True, max_refills=3,
        description="DAPO: clip-higher (0.2, 0.28), token-mean, dynamic sampling (set overlong_buffer for the "
                    "soft overlong penalty)"),
    Algorithm(
        "gspo", "grpo", "gspo", "seq_mean_token_mean", advantage_kwargs={"scale": "group"},
        loss_kwargs={"clip_low": 3e-4, "clip_high": 4e-4}, group_size=8,
        description="GSPO: sequence-level (length-normalized) ratio clipped to (3e-4, 4e-4)"),
    Algorithm(
        "cispo", "grpo", "cispo", "token_mean", advantage_kwargs={"scale": "group"},
        loss_kwargs={"clip_max": 5.0}, group_size=8,
        description="CISPO (MiniMax-M1): detached IS weight capped at 5, token-mean"),
    Algorithm(
        "ppo", "gae", "ppo", "token_mean", advantage_kwargs={"gamma": 1.0, "lam": 0.95, "whiten": True},
        loss_kwargs={"clip_low": 0.2}, kl_coef=0.05, kl_kind="k1", kl_placement="reward", group_size=1,
        ppo_epochs=4, critic=True, vf_coef=0.1, value_clip=0.2,
        description="PPO (TRL defaults): separate critic, GAE(1, 0.95) whitened, k1 KL 0.05 in the reward, "
                    "4 epochs, value clip 0.2"),
]

#: Preset name -> :class:`Algorithm`.
ALGORITHMS: Mapping[str, Algorithm] = MappingProxyType({a.name: a for a in _PRESETS})


def resolve(algorithm: str | Algorithm) -> Algorithm:
    """An :class:`Algorithm` from a preset name or an instance."""
    if isinstance(algorithm, Algorithm):
        return algorithm
    try:
        return ALGORITHMS[algorithm]
    except KeyError:
        raise KeyError(f"unknown algorithm {algorithm!r}; presets: {sorted(ALGORITHMS)}") from None

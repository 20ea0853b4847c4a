"""Settings of the preference family: :class:`PreferenceConfig` (the loss and its optimizer, offline
and online) and :class:`OnlineDPOConfig` (the sample-then-update rounds)."""

from __future__ import annotations

import dataclasses

from rlenv.trainers.rollout import FailurePolicy, RolloutSettings

#: Loss names accepted by :class:`PreferenceConfig`, with their default ``beta`` (ORPO: ``λ``).
DEFAULT_BETA = {"dpo": 0.1, "ipo": 0.1, "kto": 0.1, "simpo": 2.0, "orpo": 0.1}


@dataclasses.dataclass
class PreferenceConfig:
    """Settings of :class:`PreferenceTrainer`.

    Attributes:
        loss: One of ``dpo``, ``ipo``, ``kto``, ``simpo``, ``orpo``.
        beta: The loss's ``β`` (ORPO: ``λ``); None picks :data:`DEFAULT_BETA`.
        label_smoothing: Conservative-DPO flip probability (``dpo`` only).
        simpo_gamma: SimPO's target margin ``γ``.
        kto_desirable_weight, kto_undesirable_weight: KTO's ``λ_D``, ``λ_U``. KTO trains on pairs
            as unpaired examples: chosen = desirable, rejected = undesirable.
        ipo_average: Feed IPO length-averaged log-probs (TRL's and the IPO authors' convention).
        nll_weight: ``α`` of an added token-averaged NLL term on the chosen completion,
            ``α·(-log π(y_w|x)/|y_w|)`` (RPO / iterative RPO, Pang et al. 2024: it keeps the chosen
            likelihood from falling). Not allowed with ``orpo``, which has its own SFT term.
        lr, weight_decay: AdamW settings (ignored when an optimizer is passed).
        batch_size: Pairs per optimizer step (:meth:`PreferenceTrainer.fit`).
        micro_batch_size: Pairs per forward pass (gradient accumulation inside a step).
        max_grad_norm: Gradient clipping threshold (None = no clipping).
        temperature: Logits are divided by it before the log-softmax.
        monitor_patience: Displaced steps before the monitor warns.
    """

    loss: str = "dpo"
    beta: float | None = None
    label_smoothing: float = 0.0
    simpo_gamma: float = 1.0
    kto_desirable_weight: float = 1.0
    kto_undesirable_weight: float = 1.0
    ipo_average: bool = True
    nll_weight: float = 0.0
    lr: float = 1e-6
    weight_decay: float = 0.0
    batch_size: int = 8
    micro_batch_size: int = 8
    max_grad_norm: float | None = 1.0
    temperature: float = 1.0
    monitor_patience: int = 3

    def __post_init__(self) -> None:
        if self.loss not in DEFAULT_BETA:
            raise ValueError(f"unknown preference loss {self.loss!r}; expected one of {sorted(DEFAULT_BETA)}")
        if self.beta is None:
            self.beta = DEFAULT_BETA[self.loss]
        for name in ("beta", "lr", "temperature"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)!r}")
        if self.nll_weight < 0 or (self.nll_weight > 0 and self.loss == "orpo"):
            raise ValueError(f"nll_weight must be >= 0 and unused with orpo (its SFT term is built in), got "
                             f"{self.nll_weight!r} with loss {self.loss!r}")
        for name in ("batch_size", "micro_batch_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")

    @property
    def loss_beta(self) -> float:
        """The ``β`` the loss uses: ``beta``, else the loss's default."""
        return DEFAULT_BETA[self.loss] if self.beta is None else float(self.beta)


@dataclasses.dataclass
class OnlineDPOConfig(FailurePolicy, RolloutSettings):
    """Settings of :class:`OnlineDPO`.

    Verifier failures: the fields of :class:`~rlenv.trainers.rollout.FailurePolicy`; sampling of the
    on-policy groups: those of :class:`~rlenv.trainers.rollout.RolloutSettings`.

    Attributes:
        preference: The loss and optimizer settings (any loss; ``dpo`` is online DPO proper).
        rounds: Sample-then-update rounds.
        updates_per_round: Passes over a round's pairs (each pass = steps of ``preference.batch_size``).
        sync_reference_every: Copy the policy into the reference every this many rounds
            (iterative DPO with a moving reference); 0 keeps the initial reference.
        seed: Seeds the env's task draws (round ``r`` uses ``seed + r``) and the pair shuffling.
        stall_warning_rounds: warn once when this many consecutive rounds had every episode
            unparsable or every group's rewards equal (no preference pair; 0 = never).
    """

    preference: PreferenceConfig = dataclasses.field(default_factory=PreferenceConfig)
    rounds: int = 10
    updates_per_round: int = 1
    sync_reference_every: int = 0
    seed: int = 0
    stall_warning_rounds: int = 3

    def __post_init__(self) -> None:
        FailurePolicy.__post_init__(self)
        RolloutSettings.__post_init__(self)
        if self.rounds < 1 or self.updates_per_round < 1:
            raise ValueError(f"rounds and updates_per_round must be >= 1, got {self.rounds}, {self.updates_per_round}")
        if self.sync_reference_every < 0:
            raise ValueError(f"sync_reference_every must be >= 0, got {self.sync_reference_every}")
        if self.stall_warning_rounds < 0:
            raise ValueError(f"stall_warning_rounds must be >= 0, got {self.stall_warning_rounds}")

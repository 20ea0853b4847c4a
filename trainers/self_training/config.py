"""Settings of the self-training family: :class:`SelfTrainingConfig` and its presets (RAFT, ReST, STaR)."""

from __future__ import annotations

import dataclasses
import string
from typing import Any

from rlenv.trainers.rollout import FailurePolicy, RolloutSettings


@dataclasses.dataclass
class SelfTrainingConfig(FailurePolicy, RolloutSettings):
    """Settings of :class:`SelfTrainer`; start from a preset with :func:`self_training_config`.

    Verifier failures: the fields of :class:`~rlenv.trainers.rollout.FailurePolicy`; sampling (for the
    grow step and rationalization): those of :class:`~rlenv.trainers.rollout.RolloutSettings`.

    Attributes:
        rounds: Sample-filter-fine-tune rounds (ReST: grow steps).
        top_k: Samples kept per prompt, highest reward first (None = all that pass the filters).
        min_reward: Samples with a lower reward are never kept (None = no floor).
        thresholds: ReST's rising reward thresholds, one improve step each; when empty there is
            one improve step using ``min_reward``.
        require_correct: Keep only samples whose verifier status is ``correct`` (STaR).
        rationalize: Re-ask problems with no correct sample with the answer as a hint (STaR).
        hint_template: ``str.format`` template with ``{prompt}`` and ``{answer}`` (the task's
            reference) building the rationalization prompt; plain-text prompts only.
        dedupe: Drop repeated completions of one prompt before selecting.
        restart_from_initial: Fine-tune from the initial weights every round (STaR).
        epochs: Passes over the kept samples per improve step.
        batch_size: Examples per SFT optimizer step.
        lr, weight_decay: AdamW settings; one optimizer persists across rounds (re-created
            with the weights when ``restart_from_initial``).
        max_grad_norm: Gradient clipping of the SFT steps (None = off).
        seed: Round ``r`` seeds the task draw and sampling with ``seed + r``.
        stall_warning_rounds: warn once when this many consecutive rounds had every episode
            unparsable or every group's rewards equal (nothing to prefer; 0 = never).
    """

    rounds: int = 5
    top_k: int | None = 1
    min_reward: float | None = None
    thresholds: tuple[float, ...] = ()
    require_correct: bool = False
    rationalize: bool = False
    hint_template: str = "{prompt}[{answer}]"
    dedupe: bool = True
    restart_from_initial: bool = False
    epochs: float = 1.0
    batch_size: int = 16
    lr: float = 1e-4
    weight_decay: float = 0.0
    max_grad_norm: float | None = 1.0
    seed: int = 0
    stall_warning_rounds: int = 3

    def __post_init__(self) -> None:
        FailurePolicy.__post_init__(self)
        RolloutSettings.__post_init__(self)
        if self.rounds < 1:
            raise ValueError(f"rounds must be >= 1, got {self.rounds}")
        if self.stall_warning_rounds < 0:
            raise ValueError(f"stall_warning_rounds must be >= 0, got {self.stall_warning_rounds}")
        if self.top_k is not None and self.top_k < 1:
            raise ValueError(f"top_k must be >= 1 or None, got {self.top_k}")
        self.thresholds = tuple(float(t) for t in self.thresholds)
        if any(b < a for a, b in zip(self.thresholds, self.thresholds[1:])):
            raise ValueError(f"ReST thresholds must rise, got {self.thresholds}")
        if self.rationalize and not {"prompt", "answer"} <= _template_fields(self.hint_template):
            raise ValueError(f"hint_template must contain {{prompt}} and {{answer}}, got {self.hint_template!r}")
        if not self.epochs > 0 or self.batch_size < 1 or not self.lr > 0:
            raise ValueError(f"epochs, lr must be > 0 and batch_size >= 1, got {self.epochs}, "
                             f"{self.lr}, {self.batch_size}")


def _template_fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


#: The three self-training presets: overrides of :class:`SelfTrainingConfig`'s defaults.
PRESETS: dict[str, dict[str, Any]] = {
    "raft": {"top_k": 1},
    "rest": {"top_k": None, "thresholds": (0.5, 0.75, 1.0)},
    "star": {"top_k": None, "require_correct": True, "rationalize": True, "restart_from_initial": True},
}


def self_training_config(preset: str, **overrides: Any) -> SelfTrainingConfig:
    """A :class:`SelfTrainingConfig` for ``preset`` (``raft``, ``rest`` or ``star``) with ``overrides``."""
    if preset not in PRESETS:
        raise ValueError(f"unknown self-training preset {preset!r}; expected one of {sorted(PRESETS)}")
    return SelfTrainingConfig(**{**PRESETS[preset], **overrides})

"""Bradley-Terry reward-model training on preference pairs (TRL ``prompt``/``chosen``/``rejected`` rows).

The loss for a pair is ``-log sigmoid(r(prompt, chosen) - r(prompt, rejected) - margin)`` (plus an
optional ``center_rewards_coefficient * mean((r_c + r_r)^2)`` that keeps rewards centred on 0),
where ``r`` is the single output of an ``AutoModelForSequenceClassification(num_labels=1)`` read at
the last non-pad token. Inputs are laid out by :func:`rlenv.rm_inputs.pair_ids`, exactly as
:class:`envs.safety.RewardModelVerifier` reads them, so a saved model scores as it was trained.

Example::

    from trainers.reward_model import RewardModelConfig, pairwise_accuracy, train_reward_model
    report = train_reward_model(model, tokenizer, train_rows, RewardModelConfig(learning_rate=1e-3, num_epochs=3))
    print(pairwise_accuracy(model, tokenizer, test_rows))
    model.save_pretrained("rm"); tokenizer.save_pretrained("rm")      # RewardModelVerifier("rm") loads it
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from rlenv.rm_inputs import TRUNCATION_SIDES, check_preference_row, ensure_pad_token, pair_ids, truncate
from trainers.supervised import FitConfig, as_rows, fit, padded


@dataclasses.dataclass
class RewardModelConfig(FitConfig):
    """Settings of :func:`train_reward_model` (optimization fields: see :class:`trainers.supervised.FitConfig`).

    Attributes:
        max_length: Longest pair in tokens; longer pairs are cut on ``truncation_side`` (the
            verifier's default ``"left"`` keeps the end, where the score is read).
        truncation_side: ``"left"`` or ``"right"``.
        use_chat_template: None = the tokenizer's chat template when it has one (as the verifier).
        center_rewards_coefficient: Weight of the ``mean((r_c + r_r)^2)`` centring term, or None.
    """

    max_length: int | None = 1024
    truncation_side: str = "left"
    use_chat_template: bool | None = None
    center_rewards_coefficient: float | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.truncation_side not in TRUNCATION_SIDES:
            raise ValueError(f"truncation_side must be one of {TRUNCATION_SIDES}, got {self.truncation_side!r}")


@dataclasses.dataclass
class RewardModelReport:
    """What :func:`train_reward_model` did.

    Attributes:
        losses: Loss of every optimizer step.
        num_pairs: Training pairs used.
        num_truncated: Pairs whose chosen or rejected side was cut to ``max_length``.
        eval_accuracy: Pairwise accuracy on ``eval_rows`` after training (None without them).
    """

    losses: list[float]
    num_pairs: int
    num_truncated: int
    eval_accuracy: float | None = None


@dataclasses.dataclass(frozen=True)
class _Pair:
    chosen: list[int]
    rejected: list[int]
    margin: float
    truncated: bool


def _encode_pairs(tokenizer: Any, rows: Any, config: RewardModelConfig) -> list[_Pair]:
    pairs = []
    for index, row in enumerate(as_rows(rows)):
        check_preference_row(row, index)
        sides = [truncate(pair_ids(tokenizer, row["prompt"], row[key], config.use_chat_template),
                          config.max_length, config.truncation_side) for key in ("chosen", "rejected")]
        pairs.append(_Pair(sides[0][0], sides[1][0], float(row.get("margin") or 0.0), sides[0][1] or sides[1][1]))
    return pairs


def _rewards(model: Any, tokenizer: Any, sequences: Sequence[Sequence[int]]) -> Any:
    input_ids, mask = padded(tokenizer, sequences, model.device)
    return model(input_ids=input_ids, attention_mask=mask).logits[:, 0].float()


def _check_model(model: Any) -> None:
    if int(model.config.num_labels) != 1:
        raise ValueError(f"a Bradley-Terry reward model needs one output (num_labels=1), got {model.config.num_labels}")


def train_reward_model(
    model: Any,
    tokenizer: Any,
    rows: Any,
    config: RewardModelConfig | None = None,
    eval_rows: Any = None,
) -> RewardModelReport:
    """Fit ``model`` on preference ``rows`` with the Bradley-Terry loss (in place).

    Args:
        model: An ``AutoModelForSequenceClassification`` with ``num_labels=1``.
        tokenizer: Its tokenizer; it gets a pad token (its EOS) when it has none, mirrored on the
            model config so the saved model reads its score at the same position.
        rows: A list of dict rows, a ``datasets.Dataset`` or data file path(s); each row has
            ``prompt``, ``chosen``, ``rejected`` (str) and optionally ``margin`` (float).
        config: Training settings (default :class:`RewardModelConfig`).
        eval_rows: Optional held-out rows; their pairwise accuracy is reported.

    Returns:
        A :class:`RewardModelReport`; the model is left in eval mode on ``config.device``.
    """
    import torch.nn.functional as F

    config = config or RewardModelConfig()
    _check_model(model)
    ensure_pad_token(tokenizer, model.config)
    pairs = _encode_pairs(tokenizer, rows, config)
    center = config.center_rewards_coefficient

    def loss_fn(model: Any, batch: list[_Pair]) -> Any:
        rewards = _rewards(model, tokenizer, [p.chosen for p in batch] + [p.rejected for p in batch])
        chosen, rejected = rewards[: len(batch)], rewards[len(batch):]
        margin = rewards.new_tensor([p.margin for p in batch])
        loss = -F.logsigmoid(chosen - rejected - margin).mean()
        if center is not None:
            loss = loss + center * ((chosen + rejected) ** 2).mean()
        return loss

    losses = fit(model, pairs, loss_fn, config, desc="reward model")
    report = RewardModelReport(losses, len(pairs), sum(p.truncated for p in pairs))
    if eval_rows is not None:
        report.eval_accuracy = pairwise_accuracy(model, tokenizer, eval_rows, config)
    return report


def pairwise_accuracy(model: Any, tokenizer: Any, rows: Any, config: RewardModelConfig | None = None) -> float:
    """Fraction of preference ``rows`` whose chosen side scores strictly higher than the rejected side."""
    import torch

    config = config or RewardModelConfig()
    _check_model(model)
    ensure_pad_token(tokenizer, model.config)
    pairs = _encode_pairs(tokenizer, rows, config)
    if not pairs:
        raise ValueError("no preference rows to evaluate")
    model.eval()
    wins = 0
    with torch.inference_mode():
        for start in range(0, len(pairs), config.batch_size):
            batch = pairs[start:start + config.batch_size]
            rewards = _rewards(model, tokenizer, [p.chosen for p in batch] + [p.rejected for p in batch])
            wins += int((rewards[: len(batch)] > rewards[len(batch):]).sum())
    return wins / len(pairs)

"""Bradley-Terry reward-model training on preference pairs (TRL ``prompt``/``chosen``/``rejected`` rows).

The loss for a pair is ``-log sigmoid(r(prompt, chosen) - r(prompt, rejected) - margin)`` (plus an
optional ``center_rewards_coefficient * mean((r_c + r_r)^2)`` that keeps rewards centred on 0),
where ``r`` is the single output of an ``AutoModelForSequenceClassification(num_labels=1)`` read at
the last non-pad token. Inputs are laid out by :func:`rlenv.rm_inputs.pair_ids` as TRL's
``RewardTrainer`` lays them out: plain-text rows as ``prompt + completion + eos``, conversational
rows through the chat template. The layout is recorded in the model config (``config.json`` once
saved) and :class:`rlenv.envs.safety.RewardModelVerifier` reads it, so a saved model scores as it was
trained.

Example::

    from rlenv.trainers.reward_models import RewardModelConfig, pairwise_accuracy, train_reward_model
    report = train_reward_model(model, tokenizer, train_rows, RewardModelConfig(lr=1e-3, epochs=3))
    print(pairwise_accuracy(model, tokenizer, test_rows))
    model.save_pretrained("rm"); tokenizer.save_pretrained("rm")      # RewardModelVerifier("rm") loads it
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from rlenv.rm_inputs import (
    ensure_pad_token,
    pair_ids,
    preference_row_layout,
    record_layout,
    resolve_pair_layout,
    truncate,
)
from rlenv.trainers.finetune import fit
from rlenv.trainers.reward_models.config import RewardModelConfig
from rlenv.trainers.reward_models.data import as_rows, padded


@dataclasses.dataclass
class RewardModelReport:
    """What :func:`train_reward_model` did.

    Attributes:
        losses: Loss of every optimizer step.
        num_pairs: Training pairs used.
        num_truncated: Pairs whose chosen or rejected side was cut to ``max_length``.
        num_dropped: Pairs left out for being longer than ``max_length`` (``overlong="drop"``).
        layout: The input layout trained (``"plain"`` or ``"chat"``), recorded in the model config.
        eval_accuracy: Pairwise accuracy on ``eval_rows`` after training (None without them).
    """

    losses: list[float]
    num_pairs: int
    num_truncated: int
    num_dropped: int
    layout: str
    eval_accuracy: float | None = None


@dataclasses.dataclass(frozen=True)
class _Pair:
    chosen: list[int]
    rejected: list[int]
    margin: float
    truncated: bool


def rows_layout(rows: Sequence[dict[str, Any]], use_chat_template: bool | None) -> str:
    """The pair layout of preference ``rows`` (all plain or all conversational), as TRL decides it.

    ``use_chat_template`` overrides it (see :class:`RewardModelConfig`). Raises ``ValueError`` on a
    malformed row, on rows that mix plain and conversational, and on conversational rows with
    ``use_chat_template=False``.
    """
    layouts = [preference_row_layout(row, index) for index, row in enumerate(rows)]
    if not layouts:
        raise ValueError("no preference rows")
    if len(set(layouts)) > 1:
        other = next(i for i, layout in enumerate(layouts) if layout != layouts[0])
        raise ValueError(f"preference rows mix layouts: row 0 is {layouts[0]!r}, row {other} is {layouts[other]!r}")
    if use_chat_template is False and layouts[0] == "chat":
        raise ValueError("use_chat_template=False but the preference rows are conversational (chat messages)")
    return "chat" if use_chat_template else layouts[0]


def _encode_pairs(tokenizer: Any, rows: list[dict[str, Any]], layout: str,
                  config: RewardModelConfig) -> tuple[list[_Pair], int]:
    """Encoded pairs (overlong ones cut or dropped per ``config``) and the number dropped."""
    pairs, dropped = [], 0
    for row in rows:
        prompt = row.get("prompt", [] if layout == "chat" else "")
        sides = [pair_ids(tokenizer, prompt, row[key], layout) for key in ("chosen", "rejected")]
        limit = config.max_length
        if config.overlong == "drop" and limit is not None and max(len(ids) for ids in sides) > limit:
            dropped += 1
            continue
        (chosen, cut_c), (rejected, cut_r) = (truncate(ids, limit, config.truncation_side) for ids in sides)
        pairs.append(_Pair(chosen, rejected, float(row.get("margin") or 0.0), cut_c or cut_r))
    if not pairs:
        raise ValueError(f"all {dropped} preference pairs are longer than max_length={config.max_length} tokens "
                         f"(overlong='drop')")
    return pairs, dropped


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
            ``chosen`` and ``rejected`` and optionally ``prompt`` (all plain strings, or all lists
            of chat messages: TRL's conversational rows) and ``margin`` (float).
        config: Training settings (default :class:`RewardModelConfig`).
        eval_rows: Optional held-out rows; their pairwise accuracy is reported.

    Returns:
        A :class:`RewardModelReport`; the model is left in eval mode on ``config.device``, its
        config records the input layout (:func:`rlenv.rm_inputs.record_layout`).
    """
    import torch.nn.functional as F

    config = config or RewardModelConfig()
    _check_model(model)
    ensure_pad_token(tokenizer, model.config)
    rows = as_rows(rows)
    layout = rows_layout(rows, config.use_chat_template)
    pairs, dropped = _encode_pairs(tokenizer, rows, layout, config)
    record_layout(model.config, layout)
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
    report = RewardModelReport(losses, len(pairs), sum(p.truncated for p in pairs), dropped, layout)
    if eval_rows is not None:
        report.eval_accuracy = pairwise_accuracy(model, tokenizer, eval_rows, config)
    return report


def pairwise_accuracy(model: Any, tokenizer: Any, rows: Any, config: RewardModelConfig | None = None) -> float:
    """Fraction of preference ``rows`` whose chosen side scores strictly higher than the rejected side.

    The rows are laid out as the verifier reads the model: ``config.use_chat_template`` when set,
    else the layout recorded in the model config, else the rows' own layout.
    """
    import torch

    config = config or RewardModelConfig()
    _check_model(model)
    ensure_pad_token(tokenizer, model.config)
    rows = as_rows(rows)
    conversational = rows_layout(rows, None) == "chat"
    layout = resolve_pair_layout(model.config, config.use_chat_template, conversational, owner="the reward model")
    pairs, _ = _encode_pairs(tokenizer, rows, layout, config)
    model.eval()
    wins = 0
    with torch.inference_mode():
        for start in range(0, len(pairs), config.batch_size):
            batch = pairs[start:start + config.batch_size]
            rewards = _rewards(model, tokenizer, [p.chosen for p in batch] + [p.rejected for p in batch])
            wins += int((rewards[: len(batch)] > rewards[len(batch):]).sum())
    return wins / len(pairs)

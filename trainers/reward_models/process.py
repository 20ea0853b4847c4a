"""Step-label process-reward-model training on TRL ``stepwise_supervision`` rows.

A row is ``{"prompt": str, "completions": [step, ...], "labels": [bool, ...]}``. The model is an
``AutoModelForTokenClassification`` with two labels (0 = bad step, 1 = good step); each step is
followed by ``step_suffix`` and its label sits on the last token of ``step + step_suffix``, every
other token is ignored (-100) — TRL's PRM layout, built by :func:`rlenv.rm_inputs.stepwise_ids`
exactly as :class:`rlenv.envs.prm.PRMVerifier` reads it. The step suffix is recorded in the model config
(``config.json`` once saved): the verifier reads it and splits completions on it. The loss is the
token-level cross-entropy of the model (mean over labelled tokens of the batch).

Example::

    from rlenv.trainers.reward_models import PRMConfig, step_accuracy, train_prm
    report = train_prm(model, tokenizer, rows, PRMConfig(lr=3e-3, epochs=5))
    print(step_accuracy(model, tokenizer, held_out_rows))
    model.save_pretrained("prm"); tokenizer.save_pretrained("prm")    # PRMVerifier("prm") loads it
"""

from __future__ import annotations

import dataclasses
from typing import Any

from rlenv.rm_inputs import (
    DEFAULT_STEP_SUFFIX,
    check_stepwise_row,
    ensure_pad_token,
    record_layout,
    recorded_layout,
    stepwise_ids,
)
from rlenv.trainers.finetune import fit
from rlenv.trainers.reward_models.config import PRMConfig
from rlenv.trainers.reward_models.data import as_rows, padded

#: Label id of a correct step (index 1 of the two outputs); 0 is an incorrect step.
GOOD_LABEL = 1
IGNORE_INDEX = -100


@dataclasses.dataclass
class PRMReport:
    """What :func:`train_prm` did: the loss of every step, the rows and labelled steps used, held-out accuracy.

    ``num_truncated`` rows had their prompt cut to ``max_length``; ``num_dropped`` rows were left
    out for being longer (``overlong="drop"``).
    """

    losses: list[float]
    num_rows: int
    num_steps: int
    num_truncated: int = 0
    num_dropped: int = 0
    eval_step_accuracy: float | None = None


@dataclasses.dataclass(frozen=True)
class _Example:
    input_ids: list[int]
    positions: list[int]
    labels: list[int]
    truncated: bool


def _encode(tokenizer: Any, rows: Any, config: PRMConfig, last_only: bool) -> tuple[list[_Example], int]:
    """Encoded rows (overlong ones cut or dropped per ``config``) and the number dropped."""
    examples, dropped = [], 0
    for index, row in enumerate(as_rows(rows)):
        check_stepwise_row(row, index)
        ids, positions = stepwise_ids(tokenizer, row["prompt"], row["completions"], config.step_suffix)
        cut = config.max_length is not None and len(ids) > config.max_length
        if cut and config.overlong == "drop":
            dropped += 1
            continue
        if cut:
            try:
                ids, positions = stepwise_ids(tokenizer, row["prompt"], row["completions"], config.step_suffix,
                                              config.max_length)
            except ValueError as exc:
                raise ValueError(f"stepwise row {index}: {exc}") from None
        labels = [int(bool(label)) for label in row["labels"]]
        if last_only:
            positions, labels = positions[-1:], labels[-1:]
        examples.append(_Example(ids, positions, labels, cut))
    if not examples and dropped:
        raise ValueError(f"all {dropped} stepwise rows are longer than max_length={config.max_length} tokens "
                         f"(overlong='drop')")
    return examples, dropped


def _check_model(model: Any) -> None:
    if int(model.config.num_labels) != 2:
        raise ValueError(f"a step-label PRM needs two outputs (bad, good), got num_labels={model.config.num_labels}")


def train_prm(model: Any, tokenizer: Any, rows: Any, config: PRMConfig | None = None, eval_rows: Any = None) -> PRMReport:
    """Fit ``model`` (in place) to predict each step's label.

    Args:
        model: An ``AutoModelForTokenClassification`` with ``num_labels=2``.
        tokenizer: Its tokenizer (gets a pad token when it has none).
        rows: Stepwise rows: a list of dicts, a ``datasets.Dataset`` or data file path(s).
        config: Training settings (default :class:`PRMConfig`).
        eval_rows: Optional held-out rows; their step accuracy (every step) is reported.

    Returns:
        A :class:`PRMReport`; the model is left in eval mode on ``config.device``, its config
        records the ``"stepwise"`` layout and ``step_suffix`` (:func:`rlenv.rm_inputs.record_layout`).
    """
    import torch

    config = config or PRMConfig()
    _check_model(model)
    ensure_pad_token(tokenizer, model.config)
    examples, dropped = _encode(tokenizer, rows, config, config.train_on_last_step_only)
    record_layout(model.config, "stepwise", step_suffix=config.step_suffix)

    def loss_fn(model: Any, batch: list[_Example]) -> Any:
        input_ids, mask = padded(tokenizer, [e.input_ids for e in batch], model.device)
        labels = torch.full_like(input_ids, IGNORE_INDEX)
        for row, example in enumerate(batch):
            labels[row, example.positions] = torch.tensor(example.labels, device=labels.device)
        return model(input_ids=input_ids, attention_mask=mask, labels=labels).loss

    losses = fit(model, examples, loss_fn, config, desc="process reward model")
    report = PRMReport(losses, len(examples), sum(len(e.labels) for e in examples),
                       sum(e.truncated for e in examples), dropped)
    if eval_rows is not None:
        report.eval_step_accuracy = step_accuracy(model, tokenizer, eval_rows, config)
    return report


def step_accuracy(model: Any, tokenizer: Any, rows: Any, config: PRMConfig | None = None) -> float:
    """Fraction of all steps of ``rows`` whose predicted label (P(good) >= 0.5) equals the row's label.

    Without ``config``, the step suffix is the one recorded in the model config (``"\\n"`` when none is).
    """
    import torch

    if config is None:
        config = PRMConfig(step_suffix=recorded_layout(model.config).get("step_suffix", DEFAULT_STEP_SUFFIX))
    _check_model(model)
    ensure_pad_token(tokenizer, model.config)
    examples, _ = _encode(tokenizer, rows, config, last_only=False)
    if not examples:
        raise ValueError("no stepwise rows to evaluate")
    model.eval()
    right = total = 0
    with torch.inference_mode():
        for start in range(0, len(examples), config.batch_size):
            batch = examples[start:start + config.batch_size]
            input_ids, mask = padded(tokenizer, [e.input_ids for e in batch], model.device)
            good = model(input_ids=input_ids, attention_mask=mask).logits.float().softmax(-1)[..., GOOD_LABEL]
            for row, example in enumerate(batch):
                predicted = (good[row, example.positions] >= 0.5).long().tolist()
                right += sum(p == y for p, y in zip(predicted, example.labels))
                total += len(example.labels)
    return right / total

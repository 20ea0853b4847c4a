"""Step-label process-reward-model training on TRL ``stepwise_supervision`` rows.

A row is ``{"prompt": str, "completions": [step, ...], "labels": [bool, ...]}``. The model is an
``AutoModelForTokenClassification`` with two labels (0 = bad step, 1 = good step); each step is
followed by ``step_suffix`` and its label sits on the last token of ``step + step_suffix``, every
other token is ignored (-100) — TRL's PRM layout, built by :func:`rlenv.rm_inputs.stepwise_ids`
exactly as :class:`envs.prm.PRMVerifier` reads it. The loss is the token-level cross-entropy of the
model (mean over labelled tokens of the batch).

Example::

    from trainers.prm import PRMConfig, step_accuracy, train_prm
    report = train_prm(model, tokenizer, rows, PRMConfig(learning_rate=3e-3, num_epochs=5))
    print(step_accuracy(model, tokenizer, held_out_rows))
    model.save_pretrained("prm"); tokenizer.save_pretrained("prm")    # PRMVerifier("prm") loads it
"""

from __future__ import annotations

import dataclasses
from typing import Any

from rlenv.rm_inputs import check_stepwise_row, ensure_pad_token, stepwise_ids
from trainers.supervised import FitConfig, as_rows, fit, padded

#: Label id of a correct step (index 1 of the two outputs); 0 is an incorrect step.
GOOD_LABEL = 1
IGNORE_INDEX = -100


@dataclasses.dataclass
class PRMConfig(FitConfig):
    """Settings of :func:`train_prm` (optimization fields: see :class:`trainers.supervised.FitConfig`).

    Attributes:
        step_suffix: Text appended to every step (TRL ``step_separator``, default ``"\\n"``); the
            verifier must use the same.
        max_length: Longest input in tokens; prompts are cut from the left to fit, and a row whose
            steps alone do not fit raises ``ValueError``.
        train_on_last_step_only: Label only the final step of each row (outcome-style supervision).
    """

    step_suffix: str = "\n"
    max_length: int | None = 1024
    train_on_last_step_only: bool = False


@dataclasses.dataclass
class PRMReport:
    """What :func:`train_prm` did: the loss of every step, the rows and labelled steps used, held-out accuracy."""

    losses: list[float]
    num_rows: int
    num_steps: int
    eval_step_accuracy: float | None = None


@dataclasses.dataclass(frozen=True)
class _Example:
    input_ids: list[int]
    positions: list[int]
    labels: list[int]


def _encode(tokenizer: Any, rows: Any, config: PRMConfig, last_only: bool) -> list[_Example]:
    examples = []
    for index, row in enumerate(as_rows(rows)):
        check_stepwise_row(row, index)
        try:
            ids, positions = stepwise_ids(tokenizer, row["prompt"], row["completions"], config.step_suffix,
                                          config.max_length)
        except ValueError as exc:
            raise ValueError(f"stepwise row {index}: {exc}") from None
        labels = [int(bool(label)) for label in row["labels"]]
        if last_only:
            positions, labels = positions[-1:], labels[-1:]
        examples.append(_Example(ids, positions, labels))
    return examples


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
        A :class:`PRMReport`; the model is left in eval mode on ``config.device``.
    """
    import torch

    config = config or PRMConfig()
    _check_model(model)
    ensure_pad_token(tokenizer, model.config)
    examples = _encode(tokenizer, rows, config, config.train_on_last_step_only)

    def loss_fn(model: Any, batch: list[_Example]) -> Any:
        input_ids, mask = padded(tokenizer, [e.input_ids for e in batch], model.device)
        labels = torch.full_like(input_ids, IGNORE_INDEX)
        for row, example in enumerate(batch):
            labels[row, example.positions] = torch.tensor(example.labels, device=labels.device)
        return model(input_ids=input_ids, attention_mask=mask, labels=labels).loss

    losses = fit(model, examples, loss_fn, config, desc="process reward model")
    report = PRMReport(losses, len(examples), sum(len(e.labels) for e in examples))
    if eval_rows is not None:
        report.eval_step_accuracy = step_accuracy(model, tokenizer, eval_rows, config)
    return report


def step_accuracy(model: Any, tokenizer: Any, rows: Any, config: PRMConfig | None = None) -> float:
    """Fraction of all steps of ``rows`` whose predicted label (P(good) >= 0.5) equals the row's label."""
    import torch

    config = config or PRMConfig()
    _check_model(model)
    ensure_pad_token(tokenizer, model.config)
    examples = _encode(tokenizer, rows, config, last_only=False)
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

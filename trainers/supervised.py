"""A small seeded AdamW loop for fitting scoring models (reward models, PRMs) on prepared examples."""

from __future__ import annotations

import dataclasses
import logging
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rlenv.sources import load_rows

logger = logging.getLogger(__name__)


@dataclasses.dataclass
class FitConfig:
    """Optimization settings shared by the reward-model and PRM trainers.

    Attributes:
        learning_rate: AdamW step size.
        num_epochs: Passes over the training examples.
        batch_size: Examples per optimizer step.
        weight_decay: AdamW weight decay.
        max_grad_norm: Gradient-norm clip (None: no clipping).
        seed: Seeds the example order and torch (the result is reproducible on one machine).
        device: Where the model trains (``"cpu"``, ``"cuda"``, ...).
        disable_dropout: Set every dropout probability of the model to 0 before training (as TRL's
            reward and PRM trainers do by default): the loss then matches an eval-mode forward.
        progress: Show a tqdm bar (on a terminal).
    """

    learning_rate: float = 1e-5
    num_epochs: int = 1
    batch_size: int = 8
    weight_decay: float = 0.0
    max_grad_norm: float | None = 1.0
    seed: int = 0
    device: str = "cpu"
    disable_dropout: bool = True
    progress: bool = True

    def __post_init__(self) -> None:
        for name in ("num_epochs", "batch_size"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        if not self.learning_rate > 0:
            raise ValueError(f"learning_rate must be positive, got {self.learning_rate!r}")


def fit(
    model: Any,
    examples: Sequence[Any],
    loss_fn: Callable[[Any, list[Any]], Any],
    config: FitConfig,
    desc: str = "fitting",
) -> list[float]:
    """Minimize ``loss_fn(model, batch)`` over shuffled mini-batches of ``examples`` with AdamW.

    Returns:
        The loss of every optimizer step, in order (``num_epochs * ceil(len(examples) / batch_size)`` values).
    """
    import torch
    from tqdm.auto import tqdm

    if not examples:
        raise ValueError("no training examples")
    torch.manual_seed(config.seed)
    if config.disable_dropout:
        for module in model.modules():
            if isinstance(module, torch.nn.Dropout):
                module.p = 0.0
    order_rng = random.Random(config.seed)
    model.to(config.device)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay)
    steps_per_epoch = -(-len(examples) // config.batch_size)
    losses: list[float] = []
    bar = tqdm(total=config.num_epochs * steps_per_epoch, desc=desc,
                disable=None if config.progress else True, leave=False)
    try:
        for _ in range(config.num_epochs):
            order = list(range(len(examples)))
            order_rng.shuffle(order)
            for start in range(0, len(order), config.batch_size):
                batch = [examples[i] for i in order[start:start + config.batch_size]]
                loss = loss_fn(model, batch)
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                if config.max_grad_norm is not None:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), config.max_grad_norm)
                optimizer.step()
                losses.append(float(loss.detach()))
                bar.update()
                bar.set_postfix(loss=f"{losses[-1]:.4f}")
    finally:
        bar.close()
        model.eval()
    logger.info("%s: %d steps, first loss %.4f, last loss %.4f", desc, len(losses), losses[0], losses[-1])
    return losses


def padded(tokenizer: Any, sequences: Sequence[Sequence[int]], device: Any) -> tuple[Any, Any]:
    """Right-padded ``(input_ids, attention_mask)`` tensors on ``device``."""
    enc = tokenizer.pad({"input_ids": [list(s) for s in sequences]}, padding_side="right", return_tensors="pt")
    return enc["input_ids"].to(device), enc["attention_mask"].to(device)


def as_rows(data: Any) -> list[dict[str, Any]]:
    """Rows as dicts from a list of dicts, a ``datasets.Dataset`` or data file path(s) (see :func:`rlenv.sources.load_rows`)."""
    if isinstance(data, list) and all(isinstance(r, Mapping) for r in data):
        return [dict(r) for r in data]
    return [dict(r) for r in load_rows(data)]

"""Supervised fine-tuning: rlenv's one optimization loop over examples (:func:`fine_tune`).

Its users: the warm-up before RL (:func:`sft` on ``(prompt, completion)`` pairs), the improve step
of self-training (the same SFT loss with the loop's persistent optimizer), and the fitting of
reward models and PRMs (:func:`fit`, with their own losses). The SFT loss is the token-mean
negative log-likelihood of the completion tokens (EOS included), computed with the same prompt
encoding and memory-efficient log-probs as the RL trainers.
"""

from __future__ import annotations

import dataclasses
import logging
import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import torch
from tqdm.auto import tqdm

from rlenv.deprecation import renamed_fields
from rlenv.inference.policy import Observation, encode_completions, encode_prompts
from rlenv.trainers.batch import EpisodeBatch
from rlenv.trainers.logprobs import completion_logprobs

logger = logging.getLogger(__name__)

Example = tuple[Observation, str]
#: What SFT trains on: an :data:`Example`, or one sampled episode as tokens (a one-row :class:`EpisodeBatch`).
SFTExample = Example | EpisodeBatch


def gold_examples(env: Any, indices: Sequence[int]) -> list[Example]:
    """``(observation, gold completion)`` pairs for tasks ``indices`` of a :class:`rlenv.TextEnv`.

    Raises ``ValueError`` naming the first task that has no gold completion.
    """
    base = env.unwrapped
    out = []
    for index in indices:
        task = base.source[int(index)]
        gold = base.gold_completion(task)
        if gold is None:
            raise ValueError(f"task {task.id} (index {index}) has no gold completion to fine-tune on")
        out.append((base.format_prompt(task), gold))
    return out


def sft_batch(tokenizer: Any, examples: Sequence[Example]) -> EpisodeBatch:
    """An :class:`EpisodeBatch` of prompts and EOS-terminated target completions (rewards are 1)."""
    prompt_ids, prompt_mask = encode_prompts(tokenizer, [p for p, _ in examples])
    prompts = [row[m.bool()].tolist() for row, m in zip(prompt_ids, prompt_mask, strict=True)]
    completions = encode_completions(tokenizer, [c for _, c in examples])
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    return EpisodeBatch.from_token_lists(prompts, completions, [1.0] * len(examples), pad_token_id=pad,
                                         eos_token_id=tokenizer.eos_token_id)


def sft_loss(model: Any, batch: EpisodeBatch) -> torch.Tensor:
    """Token-mean negative log-likelihood of ``batch``'s trained tokens (its :attr:`~EpisodeBatch.loss_mask`:
    a multi-turn episode's policy tokens, the environment's replies being context), a scalar."""
    out = completion_logprobs(model, batch.prompt_ids, batch.prompt_mask, batch.completion_ids, batch.completion_mask)
    mask = batch.loss_mask
    return -(out.logprobs * mask).sum() / mask.sum().clamp(min=1)


def _batches(count: int, batch_size: int, steps: int | None, epochs: int | None,
             rng: random.Random) -> Iterator[list[int]]:
    """Index batches: ``epochs`` shuffled passes (a pass's last batch may be smaller), or ``steps``
    full batches drawn from back-to-back shuffled passes."""
    if epochs is not None:
        for _ in range(epochs):
            order = list(range(count))
            rng.shuffle(order)
            yield from (order[start:start + batch_size] for start in range(0, count, batch_size))
        return
    order = []
    for _ in range(steps or 0):
        while len(order) < batch_size:
            fresh = list(range(count))
            rng.shuffle(fresh)
            order.extend(fresh)
        picked, order = order[:batch_size], order[batch_size:]
        yield picked


def fine_tune(
    model: Any,
    examples: Sequence[Any],
    loss_fn: Callable[[Any, list[Any]], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    *,
    batch_size: int,
    steps: int | None = None,
    epochs: int | None = None,
    seed: int = 0,
    max_grad_norm: float | None = 1.0,
    progress: bool = True,
    desc: str = "fine-tuning",
) -> list[float]:
    """Minimize ``loss_fn(model, batch)`` over mini-batches of ``examples`` with ``optimizer``.

    Args:
        model: a torch module (put in train mode; trained in place).
        examples: anything ``loss_fn`` accepts, as a list per batch.
        loss_fn: ``(model, examples of the batch) -> scalar loss``.
        optimizer: the optimizer to step (the caller owns it, e.g. to keep it across rounds).
        batch_size: examples per step.
        steps: full batches drawn from back-to-back shuffled passes; or
        epochs: shuffled passes over ``examples`` (exactly one of ``steps`` and ``epochs``).
        seed: seeds the order of the examples.
        max_grad_norm: gradient-norm clip (None: no clipping).
        progress: show a progress bar; desc: its label.

    Returns:
        The loss of every optimizer step, in order.
    """
    if (steps is None) == (epochs is None):
        raise ValueError(f"give exactly one of steps and epochs, got steps={steps!r}, epochs={epochs!r}")
    if not examples:
        raise ValueError(f"{desc} needs at least one example")
    if batch_size < 1 or (steps is not None and steps < 0) or (epochs is not None and epochs < 1):
        raise ValueError(f"batch_size and epochs must be >= 1 and steps >= 0, got batch_size={batch_size}, "
                         f"steps={steps}, epochs={epochs}")
    total = steps if epochs is None else epochs * -(-len(examples) // batch_size)
    params = [p for group in optimizer.param_groups for p in group["params"]]
    losses: list[float] = []
    model.train()
    with tqdm(total=total, desc=desc, disable=None if progress else True, leave=False) as bar:
        for picked in _batches(len(examples), batch_size, steps, epochs, random.Random(seed)):
            loss = loss_fn(model, [examples[i] for i in picked])
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if max_grad_norm is not None:
                torch.nn.utils.clip_grad_norm_(params, max_grad_norm)
            optimizer.step()
            losses.append(float(loss.detach()))
            bar.update()
            bar.set_postfix(loss=f"{losses[-1]:.4f}")
    logger.debug("%s: %d steps, last loss %.4f", desc, len(losses), losses[-1] if losses else float("nan"))
    return losses


def sft(
    model: Any,
    tokenizer: Any,
    examples: Sequence[Example],
    *,
    steps: int,
    batch_size: int = 16,
    lr: float = 1e-3,
    weight_decay: float = 0.0,
    max_grad_norm: float | None = 1.0,
    seed: int = 0,
    progress: bool = True,
) -> list[float]:
    """Fine-tune ``model`` in place for ``steps`` AdamW steps on random mini-batches of ``examples``.

    Args:
        model: a ``transformers`` causal LM (trained in place).
        tokenizer: its tokenizer.
        examples: ``(observation, completion)`` pairs, e.g. from :func:`gold_examples`.
        steps: optimizer steps.
        batch_size: examples per step, drawn without replacement within a pass.
        lr, weight_decay, max_grad_norm: optimizer settings.
        seed: order of the examples.
        progress: show a progress bar.

    Returns:
        The loss (nats per token) of every step.
    """
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr, weight_decay=weight_decay)
    losses = fine_tune(model, examples, sft_loss_fn(tokenizer), optimizer, batch_size=batch_size, steps=steps,
                       seed=seed, max_grad_norm=max_grad_norm, progress=progress, desc="sft")
    logger.info("sft: %d steps, final loss %.4f", steps, losses[-1] if losses else float("nan"))
    return losses


def sft_loss_fn(tokenizer: Any) -> Callable[[Any, list[SFTExample]], torch.Tensor]:
    """The :func:`fine_tune` loss of SFT: :func:`sft_loss` of :func:`sft_batch` on the model's device.

    An example may also be a one-episode :class:`EpisodeBatch` (a sampled multi-turn episode,
    trained on its own tokens, as sampled): a step's examples are then joined with
    :meth:`EpisodeBatch.concat`.
    """
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id

    def loss_fn(model: Any, examples: list[SFTExample]) -> torch.Tensor:
        episodes = [e for e in examples if isinstance(e, EpisodeBatch)]
        pairs = [e for e in examples if not isinstance(e, EpisodeBatch)]
        if episodes and pairs:
            raise TypeError("a fine-tuning batch mixes (prompt, completion) pairs and sampled episodes")
        batch = EpisodeBatch.concat(episodes, pad).trim() if episodes else sft_batch(tokenizer, pairs)
        return sft_loss(model, batch.to(next(model.parameters()).device))

    return loss_fn


@dataclasses.dataclass
class FitConfig:
    """Optimization settings of :func:`fit` (the reward-model and PRM trainers' configs extend it).

    Attributes:
        lr: AdamW step size.
        epochs: Passes over the training examples (``num_epochs`` until the next release).
        batch_size: Examples per optimizer step.
        weight_decay: AdamW weight decay.
        max_grad_norm: Gradient-norm clip (None: no clipping).
        seed: Seeds the example order and torch (the result is reproducible on one machine).
        device: Where the model trains (``"cpu"``, ``"cuda"``, ...).
        disable_dropout: Set every dropout probability of the model to 0 before training (as TRL's
            reward and PRM trainers do by default): the loss then matches an eval-mode forward.
        progress: Show a tqdm bar (on a terminal).
    """

    lr: float = 1e-5
    epochs: int = 1
    batch_size: int = 8
    weight_decay: float = 0.0
    max_grad_norm: float | None = 1.0
    seed: int = 0
    device: str = "cpu"
    disable_dropout: bool = True
    progress: bool = True

    def __post_init__(self) -> None:
        for name in ("epochs", "batch_size"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        if not self.lr > 0:
            raise ValueError(f"lr must be positive, got {self.lr!r}")


renamed_fields(FitConfig, {"num_epochs": "epochs"})  # the old name, for one release


def fit(
    model: Any,
    examples: Sequence[Any],
    loss_fn: Callable[[Any, list[Any]], torch.Tensor],
    config: FitConfig,
    desc: str = "fitting",
) -> list[float]:
    """Fit a scoring model: :func:`fine_tune` for ``config.epochs`` passes with a fresh AdamW, on
    ``config.device``, dropout off when ``config.disable_dropout``; the model is left in eval mode.

    Returns:
        The loss of every optimizer step (``epochs * ceil(len(examples) / batch_size)`` values).
    """
    torch.manual_seed(config.seed)
    if config.disable_dropout:
        for module in model.modules():
            if isinstance(module, torch.nn.Dropout):
                module.p = 0.0
    model.to(config.device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    try:
        losses = fine_tune(model, examples, loss_fn, optimizer, batch_size=config.batch_size,
                           epochs=config.epochs, seed=config.seed, max_grad_norm=config.max_grad_norm,
                           progress=config.progress, desc=desc)
    finally:
        model.eval()
    logger.info("%s: %d steps, first loss %.4f, last loss %.4f", desc, len(losses), losses[0], losses[-1])
    return losses

"""Supervised fine-tuning on (prompt, completion) pairs: the warm-up before RL and the inner step of self-training.

The loss is the token-mean negative log-likelihood of the completion tokens (EOS included),
computed with the same prompt encoding and memory-efficient log-probs as the RL trainers.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from typing import Any

import torch
from tqdm.auto import tqdm

from rlenv.inference.policy import Observation, encode_completions, encode_prompts
from rlenv.trainers.batch import EpisodeBatch
from rlenv.trainers.logprobs import completion_logprobs

logger = logging.getLogger(__name__)

Example = tuple[Observation, str]


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
    """Token-mean negative log-likelihood of ``batch``'s completion tokens (a scalar)."""
    out = completion_logprobs(model, batch.prompt_ids, batch.prompt_mask, batch.completion_ids, batch.completion_mask)
    return -out.logprobs.sum() / batch.completion_mask.sum().clamp(min=1)


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
        batch_size: examples per step, drawn without replacement within an epoch.
        lr, weight_decay, max_grad_norm: optimizer settings.
        seed: order of the examples.
        progress: show a progress bar.

    Returns:
        The loss (nats per token) of every step.
    """
    if not examples:
        raise ValueError("sft needs at least one example")
    if steps < 0 or batch_size < 1:
        raise ValueError(f"steps must be >= 0 and batch_size >= 1, got {steps} and {batch_size}")
    device = next(model.parameters()).device
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr, weight_decay=weight_decay)
    rng = random.Random(seed)
    order: list[int] = []
    losses = []
    model.train()
    for _ in tqdm(range(steps), desc="sft", disable=not progress):
        if len(order) < batch_size:
            fresh = list(range(len(examples)))
            rng.shuffle(fresh)
            order.extend(fresh)
        picked, order = order[:batch_size], order[batch_size:]
        batch = sft_batch(tokenizer, [examples[i] for i in picked]).to(device)
        loss = sft_loss(model, batch)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if max_grad_norm is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        losses.append(loss.item())
    logger.info("sft: %d steps, final loss %.4f", steps, losses[-1] if losses else float("nan"))
    return losses

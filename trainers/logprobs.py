"""Memory-efficient log-probs (and entropies) of completions under a causal language model.

The policy's hidden states are computed once for ``[prompt | completion]``; the LM head is then
applied to the *valid completion positions only*, a chunk of rows at a time, each chunk
recomputed in the backward pass (activation checkpointing). So neither the forward nor the
backward ever holds a ``(B, T, V)`` float32 logits tensor: peak extra memory is
``chunk_size x V`` floats. ``benchmarks/logprob_memory.py`` measures the saving.

Alignment: the log-prob of completion token ``t`` is read from the hidden state at position
``P - 1 + t`` of the joint sequence (the position *before* the token). Left-padded prompts get
explicit ``position_ids = cumsum(attention_mask) - 1`` so padding never shifts positions.

Temperature: logits are divided by ``temperature`` before the softmax, so log-probs match the
distribution the sampler drew from (top-p / top-k truncation is *not* applied: the trainer's
log-probs are those of the full tempered distribution).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import torch
from torch.utils.checkpoint import checkpoint

from rlenv.trainers.lora import base_causal_lm
from rlenv.trainers.packing import packed_hidden_states, token_budget_batches

#: Rows of the flattened ``(N, V)`` logits processed at once.
DEFAULT_CHUNK_SIZE = 256
#: Config attributes of logit transforms the fused head path does not implement.
_UNSUPPORTED_LOGIT_TRANSFORMS = ("logit_scale", "logits_scaling", "output_multiplier_scale")


@dataclasses.dataclass
class LogprobOutput:
    """Per-token results, all ``(B, T)`` aligned with the completion and zero on padding.

    Attributes:
        logprobs: log pi(token_t | prefix) at the given temperature.
        entropy: entropy of the tempered next-token distribution (nats), when requested.
        hidden: ``(B, T, H)`` hidden states at the position before each token (for value heads),
            when requested.
    """

    logprobs: torch.Tensor
    entropy: torch.Tensor | None = None
    hidden: torch.Tensor | None = None


def model_inputs(
    prompt_ids: torch.Tensor, prompt_mask: torch.Tensor, completion_ids: torch.Tensor, completion_mask: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(input_ids, attention_mask, position_ids)`` of the joint ``[prompt | completion]``, each ``(B, P+T)``.

    Raises ``ValueError`` when a prompt has no real token (the first completion token would have
    nothing to condition on).
    """
    if prompt_ids.shape[1] == 0 or not bool(prompt_mask.bool().any(1).all()):
        raise ValueError("every prompt needs at least one real token (add a BOS token or a template)")
    input_ids = torch.cat([prompt_ids, completion_ids], dim=1)
    attention_mask = torch.cat([prompt_mask.long(), completion_mask.long()], dim=1)
    position_ids = (attention_mask.cumsum(1) - 1).clamp(min=0)
    return input_ids, attention_mask, position_ids


def selective_log_softmax(logits: torch.Tensor, index: torch.Tensor, chunk_size: int = DEFAULT_CHUNK_SIZE) -> torch.Tensor:
    """``log_softmax(logits)`` gathered at ``index``, computed ``chunk_size`` rows at a time in float32.

    Args:
        logits: ``(..., V)`` logits (any float dtype).
        index: ``(...)`` long token ids.

    Returns:
        ``(...)`` float32 log-probs.
    """
    flat = logits.reshape(-1, logits.shape[-1])
    idx = index.reshape(-1)
    out = [_gather_logprob(_at_least_fp32(flat[s: s + chunk_size]), idx[s: s + chunk_size])
           for s in range(0, flat.shape[0], chunk_size)]
    return (torch.cat(out) if out else flat.new_zeros(0, dtype=torch.float32)).reshape(index.shape)


def _at_least_fp32(x: torch.Tensor) -> torch.Tensor:
    return x.to(torch.promote_types(x.dtype, torch.float32))


def _gather_logprob(logits: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    return logits.gather(-1, index.unsqueeze(-1)).squeeze(-1) - torch.logsumexp(logits, dim=-1)


def _entropy(logits: torch.Tensor) -> torch.Tensor:
    logp = torch.log_softmax(logits, dim=-1)
    return -(logp.exp() * logp).sum(-1)


def entropy_from_logits(logits: torch.Tensor, chunk_size: int = DEFAULT_CHUNK_SIZE) -> torch.Tensor:
    """Entropy (nats) of ``softmax(logits)`` over the last dim, chunked over rows, float32."""
    flat = logits.reshape(-1, logits.shape[-1])
    out = [_entropy(_at_least_fp32(flat[s: s + chunk_size])) for s in range(0, flat.shape[0], chunk_size)]
    return (torch.cat(out) if out else flat.new_zeros(0, dtype=torch.float32)).reshape(logits.shape[:-1])


def _logit_softcap(model: Any) -> float | None:
    config = getattr(model, "config", None)
    for name in _UNSUPPORTED_LOGIT_TRANSFORMS:
        value = getattr(config, name, None)
        if value not in (None, 1, 1.0):
            raise NotImplementedError(
                f"{type(model).__name__} scales its logits (config.{name}={value}); the fused LM-head "
                "path does not implement it: pass fused_head=False")
    cap = getattr(config, "final_logit_softcapping", None)
    return float(cap) if cap else None


def _head_chunk(hidden: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, index: torch.Tensor,
                temperature: float, softcap: float | None, with_entropy: bool) -> tuple[torch.Tensor, torch.Tensor]:
    logits = torch.nn.functional.linear(hidden, weight, bias)
    logits = _at_least_fp32(logits)
    if softcap is not None:
        logits = softcap * torch.tanh(logits / softcap)
    logits = logits / temperature
    logp = _gather_logprob(logits, index)
    ent = _entropy(logits) if with_entropy else logp.new_zeros(logp.shape)
    return logp, ent


def head_logprobs(
    hidden: torch.Tensor, head: torch.nn.Module, index: torch.Tensor, *, temperature: float = 1.0,
    chunk_size: int = DEFAULT_CHUNK_SIZE, with_entropy: bool = False, softcap: float | None = None,
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Log-probs of ``index`` under ``head(hidden) / temperature``, ``chunk_size`` rows at a time.

    Args:
        hidden: ``(N, H)`` hidden states.
        head: the LM head (an ``nn.Linear`` from ``H`` to ``V``).
        index: ``(N,)`` token ids.

    Returns:
        ``(logprobs (N,), entropy (N,) or None)``, float32. When gradients are enabled each chunk
        is checkpointed, so only ``(N, H)`` activations are kept for the backward pass.
    """
    if temperature <= 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    weight, bias = head.weight, getattr(head, "bias", None)
    if not isinstance(weight, torch.Tensor):
        raise TypeError(f"the LM head's weight must be a tensor, got {type(weight).__name__}")
    grad = torch.is_grad_enabled() and (hidden.requires_grad or weight.requires_grad)
    logps, ents = [], []
    for s in range(0, hidden.shape[0], chunk_size):
        args = (hidden[s: s + chunk_size], weight, bias, index[s: s + chunk_size], temperature, softcap, with_entropy)
        logp, ent = checkpoint(_head_chunk, *args, use_reentrant=False) if grad else _head_chunk(*args)
        logps.append(logp)
        ents.append(ent)
    empty = hidden.new_zeros(0, dtype=torch.promote_types(hidden.dtype, torch.float32))
    logp = torch.cat(logps) if logps else empty
    return logp, ((torch.cat(ents) if ents else empty) if with_entropy else None)


def final_hidden_states(model: Any, **inputs: Any) -> torch.Tensor:
    """The final (normed) hidden states of ``model``'s backbone for ``inputs`` (``input_ids``,
    ``attention_mask``, ``position_ids``).

    ``model`` is a causal LM (its ``base_model`` backbone runs; a ``peft`` model's adapters included)
    or a bare backbone returning ``last_hidden_state``. A causal LM sharded with FSDP runs its own
    forward instead (its hooks gather the weights outside the decoder layers: embeddings, final
    norm, LM head), keeping the logits of one position only.
    """
    from torch.distributed.fsdp import FSDPModule

    if isinstance(model, FSDPModule) and hasattr(model, "get_output_embeddings"):
        out = model(**inputs, use_cache=False, output_hidden_states=True, logits_to_keep=1)  # type: ignore[operator]
        return out.hidden_states[-1]
    backbone = getattr(base_causal_lm(model), "base_model", model)
    hidden = getattr(backbone(**inputs, use_cache=False), "last_hidden_state", None)
    if hidden is None:
        raise TypeError(f"{type(backbone).__name__} returned no last_hidden_state: pass a transformers causal LM "
                        "or backbone model")
    return hidden


def completion_hidden_states(
    model: Any, prompt_ids: torch.Tensor, prompt_mask: torch.Tensor, completion_ids: torch.Tensor,
    completion_mask: torch.Tensor, *, packed: bool = False,
) -> torch.Tensor:
    """``(B, T, H)`` final hidden states of ``model`` (as :func:`final_hidden_states` takes it) at the
    position before each completion token. ``packed``: one padding-free forward pass over the
    episodes concatenated (:mod:`rlenv.trainers.packing`; zero on padding).
    """
    if packed:
        return packed_hidden_states(lambda **inputs: final_hidden_states(model, **inputs), prompt_ids, prompt_mask,
                                    completion_ids, completion_mask)
    input_ids, attention_mask, position_ids = model_inputs(prompt_ids, prompt_mask, completion_ids, completion_mask)
    # The last token's hidden state predicts nothing we score: drop it.
    hidden = final_hidden_states(model, input_ids=input_ids[:, :-1], attention_mask=attention_mask[:, :-1],
                                 position_ids=position_ids[:, :-1])
    P = prompt_ids.shape[1]
    return hidden[:, P - 1:]


def completion_logprobs(
    model: Any,
    prompt_ids: torch.Tensor,
    prompt_mask: torch.Tensor,
    completion_ids: torch.Tensor,
    completion_mask: torch.Tensor,
    *,
    temperature: float = 1.0,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    with_entropy: bool = False,
    with_hidden: bool = False,
    fused_head: bool = True,
    packed: bool = False,
) -> LogprobOutput:
    """Per-token log-probs of each completion given its prompt.

    Args:
        model: a ``transformers`` causal LM.
        prompt_ids, prompt_mask: ``(B, P)``, left-padded.
        completion_ids, completion_mask: ``(B, T)``, right-padded; the mask covers tokens up to
            and including EOS.
        temperature: the sampling temperature (logits are divided by it).
        chunk_size: rows of ``(rows, V)`` logits materialized at once.
        with_entropy: also return per-token entropies.
        with_hidden: also return ``(B, T, H)`` hidden states (for a value head on the backbone).
        fused_head: apply the LM head chunk by chunk on the backbone's hidden states (default).
            ``False`` calls the model's own forward and reads its full logits (for models whose
            head does more than a linear layer and an optional soft-cap; uses ``(B, T, V)`` memory).
        packed: run the episodes as one padding-free packed sequence (:mod:`rlenv.trainers.packing`;
            with the fused head only).

    Returns:
        A :class:`LogprobOutput` of ``(B, T)`` float32 tensors, zero where ``completion_mask`` is 0.
    """
    if temperature <= 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    mask = completion_mask.bool()
    if packed and not fused_head:
        raise ValueError("packed=True needs fused_head=True (the packed path reads the backbone's hidden states)")
    if not fused_head:
        input_ids, attention_mask, position_ids = model_inputs(prompt_ids, prompt_mask, completion_ids, completion_mask)
        P, T = prompt_ids.shape[1], completion_ids.shape[1]
        out = model(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids, use_cache=False,
                    logits_to_keep=T + 1, output_hidden_states=with_hidden)
        logits = _at_least_fp32(out.logits[:, :-1]) / temperature
        logp = torch.where(mask, selective_log_softmax(logits, completion_ids, chunk_size), 0.0)
        ent = torch.where(mask, entropy_from_logits(logits, chunk_size), 0.0) if with_entropy else None
        hidden = out.hidden_states[-1][:, P - 1: P - 1 + T] if with_hidden else None
        return LogprobOutput(logp, ent, hidden)
    softcap = _logit_softcap(model)
    hidden = completion_hidden_states(model, prompt_ids, prompt_mask, completion_ids, completion_mask, packed=packed)
    valid = hidden[mask]
    logp_flat, ent_flat = head_logprobs(valid, model.get_output_embeddings(), completion_ids[mask],
                                        temperature=temperature, chunk_size=chunk_size, with_entropy=with_entropy,
                                        softcap=softcap)
    logp = logp_flat.new_zeros(mask.shape).masked_scatter(mask, logp_flat)
    ent = None if ent_flat is None else ent_flat.new_zeros(mask.shape).masked_scatter(mask, ent_flat)
    return LogprobOutput(logp, ent, hidden if with_hidden else None)


def sequence_logprobs(
    model: Any, prompt_ids: torch.Tensor, prompt_mask: torch.Tensor, completion_ids: torch.Tensor,
    completion_mask: torch.Tensor, *, temperature: float = 1.0, average: bool = False,
    chunk_size: int = DEFAULT_CHUNK_SIZE, loss_mask: torch.Tensor | None = None,
) -> torch.Tensor:
    """``(B,)`` summed (or, with ``average=True``, length-averaged) completion log-probs (DPO, SFT).

    ``loss_mask`` (``(B, T)``): only these completion tokens count (a multi-turn episode's policy
    tokens); the others are context. Default: every token of ``completion_mask``.
    """
    out = completion_logprobs(model, prompt_ids, prompt_mask, completion_ids, completion_mask,
                              temperature=temperature, chunk_size=chunk_size)
    counted = completion_mask.long() if loss_mask is None else completion_mask.long() * loss_mask.long()
    total = (out.logprobs * counted).sum(1)
    return total / counted.sum(1).clamp(min=1) if average else total


@torch.no_grad()
def batch_logprobs(
    model: Any, batch: Any, *, micro_batch_size: int = 8, temperature: float = 1.0,
    chunk_size: int = DEFAULT_CHUNK_SIZE, micro_batch_tokens: int | None = None, packed: bool = False,
    passes: Callable[[list[torch.Tensor]], list[tuple[torch.Tensor, bool]]] | None = None,
) -> torch.Tensor:
    """``(B, T)`` log-probs of an :class:`~rlenv.trainers.batch.EpisodeBatch`'s completions, without gradients.

    Runs the micro-batches of :func:`micro_batches` (``packed``: each as one packed sequence); used
    for old and reference log-probs. ``passes`` maps the micro-batches to ``(rows, idle)`` forward
    passes (idle ones are computed and dropped: FSDP ranks run as many passes as the busiest rank).
    """
    parts = []
    rows_of = micro_batches(batch, micro_batch_size, micro_batch_tokens)
    for rows, idle in passes(rows_of) if passes is not None else [(rows, False) for rows in rows_of]:
        logprobs = completion_logprobs(model, batch.prompt_ids[rows], batch.prompt_mask[rows],
                                       batch.completion_ids[rows], batch.completion_mask[rows],
                                       temperature=temperature, chunk_size=chunk_size, packed=packed).logprobs
        if not idle:
            parts.append(logprobs)
    return torch.cat(parts) if parts else torch.zeros(batch.completion_ids.shape)


def micro_batches(batch: Any, micro_batch_size: int, micro_batch_tokens: int | None = None) -> list[torch.Tensor]:
    """Row indices of consecutive micro-batches of ``batch``: ``micro_batch_size`` episodes each, or, with
    ``micro_batch_tokens``, as many as fit in that many real (prompt + completion) tokens."""
    if micro_batch_tokens is None:
        return list(torch.arange(len(batch)).split(micro_batch_size))
    tokens = batch.prompt_mask.long().sum(1) + batch.completion_mask.long().sum(1)
    return token_budget_batches(tokens.cpu(), micro_batch_tokens)

"""Padding-free micro-batches: episodes concatenated into one row, and token-budget micro-batching.

A padded micro-batch runs ``B x (P + T)`` positions, ``P`` and ``T`` its longest prompt and
completion; a packed one runs only the real tokens: each episode's prompt (its padding dropped)
and completion (up to its last real token), one after another in a single ``(1, N)`` row whose
``position_ids`` restart at 0 for every episode. No attention mask is passed: ``transformers``
then reads the sequence boundaries from the position ids (``masking_utils.find_packed_sequence_indices``)
and attends within each episode only, with a block-diagonal causal mask on SDPA and eager
attention (CPU included) and with variable-length kernels on FlashAttention. Log-probs, entropies,
values and losses come back ``(B, T)``, as from the padded path, and equal it to float precision.

:func:`token_budget_batches` forms micro-batches by a token budget instead of an episode count
(``TrainerConfig.micro_batch_tokens``). ``benchmarks/packing.py`` measures the padded tokens saved.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import torch


@dataclasses.dataclass
class Packed:
    """Episodes packed into one row.

    Attributes:
        input_ids, position_ids: ``(1, N)``, episodes one after another, positions restarting at 0.
        source: ``(M,)`` positions in the packed row of the hidden states that predict the
            ``M`` real completion tokens (row-major order of ``completion_mask``).
    """

    input_ids: torch.Tensor
    position_ids: torch.Tensor
    source: torch.Tensor


def pack(prompt_ids: torch.Tensor, prompt_mask: torch.Tensor, completion_ids: torch.Tensor,
         completion_mask: torch.Tensor) -> Packed:
    """Pack left-padded prompts and right-padded completions (``(B, P)``, ``(B, T)``) into one row.

    Raises ``ValueError`` when a prompt has no real token or a completion mask is not a prefix
    (padding inside a completion).
    """
    prompt_lengths = prompt_mask.long().sum(1)
    lengths = completion_mask.long().sum(1)
    if prompt_ids.shape[1] == 0 or bool((prompt_lengths == 0).any()):
        raise ValueError("every prompt needs at least one real token (add a BOS token or a template)")
    T = completion_ids.shape[1]
    prefix = torch.arange(T, device=lengths.device).unsqueeze(0) < lengths.unsqueeze(1)
    if not torch.equal(prefix, completion_mask.bool()):
        raise ValueError("completion masks must be right-padded prefixes to pack them")
    ids, positions, sources = [], [], []
    offset = 0
    for i in range(prompt_ids.shape[0]):
        sequence = torch.cat([prompt_ids[i][prompt_mask[i].bool()], completion_ids[i, : int(lengths[i])]])
        ids.append(sequence)
        positions.append(torch.arange(sequence.numel(), device=sequence.device))
        start = offset + int(prompt_lengths[i]) - 1  # the hidden state before completion token 0
        sources.append(torch.arange(start, start + int(lengths[i]), device=sequence.device))
        offset += sequence.numel()
    return Packed(torch.cat(ids).unsqueeze(0), torch.cat(positions).unsqueeze(0), torch.cat(sources))


def packed_hidden_states(hidden_states: Callable[..., torch.Tensor], prompt_ids: torch.Tensor,
                         prompt_mask: torch.Tensor, completion_ids: torch.Tensor,
                         completion_mask: torch.Tensor) -> torch.Tensor:
    """``(B, T, H)`` hidden states at the position before each completion token (zero on padding), from
    one packed forward pass of ``hidden_states(input_ids=, position_ids=, attention_mask=None)``."""
    packed = pack(prompt_ids, prompt_mask, completion_ids, completion_mask)
    hidden = hidden_states(input_ids=packed.input_ids, position_ids=packed.position_ids, attention_mask=None)[0]
    mask = completion_mask.bool()
    full = hidden.new_zeros(*mask.shape, hidden.shape[-1])
    return full.masked_scatter(mask.unsqueeze(-1), hidden[packed.source])


def token_budget_batches(tokens: torch.Tensor, max_tokens: int) -> list[torch.Tensor]:
    """Consecutive runs of rows whose ``tokens`` (``(B,)``, each episode's real prompt and completion
    tokens) sum to at most ``max_tokens``; a longer episode is a micro-batch of its own."""
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be >= 1, got {max_tokens}")
    batches: list[list[int]] = []
    used = 0
    for row, count in enumerate(tokens.tolist()):
        if not batches or used + count > max_tokens:
            batches.append([])
            used = 0
        batches[-1].append(row)
        used += count
    return [torch.tensor(rows, dtype=torch.long) for rows in batches]

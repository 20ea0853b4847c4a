"""Data parallelism by explicit reductions: global statistics and summed gradients.

Every loss in :mod:`rlenv.trainers.policy_gradient.losses` is normalized by *global* counts (tokens or sequences of
the whole optimizer step, all ranks and all micro-batches), so each rank's gradient is its
additive share of the global gradient. Ranks therefore **sum** their gradients
(:func:`all_reduce_gradients`) instead of averaging them as DDP does; the result is the same
update as one process on the whole batch, whatever the per-rank batch sizes (e.g. after dynamic
sampling) and the number of micro-batches. When ``torch.distributed`` is not initialized every
function here is the identity.
"""

from __future__ import annotations

from collections.abc import Iterable

import torch
import torch.distributed as dist


def is_distributed() -> bool:
    """True when a ``torch.distributed`` process group with more than one rank is running."""
    return dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1


def world_size() -> int:
    """Number of data-parallel ranks (1 without ``torch.distributed``)."""
    return dist.get_world_size() if is_distributed() else 1


def rank() -> int:
    """This process's rank (0 without ``torch.distributed``)."""
    return dist.get_rank() if is_distributed() else 0


def all_reduce(tensor: torch.Tensor, op: str = "sum") -> torch.Tensor:
    """A reduced copy of ``tensor`` over all ranks (``op`` is ``"sum"``, ``"max"`` or ``"min"``)."""
    ops = {"sum": dist.ReduceOp.SUM, "max": dist.ReduceOp.MAX, "min": dist.ReduceOp.MIN}
    if op not in ops:
        raise ValueError(f"unknown reduction {op!r}: expected one of {sorted(ops)}")
    out = tensor.detach().clone()
    if is_distributed():
        dist.all_reduce(out, op=ops[op])
    return out


def union(names: Iterable[str]) -> list[str]:
    """The sorted union of ``names`` over all ranks: the keys every rank must reduce together when
    some are present on some ranks only (a metric no episode of this rank produced)."""
    mine = sorted(set(names))
    if not is_distributed():
        return mine
    gathered: list[list[str] | None] = [None] * dist.get_world_size()
    dist.all_gather_object(gathered, mine)
    return sorted({name for ranks_names in gathered for name in ranks_names or ()})


def all_reduce_gradients(parameters: Iterable[torch.nn.Parameter]) -> None:
    """Sum the ``.grad`` of ``parameters`` over ranks, in one flat buffer per dtype and device.

    Parameters without a gradient on this rank contribute zeros (every rank must pass the same
    parameters in the same order).
    """
    if not is_distributed():
        return
    grads = []
    for p in parameters:
        if p.requires_grad:
            if p.grad is None:
                p.grad = torch.zeros_like(p)
            grads.append(p.grad)
    buckets: dict[tuple[torch.dtype, torch.device], list[torch.Tensor]] = {}
    for grad in grads:
        buckets.setdefault((grad.dtype, grad.device), []).append(grad)
    for group in buckets.values():
        flat = torch.cat([grad.reshape(-1) for grad in group])
        dist.all_reduce(flat, op=dist.ReduceOp.SUM)
        offset = 0
        for grad in group:
            n = grad.numel()
            grad.copy_(flat[offset: offset + n].view_as(grad))
            offset += n

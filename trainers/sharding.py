"""FSDP2 sharding (``torch.distributed.fsdp.fully_shard``): each rank holds ``1 / world_size`` of the
parameters, gradients and optimizer state (``TrainerConfig.fsdp``).

Every decoder layer (the model's ``_no_split_modules`` classes) is a unit of its own, then the
model itself: a forward pass all-gathers one layer's weights at a time, and the backward pass
reduce-scatters each layer's gradients. The reduction **sums** (divide factor 1): the trainer's
losses are normalized by global token counts, so each rank's gradient is its additive share
(:mod:`rlenv.trainers.distributed`). With ``dtype="bfloat16"`` the sharded parameters stay fp32
(the master copy) and layers compute in bf16 (``MixedPrecisionPolicy``), gradients reduced in fp32.

Every rank must run the same number of forward and backward passes (each one is a collective):
:func:`passes_on_every_rank` gives the count the ranks agree on; ranks with fewer micro-batches
run idle passes (a real micro-batch whose loss is multiplied by 0).

Checkpoints: :func:`full_state_dict` gathers the weights for a ``from_pretrained`` directory;
:func:`save_sharded` / :func:`load_sharded` write and read each rank's shards of the model and
optimizer with ``torch.distributed.checkpoint`` (resume).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from rlenv.trainers import distributed as dist


def decoder_layers(model: torch.nn.Module) -> list[torch.nn.Module]:
    """The modules of ``model`` whose class is one of its ``_no_split_modules`` (the decoder layers)."""
    names: set[str] = set()
    for module in model.modules():
        names.update(getattr(module, "_no_split_modules", None) or [])
    return [module for module in model.modules() if type(module).__name__ in names]


def shard(module: torch.nn.Module, compute_dtype: torch.dtype | None = None) -> None:
    """Shard ``module`` in place over the default process group: each decoder layer, then the module
    itself; gradients are summed over ranks. ``compute_dtype``: the dtype the layers run in (the
    sharded parameters keep theirs)."""
    from torch.distributed.fsdp import FSDPModule, MixedPrecisionPolicy, fully_shard

    if not torch.distributed.is_initialized():
        raise RuntimeError("fsdp=True needs torch.distributed: launch with torchrun or accelerate launch")
    policy = MixedPrecisionPolicy(param_dtype=compute_dtype, reduce_dtype=torch.float32 if compute_dtype else None)
    for layer in decoder_layers(module):
        fully_shard(layer, mp_policy=policy)
    fully_shard(module, mp_policy=policy)
    for unit in module.modules():
        if isinstance(unit, FSDPModule):
            unit.set_gradient_divide_factor(1.0)
            unit.set_force_sum_reduction_for_comms(True)  # a plain SUM (gloo has no PREMUL_SUM)


def passes_on_every_rank(count: int) -> int:
    """The largest ``count`` over ranks: the number of passes every rank runs."""
    return int(dist.all_reduce(torch.tensor([count]), "max")[0])


def local_numel(tensors: Any) -> int:
    """Elements of ``tensors`` held by this rank (a DTensor counts its local shard)."""
    return sum(getattr(t, "to_local", lambda t=t: t)().numel() for t in tensors)


def full_state_dict(module: torch.nn.Module) -> dict[str, torch.Tensor]:
    """The whole (gathered) state dict of a sharded ``module``, on CPU, on every rank (a collective)."""
    from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict

    state = get_model_state_dict(module, options=StateDictOptions(full_state_dict=True, cpu_offload=True))
    return {name: value for name, value in state.items() if isinstance(value, torch.Tensor)}


def save_sharded(modules: torch.nn.Module, optimizer: torch.optim.Optimizer, path: Path) -> None:
    """Write each rank's shards of ``modules`` and ``optimizer`` under ``path`` (a collective)."""
    import torch.distributed.checkpoint as dcp
    from torch.distributed.checkpoint.state_dict import get_state_dict

    model_state, optimizer_state = get_state_dict(modules, optimizer)
    dcp.save({"model": model_state, "optimizer": optimizer_state}, checkpoint_id=str(path))


def load_sharded(modules: torch.nn.Module, optimizer: torch.optim.Optimizer, path: Path) -> None:
    """Read the shards :func:`save_sharded` wrote into ``modules`` and ``optimizer`` (a collective)."""
    import torch.distributed.checkpoint as dcp
    from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict

    if not path.is_dir():
        raise FileNotFoundError(f"no sharded checkpoint at {path}")
    model_state, optimizer_state = get_state_dict(modules, optimizer)
    dcp.load({"model": model_state, "optimizer": optimizer_state}, checkpoint_id=str(path))  # in place
    set_state_dict(modules, optimizer, model_state_dict=model_state, optim_state_dict=optimizer_state)

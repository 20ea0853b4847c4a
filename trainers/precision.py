"""Training precision: the weights' dtype, fp32 master weights under bf16, and bf16 autocast.

Two ways to train in bfloat16 (``TrainerConfig.dtype`` / ``autocast``, ``rlenv train --dtype``):

- ``dtype="bfloat16"``: the policy's weights are stored (and run) in bf16, half the memory of
  fp32 weights and the fastest matmuls. Adding a small update to a bf16 weight rounds it away
  (bf16 keeps 8 bits of mantissa), so the optimizer never steps the bf16 weights: it steps an fp32
  *master copy* of every trained parameter (:class:`MasterWeights`; Adam's moments are fp32 too)
  and copies the result back into the bf16 weights. Memory per trained parameter: 2 (bf16 weight)
  + 2 (bf16 gradient, moved to fp32 after the backward) + 4 (master) + 8 (Adam) bytes.
- ``dtype="float32", autocast=True``: fp32 weights, gradients and optimizer state (16 bytes per
  parameter), the forward and backward matmuls in bf16 under :func:`torch.autocast`
  (mixed precision as in AMP): more memory than bf16 weights, the update exactly as fp32.

In both, the LM head's logits are cast to float32 before the softmax, and log-probs, ratios, KL
and losses are float32 (:mod:`rlenv.trainers.logprobs`). float16 is not offered: it needs loss
scaling, which bf16's fp32-sized exponent makes unnecessary.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import torch

from rlenv.errors import check_choice

#: ``TrainerConfig.dtype`` names and their torch dtypes.
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}


def torch_dtype(name: str) -> torch.dtype:
    """The torch dtype of a ``DTYPES`` name (an error names the bad value and the choices)."""
    check_choice("dtype", name, tuple(DTYPES))
    return DTYPES[name]


def autocast(device: torch.device, enabled: bool) -> contextlib.AbstractContextManager[Any]:
    """bf16 autocast on ``device`` when ``enabled``, else nothing."""
    if not enabled:
        return contextlib.nullcontext()
    return torch.autocast(device_type=device.type, dtype=torch.bfloat16)


class MasterWeights:
    """fp32 master copies of low-precision trained parameters: the optimizer steps the masters.

    A float32 parameter is its own master (no copy). After the backward pass,
    :meth:`gradients_to_masters` moves each model gradient to its master (as fp32; the model's
    gradient is freed); after the optimizer step, :meth:`masters_to_model` rounds the masters into
    the model's weights.
    """

    def __init__(self, parameters: list[torch.nn.Parameter]):
        self.model = list(parameters)
        self.masters = [p if p.dtype == torch.float32 else
                        torch.nn.Parameter(p.detach().to(torch.float32).clone()) for p in self.model]

    def parameters(self) -> list[torch.nn.Parameter]:
        """The parameters the optimizer steps (fp32)."""
        return self.masters

    def _copies(self) -> Iterator[tuple[torch.nn.Parameter, torch.nn.Parameter]]:
        return ((p, m) for p, m in zip(self.model, self.masters) if m is not p)

    def gradients_to_masters(self) -> None:
        for param, master in self._copies():
            master.grad = None if param.grad is None else param.grad.to(torch.float32)
            param.grad = None

    @torch.no_grad()
    def masters_to_model(self) -> None:
        for param, master in self._copies():
            param.copy_(master)

    def state_dict(self) -> list[torch.Tensor]:
        """The masters that are copies (the others are the model's own weights)."""
        return [m.detach().clone() for _, m in self._copies()]

    @torch.no_grad()
    def load_state_dict(self, state: list[torch.Tensor]) -> None:
        copies = list(self._copies())
        if len(state) != len(copies):
            raise ValueError(f"the checkpoint has {len(state)} master weights, this trainer {len(copies)}")
        for (_, master), saved in zip(copies, state):
            master.copy_(saved)

"""PPO critics: a value head on a transformer backbone.

Values are read at the position *before* each completion token (``V(s_t)`` is the value of the
state in which token ``t`` is chosen), the same alignment as the log-probs (``(B, T)``, see
:func:`rlenv.trainers.logprobs.completion_hidden_states`).
"""

from __future__ import annotations

import copy
from typing import Any

import torch

from rlenv.trainers.logprobs import completion_hidden_states
from rlenv.trainers.lora import base_causal_lm


class ValueHead(torch.nn.Module):
    """``Linear(hidden_size, 1)``, zero-initialized so that initial values are 0."""

    def __init__(self, hidden_size: int):
        super().__init__()
        self.linear = torch.nn.Linear(hidden_size, 1)
        torch.nn.init.zeros_(self.linear.weight)
        torch.nn.init.zeros_(self.linear.bias)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        """``(B, T, H)`` hidden states -> ``(B, T)`` float32 values."""
        return self.linear(hidden.to(self.linear.weight.dtype)).squeeze(-1).float()


class ValueModel(torch.nn.Module):
    """A separate critic: a transformer backbone plus a :class:`ValueHead`.

    Args:
        backbone: a ``transformers`` base model returning ``last_hidden_state`` (or a causal LM,
            whose ``base_model`` is used).
        hidden_size: the backbone's hidden size.
    """

    def __init__(self, backbone: Any, hidden_size: int):
        super().__init__()
        self.backbone = getattr(backbone, "base_model", backbone)
        self.head = ValueHead(hidden_size)

    @classmethod
    def from_policy(cls, policy: Any) -> ValueModel:
        """A critic initialized from a copy of ``policy``'s backbone (the usual PPO start)."""
        return cls(copy.deepcopy(base_causal_lm(policy).base_model), policy.config.hidden_size)

    def forward(self, prompt_ids: torch.Tensor, prompt_mask: torch.Tensor, completion_ids: torch.Tensor,
                completion_mask: torch.Tensor) -> torch.Tensor:
        """``(B, T)`` float32 values ``V(s_t)``, zero on padding."""
        hidden = completion_hidden_states(self.backbone, prompt_ids, prompt_mask, completion_ids, completion_mask)
        return self.head(hidden) * completion_mask

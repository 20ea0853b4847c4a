"""``EpisodeBatch``: a batch of finished episodes as response-aligned tensors.

Conventions (shared by every trainer module):

* ``B`` episodes, ``P`` padded prompt length, ``T`` padded completion length.
* Prompts are **left**-padded, completions **right**-padded, so ``[prompt | completion]`` is one
  contiguous sequence per row with padding only at its two ends.
* ``completion_mask[i, t]`` is 1 for generated tokens up to and including the first EOS; it is
  never inferred from token values (pad and EOS may share an id).
* A multi-turn episode's completion is everything after the prompt: the policy's turns and the
  environment's replies between them, as one sequence; ``policy_mask`` marks the policy's own
  tokens, and :attr:`EpisodeBatch.loss_mask` (the tokens that carry loss, log-probs, KL, entropy,
  advantages and values) is ``completion_mask`` and ``policy_mask``.
* Every per-token tensor is ``(B, T)`` and aligned with ``completion_ids``: the log-prob of
  completion token ``t`` comes from the logits at position ``P - 1 + t`` of the joint sequence.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import torch

#: Per-episode tensor fields whose first dimension is the batch (``B``).
TENSOR_FIELDS = (
    "prompt_ids", "prompt_mask", "completion_ids", "completion_mask", "rewards", "group_ids", "truncated",
    "token_rewards", "old_logprobs", "ref_logprobs", "rollout_logprobs", "old_values", "policy_mask",
)
#: Per-token ``(B, T)`` optional fields.
TOKEN_FIELDS = ("token_rewards", "old_logprobs", "ref_logprobs", "rollout_logprobs", "old_values", "policy_mask")


@dataclasses.dataclass
class EpisodeBatch:
    """Finished episodes as tensors, ready for advantage estimation and losses.

    Attributes:
        prompt_ids: ``(B, P)`` long, left-padded prompt token ids.
        prompt_mask: ``(B, P)`` long/bool, 1 on real prompt tokens.
        completion_ids: ``(B, T)`` long, right-padded completion token ids.
        completion_mask: ``(B, T)`` long/bool, 1 on generated tokens up to and including EOS.
        rewards: ``(B,)`` float, the outcome reward of each episode (after reward wrappers).
        group_ids: ``(B,)`` long; episodes sharing a prompt share an id (GRPO/RLOO groups).
        truncated: ``(B,)`` bool, True when generation hit the length limit before EOS.
        token_rewards: optional ``(B, T)`` dense rewards (e.g. process-reward-model step scores on
            step-end tokens), added to the outcome reward by the estimators.
        old_logprobs: optional ``(B, T)`` log-probs of the completion under the policy that
            sampled it (at the sampling temperature), recomputed by the trainer.
        ref_logprobs: optional ``(B, T)`` log-probs under the frozen reference model.
        rollout_logprobs: optional ``(B, T)`` log-probs reported by the generator itself (e.g.
            vLLM); only used to monitor the sampler/trainer mismatch.
        old_values: optional ``(B, T)`` critic values ``V(s_t)`` read at the position before
            token ``t`` (PPO).
        policy_mask: optional ``(B, T)`` long, 1 on the tokens the policy sampled (a multi-turn
            episode: 0 on the environment's replies, which are context only); None when every
            completion token is the policy's.
        infos: per-episode Python values (``status``, ``task_id``, ``hacks``, ...): a dict of
            lists of length ``B``.
    """

    prompt_ids: torch.Tensor
    prompt_mask: torch.Tensor
    completion_ids: torch.Tensor
    completion_mask: torch.Tensor
    rewards: torch.Tensor
    group_ids: torch.Tensor
    truncated: torch.Tensor | None = None
    token_rewards: torch.Tensor | None = None
    old_logprobs: torch.Tensor | None = None
    ref_logprobs: torch.Tensor | None = None
    rollout_logprobs: torch.Tensor | None = None
    old_values: torch.Tensor | None = None
    policy_mask: torch.Tensor | None = None
    infos: dict[str, list[Any]] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.truncated is None:
            self.truncated = torch.zeros(self.completion_ids.shape[0], dtype=torch.bool,
                                         device=self.completion_ids.device)
        self.validate()

    # -- shape checks -------------------------------------------------------------------------
    def validate(self) -> None:
        """Raise ``ValueError`` naming the first field whose shape or dtype is inconsistent."""
        if self.prompt_ids.dim() != 2 or self.completion_ids.dim() != 2:
            raise ValueError(f"prompt_ids and completion_ids must be 2-D (B, P) / (B, T), got "
                             f"{tuple(self.prompt_ids.shape)} and {tuple(self.completion_ids.shape)}")
        B, T = self.completion_ids.shape
        expected = {
            "prompt_ids": (B, self.prompt_ids.shape[1]), "prompt_mask": (B, self.prompt_ids.shape[1]),
            "completion_mask": (B, T), "rewards": (B,), "group_ids": (B,), "truncated": (B,),
            **{name: (B, T) for name in TOKEN_FIELDS},
        }
        for name, shape in expected.items():
            value = getattr(self, name)
            if value is not None and tuple(value.shape) != shape:
                raise ValueError(f"EpisodeBatch.{name} has shape {tuple(value.shape)}, expected {shape} "
                                 f"(B={B} episodes, T={T} completion tokens)")
        if self.prompt_ids.dtype != torch.long or self.completion_ids.dtype != torch.long:
            raise ValueError(f"token ids must be torch.long, got {self.prompt_ids.dtype} / {self.completion_ids.dtype}")
        for key, values in self.infos.items():
            if len(values) != B:
                raise ValueError(f"EpisodeBatch.infos[{key!r}] has {len(values)} entries, expected B={B}")

    # -- views --------------------------------------------------------------------------------
    def __len__(self) -> int:
        return self.completion_ids.shape[0]

    @property
    def input_ids(self) -> torch.Tensor:
        """``(B, P+T)`` prompt and completion ids joined."""
        return torch.cat([self.prompt_ids, self.completion_ids], dim=1)

    @property
    def attention_mask(self) -> torch.Tensor:
        """``(B, P+T)`` long mask of real tokens in :attr:`input_ids`."""
        return torch.cat([self.prompt_mask.long(), self.completion_mask.long()], dim=1)

    @property
    def loss_mask(self) -> torch.Tensor:
        """``(B, T)`` long mask of the tokens that carry loss: the policy's own completion tokens."""
        if self.policy_mask is None:
            return self.completion_mask.long()
        return self.completion_mask.long() * self.policy_mask.long()

    @property
    def lengths(self) -> torch.Tensor:
        """``(B,)`` long, number of completion tokens (EOS included)."""
        return self.completion_mask.long().sum(1)

    @property
    def num_tokens(self) -> int:
        """Total number of completion tokens in the batch."""
        return int(self.completion_mask.long().sum())

    # -- transforms ---------------------------------------------------------------------------
    def replace(self, **changes: Any) -> EpisodeBatch:
        """A copy with some fields replaced (tensors are shared, not copied)."""
        return dataclasses.replace(self, **changes)

    def to(self, device: torch.device | str) -> EpisodeBatch:
        """The batch with every tensor moved to ``device``."""
        moved = {name: getattr(self, name).to(device) for name in TENSOR_FIELDS if getattr(self, name) is not None}
        return self.replace(**moved)

    def select(self, index: torch.Tensor | Sequence[int] | slice) -> EpisodeBatch:
        """The episodes at ``index`` (a slice, a list of row indices or a boolean mask)."""
        if isinstance(index, slice):
            rows = list(range(len(self)))[index]
        elif isinstance(index, torch.Tensor) and index.dtype == torch.bool:
            if tuple(index.shape) != (len(self),):
                raise ValueError(f"boolean index has shape {tuple(index.shape)}, expected ({len(self)},)")
            rows = index.nonzero().flatten().tolist()
        else:
            rows = [int(i) for i in (index.tolist() if isinstance(index, torch.Tensor) else index)]
        idx = torch.tensor(rows, dtype=torch.long, device=self.completion_ids.device)
        picked = {name: getattr(self, name).index_select(0, idx)
                  for name in TENSOR_FIELDS if getattr(self, name) is not None}
        infos = {key: [values[i] for i in rows] for key, values in self.infos.items()}
        return self.replace(**picked, infos=infos)

    def split(self, size: int) -> list[EpisodeBatch]:
        """Consecutive chunks of at most ``size`` episodes (micro-batches)."""
        if size < 1:
            raise ValueError(f"split size must be >= 1, got {size}")
        return [self.select(slice(start, start + size)) for start in range(0, len(self), size)]

    def trim(self) -> EpisodeBatch:
        """Drop columns that are padding in every row (left of the prompts, right of the completions)."""
        prompt_keep = int(self.prompt_mask.long().sum(1).max()) if len(self) else 0
        completion_keep = int(self.lengths.max()) if len(self) else 0
        P = self.prompt_ids.shape[1]
        changes: dict[str, Any] = {
            "prompt_ids": self.prompt_ids[:, P - prompt_keep:], "prompt_mask": self.prompt_mask[:, P - prompt_keep:],
            "completion_ids": self.completion_ids[:, :completion_keep],
            "completion_mask": self.completion_mask[:, :completion_keep],
        }
        for name in TOKEN_FIELDS:
            value = getattr(self, name)
            if value is not None:
                changes[name] = value[:, :completion_keep]
        return self.replace(**changes)

    @classmethod
    def concat(cls, batches: Sequence[EpisodeBatch], pad_token_id: int = 0) -> EpisodeBatch:
        """Join batches, re-padding prompts (left) and completions (right) to common widths.

        Group ids are offset so that groups of different batches stay distinct. Optional fields
        must be present in all batches or in none.
        """
        if not batches:
            raise ValueError("concat needs at least one batch")
        P = max(b.prompt_ids.shape[1] for b in batches)
        T = max(b.completion_ids.shape[1] for b in batches)
        fields: dict[str, list[torch.Tensor]] = {name: [] for name in TENSOR_FIELDS}
        offset = 0
        for b in batches:
            lp, rt = P - b.prompt_ids.shape[1], T - b.completion_ids.shape[1]
            fields["prompt_ids"].append(torch.nn.functional.pad(b.prompt_ids, (lp, 0), value=pad_token_id))
            fields["prompt_mask"].append(torch.nn.functional.pad(b.prompt_mask, (lp, 0), value=0))
            fields["completion_ids"].append(torch.nn.functional.pad(b.completion_ids, (0, rt), value=pad_token_id))
            fields["completion_mask"].append(torch.nn.functional.pad(b.completion_mask, (0, rt), value=0))
            fields["rewards"].append(b.rewards)
            assert b.truncated is not None  # __post_init__ fills it in
            fields["truncated"].append(b.truncated)
            _, inverse = torch.unique(b.group_ids, return_inverse=True)
            fields["group_ids"].append(inverse + offset)
            offset += int(inverse.max()) + 1 if len(b) else 0
            for name in TOKEN_FIELDS:
                value = getattr(b, name)
                if value is not None:
                    fields[name].append(torch.nn.functional.pad(value, (0, rt), value=0.0))
        for name in TOKEN_FIELDS:
            if fields[name] and len(fields[name]) != len(batches):
                raise ValueError(f"cannot concat: {name} is set in some batches and not in others")
        keys = set().union(*(b.infos for b in batches))
        infos = {k: [v for b in batches for v in b.infos.get(k, [None] * len(b))] for k in keys}
        tensors = {name: torch.cat(values) for name, values in fields.items() if values}
        return cls(**tensors, infos=infos)

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def from_token_lists(
        cls,
        prompt_ids: Sequence[Sequence[int]],
        completion_ids: Sequence[Sequence[int]],
        rewards: Sequence[float] | torch.Tensor,
        group_ids: Sequence[int] | torch.Tensor | None = None,
        *,
        pad_token_id: int,
        eos_token_id: int | Sequence[int] | None = None,
        truncated: Sequence[bool] | None = None,
        rollout_logprobs: Sequence[Sequence[float]] | None = None,
        infos: dict[str, list[Any]] | None = None,
    ) -> EpisodeBatch:
        """Build a batch from unpadded token lists, as a user's own generator would produce them.

        Each completion is cut after its first EOS (when ``eos_token_id`` is given); ``truncated``
        defaults to "no EOS was generated" (or False when ``eos_token_id`` is None).
        ``group_ids`` defaults to one group per episode.
        """
        from rlenv.inference.policy import Generation

        if len(rewards) != len(prompt_ids):
            raise ValueError(f"got {len(prompt_ids)} prompts and {len(rewards)} rewards")
        g = Generation.from_token_lists(prompt_ids, completion_ids, pad_token_id=pad_token_id, eos_token_id=eos_token_id,
                                        logprobs=rollout_logprobs, truncated=truncated)
        groups = torch.arange(len(prompt_ids)) if group_ids is None else torch.as_tensor(group_ids, dtype=torch.long)
        return cls(g.prompt_ids, g.prompt_mask, g.completion_ids, g.completion_mask,
                   torch.as_tensor(rewards, dtype=torch.float32), groups, g.truncated, rollout_logprobs=g.logprobs,
                   infos=dict(infos or {}))


def outcome_token_rewards(rewards: torch.Tensor, mask: torch.Tensor,
                          token_rewards: torch.Tensor | None = None) -> torch.Tensor:
    """Place each outcome reward on the last valid token and add the dense rewards.

    Args:
        rewards: ``(B,)`` outcome rewards.
        mask: ``(B, T)`` completion mask.
        token_rewards: optional ``(B, T)`` dense rewards (already on their tokens).

    Returns:
        ``(B, T)`` float rewards, zero on padding. A row with no valid token gets nothing.
    """
    mask = mask.to(torch.bool)
    out = torch.zeros(mask.shape, dtype=torch.float32, device=mask.device)
    if mask.shape[1]:
        last = (mask.long() * torch.arange(1, mask.shape[1] + 1, device=mask.device)).argmax(1)
        has = mask.any(1)
        out[has, last[has]] = rewards.to(out.dtype)[has]
    if token_rewards is not None:
        out = out + token_rewards.to(out.dtype) * mask
    return out


def step_rewards_to_tokens(
    tokenizer: Any, completion_ids: torch.Tensor, completion_mask: torch.Tensor,
    step_rewards: Sequence[Sequence[Any] | None],
) -> torch.Tensor:
    """Place character-offset step rewards (``rlenv.StepReward``) on the token that ends each step.

    A step ending at character ``end`` of the decoded completion lands on the first token ``k``
    such that the decoding of tokens ``[0, k]`` covers ``end`` characters (found by bisection).

    Returns:
        ``(B, T)`` float tensor; rows without step rewards are zero.
    """
    B, T = completion_ids.shape
    out = torch.zeros((B, T), dtype=torch.float32)
    for i, steps in enumerate(step_rewards):
        if not steps:
            continue
        n = int(completion_mask[i].long().sum())
        ids = completion_ids[i, :n].tolist()
        cache: dict[int, int] = {}

        def covered(k: int, ids: list[int] = ids, cache: dict[int, int] = cache) -> int:
            if k not in cache:
                cache[k] = len(tokenizer.decode(ids[: k + 1], skip_special_tokens=True))
            return cache[k]

        for step in steps:
            lo, hi = 0, n - 1
            if n == 0:
                raise ValueError(f"episode {i} has step rewards but no completion tokens")
            while lo < hi:
                mid = (lo + hi) // 2
                if covered(mid) >= step.end:
                    hi = mid
                else:
                    lo = mid + 1
            out[i, lo] += float(step.value)
    return out.to(completion_ids.device)

"""Preference pairs as tensors: :class:`PreferenceBatch`, built from TRL-format rows
(:func:`encode_preference_rows`: ``prompt``, ``chosen``, ``rejected``; plain strings or chat
messages) or from on-policy groups of an :class:`~rlenv.trainers.batch.EpisodeBatch`
(:func:`pairs_from_groups`: best vs worst completion of each group by env reward, ties skipped)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import torch
from torch import Tensor, nn

from rlenv.inference.policy import encode_completions, encode_prompts
from rlenv.sources import load_rows
from rlenv.trainers.batch import EpisodeBatch


def _pad_right(rows: Sequence[Sequence[int]], pad_token_id: int) -> tuple[Tensor, Tensor]:
    width = max((len(r) for r in rows), default=0)
    ids = torch.full((len(rows), width), pad_token_id, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, row in enumerate(rows):
        ids[i, : len(row)] = torch.as_tensor(list(row), dtype=torch.long)
        mask[i, : len(row)] = 1
    return ids, mask


def _counted(mask: Tensor, loss_mask: Tensor | None) -> Tensor:
    """The long mask of the tokens that count: ``mask``, and ``loss_mask`` when given."""
    return mask.long() if loss_mask is None else mask.long() * loss_mask.long()


def _pad_to(ids: Tensor, mask: Tensor, width: int, pad_token_id: int) -> tuple[Tensor, Tensor]:
    extra = width - ids.shape[1]
    return (nn.functional.pad(ids, (0, extra), value=pad_token_id), nn.functional.pad(mask, (0, extra), value=0))


@dataclasses.dataclass
class PreferenceBatch:
    """Preference pairs as tensors.

    Attributes:
        prompt_ids, prompt_mask: ``(B, P)`` left-padded prompts.
        chosen_ids, chosen_mask: ``(B, Tc)`` right-padded preferred completions (mask covers EOS).
        rejected_ids, rejected_mask: ``(B, Tr)`` right-padded dispreferred completions.
        pad_token_id: Id used for padding (needed to join chosen and rejected in one forward).
        chosen_loss_mask, rejected_loss_mask: Optional ``(B, Tc)`` / ``(B, Tr)``, 1 on the tokens whose
            log-probs count (a multi-turn episode's policy tokens, not the environment's replies);
            None counts every token of the completion mask.
    """

    prompt_ids: Tensor
    prompt_mask: Tensor
    chosen_ids: Tensor
    chosen_mask: Tensor
    rejected_ids: Tensor
    rejected_mask: Tensor
    pad_token_id: int
    chosen_loss_mask: Tensor | None = None
    rejected_loss_mask: Tensor | None = None

    def __post_init__(self) -> None:
        B = self.prompt_ids.shape[0]
        pairs = (("prompt", self.prompt_ids, self.prompt_mask), ("chosen", self.chosen_ids, self.chosen_mask),
                 ("rejected", self.rejected_ids, self.rejected_mask))
        for name, ids, mask in pairs:
            if ids.dim() != 2 or ids.shape[0] != B or ids.shape != mask.shape:
                raise ValueError(f"PreferenceBatch.{name}_ids {tuple(ids.shape)} and {name}_mask {tuple(mask.shape)} "
                                 f"must be equal 2-D shapes with B={B} rows")
            if ids.dtype != torch.long:
                raise ValueError(f"PreferenceBatch.{name}_ids must be torch.long, got {ids.dtype}")
        for name, mask in (("chosen", self.chosen_mask), ("rejected", self.rejected_mask)):
            if B and bool((mask.long().sum(1) == 0).any()):
                raise ValueError(f"every {name} completion needs at least one token")
        for name, mask, loss_mask in (("chosen", self.chosen_mask, self.chosen_loss_mask),
                                      ("rejected", self.rejected_mask, self.rejected_loss_mask)):
            if loss_mask is not None and loss_mask.shape != mask.shape:
                raise ValueError(f"PreferenceBatch.{name}_loss_mask has shape {tuple(loss_mask.shape)}, expected "
                                 f"{tuple(mask.shape)} (that of {name}_mask)")

    def __len__(self) -> int:
        return self.prompt_ids.shape[0]

    @property
    def chosen_lengths(self) -> Tensor:
        """``(B,)`` chosen completion lengths in tokens (those that count: see ``chosen_loss_mask``)."""
        return _counted(self.chosen_mask, self.chosen_loss_mask).sum(1)

    @property
    def rejected_lengths(self) -> Tensor:
        """``(B,)`` rejected completion lengths in tokens (those that count: see ``rejected_loss_mask``)."""
        return _counted(self.rejected_mask, self.rejected_loss_mask).sum(1)

    def select(self, index: Tensor | Sequence[int] | slice) -> PreferenceBatch:
        """The pairs at ``index`` (row indices or a slice)."""
        rows = index if isinstance(index, slice) else torch.as_tensor(index, dtype=torch.long)
        return dataclasses.replace(
            self, prompt_ids=self.prompt_ids[rows], prompt_mask=self.prompt_mask[rows],
            chosen_ids=self.chosen_ids[rows], chosen_mask=self.chosen_mask[rows],
            rejected_ids=self.rejected_ids[rows], rejected_mask=self.rejected_mask[rows],
            chosen_loss_mask=None if self.chosen_loss_mask is None else self.chosen_loss_mask[rows],
            rejected_loss_mask=None if self.rejected_loss_mask is None else self.rejected_loss_mask[rows],
        )

    def to(self, device: torch.device | str) -> PreferenceBatch:
        """The batch on ``device``."""
        return dataclasses.replace(
            self, **{f.name: getattr(self, f.name).to(device) for f in dataclasses.fields(self)
                     if isinstance(getattr(self, f.name), Tensor)})

    def stacked(self) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        """``(prompt_ids, prompt_mask, completion_ids, completion_mask)`` of ``2B`` rows: chosen then rejected."""
        width = max(self.chosen_ids.shape[1], self.rejected_ids.shape[1])
        chosen = _pad_to(self.chosen_ids, self.chosen_mask, width, self.pad_token_id)
        rejected = _pad_to(self.rejected_ids, self.rejected_mask, width, self.pad_token_id)
        return (torch.cat([self.prompt_ids, self.prompt_ids]), torch.cat([self.prompt_mask, self.prompt_mask]),
                torch.cat([chosen[0], rejected[0]]), torch.cat([chosen[1], rejected[1]]))

    def stacked_loss_mask(self) -> Tensor:
        """``(2B, T)`` mask of the tokens whose log-probs count, aligned with :meth:`stacked`'s completions."""
        width = max(self.chosen_ids.shape[1], self.rejected_ids.shape[1])
        return torch.cat([nn.functional.pad(_counted(mask, loss), (0, width - mask.shape[1]), value=0)
                          for mask, loss in ((self.chosen_mask, self.chosen_loss_mask),
                                             (self.rejected_mask, self.rejected_loss_mask))])

    @classmethod
    def from_token_lists(
        cls, prompts: Sequence[Sequence[int]], chosen: Sequence[Sequence[int]], rejected: Sequence[Sequence[int]],
        *, pad_token_id: int,
    ) -> PreferenceBatch:
        """Pad unpadded token lists (prompts left, completions right)."""
        if not len(prompts) == len(chosen) == len(rejected):
            raise ValueError(f"got {len(prompts)} prompts, {len(chosen)} chosen and {len(rejected)} rejected")
        if any(len(p) == 0 for p in prompts):
            raise ValueError("every prompt needs at least one token")
        rev_ids, rev_mask = _pad_right([list(p)[::-1] for p in prompts], pad_token_id)
        chosen_ids, chosen_mask = _pad_right(chosen, pad_token_id)
        rejected_ids, rejected_mask = _pad_right(rejected, pad_token_id)
        return cls(rev_ids.flip(1), rev_mask.flip(1), chosen_ids, chosen_mask, rejected_ids, rejected_mask,
                   pad_token_id)


def _completion_text(tokenizer: Any, prompt: Any, completion: Any, column: str, row: int) -> tuple[str, bool]:
    """``(text, add_eos)`` of one completion in TRL's standard (str) or conversational (messages) format."""
    if isinstance(prompt, str) and isinstance(completion, str):
        return completion, True
    if isinstance(prompt, list) and isinstance(completion, list):
        if getattr(tokenizer, "chat_template", None) is None:
            raise ValueError(f"row {row}: conversational rows need a tokenizer with a chat_template")
        prefix = tokenizer.apply_chat_template(prompt, add_generation_prompt=True, tokenize=False)
        full = tokenizer.apply_chat_template(list(prompt) + list(completion), tokenize=False)
        if not full.startswith(prefix):
            raise ValueError(f"row {row}: the chat template renders prompt+{column} without the prompt as a prefix")
        return full[len(prefix):], False
    raise TypeError(f"row {row}: prompt and {column} must both be str (standard format) or both be lists of chat "
                    f"messages (conversational format), got {type(prompt).__name__} and {type(completion).__name__}")


def encode_preference_rows(tokenizer: Any, rows: Any) -> PreferenceBatch:
    """Tokenize TRL-format preference rows into a :class:`PreferenceBatch`.

    Args:
        tokenizer: The policy's tokenizer (``pad_token_id`` and ``eos_token_id`` set).
        rows: A ``datasets.Dataset``, a list of dicts, or local JSONL/JSON/parquet path(s) with
            columns ``prompt``, ``chosen`` and ``rejected``. Standard format: three strings
            (completions get an EOS appended). Conversational format: lists of chat messages,
            rendered with the tokenizer's chat template (the template supplies the end token).
    """
    data = load_rows(rows)
    missing = {"prompt", "chosen", "rejected"} - set(data.column_names)
    if missing:
        raise ValueError(f"preference rows need columns prompt, chosen, rejected; missing {sorted(missing)} "
                         f"(columns: {data.column_names}). Implicit-prompt rows must be split into prompt + completion.")
    prompts: list[Any] = []
    chosen: list[Any] = []
    rejected: list[Any] = []
    for i, row in enumerate(data):
        prompts.append(row["prompt"])
        for column, out in (("chosen", chosen), ("rejected", rejected)):
            text, add_eos = _completion_text(tokenizer, row["prompt"], row[column], column, i)
            out.append(encode_completions(tokenizer, [text], add_eos=add_eos)[0])
    if not prompts:
        raise ValueError("no preference rows to encode")
    prompt_ids, prompt_mask = encode_prompts(tokenizer, prompts)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    chosen_ids, chosen_mask = _pad_right(chosen, pad)
    rejected_ids, rejected_mask = _pad_right(rejected, pad)
    return PreferenceBatch(prompt_ids, prompt_mask, chosen_ids, chosen_mask, rejected_ids, rejected_mask, int(pad))


def pairs_from_groups(batch: EpisodeBatch, pad_token_id: int) -> tuple[PreferenceBatch | None, dict[str, float]]:
    """One pair per group of on-policy samples: the highest-reward vs the lowest-reward completion.

    Groups whose rewards are all equal (ties) give no pair. Within a group the first episode
    with the maximum (minimum) reward is taken, so the result is deterministic.

    Returns:
        ``(pairs or None when every group tied, stats)`` with stats ``groups``, ``pairs`` and
        ``tie_fraction``.
    """
    chosen_rows, rejected_rows = [], []
    groups = torch.unique(batch.group_ids)
    for group in groups.tolist():
        rows = (batch.group_ids == group).nonzero().flatten()
        rewards = batch.rewards[rows]
        if bool((rewards == rewards[0]).all()):
            continue
        chosen_rows.append(int(rows[int(rewards.argmax())]))
        rejected_rows.append(int(rows[int(rewards.argmin())]))
    stats = {"groups": float(len(groups)), "pairs": float(len(chosen_rows)),
             "tie_fraction": 1.0 - len(chosen_rows) / max(len(groups), 1)}
    if not chosen_rows:
        return None, stats
    chosen = batch.select(chosen_rows).trim()
    rejected = batch.select(rejected_rows).trim()
    width = max(chosen.prompt_ids.shape[1], rejected.prompt_ids.shape[1])
    if not torch.equal(chosen.prompt_ids[:, -width:], rejected.prompt_ids[:, -width:]):
        raise ValueError("episodes of one group have different prompts: group_ids must mark repeats of one prompt")
    pairs = PreferenceBatch(chosen.prompt_ids, chosen.prompt_mask, chosen.completion_ids, chosen.completion_mask,
                            rejected.completion_ids, rejected.completion_mask, pad_token_id,
                            chosen_loss_mask=None if chosen.policy_mask is None else chosen.loss_mask,
                            rejected_loss_mask=None if rejected.policy_mask is None else rejected.loss_mask)
    return pairs, stats

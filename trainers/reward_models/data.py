"""Data helpers of the reward-model trainers: rows from any source, right-padded token batches."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from rlenv.sources import load_rows

logger = logging.getLogger(__name__)


def padded(tokenizer: Any, sequences: Sequence[Sequence[int]], device: Any) -> tuple[Any, Any]:
    """Right-padded ``(input_ids, attention_mask)`` tensors on ``device``."""
    enc = tokenizer.pad({"input_ids": [list(s) for s in sequences]}, padding_side="right", return_tensors="pt")
    return enc["input_ids"].to(device), enc["attention_mask"].to(device)


def as_rows(data: Any) -> list[dict[str, Any]]:
    """Rows as dicts from a list of dicts, a ``datasets.Dataset`` or data file path(s) (see :func:`rlenv.sources.load_rows`)."""
    if isinstance(data, list) and all(isinstance(r, Mapping) for r in data):
        return [dict(r) for r in data]
    return [dict(r) for r in load_rows(data)]

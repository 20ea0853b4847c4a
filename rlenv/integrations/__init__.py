"""Adapters that plug rlenv environments into other trainers: :mod:`~rlenv.integrations.trl` (TRL's
``GRPOTrainer``/``RLOOTrainer`` reward functions and datasets), :mod:`~rlenv.integrations.verl`
(verl's ``compute_score`` and dataset rows) and :mod:`~rlenv.integrations.openrlhf` (OpenRLHF's
``reward_func`` file and prompt rows). Importing them never imports torch."""

from __future__ import annotations

import json

from rlenv.types import Task


def reference_text(task: Task) -> str:
    """The task's reference as a dataset label: itself when a string, else its JSON text."""
    return task.reference if isinstance(task.reference, str) else json.dumps(task.reference, default=str)

"""A real short training run that reports to the trackers, shared by the backends' tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rlenv.trainers import Trainer
from tests.trainers.trainer_helpers import MAX_NEW_TOKENS, make_task_env, tiny_policy, training_split

#: Two GRPO steps of a tiny policy, samples logged at both.
RUN = dict(steps=2, num_tasks=2, group_size=2, lr=1e-3, max_new_tokens=MAX_NEW_TOKENS, micro_batch_size=4,
           log_samples=2, log_samples_every=1, progress=False)


def tracked_training(out: Path, report_to: str, **config: Any) -> tuple[list[dict[str, float]], list[dict[str, Any]]]:
    """Train a tiny policy for two GRPO steps with ``report_to`` into ``out``; returns the history and
    the rows of ``samples.jsonl`` (what the trackers must hold)."""
    model, tok = tiny_policy()
    history = Trainer(model, training_split(make_task_env()), "grpo", tokenizer=tok,
                      config=dict(RUN, output_dir=str(out), report_to=report_to, **config)).train()
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert len(history) == 2 and len(samples) == 4
    return history, samples

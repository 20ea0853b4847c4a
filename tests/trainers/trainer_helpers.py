"""Shared fixtures for the trainer tests: a tiny addition environment and a tiny policy.

``make_task_env`` is the single place that names the learning task: switching the learning tests
to ``rlenv/Arithmetic-v0`` is a one-line change there.
"""

from __future__ import annotations

import random

import rlenv
from rlenv import ProceduralSource, RewardResult, Status, Task, TextEnv
from trainers.tiny import tiny_causal_lm, tiny_tokenizer

#: Tasks 0..TRAIN_SIZE-1 are used for training; held-out evaluation uses the rest.
NUM_TASKS = 100
TRAIN_SIZE = 70


def _addition(rng: random.Random, index: int) -> Task:
    a, b = divmod(index % NUM_TASKS, 10)
    return Task(str(index), f"{a}+{b}=", reference=str(a + b), gold_completion=str(a + b))


class ExactAnswer:
    """Correct when the stripped completion equals the reference."""

    name = "exact_answer"
    version = "1"

    def __call__(self, task: Task, completion: str) -> RewardResult:
        answer = completion.strip()
        if not answer:
            return RewardResult(0.0, Status.UNPARSABLE, verifier=self.name, verifier_version=self.version)
        ok = answer == task.reference
        return RewardResult(float(ok), Status.CORRECT if ok else Status.INCORRECT, verifier=self.name,
                            verifier_version=self.version)


def addition_env() -> TextEnv:
    """Single-digit addition ``a+b=`` -> ``a+b``, exact match; task ``i`` is ``divmod(i, 10)``."""
    return TextEnv(ProceduralSource(_addition, seed=0, size=NUM_TASKS, prefix="add"), ExactAnswer())


def make_task_env() -> TextEnv:
    """The learning task of the trainer tests."""
    return addition_env()


def tiny_policy(seed: int = 0, hidden_size: int = 64, num_layers: int = 2):
    """``(model, tokenizer)``: a tiny Llama on a character tokenizer, built locally."""
    tok = tiny_tokenizer()
    return tiny_causal_lm(tok, hidden_size=hidden_size, num_layers=num_layers, seed=seed), tok


__all__ = ["NUM_TASKS", "TRAIN_SIZE", "addition_env", "make_task_env", "rlenv", "tiny_policy"]

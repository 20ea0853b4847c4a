"""Shared fixtures for the trainer tests: the learning task, a tiny addition environment and a tiny policy.

``make_task_env`` is the single place that names the learning task (``rlenv/Arithmetic-v0``,
lowest level); ``addition_env`` is a self-contained 100-task environment for unit tests.
"""

from __future__ import annotations

import copy
import random

import rlenv
from rlenv import ProceduralSource, RewardResult, Status, Task, TextEnv
from trainers.tiny import tiny_causal_lm, tiny_tokenizer

#: Learning task: training uses task indices [0, TRAIN_SIZE); held-out evaluation uses
#: [HELD_OUT_START, HELD_OUT_START + HELD_OUT_SIZE), fresh draws of the same generator.
TRAIN_SIZE = 5000
HELD_OUT_START = 100_000
HELD_OUT_SIZE = 200
#: Generation limit for the learning task (``#### 17`` and EOS).
MAX_NEW_TOKENS = 8
#: Distinct problems of :func:`addition_env` (task ``i`` is ``divmod(i % NUM_TASKS, 10)``).
NUM_TASKS = 100


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
    """Single-digit addition ``a+b=`` -> ``a+b``, exact match; endless, task ``i`` repeats task ``i % 100``."""
    return TextEnv(ProceduralSource(_addition, seed=0, prefix="add"), ExactAnswer())


def make_task_env() -> TextEnv:
    """The learning task of the trainer tests: ``rlenv/Arithmetic-v0`` at its lowest level."""
    return rlenv.make("rlenv/Arithmetic-v0", level=1)


class FirstTasks:
    """The first ``size`` tasks of another source (the training split of an infinite generator)."""

    def __init__(self, source, size: int):
        self.inner, self._size = source, size

    @property
    def size(self) -> int:
        return self._size

    def __getitem__(self, index: int) -> Task:
        if not 0 <= index < self._size:
            raise IndexError(f"task index {index} outside the training split [0, {self._size})")
        return self.inner[index]

    def index_of(self, task_id: str) -> int:
        return self.inner.index_of(task_id)


def training_split(env: TextEnv, size: int = TRAIN_SIZE) -> TextEnv:
    """A copy of ``env`` whose tasks are its first ``size`` tasks (held-out indices are never drawn)."""
    split = copy.copy(env.unwrapped)
    split.source = FirstTasks(env.unwrapped.source, size)
    return split


def tiny_policy(seed: int = 0, hidden_size: int = 64, num_layers: int = 2):
    """``(model, tokenizer)``: a tiny Llama on a character tokenizer, built locally."""
    tok = tiny_tokenizer()
    return tiny_causal_lm(tok, hidden_size=hidden_size, num_layers=num_layers, seed=seed), tok


__all__ = ["HELD_OUT_SIZE", "HELD_OUT_START", "MAX_NEW_TOKENS", "NUM_TASKS", "TRAIN_SIZE", "addition_env", "make_task_env", "rlenv", "tiny_policy", "training_split"]

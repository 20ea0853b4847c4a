"""Small verifiers and sources shared by the core tests (module-level so they pickle)."""

from __future__ import annotations

import os
import random
import time

from rlenv.sources import ProceduralSource
from rlenv.types import RewardResult, Status, Task


def addition_task(rng: random.Random, index: int) -> Task:
    a, b = rng.randint(0, 99), rng.randint(0, 99)
    return Task(f"add-{index}", f"{a}+{b}=", reference=str(a + b), gold_completion=str(a + b))


def addition_source(seed: int = 0, size: int | None = None) -> ProceduralSource:
    return ProceduralSource(addition_task, seed=seed, size=size, prefix="add")


class EqualsReference:
    """Correct iff the stripped completion equals the reference."""

    name = "equals_reference"
    version = "1"

    def __call__(self, task: Task, completion: str) -> RewardResult:
        ok = completion.strip() == task.reference
        return RewardResult(float(ok), Status.CORRECT if ok else Status.INCORRECT, verifier=self.name,
                            verifier_version=self.version)


class SlowVerifier(EqualsReference):
    """Sleeps before answering (I/O-like latency), to show concurrent scoring."""

    def __init__(self, seconds: float):
        self.seconds = seconds

    def __call__(self, task: Task, completion: str) -> RewardResult:
        time.sleep(self.seconds)
        return super().__call__(task, completion)


class FailsOn(EqualsReference):
    """Raises on one particular completion, to show failure isolation."""

    def __init__(self, poison: str):
        self.poison = poison

    def __call__(self, task: Task, completion: str) -> RewardResult:
        if completion == self.poison:
            raise RuntimeError(f"cannot score {completion!r}")
        return super().__call__(task, completion)


class RecordsPid(EqualsReference):
    """Puts the scoring process id in details (to prove a process pool was used)."""

    def __call__(self, task: Task, completion: str) -> RewardResult:
        result = super().__call__(task, completion)
        return RewardResult(result.value, result.status, verifier=self.name, details={"pid": os.getpid()})

"""``MathVerifier``: final-answer checking with math-verify, bounded by worker processes."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from typing import Any

from rlenv.envs.math.batch import grade_batch
from rlenv.envs.math.config import GradingConfig
from rlenv.envs.math.extraction import ANSWER_FORMATS, clean_answer, extract_answers
from rlenv.scoring.worker_pool import Outcome, WorkerPool, shared_worker_pool
from rlenv.types import RewardResult, Status, Task

_HANDLER = "rlenv.envs.math.checks:check"
_INITIALIZER = "rlenv.envs.math.checks:init_worker"


def reference_answer(task: Task) -> str:
    """The gold answer of ``task`` as text: ``task.reference`` must be a str or a number."""
    reference = task.reference
    if isinstance(reference, bool) or not isinstance(reference, (str, int, float)):
        raise TypeError(f"task {task.id!r}: MathVerifier needs task.reference to be the answer as a str "
                        f"(or a number), got {type(reference).__name__}: {reference!r:.80}")
    return str(reference)


class MathVerifier:
    """Checks the final answer of a completion against ``task.reference`` with math-verify.

    Every check runs in a worker process under a hard wall-clock deadline (see
    :mod:`rlenv.scoring.worker_pool`); the workers are shared by all verifiers of a process and start on
    first use. A batch is graded by its distinct answers (see :mod:`rlenv.envs.math.batch`): answers
    are found in the calling process, each task's gold is parsed once per worker and each
    distinct (task, final answer) pair is checked once, with the results one-by-one grading
    gives. The verifier itself holds only its settings, so it pickles to a fresh handle.

    Args:
        formats: Answer formats in priority order: ``"boxed"``, ``"gsm8k"`` (``#### 42``),
            ``"answer_tag"`` (``<answer>…</answer>``), ``"answer_is"`` (see
            :mod:`rlenv.envs.math.extraction`).
        last_number: Fall back to the last number of the completion when no format matches.
        hedging: ``"all"`` (default): every different answer the completion commits to must be
            correct; ``"last"``: only the final one counts.
        timeout: Seconds allowed per check (wall clock): per gold parse and per distinct answer's
            parse and comparison. An overrunning check is ``timeout`` for every completion whose
            grading needs it.
        max_completion_chars: Longer completions are ``unparsable`` without being searched.
        max_answer_chars: Longer answers are not parsed (a final one is ``unparsable``).
        max_answers: More different answers than this is ``incorrect``.
        num_workers: Worker processes (default: the CPU cores available).
        max_memory_mb: Address-space cap of each worker process (None: no cap), so an answer
            like ``2^{2^{40}}`` cannot exhaust the machine's memory before its deadline:
            math-verify then fails to parse it (it is compared as text) or the check is an
            ``error``.
        float_rounding, numeric_precision, strict: Passed to ``math_verify.verify``.

    Results: value 1.0 with status ``correct``, else 0.0 with ``incorrect``, ``unparsable``,
    ``timeout`` or ``error``; ``details`` holds the ``format`` and ``answer`` found (and
    ``answers`` when there are several) and a ``reason`` when not correct.
    """

    name = "math"
    version = "2"  # 2: issue 31 (anchors beyond boxes, restatements, one normalization step, units, colons, exactness)

    def __init__(
        self,
        *,
        formats: Sequence[str] = ANSWER_FORMATS,
        last_number: bool = False,
        hedging: str = "all",
        timeout: float = 10.0,
        max_completion_chars: int = 200_000,
        max_answer_chars: int = 1_000,
        max_answers: int = 8,
        num_workers: int | None = None,
        max_memory_mb: int | None = 2048,
        float_rounding: int = 6,
        numeric_precision: int = 15,
        strict: bool = True,
    ):
        if not (isinstance(timeout, (int, float)) and timeout > 0):
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        if not isinstance(max_completion_chars, int) or max_completion_chars < 1:
            raise ValueError(f"max_completion_chars must be a positive int, got {max_completion_chars!r}")
        if num_workers is not None and (not isinstance(num_workers, int) or num_workers < 1):
            raise ValueError(f"num_workers must be a positive int or None, got {num_workers!r}")
        if max_memory_mb is not None and (not isinstance(max_memory_mb, int) or max_memory_mb < 256):
            raise ValueError(f"max_memory_mb must be an int >= 256 (a worker needs ~200 MB) or None, got {max_memory_mb!r}")
        self.config = GradingConfig(tuple(formats), bool(last_number), hedging, max_answer_chars, max_answers,
                                    float_rounding, numeric_precision, strict)
        self.timeout = float(timeout)
        self.max_completion_chars = max_completion_chars
        self.num_workers = num_workers
        self.max_memory_mb = max_memory_mb

    def __repr__(self) -> str:
        return (f"MathVerifier(config={self.config}, timeout={self.timeout}, "
                f"max_completion_chars={self.max_completion_chars}, num_workers={self.num_workers}, "
                f"max_memory_mb={self.max_memory_mb})")

    @property
    def pool(self) -> WorkerPool:
        """The process-wide worker pool this verifier uses."""
        return shared_worker_pool(_HANDLER, self.num_workers, _INITIALIZER, (self.max_memory_mb or 0) * 2**20)

    def __call__(self, task: Task, completion: str) -> RewardResult:
        return self.score_batch([task], [completion])[0]

    def score_batch(self, tasks: Sequence[Task], completions: Sequence[str]) -> list[RewardResult]:
        """Score ``completions[i]`` against ``tasks[i]`` on all workers; results in input order.

        Completions of one task that commit to the same final answer share its check, so a
        GRPO group costs one gold parse and one check per distinct answer. A bad item (a task
        without a usable reference, a non-str completion) gets an ``error`` result; it never
        sinks the batch.
        """
        if len(tasks) != len(completions):
            raise ValueError(f"got {len(tasks)} tasks but {len(completions)} completions")
        results: list[RewardResult | None] = [None] * len(tasks)
        jobs, positions = [], []
        for i, (task, completion) in enumerate(zip(tasks, completions)):
            if not isinstance(completion, str):
                results[i] = self._error(f"completion must be a str, got {type(completion).__name__}")
            elif len(completion) > self.max_completion_chars:
                results[i] = self._result("unparsable", {"reason": f"the completion has {len(completion)} "
                                          f"characters, over max_completion_chars={self.max_completion_chars}"})
            else:
                try:
                    jobs.append((reference_answer(task), str(completion)))
                except TypeError as exc:
                    results[i] = self._error(str(exc))
                    continue
                positions.append(i)
        if jobs:
            for i, outcome in zip(positions, grade_batch(self.pool, self.config, jobs, self.timeout)):
                results[i] = self._from_outcome(outcome)
        return results  # type: ignore[return-value]

    def equivalent(self, task: Task, a: str, b: str) -> bool:
        """Whether completions ``a`` and ``b`` commit to the same answer, by math-verify (for maj@k).

        ``a``'s final answer is taken as the reference and ``b`` is graded against it, in the
        worker pool under the same deadline as scoring; so ``1/2`` and ``0.5`` are equivalent. A
        completion with no final answer is equivalent to nothing; a timeout or error counts as
        "not equivalent".
        """
        found = extract_answers(a, self.config.formats, self.config.last_number)
        answer = clean_answer(found.answers[-1]) if found.answers else ""
        if not answer or len(answer) > self.config.max_answer_chars:
            return False
        return self.score_batch([dataclasses.replace(task, reference=answer)], [b])[0].correct

    async def ascore_batch(self, tasks: Sequence[Task], completions: Sequence[str]) -> list[RewardResult]:
        """:meth:`score_batch` for event loops: runs in a thread, so the loop keeps running."""
        return await asyncio.to_thread(self.score_batch, tasks, completions)

    def _from_outcome(self, outcome: Outcome) -> RewardResult:
        if outcome.kind == "ok":
            status, details = outcome.value
            return self._result(status, details)
        if outcome.kind == "timeout":
            return self._result("timeout", {"reason": f"the check ran over the {self.timeout:g} s deadline "
                                                      "and its worker process was killed"})
        return self._error(outcome.value)

    def _result(self, status: str, details: dict[str, Any]) -> RewardResult:
        value = 1.0 if status == Status.CORRECT.value else 0.0
        return RewardResult(value, Status(status), {"correct": value}, verifier=self.name,
                            verifier_version=self.version, details=details)

    def _error(self, text: str) -> RewardResult:
        return RewardResult.error(text, self.name, self.version)

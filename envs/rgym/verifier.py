"""``ReasoningGymVerifier``: reasoning-gym's own ``score_answer``, behind rlenv's answer extraction and statuses.

The answer is found as the math envs find theirs (:func:`rlenv.envs.math.extraction.extract_answers`;
reasoning-gym's ``<answer>…</answer>`` first, then ``\\boxed{}``, ``#### …`` and "the answer is
…"). Each distinct answer is scored by the dataset's ``score_answer`` in a worker process under a
wall-clock deadline and a memory cap (:mod:`rlenv.scoring.worker_pool`, :mod:`rlenv.envs.rgym.checks`): several
reasoning-gym scorers hand the answer to sympy's ``parse_expr``/``sympify``, which evaluate it as
Python. So answers that look like Python code (a double underscore, ``lambda``, or a call of
``eval``, ``exec``, ``open``, ``getattr``, ...) are refused before any scorer sees them. This
narrows what a completion can run; it is not a sandbox.

Statuses: ``correct`` when the score is 1.0; ``incorrect`` below (the reward is the score, so
reasoning-gym's partial credit is kept unless ``partial_credit=False``), also for a refused
answer or one the scorer raised on; ``unparsable`` when no answer is found; ``timeout`` when a
scorer overran its deadline; ``error`` when the dataset could not be built or a worker died.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from rlenv.envs.math.extraction import check_formats, extract_answers
from rlenv.errors import check_choice
from rlenv.scoring.worker_pool import Outcome, WorkerPool, shared_worker_pool
from rlenv.types import RewardResult, Status, Task

#: Answer formats in priority order: reasoning-gym's own ``<answer>`` tags first.
FORMATS = ("answer_tag", "boxed", "gsm8k", "answer_is")
HEDGING_POLICIES = ("all", "last")
#: Answers that look like Python code are refused (see the module docstring).
CODE_LIKE = re.compile(r"__|\blambda\b|\b(?:eval|exec|compile|open|getattr|setattr|delattr|globals|locals|vars"
                       r"|breakpoint|input|exit|quit|help|memoryview)\s*\(")
_HANDLER = "rlenv.envs.rgym.checks:score"
_INITIALIZER = "rlenv.envs.rgym.checks:init_worker"
_FULL = 1.0 - 1e-9


def check_entry(task: Task) -> Mapping[str, Any]:
    """``task.reference``: the reasoning-gym entry (``question``, ``answer``, ``metadata``) the scorer needs."""
    entry = task.reference
    if not isinstance(entry, Mapping) or not {"question", "answer", "metadata"} <= set(entry):
        raise TypeError(f"task {task.id!r}: ReasoningGymVerifier needs task.reference to be a reasoning-gym entry "
                        f"(a dict with question, answer, metadata), got {type(entry).__name__}: {entry!r:.80}")
    return entry


class ReasoningGymVerifier:
    """Scores completions of a reasoning-gym dataset with its own ``score_answer`` (see the module docstring).

    Args:
        dataset: The reasoning-gym dataset name, e.g. ``"chain_sum"``.
        config: The dataset's config (its scorer may read it), JSON-serializable.
        formats: Answer formats in priority order (names of :data:`rlenv.envs.math.extraction.ANSWER_FORMATS`).
        hedging: ``"all"`` (default): every different answer is scored and the lowest score counts,
            so hedging never pays; ``"last"``: only the final answer.
        partial_credit: Pay reasoning-gym's score below 1.0 too (default); False pays 0.0 then.
        timeout: Seconds allowed per score (wall clock, per distinct answer).
        max_answer_chars: Longer answers are refused without scoring.
        num_workers: Worker processes (default: the CPU cores available).
        max_memory_mb: Address-space cap of each worker process (None: no cap).
    """

    name = "reasoning_gym"
    version = "2"  # 2: answers found as the math envs find them since issue 31 (restatements, unclosed <think>)

    def __init__(self, dataset: str, config: Mapping[str, Any] | None = None, *, formats: Sequence[str] = FORMATS,
                 hedging: str = "all", partial_credit: bool = True, timeout: float = 10.0,
                 max_answer_chars: int = 20_000, num_workers: int | None = None, max_memory_mb: int | None = 2048):
        check_choice("hedging", hedging, HEDGING_POLICIES)
        if not (isinstance(timeout, (int, float)) and timeout > 0):
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        try:
            config_json = json.dumps(dict(config or {}), sort_keys=True)
        except TypeError as exc:
            raise TypeError(f"the config of {dataset!r} must be JSON-serializable (plain values, lists, dicts): "
                            f"{exc}") from None
        self.dataset = dataset
        self.config_json = config_json
        self.formats = check_formats(formats)
        self.hedging = hedging
        self.partial_credit = bool(partial_credit)
        self.timeout = float(timeout)
        self.max_answer_chars = max_answer_chars
        self.num_workers = num_workers
        self.max_memory_mb = max_memory_mb

    def __repr__(self) -> str:
        return (f"ReasoningGymVerifier({self.dataset!r}, config={self.config_json}, formats={self.formats}, "
                f"hedging={self.hedging!r}, partial_credit={self.partial_credit}, timeout={self.timeout})")

    @property
    def pool(self) -> WorkerPool:
        """The process-wide worker pool the scorers run in."""
        return shared_worker_pool(_HANDLER, self.num_workers, _INITIALIZER, (self.max_memory_mb or 0) * 2**20)

    def answers(self, completion: str) -> tuple[str | None, list[str], dict[str, Any]]:
        """``(final answer, the distinct answers to score, details)`` of ``completion``."""
        found = extract_answers(completion, self.formats)
        distinct = list(dict.fromkeys(found.answers))
        details: dict[str, Any] = {"format": found.format, "answer": found.final}
        if len(distinct) > 1:
            details["answers"] = distinct
        return found.final, (list(found.answers[-1:]) if self.hedging == "last" else distinct), details

    def refusal(self, answer: str) -> str | None:
        """Why ``answer`` is not scored, or None."""
        if len(answer) > self.max_answer_chars:
            return f"the answer has {len(answer)} characters, over max_answer_chars={self.max_answer_chars}"
        if CODE_LIKE.search(answer):
            return "the answer looks like Python code (reasoning-gym scorers may evaluate it), so it is not scored"
        return None

    def __call__(self, task: Task, completion: str) -> RewardResult:
        return self.score_batch([task], [completion])[0]

    def score_batch(self, tasks: Sequence[Task], completions: Sequence[str]) -> list[RewardResult]:
        """Score ``completions[i]`` against ``tasks[i]``; each distinct (task, answer) is scored once, on all workers."""
        if len(tasks) != len(completions):
            raise ValueError(f"got {len(tasks)} tasks but {len(completions)} completions")
        plans: list[tuple[list[tuple[int, str]], dict[str, Any]] | RewardResult] = []
        keys: dict[tuple[int, str], int] = {}
        payloads: list[tuple[str, Mapping[str, Any]]] = []
        for task, completion in zip(tasks, completions):
            try:
                entry = check_entry(task)
            except TypeError as exc:
                plans.append(RewardResult.error(exc, self.name, self.version))
                continue
            if not isinstance(completion, str):
                plans.append(RewardResult.error(f"completion must be a str, got {type(completion).__name__}",
                                                self.name, self.version))
                continue
            final, answers, details = self.answers(completion)
            if final is None:
                plans.append(self._result(Status.UNPARSABLE, 0.0, {**details, "reason": "no answer found in the "
                                                                   f"formats {list(self.formats)}"}))
                continue
            refused = next((r for r in map(self.refusal, answers) if r), None)
            if refused:
                plans.append(self._result(Status.INCORRECT, 0.0, {**details, "reason": refused}))
                continue
            for answer in answers:
                key = (id(entry), answer)
                if key not in keys:
                    keys[key] = len(payloads)
                    payloads.append((answer, dict(entry)))
            plans.append(([(keys[(id(entry), a)], a) for a in answers], details))
        outcomes = self.pool.run((self.dataset, self.config_json), payloads, self.timeout) if payloads else []
        return [plan if isinstance(plan, RewardResult) else self._judge(*plan, outcomes) for plan in plans]

    def _judge(self, checks: list[tuple[int, str]], details: dict[str, Any], outcomes: list[Outcome]) -> RewardResult:
        scores = []
        for position, answer in checks:
            outcome = outcomes[position]
            if outcome.kind == "timeout":
                return self._result(Status.TIMEOUT, 0.0, {**details, "reason": f"scoring {answer!r:.80} ran over "
                                                          f"the {self.timeout:g} s deadline"})
            if outcome.kind != "ok":
                return RewardResult.error(outcome.value, self.name, self.version)
            value, error = outcome.value
            if error is not None:
                details = {**details, "error": error}
            scores.append(value)
        score = min(scores)
        if len(scores) > 1:
            details = {**details, "scores": scores}
        if score >= _FULL:
            return self._result(Status.CORRECT, 1.0, {**details, "score": score})
        return self._result(Status.INCORRECT, score if self.partial_credit else 0.0, {**details, "score": score})

    def equivalent(self, task: Task, a: str, b: str) -> bool:
        """Whether ``a`` and ``b`` commit to the same final answer (equal up to whitespace), for maj@k."""
        first, second = (self.answers(c)[0] for c in (a, b))
        return first is not None and second is not None and first.split() == second.split()

    def _result(self, status: Status, value: float, details: dict[str, Any]) -> RewardResult:
        return RewardResult(value, status, {"score": value}, verifier=self.name, verifier_version=self.version,
                            details=details)

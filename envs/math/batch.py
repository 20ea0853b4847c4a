"""Grading a batch by its distinct answers: one gold parse per worker, one check per (reference, answer).

RL scores completions in groups (8-16 completions of one problem), and most of a group commits to
a few final answers. :func:`grade_batch` gives every completion the status and details that
:func:`rlenv.envs.math.grading.grade` gives it alone, but does the work once per distinct answer:

* **Answers are found here**, in the calling process, with
  :func:`rlenv.envs.math.extraction.extract_answers` (linear-time text processing of a completion
  already capped at ``max_completion_chars``), and the hedging policy is applied to them
  (:func:`plan`; it mirrors :func:`rlenv.envs.math.grading.grade`, and ``tests/envs/math/test_batch.py``
  checks that the two agree on random groups).
* **Checks run in the workers** (:mod:`rlenv.envs.math.checks`), each under the pool's deadline: one
  *gold check* per distinct reference (its parse, cached in each worker by reference and
  settings) and one *answer check* per distinct ``(reference, cleaned answer)`` pair (parse the
  answer, compare it with the gold). A check's verdict applies to every completion that commits
  to that answer.
* **Each completion is judged on its own answers** (:func:`judge`): its final answer first, then
  (``hedging="all"``) each other answer in order, stopping at the first one that is not correct.
  Checks run in rounds, each round holding only the checks some completion now needs, so an
  answer is checked only when one-by-one grading would have checked it: a hedged completion's
  second answer is not checked when its final answer is wrong.

Deadlines and failures stay per check: a check that overruns is ``timeout`` for exactly the
completions whose judging reaches it (the pool requeues the other checks of its message on a
fresh worker, each with its own deadline), and a check that fails is ``error`` for those. A gold
check that times out or fails does so for every completion of its reference, as alone, where the
gold is parsed before anything else. The deadline bounds each check, so a hedged completion may
take one deadline per answer it needs.

A reference's gold check is sent just before its answer checks and the pool keeps one
reference's checks in one message when they fit (``groups`` of :meth:`WorkerPool.run`), so one
worker parses the gold and reuses it for the whole group.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from rlenv.envs.math.config import GradingConfig
from rlenv.envs.math.extraction import clean_answer, extract_answers
from rlenv.scoring.worker_pool import Outcome, WorkerPool


@dataclasses.dataclass(frozen=True)
class Plan:
    """How one completion is judged (see :func:`plan`).

    Attributes:
        details: ``format``, ``answer`` and, when it commits to several answers, ``answers``:
            the details :func:`rlenv.envs.math.grading.grade` reports, before any ``reason``.
        status: The status when no answer needs checking (``"unparsable"`` or ``"incorrect"``),
            else None.
        reason: Why, when ``status`` is set.
        answers: The cleaned answers to check, the final one first, then the others in the order
            :func:`rlenv.envs.math.grading.grade` checks them.
        hedged: The prefix of a reason when the completion commits to several answers.
    """

    details: Mapping[str, Any]
    status: str | None = None
    reason: str = ""
    answers: tuple[str, ...] = ()
    hedged: str = ""


def plan(config: GradingConfig, completion: str) -> Plan:
    """Find the answers ``completion`` commits to and apply the policy that needs no checking.

    ``unparsable`` (no answer, an empty or over-long final answer) and ``incorrect`` (more
    different answers than ``max_answers``) are decided here, as in :func:`rlenv.envs.math.grading.grade`.
    """
    found = extract_answers(completion, config.formats, config.last_number)
    details: dict[str, Any] = {"format": found.format, "answer": found.final}
    if not found.answers:
        return Plan(details, "unparsable", f"no final answer in any of the formats {list(config.formats)}")
    distinct = list(dict.fromkeys(clean_answer(a) for a in found.answers))
    final = distinct.pop(distinct.index(clean_answer(found.answers[-1])))
    if not final:
        return Plan(details, "unparsable", "the final answer is empty")
    if len(final) > config.max_answer_chars:
        return Plan(details, "unparsable", f"the final answer has {len(final)} characters, "
                                           f"over max_answer_chars={config.max_answer_chars}")
    others = [] if config.hedging == "last" else [a for a in distinct if a]
    if others:
        details["answers"] = others + [final]
    hedged = f"hedged between {len(others) + 1} different answers: " if others else ""
    if len(others) + 1 > config.max_answers:
        return Plan(details, "incorrect", f"{hedged}over max_answers={config.max_answers}")
    return Plan(details, answers=(final, *others), hedged=hedged)


def judge(config: GradingConfig, plan: Plan, verdicts: Mapping[str, Outcome]) -> Outcome | str:
    """The outcome of a planned completion, or the answer whose check it needs next.

    Args:
        config: The grading settings.
        plan: The completion's :class:`Plan`.
        verdicts: Outcomes of the answer checks of its reference done so far, by cleaned answer:
            ``ok`` with True (matches the gold) or False, ``timeout`` or ``error``.

    Returns:
        ``Outcome("ok", (status, details))``, the ``timeout`` / ``error`` outcome of the first
        check that did not finish, or the cleaned answer to check next.
    """
    if plan.status is not None:
        return Outcome("ok", (plan.status, {**plan.details, "reason": plan.reason}))
    for position, answer in enumerate(plan.answers):
        unchecked = position > 0 and len(answer) > config.max_answer_chars  # an over-long other answer
        verdict = Outcome("ok", False) if unchecked else verdicts.get(answer)
        if verdict is None:
            return answer
        if verdict.kind != "ok":
            return verdict
        if not verdict.value:
            named = "the final answer" if position == 0 else repr(answer[:200])
            reason = f"{plan.hedged}{named} does not match the reference"
            return Outcome("ok", ("incorrect", {**plan.details, "reason": reason}))
    return Outcome("ok", ("correct", dict(plan.details)))


def grade_batch(pool: WorkerPool, config: GradingConfig, jobs: Sequence[tuple[str, str]],
                timeout: float) -> list[Outcome]:
    """Grade ``(reference, completion)`` jobs, sharing checks between them (see the module docstring).

    Args:
        pool: Workers whose handler is :func:`rlenv.envs.math.checks.check`.
        config: The grading settings.
        jobs: ``(reference, completion)`` pairs.
        timeout: Wall-clock seconds allowed per check.

    Returns:
        One outcome per job, in order: ``ok`` with ``(status, details)`` as
        :func:`rlenv.envs.math.grading.grade` returns them, ``timeout``, or ``error`` with its text.
    """
    plans = [plan(config, completion) for _, completion in jobs]
    golds: dict[str, Outcome | None] = dict.fromkeys(reference for reference, _ in jobs)
    verdicts: dict[str, dict[str, Outcome]] = {reference: {} for reference in golds}
    outcomes: list[Outcome | None] = [None] * len(jobs)
    while True:
        needed: dict[str, dict[str, None]] = {reference: {} for reference in golds}
        for n, ((reference, _), completion_plan) in enumerate(zip(jobs, plans)):
            if outcomes[n] is not None:
                continue
            gold = golds[reference]
            result = gold if gold is not None and gold.kind != "ok" else judge(config, completion_plan, verdicts[reference])
            if isinstance(result, str):
                needed[reference][result] = None
            elif gold is not None:
                outcomes[n] = result
        checks = [(reference, answer) for reference, answers in needed.items()
                  for answer in ([None] if golds[reference] is None else []) + list(answers)]
        if not checks:
            return outcomes  # type: ignore[return-value]
        results = pool.run(config, checks, timeout, groups=[reference for reference, _ in checks])
        for (reference, answer), outcome in zip(checks, results):
            if answer is None:
                golds[reference] = outcome
            else:
                verdicts[reference][answer] = outcome

"""Shared shape of the format verifiers: named checks -> a 0/1 (or partial) reward with the violations listed."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from rlenv.types import RewardResult, Status, Task
from rlenv.wrappers.nonanswer import non_answer_kind


class FormatVerifier:
    """Base of format verifiers: a subclass returns ``(checks, details)`` from :meth:`check`.

    ``checks`` is an ordered ``{check_name: passed}``; the result is ``correct`` with value 1.0
    when every check passed, else ``incorrect`` with value 0.0, or with ``partial_credit=True``
    the fraction of checks passed. ``details["violations"]`` names the failed checks; the
    reward's single component is ``{self.name: value}``.
    """

    name = "format"
    version = "1"

    def __init__(self, partial_credit: bool = False):
        self.partial_credit = bool(partial_credit)

    def check(self, task: Task, completion: str) -> tuple[dict[str, bool], dict[str, Any]]:
        """``({check_name: passed}, details)`` for one completion."""
        raise NotImplementedError

    def result(self, checks: Mapping[str, bool], details: Mapping[str, Any]) -> RewardResult:
        """The reward for evaluated ``checks`` (see the class docstring)."""
        if not checks:
            raise ValueError(f"{self.name}: no checks were evaluated")
        violations: Sequence[str] = [name for name, ok in checks.items() if not ok]
        if self.partial_credit:
            value = (len(checks) - len(violations)) / len(checks)
        else:
            value = 0.0 if violations else 1.0
        return RewardResult(value, Status.INCORRECT if violations else Status.CORRECT, {self.name: value},
                            verifier=self.name, verifier_version=self.version,
                            details={**details, "violations": list(violations), "checks": dict(checks)})

    def __call__(self, task: Task, completion: str) -> RewardResult:
        checks, details = self.check(task, completion)
        result = self.result(checks, details)
        if non_answer_kind(completion) == "empty":  # an empty reply satisfies no format, whatever the checks say
            return dataclasses.replace(result, value=0.0, status=Status.INCORRECT, components={self.name: 0.0},
                                       details={**result.details, "non_answer": "empty"})
        return result

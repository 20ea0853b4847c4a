"""Grouping a task's answers into clusters of equivalent answers, for majority voting (maj@k).

Equivalence belongs to the environment: a verifier that can compare two answers defines

    equivalent(task, completion_a, completion_b) -> bool

(e.g. math-verify equivalence of the extracted answers, so ``1/2`` and ``0.5`` vote together).
:func:`answer_equivalence` returns it. The only fallback is *normalized string equality* of the
whole completions (NFKC, case-folded, whitespace collapsed: :func:`rlenv.exact_match.normalize_text`),
and it is used only when the caller asks for it with ``fallback="string"``: for most environments
two differently worded completions with the same answer would otherwise split their votes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from rlenv.types import Status, Task

logger = logging.getLogger(__name__)

#: ``same(a, b) -> bool`` for two completions of one task.
Equivalence = Callable[[str, str], bool]
#: Statuses whose samples gave an answer and therefore vote; the others abstain.
VOTING_STATUSES = frozenset({Status.CORRECT.value, Status.INCORRECT.value})


def answer_equivalence(verifier: Any, task: Task, fallback: str | None = None) -> Equivalence | None:
    """The equivalence used to cluster answers to ``task``.

    Args:
        verifier: The environment's verifier; its ``equivalent(task, a, b)`` is used when present.
        task: The task whose completions are compared.
        fallback: ``"string"`` to use normalized string equality of completions when the verifier
            has no ``equivalent`` method; ``None`` (default) to return None in that case.

    Returns:
        ``same(a, b) -> bool``, or None when the verifier defines no equivalence and no fallback
        was requested (maj@k is then not computed).
    """
    if fallback not in (None, "string"):
        raise ValueError(f"fallback must be None or 'string', got {fallback!r}")
    method = getattr(verifier, "equivalent", None)
    if callable(method):
        return lambda a, b: bool(method(task, a, b))
    if fallback == "string":
        from rlenv.exact_match import normalize_text

        return lambda a, b: normalize_text(a) == normalize_text(b)
    return None


def cluster_answers(completions: Sequence[str], statuses: Sequence[str], same: Equivalence) -> list[int | None]:
    """Label each completion with a cluster id; equivalent answers share an id.

    Greedy, in sample order: a completion joins the first cluster whose representative (its first
    member) it is equivalent to, else starts a new cluster, so ids are 0, 1, 2, ... by first
    appearance. Completions whose status is not ``correct``/``incorrect`` (unparsable, timeout,
    error) gave no answer: they get ``None`` and never vote. An equivalence check that raises is
    logged and counts as "not equivalent".

    Args:
        completions: One task's completions.
        statuses: Their verifier statuses (``Status`` values as strings).
        same: The equivalence, e.g. from :func:`answer_equivalence`.

    Returns:
        One cluster id (or None) per completion.
    """
    if len(completions) != len(statuses):
        raise ValueError(f"got {len(completions)} completions but {len(statuses)} statuses")
    representatives: list[str] = []
    labels: list[int | None] = []
    for completion, status in zip(completions, statuses, strict=True):
        if str(status) not in VOTING_STATUSES:
            labels.append(None)
            continue
        label = next((i for i, rep in enumerate(representatives) if _safe_same(same, rep, completion)), None)
        if label is None:
            label = len(representatives)
            representatives.append(completion)
        labels.append(label)
    return labels


def _safe_same(same: Equivalence, a: str, b: str) -> bool:
    try:
        return bool(same(a, b))
    except Exception as exc:  # one failed comparison must not sink the evaluation
        logger.warning("answer equivalence check failed (%s: %s); treating the answers as different",
                       type(exc).__name__, exc)
        return False

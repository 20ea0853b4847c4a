"""Constitutional AI: a list of principles drives critique-and-revise SFT data, AI preference labels
and a constitution judge.

* :func:`critique_and_revise` — a policy answers each prompt; a model (often the policy itself)
  critiques the answer against each principle and rewrites it; the rows ``{"prompt", "completion"}``
  (the revision) are SFT data (Bai et al., 2022, "Constitutional AI", supervised stage);
* :func:`preference_labels` — a :class:`~rlenv.envs.judge.verifiers.PairwiseJudge` whose prompt
  lists the principles picks the better of two completions in both orders; decided pairs become
  ``{"prompt", "chosen", "rejected"}`` rows that :func:`rlenv.trainers.reward_models.train_reward_model`
  consumes (the RL-from-AI-feedback stage); undecided pairs (a tie or the orders disagree) and
  judge errors are left out and counted;
* :func:`constitution_judge` — a :class:`~rlenv.envs.judge.verifiers.RubricJudge` with one criterion per
  principle, for RL directly (``rlenv/ConstitutionJudge-v0``).

Model text (answers, critiques, revisions) goes into later prompts delimited and escaped like any candidate.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Sequence
from typing import Any

from rlenv.envs.judge.delimiting import delimit
from rlenv.envs.judge.model import JudgeModel
from rlenv.envs.judge.templates import PAIRWISE, JudgeTemplate
from rlenv.envs.judge.verifiers import Criterion, PairwiseJudge, RubricJudge
from rlenv.types import Status

logger = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Principle:
    """One principle: a criterion ``name`` and the principle's text."""

    name: str
    text: str


@dataclasses.dataclass(frozen=True)
class Constitution:
    """The principles an AI feedback model applies."""

    principles: tuple[Principle, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "principles", tuple(self.principles))
        names = [p.name for p in self.principles]
        if not names or len(set(names)) != len(names):
            raise ValueError(f"a constitution needs at least one principle and distinct names, got {names}")

    def listing(self) -> str:
        """The principles as a numbered list."""
        return "\n".join(f"{i}. {p.text}" for i, p in enumerate(self.principles, 1))


#: A small default constitution (harmlessness and helpfulness).
DEFAULT_CONSTITUTION = Constitution((
    Principle("helpful", "The answer addresses the request directly and usefully."),
    Principle("honest", "The answer does not state falsehoods or feign certainty."),
    Principle("harmless", "The answer does not help anyone cause harm and is not offensive."),
))

CRITIQUE = JudgeTemplate(
    system="You critique answers against a principle.",
    user="{question}\n\n{candidate}\n\nPrinciple: {principle}\n\nIdentify specific ways in which the answer "
         "falls short of the principle.",
)
REVISE = JudgeTemplate(
    system="You rewrite answers so that they follow a principle.",
    user="{question}\n\n{candidate}\n\n{critique}\n\nPrinciple: {principle}\n\nRewrite the answer so that it follows "
         "the principle and addresses the critique. Reply with the rewritten answer only.",
)


def critique_and_revise(policy: Callable[[list[Any]], Sequence[str]], reviser: JudgeModel, prompts: Sequence[str],
                        constitution: Constitution = DEFAULT_CONSTITUTION) -> list[dict[str, Any]]:
    """SFT rows from the policy's own answers, critiqued and revised once per principle.

    Args:
        policy: a completer ``prompts -> completions`` (e.g. :func:`rlenv.inference.make_completer`).
        reviser: the model that critiques and revises (often the policy itself, as a :class:`JudgeModel`).
        prompts: the prompts to answer.
        constitution: the principles, applied in order.

    Returns one row per prompt whose generation and revisions all succeeded: ``prompt``,
    ``completion`` (the final revision), ``original`` and ``steps`` (``principle``, ``critique``,
    ``revision`` of each round). Prompts with a failed request are left out, with a warning.
    """
    answers = list(policy(list(prompts)))
    current = [str(a) for a in answers]
    alive = [getattr(a, "error", None) is None for a in answers]
    steps: list[list[dict[str, str]]] = [[] for _ in prompts]
    for principle in constitution.principles:
        live = [i for i, ok in enumerate(alive) if ok]
        common = [{"question": delimit(prompts[i], "question"), "candidate": delimit(current[i], "candidate"),
                   "principle": principle.text} for i in live]
        critiques = reviser.ask([CRITIQUE.render(c, reviser.wants_chat) for c in common])
        revisions = reviser.ask([REVISE.render({**c, "critique": delimit(k.text, "critique")}, reviser.wants_chat)
                                 for c, k in zip(common, critiques, strict=True)])
        for i, critique, revision in zip(live, critiques, revisions, strict=True):
            if critique.error is not None or revision.error is not None or not revision.text.strip():
                alive[i] = False
                continue
            steps[i].append({"principle": principle.name, "critique": critique.text, "revision": revision.text})
            current[i] = revision.text
    dropped = alive.count(False)
    if dropped:
        logger.warning("critique_and_revise: %d of %d prompts left out (a request failed or a revision was empty)",
                       dropped, len(prompts))
    return [{"prompt": prompts[i], "completion": current[i], "original": str(answers[i]), "steps": steps[i]}
            for i in range(len(prompts)) if alive[i]]


def constitution_pairwise(judge: JudgeModel, constitution: Constitution = DEFAULT_CONSTITUTION) -> PairwiseJudge:
    """A pairwise judge whose prompt asks which candidate better follows the constitution."""
    template = JudgeTemplate(
        system=f"Decide which candidate answer better follows these principles:\n{constitution.listing()}",
        user=PAIRWISE.user,
    )
    return PairwiseJudge(judge, template=template)


def preference_labels(judge: PairwiseJudge, rows: Sequence[dict[str, str]]) -> tuple[list[dict[str, str]], dict[str, int]]:
    """AI preference rows from ``rows`` of ``prompt``, ``a``, ``b``: the decided pairs as
    ``{"prompt", "chosen", "rejected"}``, and counts ``{"decided", "undecided", "errors"}``."""
    results = judge.compare([(r["prompt"], r["a"], r["b"]) for r in rows])
    labels, counts = [], {"decided": 0, "undecided": 0, "errors": 0}
    for row, result in zip(rows, results, strict=True):
        if result.status is Status.ERROR:
            counts["errors"] += 1
        elif result.value in (0.0, 1.0):
            counts["decided"] += 1
            chosen, rejected = (row["a"], row["b"]) if result.value == 1.0 else (row["b"], row["a"])
            labels.append({"prompt": row["prompt"], "chosen": chosen, "rejected": rejected})
        else:
            counts["undecided"] += 1
    return labels, counts


def constitution_judge(judge: JudgeModel, constitution: Constitution = DEFAULT_CONSTITUTION,
                       scale: tuple[float, float] = (1, 10), pass_threshold: float = 0.5) -> RubricJudge:
    """A rubric judge scoring each principle of ``constitution`` (equal weights)."""
    return RubricJudge(judge, [Criterion(p.name, p.text) for p in constitution.principles], scale=scale,
                       pass_threshold=pass_threshold)

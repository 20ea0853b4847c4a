"""Judge verifiers: a score on a scale, a weighted rubric, a reference-guided score, a pairwise
comparison and a group ranking, each turning a :class:`~rlenv.envs.judge.model.JudgeModel`'s verdict
into a :class:`~rlenv.types.RewardResult`.

Every value reaching the judge is delimited and escaped (:mod:`rlenv.envs.judge.delimiting`).
Rewards lie in ``[0, 1]``; the status is ``correct`` when the reward reaches ``pass_threshold``.
A verdict that cannot be read is status ``error`` with ``details["kind"] == "judge_error"`` (and the
reply in ``details["reply"]``); a request that failed after its retries (timeouts included) is
status ``error`` with ``details["kind"] == "judge_unavailable"``. Both are masked from training by
the failure policies like any other ``error``. Each result's ``details["judge_usage"]`` counts the
requests and characters it cost (:func:`~rlenv.envs.judge.model.judge_usage` sums them).

The pairwise and ranking judges ask in both orders (position swap) and record whether the two
verdicts disagree (``details["position_disagreement"]``); a disagreement counts as a tie.
"""

from __future__ import annotations

import abc
import dataclasses
import functools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rlenv.envs.judge import templates
from rlenv.envs.judge.delimiting import delimit
from rlenv.envs.judge.model import JudgeModel, JudgeReply
from rlenv.envs.judge.parsing import (
    JudgeVerdictError,
    parse_choice,
    parse_criteria,
    parse_ranking,
    parse_score,
)
from rlenv.envs.judge.templates import JudgeTemplate
from rlenv.evaluation.results import USAGE_KEY
from rlenv.types import RewardResult, Status, Task

VERSION = "1"
#: ``details["kind"]`` of an unreadable verdict and of a failed judge request.
JUDGE_ERROR = "judge_error"
JUDGE_UNAVAILABLE = "judge_unavailable"


def _status(value: float, threshold: float) -> Status:
    return Status.CORRECT if value >= threshold else Status.INCORRECT


class _Judge(abc.ABC):
    """What every judge verifier shares: the judge, the scale, the template and the result's making."""

    name = "judge"
    version = VERSION
    placement = "cpu"
    kind = "score"
    needed: tuple[str, ...] = ()

    def __init__(self, judge: JudgeModel, template: JudgeTemplate, scale: tuple[float, float] = (1, 10),
                 pass_threshold: float = 0.5):
        low, high = scale
        if not low < high:
            raise ValueError(f"scale must be (low, high) with low < high, got {scale!r}")
        if not 0.0 <= pass_threshold <= 1.0:
            raise ValueError(f"pass_threshold must be in [0, 1], got {pass_threshold!r}")
        self.judge = judge
        self.template = template.require(self.needed, self.kind)
        self.low, self.high = float(low), float(high)
        self.pass_threshold = pass_threshold

    def manifest_facts(self) -> dict[str, Any]:
        """The judge's model, sampling and prompt, for run manifests."""
        return {"judge": {**self.judge.identity(), "scale": [self.low, self.high],
                          "template": dataclasses.asdict(self.template)}}

    def _render(self, values: Mapping[str, Any]) -> Any:
        return self.template.render({"low": f"{self.low:g}", "high": f"{self.high:g}", **values},
                                    self.judge.wants_chat)

    def _normalized(self, score: float) -> float:
        return (score - self.low) / (self.high - self.low)

    def _result(self, replies: Sequence[JudgeReply], read: Callable[[], tuple[float, dict[str, float], dict]]) -> RewardResult:
        """The result of a verdict spread over ``replies``: ``read()`` gives (value, components, details)."""
        usage = {key: sum(r.usage()[key] for r in replies) for key in replies[0].usage()}
        texts = [r.text for r in replies]
        failed = [r.error for r in replies if r.error is not None]
        common = {USAGE_KEY: usage, "reply": texts[0] if len(texts) == 1 else texts}
        if failed:
            return RewardResult(0.0, Status.ERROR, verifier=self.name, verifier_version=self.version,
                                details={**common, "kind": JUDGE_UNAVAILABLE, "error": failed[0]})
        try:
            value, components, details = read()
        except JudgeVerdictError as exc:
            return RewardResult(0.0, Status.ERROR, verifier=self.name, verifier_version=self.version,
                                details={**common, "kind": JUDGE_ERROR, "error": str(exc)})
        return RewardResult(value, _status(value, self.pass_threshold), components=components, verifier=self.name,
                            verifier_version=self.version, details={**common, **details})

    def __call__(self, task: Task, completion: str) -> RewardResult:
        return self.score_batch([task], [completion])[0]

    @abc.abstractmethod
    def score_batch(self, tasks: Sequence[Task], completions: Sequence[str]) -> list[RewardResult]:
        """One result per ``(tasks[i], completions[i])``, in order."""


class ScoreJudge(_Judge):
    """A single-answer score on ``scale``: reward ``(score - low) / (high - low)``, component ``score`` (raw).

    Args:
        judge: The judge model.
        scale: ``(low, high)`` of the scores the judge gives.
        template: The prompt (fields ``question``, ``candidate``, ``low``, ``high``); default :data:`templates.SCORE`.
        pass_threshold: The reward from which the status is ``correct``.
        length_correction: A :class:`LengthCorrection` of the judge's measured length bias (the
            uncorrected reward is kept in ``components["uncorrected"]``).
    """

    name = "judge_score"
    needed: tuple[str, ...] = ("question", "candidate")

    def __init__(self, judge: JudgeModel, scale: tuple[float, float] = (1, 10), template: JudgeTemplate | None = None,
                 pass_threshold: float = 0.5, length_correction: LengthCorrection | None = None):
        super().__init__(judge, template or self.default_template(), scale, pass_threshold)
        self.length_correction = length_correction

    @staticmethod
    def default_template() -> JudgeTemplate:
        return templates.SCORE

    def _values(self, task: Task, completion: str) -> dict[str, str]:
        return {"question": delimit(task.prompt, "question"), "candidate": delimit(completion, "candidate")}

    def prompt(self, task: Task, completion: str) -> Any:
        """The judge's prompt for ``completion`` of ``task``."""
        return self._render(self._values(task, completion))

    def score_batch(self, tasks: Sequence[Task], completions: Sequence[str]) -> list[RewardResult]:
        replies = self.judge.ask([self.prompt(t, c) for t, c in zip(tasks, completions, strict=True)])
        return [self._result([reply], functools.partial(self._read, reply.text, c))
                for reply, c in zip(replies, completions, strict=True)]

    def _read(self, text: str, completion: str) -> tuple[float, dict[str, float], dict]:
        score = parse_score(text, self.low, self.high)
        value = self._normalized(score)
        if self.length_correction is None:
            return value, {"score": score}, {}
        return self.length_correction(value, completion), {"score": score, "uncorrected": value}, {}


@dataclasses.dataclass(frozen=True)
class LengthCorrection:
    """Removes a judge's measured length bias from a normalized score:
    ``value - slope * log(len(completion) / pivot_chars)``, clipped to ``[0, 1]``.

    ``slope`` is the judge's normalized score gained per unit of log length, measured on
    completions of varied length (:func:`rlenv.envs.judge.calibration.length_slope`); ``pivot_chars``
    is the length left unchanged (e.g. the median completion length).
    """

    slope: float
    pivot_chars: float

    def __post_init__(self) -> None:
        if not self.pivot_chars > 0:
            raise ValueError(f"pivot_chars must be > 0, got {self.pivot_chars!r}")

    def __call__(self, value: float, completion: str) -> float:
        return min(1.0, max(0.0, value - self.slope * math.log(max(len(completion), 1) / self.pivot_chars)))


class ReferenceJudge(ScoreJudge):
    """A score guided by the task's reference answer (``task.reference``, shown to the judge as gold);
    template fields ``question``, ``reference``, ``candidate``; default :data:`templates.REFERENCE`."""

    name = "judge_reference"
    needed: tuple[str, ...] = ("question", "reference", "candidate")

    @staticmethod
    def default_template() -> JudgeTemplate:
        return templates.REFERENCE

    def _values(self, task: Task, completion: str) -> dict[str, str]:
        if task.reference is None:
            raise ValueError(f"task {task.id!r} has no reference answer for the reference-guided judge")
        return {**super()._values(task, completion), "reference": delimit(str(task.reference), "reference")}


@dataclasses.dataclass(frozen=True)
class Criterion:
    """One rubric criterion: its ``name`` (a key of the judge's JSON reply), what it asks and its weight."""

    name: str
    description: str
    weight: float = 1.0

    def __post_init__(self) -> None:
        if not self.name or not self.name.replace("_", "").isalnum():
            raise ValueError(f"a criterion name is letters, digits and '_', got {self.name!r}")
        if not self.weight > 0:
            raise ValueError(f"criterion {self.name!r}: weight must be > 0, got {self.weight!r}")


class RubricJudge(_Judge):
    """Each criterion scored on ``scale``; the reward is the weighted mean of the normalized scores.

    ``components`` holds each criterion's normalized score under its name. Template fields
    ``question``, ``candidate``, ``criteria``; default :data:`templates.RUBRIC`.
    """

    name = "judge_rubric"
    needed = ("question", "candidate", "criteria")

    def __init__(self, judge: JudgeModel, criteria: Sequence[Criterion], scale: tuple[float, float] = (1, 10),
                 template: JudgeTemplate | None = None, pass_threshold: float = 0.5):
        super().__init__(judge, template or templates.RUBRIC, scale, pass_threshold)
        self.criteria = tuple(criteria)
        names = [c.name for c in self.criteria]
        if not names or len(set(names)) != len(names):
            raise ValueError(f"a rubric needs at least one criterion and distinct names, got {names}")

    def criteria_block(self) -> str:
        """The rubric as shown to the judge."""
        lines = "\n".join(f"- {c.name} (weight {c.weight:g}): {c.description}" for c in self.criteria)
        return delimit(lines, "criteria")

    def prompt(self, task: Task, completion: str) -> Any:
        """The judge's prompt for ``completion`` of ``task``."""
        return self._render({"question": delimit(task.prompt, "question"), "candidate": delimit(completion, "candidate"),
                             "criteria": self.criteria_block()})

    def score_batch(self, tasks: Sequence[Task], completions: Sequence[str]) -> list[RewardResult]:
        prompts = [self.prompt(t, c) for t, c in zip(tasks, completions, strict=True)]
        return [self._result([reply], functools.partial(self._read, reply.text)) for reply in self.judge.ask(prompts)]

    def _read(self, text: str) -> tuple[float, dict[str, float], dict]:
        scores = parse_criteria(text, [c.name for c in self.criteria], self.low, self.high)
        normalized = {name: self._normalized(score) for name, score in scores.items()}
        total = sum(c.weight for c in self.criteria)
        value = sum(c.weight * normalized[c.name] for c in self.criteria) / total
        return value, normalized, {"scores": scores}


def _swap_verdict(first: str, second: str) -> tuple[float, bool]:
    """The candidate's reward from the verdicts with it as A (``first``) and as B (``second``), and
    whether the two orders disagree. Win 1, tie 0.5, loss 0; a disagreement is a tie."""
    as_a = {"A": 1.0, "B": 0.0, "tie": 0.5}[first]
    as_b = {"B": 1.0, "A": 0.0, "tie": 0.5}[second]
    return (as_a, False) if as_a == as_b else (0.5, True)


class PairwiseJudge(_Judge):
    """The candidate against a baseline answer of the same prompt, asked in both orders.

    The baseline is ``task.metadata[baseline_field]`` (e.g. a reference policy's answer), else
    ``task.reference``. Reward 1 (both orders prefer the candidate), 0 (both prefer the baseline)
    or 0.5 (a tie, or the orders disagree: ``details["position_disagreement"]``). Template fields
    ``question``, ``candidate_a``, ``candidate_b``; default :data:`templates.PAIRWISE`.
    """

    name = "judge_pairwise"
    needed = ("question", "candidate_a", "candidate_b")
    kind = "pairwise"

    def __init__(self, judge: JudgeModel, template: JudgeTemplate | None = None, baseline_field: str = "baseline",
                 pass_threshold: float = 0.75):
        super().__init__(judge, template or templates.PAIRWISE, (0, 1), pass_threshold)
        self.baseline_field = baseline_field

    def _baseline(self, task: Task) -> str:
        baseline = task.metadata.get(self.baseline_field, task.reference)
        if not isinstance(baseline, str):
            raise ValueError(f"task {task.id!r} has no baseline answer (metadata[{self.baseline_field!r}] or "
                             f"reference) for the pairwise judge, got {baseline!r:.80}")
        return baseline

    def pair_prompt(self, question: str, a: str, b: str) -> Any:
        """The judge's prompt comparing ``a`` (shown first) with ``b``."""
        return self._render({"question": delimit(question, "question"), "candidate_a": delimit(a, "candidate_A"),
                             "candidate_b": delimit(b, "candidate_B")})

    def compare(self, pairs: Sequence[tuple[str, str, str]]) -> list[RewardResult]:
        """For each ``(question, first, second)``: the reward of ``first`` against ``second`` (both orders asked)."""
        prompts = [p for q, a, b in pairs for p in (self.pair_prompt(q, a, b), self.pair_prompt(q, b, a))]
        replies = self.judge.ask(prompts)
        return [self._result(replies[i : i + 2], functools.partial(self._read, replies[i].text, replies[i + 1].text))
                for i in range(0, len(replies), 2)]

    def _read(self, first: str, second: str) -> tuple[float, dict[str, float], dict]:
        verdicts = (parse_choice(first, ("A", "B", "tie")), parse_choice(second, ("A", "B", "tie")))
        value, disagree = _swap_verdict(*verdicts)
        return value, {"win": value}, {"verdicts": list(verdicts), "position_disagreement": disagree}

    def score_batch(self, tasks: Sequence[Task], completions: Sequence[str]) -> list[RewardResult]:
        return self.compare([(t.prompt, c, self._baseline(t)) for t, c in zip(tasks, completions, strict=True)])


def rank_rewards(orders: Sequence[Sequence[int]], size: int) -> list[float]:
    """Rewards of ``size`` candidates from rankings (each a list of candidate indices, best first):
    ``1 - mean_rank / (size - 1)``, so the best gets 1 and the worst 0 when the rankings agree."""
    ranks = [0.0] * size
    for order in orders:
        for rank, index in enumerate(order):
            ranks[index] += rank / len(orders)
    return [1.0 - rank / (size - 1) for rank in ranks]


class RankingJudge(_Judge):
    """The G completions of one prompt ranked together; rewards from ranks (:func:`rank_rewards`), for GRPO.

    ``score_batch`` groups completions by task id; each group is ranked twice, the second time with
    the candidates in reverse order, and the reward averages the two ranks. ``details["rank"]``,
    ``details["position_disagreement"]`` (the two rankings differ) and ``components["rank_reward"]``
    say what the judge did. A group of one completion cannot be ranked: status ``error``. Template
    fields ``question``, ``candidates``; default :data:`templates.RANKING`.
    """

    name = "judge_ranking"
    needed = ("question", "candidates")
    kind = "ranking"
    whole_groups = True

    def __init__(self, judge: JudgeModel, template: JudgeTemplate | None = None, pass_threshold: float = 0.5,
                 max_group: int = 26):
        super().__init__(judge, template or templates.RANKING, (0, 1), pass_threshold)
        if not 2 <= max_group <= 26:
            raise ValueError(f"max_group must be in [2, 26] (candidates are lettered A-Z), got {max_group}")
        self.max_group = max_group

    def ranking_prompt(self, question: str, texts: Sequence[str], order: Sequence[int]) -> Any:
        """The judge's prompt showing ``texts`` in ``order`` (indices), lettered A, B, ..."""
        letters = [chr(ord("A") + i) for i in range(len(order))]
        block = "\n\n".join(delimit(texts[index], f"candidate_{letter}") for letter, index in zip(letters, order))
        return self._render({"question": delimit(question, "question"), "candidates": block})

    def score_batch(self, tasks: Sequence[Task], completions: Sequence[str]) -> list[RewardResult]:
        groups: dict[str, list[int]] = {}
        for i, task in enumerate(tasks):
            groups.setdefault(task.id, []).append(i)
        results: list[RewardResult | None] = [None] * len(tasks)
        plans, prompts = [], []
        for members in groups.values():
            if not 2 <= len(members) <= self.max_group:
                for i in members:
                    results[i] = RewardResult.error(
                        f"a ranking needs 2 to {self.max_group} completions of one prompt, got {len(members)}",
                        self.name, self.version)
                continue
            texts = [completions[i] for i in members]
            forward, backward = list(range(len(texts))), list(reversed(range(len(texts))))
            plans.append((members, forward, backward))
            prompts += [self.ranking_prompt(tasks[members[0]].prompt, texts, o) for o in (forward, backward)]
        replies = self.judge.ask(prompts)
        for n, (members, forward, backward) in enumerate(plans):
            pair = replies[2 * n : 2 * n + 2]
            group = self._result(pair, functools.partial(self._read, pair, forward, backward))
            for position, i in enumerate(members):
                results[i] = self._member(group, position)
        return [r for r in results if r is not None]

    def _read(self, pair: Sequence[JudgeReply], forward: list[int], backward: list[int]) -> tuple[float, dict, dict]:
        letters = [chr(ord("A") + i) for i in range(len(forward))]
        orders = []
        for reply, shown in zip(pair, (forward, backward), strict=True):
            ranking = parse_ranking(reply.text, letters)
            orders.append([shown[letters.index(letter)] for letter in ranking])
        rewards = rank_rewards(orders, len(forward))
        return 0.0, {}, {"rewards": rewards, "orders": orders, "position_disagreement": orders[0] != orders[1]}


    def _member(self, group: RewardResult, position: int) -> RewardResult:
        """The result of the ``position``-th completion of a ranked group (the group's judge usage is
        counted on its first member only)."""
        details = dict(group.details)
        if position:
            details[USAGE_KEY] = {key: 0 for key in details[USAGE_KEY]}
        if group.status is Status.ERROR:
            return dataclasses.replace(group, details=details)
        value = details.pop("rewards")[position]
        details["rank"] = [order.index(position) for order in details["orders"]]
        return dataclasses.replace(group, value=value, status=_status(value, self.pass_threshold),
                                   components={"rank_reward": value}, details=details)

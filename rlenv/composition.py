"""Composing verifiers: a weighted sum of rewards and a gate that pays one reward only when a condition holds.

A composite is itself a verifier. Every component's value appears in ``RewardResult.components``
(nested composites are flattened as ``"outer.inner"``), every component's status and details in
``details["components"]``, so a total reward never hides where it came from.

Each distinct verifier object in a composite tree runs once per completion, even when it appears
in several places (e.g. correctness both as a reward term and as a gate condition). When some leaf
defines ``score_batch`` (a reward model), the composite defines ``score_batch`` too: every leaf
scores the whole batch in one call, so batched forward passes survive composition.

Example::

    from rlenv.composition import Gate, WeightedSum
    reward = WeightedSum({"correct": (math_verifier, 1.0),
                          "format": (Gate(format_verifier, condition=math_verifier), 0.1)},
                         status_from="correct")
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rlenv.scoring import node_problems, score_tasks, verifier_identity, verifier_placement, verify_safely
from rlenv.types import RewardResult, Status, StepReward, Task, Verifier

#: Statuses that mean the verifier failed (as opposed to judging the completion).
FAILURE_STATUSES = (Status.ERROR, Status.TIMEOUT)

Lookup = Callable[[Any], RewardResult]


class Composite:
    """Base of verifiers built from other verifiers; subclasses implement :meth:`children` and :meth:`combine`."""

    name = "composite"
    version = "1"

    def children(self) -> list[Any]:
        """The direct sub-verifiers."""
        raise NotImplementedError

    def combine(self, lookup: Lookup) -> RewardResult:
        """Build this composite's result; ``lookup(child)`` gives each child's result."""
        raise NotImplementedError

    def leaves(self) -> list[Any]:
        """The distinct non-composite verifiers of the tree, in first-seen order (deduplicated by identity)."""
        seen: dict[int, Any] = {}
        stack = list(reversed(self.children()))
        while stack:
            node = stack.pop()
            if isinstance(node, Composite):
                stack.extend(reversed(node.children()))
            else:
                seen.setdefault(id(node), node)
        return list(seen.values())

    @property
    def placement(self) -> str:
        """Where the composite must run: ``"docker"`` when a leaf needs Docker, else ``"model"`` when a
        leaf holds a model, else ``"cpu"`` (see :func:`rlenv.scoring.verifier_placement`)."""
        needs = {verifier_placement(leaf) for leaf in self.leaves()}
        return next((p for p in ("docker", "model") if p in needs), "cpu")

    def node_problems(self) -> list[str]:
        """What keeps this machine from running some leaf (see :func:`rlenv.scoring.node_problems`)."""
        return [problem for leaf in self.leaves() for problem in node_problems(leaf)]

    def __call__(self, task: Task, completion: str) -> RewardResult:
        results = {id(leaf): verify_safely(leaf, task, completion) for leaf in self.leaves()}
        return self.combine(_lookup_in(results))

    @property
    def score_batch(self) -> Callable[[Sequence[Task], Sequence[str]], list[RewardResult]]:
        """Score a batch leaf by leaf; present only when some leaf has its own ``score_batch``.

        Leaves without ``score_batch`` are scored on a thread pool (see :func:`rlenv.scoring.score_tasks`).
        """
        if not any(hasattr(leaf, "score_batch") for leaf in self.leaves()):
            raise AttributeError(f"{type(self).__name__} has no batched leaf, so no score_batch")
        return self._score_batch

    def _score_batch(self, tasks: Sequence[Task], completions: Sequence[str]) -> list[RewardResult]:
        per_leaf = {id(leaf): score_tasks(leaf, tasks, completions, executor="thread") for leaf in self.leaves()}
        return [self.combine(_lookup_in({key: results[i] for key, results in per_leaf.items()}))
                for i in range(len(tasks))]

    def resolve(self, child: Any, lookup: Lookup) -> RewardResult:
        """The result of ``child``: combined when it is a composite, looked up when it is a leaf."""
        return child.combine(lookup) if isinstance(child, Composite) else lookup(child)


def _lookup_in(results: Mapping[int, RewardResult]) -> Lookup:
    return lambda verifier: results[id(verifier)]


def _check_name(name: Any) -> str:
    if not isinstance(name, str) or not name or "." in name:
        raise ValueError(f"component names must be non-empty strings without '.', got {name!r}")
    return name


def flatten_components(named: Mapping[str, RewardResult]) -> dict[str, float]:
    """``{name: value}`` plus each result's own components as ``"name.sub"``."""
    out: dict[str, float] = {}
    for name, result in named.items():
        out[name] = result.value
        for sub, value in result.components.items():
            if sub != name:
                out[f"{name}.{sub}"] = float(value)
    return out


def component_details(named: Mapping[str, RewardResult]) -> dict[str, dict[str, Any]]:
    """Per-component status, verifier identity and details, for ``RewardResult.details``."""
    return {name: {"value": r.value, "status": r.status.value, "verifier": r.verifier,
                   "verifier_version": r.verifier_version, "details": dict(r.details)}
            for name, r in named.items()}


def failure_status(results: Sequence[RewardResult]) -> Status | None:
    """``error`` if any result errored, else ``timeout`` if any timed out, else None."""
    for status in FAILURE_STATUSES:
        if any(r.status is status for r in results):
            return status
    return None


def _scaled_steps(steps: Sequence[StepReward] | None, scale: float) -> list[StepReward]:
    return [StepReward(s.value * scale, s.start, s.end) for s in steps or ()]


class WeightedSum(Composite):
    """``value = sum(weight_i * value_i)`` over named verifiers.

    Args:
        terms: ``{name: (verifier, weight)}``; names must not contain ``"."``.
        status_from: ``"all"`` (default): status ``correct`` only when every term is correct, else
            the first non-correct term's status; or a term name whose status the sum reports.
            Either way, a term that errored or timed out makes the status ``error`` / ``timeout``.

    ``components`` holds each term's unweighted value (and its own components as
    ``"name.sub"``); ``details["weights"]`` the weights. ``step_rewards`` of the terms are scaled
    by their weights and merged (values on identical ``(start, end)`` spans are added).
    """

    def __init__(self, terms: Mapping[str, tuple[Verifier, float]], status_from: str = "all"):
        if not isinstance(terms, Mapping) or not terms:
            raise ValueError(f"terms must be a non-empty mapping {{name: (verifier, weight)}}, got {terms!r}")
        self.terms: dict[str, tuple[Any, float]] = {}
        for name, term in terms.items():
            if not (isinstance(term, tuple) and len(term) == 2 and callable(term[0])):
                raise ValueError(f"term {name!r} must be a (verifier, weight) pair, got {term!r}")
            verifier, weight = term
            if isinstance(weight, bool) or not isinstance(weight, (int, float)):
                raise TypeError(f"weight of term {name!r} must be a number, got {weight!r}")
            self.terms[_check_name(name)] = (verifier, float(weight))
        if status_from != "all" and status_from not in self.terms:
            raise ValueError(f"status_from must be 'all' or one of {list(self.terms)}, got {status_from!r}")
        self.status_from = status_from
        self.name = "weighted_sum(" + ",".join(self.terms) + ")"
        self.version = "1(" + ",".join(f"{n}={verifier_identity(v)[1]}" for n, (v, _) in self.terms.items()) + ")"

    def children(self) -> list[Any]:
        return [verifier for verifier, _ in self.terms.values()]

    def combine(self, lookup: Lookup) -> RewardResult:
        named = {name: self.resolve(verifier, lookup) for name, (verifier, _) in self.terms.items()}
        value = sum(weight * named[name].value for name, (_, weight) in self.terms.items())
        status = failure_status(list(named.values()))
        if status is None and self.status_from != "all":
            status = named[self.status_from].status
        if status is None:
            status = next((r.status for r in named.values() if r.status is not Status.CORRECT), Status.CORRECT)
        return RewardResult(value, status, flatten_components(named), self._merged_steps(named),
                            self.name, self.version,
                            {"weights": {n: w for n, (_, w) in self.terms.items()},
                             "components": component_details(named)})

    def _merged_steps(self, named: Mapping[str, RewardResult]) -> tuple[StepReward, ...] | None:
        if all(r.step_rewards is None for r in named.values()):
            return None
        spans: dict[tuple[int, int], float] = {}
        for name, (_, weight) in self.terms.items():
            for step in _scaled_steps(named[name].step_rewards, weight):
                spans[(step.start, step.end)] = spans.get((step.start, step.end), 0.0) + step.value
        return tuple(StepReward(v, s, e) for (s, e), v in sorted(spans.items(), key=lambda kv: (kv[0][1], kv[0][0])))


class Gate(Composite):
    """Pay ``reward`` only when ``condition`` holds; otherwise pay ``closed_value``.

    Use it both ways: format credit only when the content is right
    (``Gate(format_verifier, condition=correctness)``), or correctness only when the format holds
    (``Gate(correctness, condition=format_verifier)``).

    Args:
        reward: The verifier whose value is paid when the gate is open.
        condition: The verifier that opens the gate.
        threshold: None (default): open when the condition's status is ``correct``; a number:
            open when the condition's value is ``>= threshold``.
        closed_value: The value paid when the gate is closed.
        reward_name, condition_name: Component names.

    Status: ``error``/``timeout`` when either side failed; when open, the reward's status; when
    closed, the condition's status (``incorrect`` if the condition was ``correct`` but below
    ``threshold``). ``components`` has both values and ``gate_open`` (1.0 or 0.0). When closed,
    the reward's ``step_rewards`` keep their offsets with value 0.0.
    """

    def __init__(
        self,
        reward: Verifier,
        condition: Verifier,
        *,
        threshold: float | None = None,
        closed_value: float = 0.0,
        reward_name: str = "reward",
        condition_name: str = "condition",
    ):
        if not callable(reward) or not callable(condition):
            raise TypeError(f"reward and condition must be verifiers, got {reward!r} and {condition!r}")
        if _check_name(reward_name) == _check_name(condition_name) or "gate_open" in (reward_name, condition_name):
            raise ValueError(f"reward_name and condition_name must differ and not be 'gate_open', "
                             f"got {reward_name!r} and {condition_name!r}")
        self.reward, self.condition = reward, condition
        self.threshold = None if threshold is None else float(threshold)
        self.closed_value = float(closed_value)
        self.reward_name, self.condition_name = reward_name, condition_name
        self.name = f"gate({reward_name}|{condition_name})"
        self.version = f"1({reward_name}={verifier_identity(reward)[1]},{condition_name}={verifier_identity(condition)[1]})"

    def children(self) -> list[Any]:
        return [self.reward, self.condition]

    def is_open(self, condition: RewardResult) -> bool:
        """Whether ``condition`` (the condition verifier's result) opens the gate."""
        if condition.status in FAILURE_STATUSES:
            return False
        if self.threshold is None:
            return condition.status is Status.CORRECT
        return condition.value >= self.threshold

    def combine(self, lookup: Lookup) -> RewardResult:
        reward = self.resolve(self.reward, lookup)
        condition = self.resolve(self.condition, lookup)
        named = {self.reward_name: reward, self.condition_name: condition}
        components = flatten_components(named)
        is_open = self.is_open(condition)
        components["gate_open"] = float(is_open)
        status = failure_status([reward, condition])
        if status is None:
            if is_open:
                status = reward.status
            else:
                status = Status.INCORRECT if condition.status is Status.CORRECT else condition.status
        steps = (reward.step_rewards if is_open or reward.step_rewards is None
                 else tuple(_scaled_steps(reward.step_rewards, 0.0)))
        return RewardResult(reward.value if is_open else self.closed_value, status, components, steps,
                            self.name, self.version,
                            {"gate_open": is_open, "threshold": self.threshold, "components": component_details(named)})

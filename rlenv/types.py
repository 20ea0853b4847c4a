"""Core value types of an episode: the task, the reward result and the verifier protocol.

An episode is ``prompt -> completion -> reward``. A :class:`Task` carries the prompt and the
hidden reference data the verifier needs; a verifier turns ``(task, completion)`` into a
:class:`RewardResult`, which always says *why* it paid what it paid (its ``status``).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable


class Status(str, enum.Enum):
    """Why a verifier paid what it paid. A reward is never a silent 0.0."""

    CORRECT = "correct"
    INCORRECT = "incorrect"
    UNPARSABLE = "unparsable"
    TIMEOUT = "timeout"
    ERROR = "error"

    def __str__(self) -> str:
        return self.value


@dataclasses.dataclass(frozen=True)
class Task:
    """One problem an environment can pose.

    Attributes:
        id: Stable identifier, unique within its source (compared as a string).
        prompt: The text shown to the policy (before any prompt formatting).
        reference: Hidden data the verifier checks against (an answer, tests, ...). Never shown
            in observations or infos.
        gold_completion: A completion known to be correct, when the source has one; used by
            :func:`rlenv.check_env` and by gold-scoring benchmarks.
        metadata: Any other fields (subject, level, ...); visible in ``info["metadata"]``.
    """

    id: str
    prompt: str
    reference: Any = None
    gold_completion: str | None = None
    metadata: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.prompt, str):
            raise TypeError(f"Task.prompt must be a str, got {type(self.prompt).__name__}: {self.prompt!r:.80}")
        object.__setattr__(self, "id", str(self.id))


@dataclasses.dataclass(frozen=True)
class StepReward:
    """A reward for one reasoning step, located by character offsets in the completion.

    ``completion[start:end]`` is the step's text; trainers place ``value`` on the token that
    covers character ``end - 1``.
    """

    value: float
    start: int
    end: int

    def __post_init__(self) -> None:
        if not 0 <= self.start <= self.end:
            raise ValueError(f"StepReward offsets must satisfy 0 <= start <= end, got start={self.start} end={self.end}")


@dataclasses.dataclass(frozen=True)
class RewardResult:
    """The outcome of verifying one completion.

    Attributes:
        value: The scalar reward.
        status: One of :class:`Status`; errors and timeouts are reported apart from wrong answers.
        components: Named sub-rewards (e.g. ``{"format": 1.0, "correct": 0.0}``).
        step_rewards: Optional dense rewards with character offsets (process reward models).
        verifier: Name of the verifier that produced the result.
        verifier_version: Version string of that verifier; bump it when its semantics change.
        details: Free-form evidence (extracted answer, per-test results, error text, ...).
    """

    value: float
    status: Status
    components: Mapping[str, float] = dataclasses.field(default_factory=dict)
    step_rewards: tuple[StepReward, ...] | None = None
    verifier: str = ""
    verifier_version: str = ""
    details: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "status", Status(self.status))
        except ValueError:
            raise ValueError(
                f"RewardResult.status must be one of {[s.value for s in Status]}, got {self.status!r}"
            ) from None
        object.__setattr__(self, "value", float(self.value))
        if self.step_rewards is not None:
            object.__setattr__(self, "step_rewards", tuple(self.step_rewards))

    @property
    def correct(self) -> bool:
        """True when the status is ``correct``."""
        return self.status is Status.CORRECT

    @classmethod
    def error(cls, exc: BaseException | str, verifier: str = "", verifier_version: str = "") -> RewardResult:
        """A zero-valued result with status ``error`` carrying the exception text."""
        text = exc if isinstance(exc, str) else f"{type(exc).__name__}: {exc}"
        return cls(0.0, Status.ERROR, verifier=verifier, verifier_version=verifier_version, details={"error": text})

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serializable dict (inverse of :meth:`from_dict`)."""
        out = dataclasses.asdict(self)
        out["status"] = self.status.value
        out["components"] = dict(self.components)
        out["details"] = dict(self.details)
        if self.step_rewards is not None:
            out["step_rewards"] = [dataclasses.asdict(s) for s in self.step_rewards]
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RewardResult:
        """Rebuild a result written by :meth:`to_dict`."""
        fields = dict(data)
        steps = fields.get("step_rewards")
        if steps is not None:
            fields["step_rewards"] = tuple(StepReward(**s) for s in steps)
        return cls(**fields)


@runtime_checkable
class Verifier(Protocol):
    """Turns ``(task, completion)`` into a :class:`RewardResult`.

    A verifier must be pure (no hidden state that changes results) and picklable, so it can run
    in a process pool, in a TRL reward function or offline. It should expose ``name`` and
    ``version`` attributes. A verifier may also define
    ``score_batch(tasks, completions) -> list[RewardResult]`` (e.g. a reward model that batches
    forward passes); vector envs and :func:`rlenv.score` use it when present. A ``placement``
    attribute (``"cpu"``, the default, ``"docker"`` or ``"model"``; see
    :data:`rlenv.scoring.PLACEMENTS`) tells distributed executors where it can run. A true
    ``whole_groups`` attribute says that ``score_batch`` scores the completions of one task together
    (a ranking judge): distributed executors then keep a task's completions in one call. A
    ``manifest_facts() -> dict`` method adds what it returns (e.g. a judge's model and sampling) to
    the verifier's entry of run manifests.
    """

    name: str
    version: str

    def __call__(self, task: Task, completion: str) -> RewardResult: ...


class Completion(str):
    """A completion string that also says whether generation was cut at a length limit, or failed.

    ``env.step(Completion(text, truncated=True))`` returns ``truncated=True``; a plain ``str``
    means the completion ended on its own. ``error`` (with empty text) says that generation
    itself failed (e.g. an inference server kept answering 5xx): evaluation records such a
    sample as status ``error`` without verifying it. ``tool_calls`` carries an OpenAI-compatible
    server's structured tool calls (``message.tool_calls``, as dicts) for multi-turn tool envs.
    ``usage`` carries the server's token counts of the request that produced it
    (``prompt_tokens``, ``completion_tokens``), on the first completion of a request only, so that
    sums count each request once.
    """

    truncated: bool
    error: str | None
    tool_calls: tuple[dict[str, Any], ...] | None
    usage: dict[str, int] | None

    def __new__(cls, text: str, truncated: bool = False, error: str | None = None,
                tool_calls: Any = None, usage: Mapping[str, int] | None = None) -> Completion:
        if not isinstance(text, str):
            raise TypeError(f"Completion text must be a str, got {type(text).__name__}")
        obj = super().__new__(cls, text)
        obj.truncated = bool(truncated)
        obj.error = None if error is None else str(error)
        obj.tool_calls = None if tool_calls is None else tuple(tool_calls)
        obj.usage = None if usage is None else {key: int(value) for key, value in usage.items()}
        return obj

    @classmethod
    def failed(cls, error: str) -> Completion:
        """A generation that produced nothing because of ``error``."""
        return cls("", error=error)

    def __reduce__(self):  # keep the flags across pickling (process pools)
        return (Completion, (str(self), self.truncated, self.error, self.tool_calls, self.usage))

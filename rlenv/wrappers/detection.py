"""The common shape of a reward-hack detector: a :class:`Detection` and the wrapper that records it.

Every detector family (length, format, hedging, repetition, echo, code tampering) is a pure
function returning a :class:`Detection`, plus a :class:`DetectorWrapper` subclass that runs it on
each finished episode. The wrapper never hides the verifier's score:

* ``info["reward"]`` (the verifier's :class:`~rlenv.types.RewardResult`) is left untouched;
* ``info["raw_reward"]`` is set to the verifier's own value by the first wrapper in the chain and
  never overwritten;
* ``info["hacks"]`` is a list with one record per detector that fired, in wrapping order
  (innermost first): ``{"detector", "kind", "score", "evidence", "penalty"}``. It exists (empty)
  after any detector wrapper ran, so consumers can rely on the key.

When a detector fires, the wrapper adds ``penalty * score`` to the reward (``penalty`` is 0.0 by
default for the flag-only detectors, so they change nothing but ``info``).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import gymnasium

from rlenv.types import RewardResult, Task
from rlenv.wrappers.base import RewardWrapper


@dataclasses.dataclass(frozen=True)
class Detection:
    """What one detector found in one completion.

    Attributes:
        detector: The detector's name (e.g. ``"answer_hedging"``).
        fired: Whether the evidence crosses the detector's threshold.
        score: Strength of the evidence in ``[0, 1]`` (1 for categorical findings). When the
            detector fires, its wrapper adds ``penalty * score`` to the reward.
        kind: The specific pattern found (e.g. ``"empty_answer"``), ``""`` when nothing fired.
        evidence: A short human-readable account of what was found (quotes are truncated).
    """

    detector: str
    fired: bool
    score: float = 0.0
    kind: str = ""
    evidence: str = ""

    def __post_init__(self) -> None:
        if not (math.isfinite(self.score) and 0.0 <= self.score <= 1.0):
            raise ValueError(f"Detection.score must be a finite number in [0, 1], got {self.score!r}")

    @classmethod
    def clean(cls, detector: str, score: float = 0.0, evidence: str = "") -> Detection:
        """A detection that did not fire."""
        return cls(detector, False, score, "", evidence)

    def record(self, penalty: float) -> dict[str, Any]:
        """The ``info["hacks"]`` entry for this detection with ``penalty`` actually applied."""
        return {"detector": self.detector, "kind": self.kind, "score": self.score,
                "evidence": self.evidence, "penalty": penalty}


def shorten(text: str, limit: int = 80) -> str:
    """``text`` with whitespace collapsed, cut to at most ``limit`` characters (ending in ``...``)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def quote(text: str, limit: int = 80) -> str:
    """``repr`` of :func:`shorten` ``(text, limit)``, for quoting completions in evidence strings."""
    return repr(shorten(text, limit))


def with_hack_fields(info: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``info`` with ``raw_reward`` (the verifier's value) and a fresh ``hacks`` list."""
    result = info.get("reward")
    if not isinstance(result, RewardResult):
        raise TypeError(
            f"info['reward'] must be the verifier's RewardResult, got {type(result).__name__}: "
            "reward wrappers need a rlenv TextEnv underneath"
        )
    out = dict(info)
    out.setdefault("raw_reward", result.value)
    out["hacks"] = list(info.get("hacks", ()))
    return out


class DetectorWrapper(RewardWrapper):
    """A reward wrapper that runs one detector per episode and records what it found.

    Subclasses set :attr:`name` and implement :meth:`detect`. ``penalty`` (usually <= 0) is
    scaled by the detection's score and added to the reward when the detector fires.
    """

    name: str = ""

    def __init__(self, env: gymnasium.Env, penalty: float = 0.0):
        super().__init__(env)
        if not isinstance(penalty, (int, float)) or not math.isfinite(penalty):
            raise ValueError(f"penalty must be a finite number, got {penalty!r}")
        self.penalty = float(penalty)

    def detect(self, task: Task, completion: str, result: RewardResult, truncated: bool) -> Detection:
        """Run the detector on one finished episode."""
        raise NotImplementedError

    def transform(
        self, task: Task, completion: str, reward: float, truncated: bool, info: dict[str, Any]
    ) -> tuple[float, dict[str, Any]]:
        info = with_hack_fields(info)
        detection = self.detect(task, completion, info["reward"], truncated)
        if detection.fired:
            applied = self.penalty * detection.score
            reward = reward + applied
            info["hacks"].append(detection.record(applied))
        return reward, info

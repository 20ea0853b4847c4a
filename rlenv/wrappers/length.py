"""Length gaming: overlong shaping (DAPO), a truncation flag and a cosine length reward.

Formulas, with ``|y|`` the completion length in the unit chosen by
``length_fn`` (characters by default; pass :func:`token_length` to count tokens):

* DAPO soft overlong punishment (Yu et al. 2025, Eq. 13), added to the task reward::

      R_len(y) = 0                                   if |y| <= L_max - L_cache
               = ((L_max - L_cache) - |y|) / L_cache  if L_max - L_cache < |y| <= L_max
               = -1                                   if |y| > L_max

* Cosine length reward (Yeo et al. 2025, App. C.1), with the progress clipped to ``[0, 1]``
  (unclipped, lengths past ``L_max`` earn more again — open-r1 #312)::

      r = v_min + (v_max - v_min) * (1 + cos(pi * min(|y|, L_max) / L_max)) / 2

  with ``(v_min, v_max) = (0.5, 1.0)`` when correct and ``(-0.5, -1.0)`` when wrong.
* Kimi k1.5 group length reward (Kimi Team 2025): ``lam_i = 0.5 - (len_i - min) / (max - min)``;
  correct -> ``lam_i``, wrong -> ``min(0, lam_i)``; all zeros when every length is equal.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np

from rlenv.types import RewardResult, Task
from rlenv.wrappers.base import RewardWrapper
from rlenv.wrappers.detection import Detection, DetectorWrapper, with_hack_fields

LengthFn = Callable[[str], int]


def token_length(tokenizer: Any) -> LengthFn:
    """A ``length_fn`` counting tokens with a Hugging Face tokenizer (no special tokens added)."""
    if not callable(getattr(tokenizer, "encode", None)):
        raise TypeError(f"tokenizer must have an encode(text) method, got {type(tokenizer).__name__}")

    def count(text: str) -> int:
        return len(tokenizer.encode(text, add_special_tokens=False))

    return count


def soft_overlong_penalty(length: int, max_len: int, buffer: int) -> float:
    """DAPO's soft overlong punishment ``R_len`` in ``[-1, 0]`` for a completion of ``length`` units.

    Args:
        length: Completion length ``|y|`` (>= 0).
        max_len: ``L_max``, the hard length limit.
        buffer: ``L_cache``, the width of the linearly penalized zone before ``L_max``
            (``0 <= buffer <= max_len``; 0 gives a hard -1 past ``L_max``).
    """
    if max_len <= 0 or not 0 <= buffer <= max_len:
        raise ValueError(f"need max_len > 0 and 0 <= buffer <= max_len, got max_len={max_len} buffer={buffer}")
    if length < 0:
        raise ValueError(f"length must be >= 0, got {length}")
    if length <= max_len - buffer:
        return 0.0
    if length <= max_len:
        return ((max_len - buffer) - length) / buffer
    return -1.0


def cosine_length_reward(
    length: int,
    correct: bool,
    max_len: int,
    min_value_correct: float = 0.5,
    max_value_correct: float = 1.0,
    min_value_wrong: float = -1.0,
    max_value_wrong: float = -0.5,
) -> float:
    """Yeo et al.'s cosine-scaled correctness reward with the progress clipped at ``max_len``.

    Short correct answers earn ``max_value_correct``, long ones ``min_value_correct``; short
    wrong answers earn ``min_value_wrong``, long ones ``max_value_wrong`` (so a long wrong answer
    is penalized less). Lengths past ``max_len`` score as ``max_len``.
    """
    if max_len <= 0:
        raise ValueError(f"max_len must be positive, got {max_len}")
    if length < 0:
        raise ValueError(f"length must be >= 0, got {length}")
    progress = min(length, max_len) / max_len
    if correct:
        v_min, v_max = min_value_correct, max_value_correct
    else:
        v_min, v_max = max_value_wrong, min_value_wrong
    return v_min + 0.5 * (v_max - v_min) * (1.0 + math.cos(math.pi * progress))


def kimi_length_reward(lengths: Sequence[float], correct: Sequence[bool]) -> np.ndarray:
    """Kimi k1.5 length reward for one group of completions of the same prompt, shape ``(G,)``."""
    lengths_arr = np.asarray(lengths, dtype=float)
    correct_arr = np.asarray(correct, dtype=bool)
    if lengths_arr.shape != correct_arr.shape or lengths_arr.ndim != 1:
        raise ValueError(f"lengths and correct must be 1-D of equal size, got {lengths_arr.shape} and {correct_arr.shape}")
    if lengths_arr.size == 0:
        return lengths_arr
    low, high = lengths_arr.min(), lengths_arr.max()
    if high == low:
        return np.zeros_like(lengths_arr)
    lam = 0.5 - (lengths_arr - low) / (high - low)
    return np.where(correct_arr, lam, np.minimum(0.0, lam))


class OverlongPenalty(DetectorWrapper):
    """DAPO soft overlong punishment: adds ``penalty * R_len`` scaled to ``[0, 1]``.

    Args:
        env: The environment to wrap.
        max_len: ``L_max`` in ``length_fn`` units.
        buffer: ``L_cache``: penalties start at ``max_len - buffer``.
        penalty: The reward added at ``|y| >= L_max`` (DAPO: ``-1.0``, its ``penalty_factor``).
        length_fn: Completion length; ``len`` (characters) by default, :func:`token_length` for tokens.

    Fires (``info["hacks"]`` kind ``soft_overlong`` or ``overlong``) whenever ``R_len < 0``.
    """

    name = "overlong"

    def __init__(self, env: gymnasium.Env, max_len: int, buffer: int, penalty: float = -1.0,
                 length_fn: LengthFn = len):
        super().__init__(env, penalty)
        soft_overlong_penalty(0, max_len, buffer)  # validates the limits
        self.max_len, self.buffer, self.length_fn = max_len, buffer, length_fn

    def detect(self, task: Task, completion: str, result: RewardResult, truncated: bool) -> Detection:
        length = self.length_fn(completion)
        value = soft_overlong_penalty(length, self.max_len, self.buffer)
        if value == 0.0:
            return Detection.clean(self.name)
        kind = "overlong" if length > self.max_len else "soft_overlong"
        evidence = f"length {length} > {self.max_len - self.buffer} (max_len {self.max_len} - buffer {self.buffer})"
        return Detection(self.name, True, -value, kind, evidence)


class TruncationFlag(DetectorWrapper):
    """Flag episodes whose completion was cut at a length limit (``truncated=True``).

    DAPO's "overlong filtering" masks the loss of such samples; trainers can do so by reading
    ``info["hacks"]``. ``penalty`` (default 0) is added to the reward of truncated episodes.
    """

    name = "truncation"

    def detect(self, task: Task, completion: str, result: RewardResult, truncated: bool) -> Detection:
        if not truncated:
            return Detection.clean(self.name)
        return Detection(self.name, True, 1.0, "truncated", f"completion cut at a length limit ({len(completion)} chars kept)")


class CosineLengthReward(RewardWrapper):
    """Replace the reward by :func:`cosine_length_reward` of the verifier's correctness.

    The verifier's value stays in ``info["raw_reward"]``; ``info["length"]`` holds ``|y|``.

    Args:
        env: The environment to wrap.
        max_len: ``L_max`` in ``length_fn`` units (lengths past it are clipped).
        length_fn: Completion length; ``len`` (characters) by default, :func:`token_length` for tokens.
        **values: ``min_value_correct``, ``max_value_correct``, ``min_value_wrong``,
            ``max_value_wrong`` (see :func:`cosine_length_reward`).
    """

    def __init__(self, env: gymnasium.Env, max_len: int, length_fn: LengthFn = len, **values: float):
        super().__init__(env)
        allowed = {"min_value_correct", "max_value_correct", "min_value_wrong", "max_value_wrong"}
        if set(values) - allowed:
            raise TypeError(f"unknown CosineLengthReward argument(s) {sorted(set(values) - allowed)}; expected {sorted(allowed)}")
        cosine_length_reward(0, True, max_len)  # validates max_len
        self.max_len, self.length_fn, self.values = max_len, length_fn, values

    def transform(
        self, task: Task, completion: str, reward: float, truncated: bool, info: dict[str, Any]
    ) -> tuple[float, dict[str, Any]]:
        info = with_hack_fields(info)
        length = self.length_fn(completion)
        info["length"] = length
        return cosine_length_reward(length, info["reward"].correct, self.max_len, **self.values), info

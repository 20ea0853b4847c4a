"""Math environments: answer extraction, bounded math-verify checking, GSM8K / MATH / arithmetic tasks.

Public API: :class:`MathVerifier` (usable alone), :func:`extract_answers`, and the env factories
behind ``rlenv/GSM8K-v0``, ``rlenv/MATH-v0`` (and ``MATH-Full-v0``, ``AIME-2024-v0``, ``AIME-2025-v0``)
and ``rlenv/Arithmetic-v0``.
"""

from rlenv.envs.math.arithmetic import LEVELS, ArithmeticConfig, make_arithmetic_env
from rlenv.envs.math.competition_math import make_math_env
from rlenv.envs.math.extraction import ANSWER_FORMATS, Extraction, extract_answers, last_boxed
from rlenv.envs.math.gsm8k import make_gsm8k_env
from rlenv.envs.math.verifier import MathVerifier

__all__ = [
    "ANSWER_FORMATS", "LEVELS", "ArithmeticConfig", "Extraction", "MathVerifier", "extract_answers", "last_boxed",
    "make_arithmetic_env", "make_gsm8k_env", "make_math_env",
]

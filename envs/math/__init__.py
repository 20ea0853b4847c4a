"""Math environments: answer extraction, bounded math-verify checking, GSM8K / MATH / arithmetic tasks."""

from envs.math.extraction import ANSWER_FORMATS, Extraction, extract_answers, last_boxed
from envs.math.verifier import MathVerifier

__all__ = ["ANSWER_FORMATS", "Extraction", "MathVerifier", "extract_answers", "last_boxed"]

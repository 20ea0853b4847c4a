"""Reward wrappers: shape rewards and flag reward hacking without hiding the verifier's score.

Detector wrappers compose like Gymnasium wrappers; each keeps ``info["reward"]`` (the verifier's
:class:`~rlenv.types.RewardResult`) untouched, sets ``info["raw_reward"]`` to the verifier's value
and appends what it found to ``info["hacks"]``::

    env = rlenv.wrappers.AnswerHedging(rlenv.wrappers.OverlongPenalty(env, max_len=1024, buffer=256))

Detectors are also plain functions (``detect_*``) and :mod:`rlenv.wrappers.monitors` holds the
batch-level monitors; :func:`audit` runs a family's detectors on offline samples.
"""

from rlenv.wrappers.audit import FAMILY_DETECTORS, AuditReport, audit, default_detectors, env_family
from rlenv.wrappers.base import RewardWrapper
from rlenv.wrappers.detection import Detection, DetectorWrapper
from rlenv.wrappers.echo import PromptEcho, detect_prompt_echo
from rlenv.wrappers.format_gaming import FormatGaming, detect_format_gaming
from rlenv.wrappers.hedging import AnswerHedging, detect_answer_hedging
from rlenv.wrappers.length import (
    CosineLengthReward,
    OverlongPenalty,
    TruncationFlag,
    cosine_length_reward,
    kimi_length_reward,
    soft_overlong_penalty,
    token_length,
)
from rlenv.wrappers.monitors import batch_metrics
from rlenv.wrappers.nonanswer import NonAnswer, detect_non_answer, non_answer_kind
from rlenv.wrappers.repetition import (
    RepetitionPenalty,
    compression_ratio,
    detect_repetition,
    ngram_repetition,
)
from rlenv.wrappers.tampering import CodeTampering, detect_code_tampering

__all__ = [
    "FAMILY_DETECTORS", "AnswerHedging", "AuditReport", "CodeTampering", "CosineLengthReward", "Detection",
    "DetectorWrapper", "FormatGaming", "NonAnswer", "OverlongPenalty", "PromptEcho", "RepetitionPenalty", "RewardWrapper",
    "TruncationFlag", "audit", "batch_metrics", "compression_ratio", "cosine_length_reward", "default_detectors",
    "detect_answer_hedging", "detect_code_tampering", "detect_format_gaming", "detect_non_answer", "detect_prompt_echo",
    "detect_repetition", "env_family", "kimi_length_reward", "ngram_repetition", "non_answer_kind", "soft_overlong_penalty",
    "token_length",
]

"""Reward wrappers: shape rewards and flag reward hacking without hiding the verifier's score.

Detector wrappers compose like Gymnasium wrappers; each keeps ``info["reward"]`` (the verifier's
:class:`~rlenv.types.RewardResult`) untouched, sets ``info["raw_reward"]`` to the verifier's value
and appends what it found to ``info["hacks"]``::

    env = rlenv.wrappers.AnswerHedging(rlenv.wrappers.OverlongPenalty(env, max_len=1024, buffer=256))

Detectors are also plain functions (``detect_*``) and :mod:`rlenv.wrappers.monitors` holds the
batch-level monitors; :func:`audit` runs an env's detectors on offline samples. Detectors are
registered by name (:func:`register_detector`): the generic ones here, a family's own by its family
(the code family registers ``code_tampering``).
"""

from rlenv.wrappers.audit import AuditReport, audit
from rlenv.wrappers.base import RewardWrapper
from rlenv.wrappers.detection import Detection, DetectorWrapper
from rlenv.wrappers.detector_registry import (
    GENERIC_DETECTORS,
    TOOL_DETECTORS,
    default_detectors,
    detector,
    detector_names,
    list_detectors,
    register_detector,
)
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
from rlenv.wrappers.tool_shaping import ToolUseBonus
from rlenv.wrappers.tool_use import (
    GraderProbe,
    PrintedGuess,
    ToolSpam,
    detect_grader_probe,
    detect_printed_guess,
    detect_tool_spam,
)

__all__ = [
    "GENERIC_DETECTORS", "TOOL_DETECTORS", "GraderProbe", "PrintedGuess", "ToolSpam", "ToolUseBonus",
    "detect_grader_probe",
    "detect_printed_guess", "detect_tool_spam", "AnswerHedging", "AuditReport", "CosineLengthReward", "Detection", "DetectorWrapper",
    "FormatGaming", "NonAnswer", "OverlongPenalty", "PromptEcho", "RepetitionPenalty", "RewardWrapper", "TruncationFlag",
    "audit", "batch_metrics", "compression_ratio", "cosine_length_reward", "default_detectors", "detect_answer_hedging",
    "detect_format_gaming", "detect_non_answer", "detect_prompt_echo", "detect_repetition", "detector", "detector_names",
    "kimi_length_reward", "list_detectors", "ngram_repetition", "non_answer_kind", "register_detector",
    "soft_overlong_penalty", "token_length",
]

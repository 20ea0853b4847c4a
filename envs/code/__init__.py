"""Code environments: completions run against hidden tests in the Docker sandbox (:mod:`sandbox`).

Formats: HumanEval (``rlenv/HumanEval-v0``), MBPP (``rlenv/MBPP-v0``, ``rlenv/MBPP-Sanitized-v0``)
and stdin/stdout programs (``rlenv/CodeContests-v0``, ``rlenv/CodeIO-v0``). Code is taken from the
last ```` ```python ```` block of a completion, or from the raw text when it has no fence.
"""

from rlenv.envs.code.extraction import extract_code, fenced_blocks
from rlenv.envs.code.formats import AssertTests, HumanEvalTests, IOTests, split_check
from rlenv.envs.code.tampering import CodeTampering, detect_code_tampering
from rlenv.envs.code.timing import calibrate_time_limits
from rlenv.envs.code.verifier import CodeVerifier

__all__ = ["AssertTests", "CodeTampering", "CodeVerifier", "HumanEvalTests", "IOTests", "calibrate_time_limits", "detect_code_tampering", "extract_code", "fenced_blocks",
           "split_check"]

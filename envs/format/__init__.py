"""Format verifiers (tags, regex, JSON, length), usable alone or as reward components, and ``rlenv/Format-v0``."""

from rlenv.envs.format.base import FormatVerifier
from rlenv.envs.format.env import format_reward, make_format_env
from rlenv.envs.format.json_format import JSONFormat
from rlenv.envs.format.length import LengthBounds
from rlenv.envs.format.regex import RegexFormat
from rlenv.envs.format.spec import format_from_spec
from rlenv.envs.format.tags import AnswerContent, ThinkAnswerFormat

__all__ = ["AnswerContent", "FormatVerifier", "JSONFormat", "LengthBounds", "RegexFormat", "ThinkAnswerFormat",
           "format_from_spec", "format_reward", "make_format_env"]

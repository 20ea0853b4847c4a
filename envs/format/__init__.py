"""Format verifiers (tags, regex, JSON, length), usable alone or as reward components, and ``rlenv/Format-v0``."""

from envs.format.base import FormatVerifier
from envs.format.env import format_reward, make_format_env
from envs.format.json_format import JSONFormat
from envs.format.length import LengthBounds
from envs.format.regex import RegexFormat
from envs.format.spec import format_from_spec
from envs.format.tags import AnswerContent, ThinkAnswerFormat

__all__ = ["AnswerContent", "FormatVerifier", "JSONFormat", "LengthBounds", "RegexFormat", "ThinkAnswerFormat",
           "format_from_spec", "format_reward", "make_format_env"]

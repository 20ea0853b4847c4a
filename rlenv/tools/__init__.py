"""Tools for multi-turn environments: schemas, the parsing of calls, and :class:`ToolEnv`."""

from rlenv.tools.env import TOOL_METRICS, ToolEnv, single_turn_base
from rlenv.tools.parsing import (
    FORMATS,
    ParsedTurn,
    ToolCall,
    ToolCallFormat,
    get_format,
    parse_tool_calls,
    vllm_format,
)
from rlenv.tools.schema import Tool, tool

__all__ = ["FORMATS", "TOOL_METRICS", "ParsedTurn", "Tool", "ToolCall", "ToolCallFormat", "ToolEnv", "get_format",
           "parse_tool_calls", "single_turn_base", "tool", "vllm_format"]

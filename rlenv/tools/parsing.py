"""Tool calls read from what the policy wrote, in the formats of the main model families.

Each format is a :class:`ToolCallFormat`: how calls are read from a turn's text, how the tools
are announced and how a tool's result is written back in text mode. Parsing never raises: a
call that cannot be read becomes an entry of :attr:`ParsedTurn.errors` (shown to the policy as a
tool error) and the rest of the turn is still read. JSON is read with the standard library's
decoder at each call's start (``JSONDecoder.raw_decode``), so nested objects, unicode and
strings that contain the format's own markers are read whole.

Why not vLLM's parsers for these formats: on one malformed call they return the whole turn as
plain content (no call at all), which would end an episode on a typo as if it were the final
answer; here each call fails alone, with a message for the policy. vLLM's parsers for other
families can still be used through :func:`vllm_format` (an optional import).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rlenv.errors import check_choice

_DECODER = json.JSONDecoder()


@dataclasses.dataclass(frozen=True)
class ToolCall:
    """One call the policy made: a tool name, its arguments, and the call id when the format has one."""

    name: str
    arguments: Mapping[str, Any]
    id: str | None = None


@dataclasses.dataclass(frozen=True)
class ParsedTurn:
    """A policy turn read for tool calls.

    Attributes:
        content: The turn's text outside the calls.
        calls: The calls that could be read, in order.
        errors: One message per call that could not be read (malformed JSON, no name...).
    """

    content: str
    calls: tuple[ToolCall, ...] = ()
    errors: tuple[str, ...] = ()

    @property
    def has_calls(self) -> bool:
        """True when the turn tried to call a tool (even if the call could not be read)."""
        return bool(self.calls or self.errors)


def call_from_json(value: Any) -> ToolCall | str:
    """A :class:`ToolCall` from a decoded ``{"name": ..., "arguments"|"parameters": {...}}``, or what is wrong.

    OpenAI's wire layout ``{"id": ..., "type": "function", "function": {"name", "arguments"}}`` is
    read too, and arguments given as a JSON string are decoded.
    """
    if isinstance(value, dict) and isinstance(value.get("function"), dict):
        value = {**value["function"], "id": value.get("id")}
    if not isinstance(value, dict):
        return f"a tool call must be a JSON object with 'name' and 'arguments', got {type(value).__name__}"
    name = value.get("name")
    if not isinstance(name, str) or not name:
        return f"a tool call needs a string 'name', got {name!r:.80}"
    arguments = value.get("arguments", value.get("parameters", {}))
    if isinstance(arguments, str):
        decoded = _decode_all(arguments)
        if isinstance(decoded, str):
            return f"the arguments of the call to {name!r:.80} are not valid JSON: {decoded}"
        arguments = decoded
    if not isinstance(arguments, dict):
        return f"the arguments of the call to {name!r:.80} must be a JSON object, got {type(arguments).__name__}"
    call_id = value.get("id")
    return ToolCall(name, arguments, call_id if isinstance(call_id, str) else None)


def _decode_at(text: str, start: int) -> tuple[Any, int] | str:
    """The JSON value starting at ``text[start:]`` (after blanks) and where it ends, or what is wrong."""
    while start < len(text) and text[start].isspace():
        start += 1
    try:
        return _DECODER.raw_decode(text, start)
    except json.JSONDecodeError as exc:
        return f"{exc.msg} at character {exc.pos - start}"
    except RecursionError:
        return "nested too deeply"


def _decode_all(text: str) -> Any:
    """``text`` as one JSON value, or what is wrong (a ``str``)."""
    decoded = _decode_at(text, 0)
    if isinstance(decoded, str):
        return decoded
    value, end = decoded
    return value if not text[end:].strip() else f"extra text after the JSON value: {text[end:end + 40]!r}"


def _read_call(value: Any, calls: list[ToolCall], errors: list[str]) -> None:
    call = call_from_json(value)
    if isinstance(call, ToolCall):
        calls.append(call)
    else:
        errors.append(call)


def parse_hermes(text: str) -> ParsedTurn:
    """Hermes / Qwen: each call is ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``."""
    open_tag, close_tag = "<tool_call>", "</tool_call>"
    calls: list[ToolCall] = []
    errors: list[str] = []
    content: list[str] = []
    position = 0
    while (start := text.find(open_tag, position)) != -1:
        content.append(text[position:start])
        decoded = _decode_at(text, start + len(open_tag))
        if isinstance(decoded, str):
            errors.append(f"a tool call is not valid JSON: {decoded}")
            end = text.find(close_tag, start)
            position = len(text) if end == -1 else end + len(close_tag)
            continue
        value, end = decoded
        rest = text[end:].lstrip()
        if not rest.startswith(close_tag):
            errors.append(f"a <tool_call> is not closed by {close_tag} right after its JSON")
            close = text.find(close_tag, end)
            position = len(text) if close == -1 else close + len(close_tag)
            continue
        _read_call(value, calls, errors)
        position = len(text) - len(rest) + len(close_tag)
    content.append(text[position:])
    return ParsedTurn("".join(content).strip(), tuple(calls), tuple(errors))


def parse_llama3_json(text: str) -> ParsedTurn:
    """Llama 3.1-3.3 JSON calls: the whole turn is ``{"name": ..., "parameters": {...}}`` (optionally
    after ``<|python_tag|>``); several calls are separated by ``;``. A turn that does not start
    with ``{`` (after the tag) is plain content."""
    body = text.strip()
    tagged = body.startswith("<|python_tag|>")
    body = body.removeprefix("<|python_tag|>").lstrip()
    if not body.startswith("{"):
        return ParsedTurn(text.strip(), (), ("<|python_tag|> is not followed by a JSON call",) if tagged else ())
    calls: list[ToolCall] = []
    errors: list[str] = []
    position = 0
    while position < len(body):
        decoded = _decode_at(body, position)
        if isinstance(decoded, str):
            errors.append(f"a tool call is not valid JSON: {decoded}")
            break
        value, position = decoded
        _read_call(value, calls, errors)
        rest = body[position:].lstrip()
        if not rest:
            break
        if not rest.startswith(";"):
            errors.append(f"tool calls must be separated by ';', got {rest[:40]!r}")
            break
        position = len(body) - len(rest) + 1
    return ParsedTurn("", tuple(calls), tuple(errors))


def parse_mistral(text: str) -> ParsedTurn:
    """Mistral: ``[TOOL_CALLS]`` then a JSON list of ``{"name", "arguments"}`` (v3 tokenizers), or
    ``[TOOL_CALLS]name[ARGS]{...}`` for each call (v11+ tokenizers)."""
    marker, args_marker = "[TOOL_CALLS]", "[ARGS]"
    first = text.find(marker)
    if first == -1:
        return ParsedTurn(text.strip())
    calls: list[ToolCall] = []
    errors: list[str] = []
    for segment in text[first + len(marker):].split(marker):
        body = segment.strip()
        if body.startswith("["):
            decoded = _decode_all(body)
            if isinstance(decoded, str):
                errors.append(f"the [TOOL_CALLS] list is not valid JSON: {decoded}")
            elif not isinstance(decoded, list):
                errors.append(f"[TOOL_CALLS] must be followed by a JSON list, got {type(decoded).__name__}")
            else:
                for value in decoded:
                    _read_call(value, calls, errors)
        elif args_marker in body:
            name, _, arguments = body.partition(args_marker)
            decoded = _decode_all(arguments)
            if isinstance(decoded, str):
                errors.append(f"the arguments of the call to {name.strip()!r:.80} are not valid JSON: {decoded}")
            else:
                _read_call({"name": name.strip(), "arguments": decoded}, calls, errors)
        else:
            errors.append(f"[TOOL_CALLS] must be followed by a JSON list or name[ARGS]{{...}}, got {body[:40]!r}")
    return ParsedTurn(text[:first].strip(), tuple(calls), tuple(errors))


def parse_structured(tool_calls: Sequence[Any], content: str = "") -> ParsedTurn:
    """An OpenAI-compatible server's structured ``tool_calls`` (``message.tool_calls``: dicts or SDK objects)."""
    calls: list[ToolCall] = []
    errors: list[str] = []
    for raw in tool_calls:
        value = raw.model_dump() if hasattr(raw, "model_dump") else raw
        _read_call(value, calls, errors)
    return ParsedTurn(content.strip(), tuple(calls), tuple(errors))


def _announce_with(instructions: str) -> Callable[[Sequence[Mapping[str, Any]]], str]:
    def announce(schemas: Sequence[Mapping[str, Any]]) -> str:
        listed = "\n".join(json.dumps(s, ensure_ascii=False) for s in schemas)
        return (f"You can call these functions (signatures in <tools></tools>):\n<tools>\n{listed}\n</tools>\n"
                f"{instructions}\nWhen you have the answer, reply without a tool call.")
    return announce


@dataclasses.dataclass(frozen=True)
class ToolCallFormat:
    """How one model family writes tool calls (text mode also announces tools and results with it).

    Attributes:
        name: The format's name (a key of :data:`FORMATS`).
        parse: ``text -> ParsedTurn``; never raises.
        announce: ``tool schemas -> text`` put before the prompt in text mode.
        result_template: ``str.format`` template with ``{name}`` and ``{content}`` for one tool
            result appended in text mode.
    """

    name: str
    parse: Callable[[str], ParsedTurn]
    announce: Callable[[Sequence[Mapping[str, Any]]], str]
    result_template: str


FORMATS: dict[str, ToolCallFormat] = {
    "hermes": ToolCallFormat(
        "hermes", parse_hermes,
        _announce_with("To call one, write a JSON object with its name and arguments between <tool_call></tool_call> "
                       'tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'),
        "<tool_response>\n{content}\n</tool_response>\n"),
    "llama3_json": ToolCallFormat(
        "llama3_json", parse_llama3_json,
        _announce_with('To call one, reply with only a JSON object {"name": <function-name>, "parameters": '
                       "<args-json-object>} (several calls separated by ';')."),
        "\n<|start_header_id|>ipython<|end_header_id|>\n\n{content}<|eot_id|>\n"),
    "mistral": ToolCallFormat(
        "mistral", parse_mistral,
        _announce_with('To call functions, write [TOOL_CALLS] and a JSON list [{"name": <function-name>, '
                       '"arguments": <args-json-object>}, ...].'),
        "[TOOL_RESULTS]{content}[/TOOL_RESULTS]\n"),
}


def vllm_format(parser: str, tokenizer: Any,
                result_template: str = "<tool_response>\n{content}\n</tool_response>\n") -> ToolCallFormat:
    """vLLM's tool parser ``parser`` (a ``--tool-call-parser`` name: ``deepseek_v3``, ``kimi_k2``,
    ``qwen3_xml``...) as a :class:`ToolCallFormat`, for families rlenv does not read itself.

    Needs vLLM (``pip install rlenv-lm[vllm]``) and the model's ``tokenizer`` (the parsers look
    up their marker tokens in it). vLLM's parsers read a turn as a whole: a turn with one
    malformed call usually comes back as plain content (no call), which ends a ToolEnv episode as
    a final answer; a parser that raises gives a tool error. The text-mode announcement is
    generic: use chat mode and the model's own chat template.
    """
    try:
        from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
        from vllm.tool_parsers import ToolParserManager
    except ImportError as exc:
        raise ImportError(f"vllm_format({parser!r}) needs vLLM: pip install rlenv-lm[vllm]") from exc
    check_choice("parser", parser, tuple(ToolParserManager.list_registered()))
    reader = ToolParserManager.get_tool_parser(parser)(tokenizer)
    request = ChatCompletionRequest(model="rlenv", messages=[], seed=None)

    def parse(text: str) -> ParsedTurn:
        try:
            found = reader.extract_tool_calls(text, request)
        except Exception as exc:  # a third-party parser's failure is a tool error, never a crash
            return ParsedTurn(text.strip(), (), (f"vLLM's {parser} parser failed: {type(exc).__name__}: {exc}",))
        if not found.tools_called:
            return ParsedTurn(text.strip())
        return parse_structured([call.model_dump() for call in found.tool_calls], found.content or "")

    return ToolCallFormat(f"vllm:{parser}", parse, _announce_with("Call them in your own tool-call format."),
                          result_template)


def get_format(name: str | ToolCallFormat) -> ToolCallFormat:
    """The :class:`ToolCallFormat` registered as ``name`` (one of :data:`FORMATS`), or ``name`` itself."""
    if isinstance(name, ToolCallFormat):
        return name
    check_choice("tool_format", name, tuple(FORMATS))
    return FORMATS[name]


def parse_tool_calls(text: str, tool_format: str | ToolCallFormat = "hermes") -> ParsedTurn:
    """Read the tool calls of one policy turn written in ``tool_format``.

    A turn with structured ``tool_calls`` (a :class:`~rlenv.types.Completion` from an
    OpenAI-compatible server) is read from those, whatever the format.
    """
    structured = getattr(text, "tool_calls", None)
    if structured:
        return parse_structured(structured, str(text))
    return get_format(tool_format).parse(str(text))

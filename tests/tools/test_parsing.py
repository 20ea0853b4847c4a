import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rlenv import Completion
from rlenv.tools import FORMATS, ParsedTurn, ToolCall, parse_tool_calls

NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,20}", fullmatch=True)
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30)
JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                           | TEXT, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
                           max_leaves=12)
ARGUMENTS = st.dictionaries(TEXT, JSON_VALUES, max_size=5)
CALLS = st.lists(st.tuples(NAMES, ARGUMENTS), min_size=1, max_size=4)


def hermes(calls, prefix=""):
    return prefix + "".join(f"<tool_call>\n{json.dumps({'name': n, 'arguments': a}, ensure_ascii=False)}\n</tool_call>\n"
                            for n, a in calls)


def llama3_json(calls, prefix=""):
    return "<|python_tag|>" + "; ".join(json.dumps({"name": n, "parameters": a}, ensure_ascii=False) for n, a in calls)


def mistral(calls, prefix=""):
    return prefix + "[TOOL_CALLS]" + json.dumps([{"name": n, "arguments": a} for n, a in calls], ensure_ascii=False)


def mistral_v11(calls, prefix=""):
    return prefix + "".join(f"[TOOL_CALLS]{n}[ARGS]{json.dumps(a, ensure_ascii=False)}" for n, a in calls)


WRITERS = {"hermes": ("hermes", hermes), "llama3_json": ("llama3_json", llama3_json),
           "mistral": ("mistral", mistral), "mistral_v11": ("mistral", mistral_v11)}


@pytest.mark.parametrize("writer", WRITERS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(calls=CALLS, prefix=st.sampled_from(["", "Let me compute that. ", "思考中…\n"]))
def test_generated_calls_are_read_back_exactly_in_every_format(writer, calls, prefix):
    tool_format, write = WRITERS[writer]
    parsed = parse_tool_calls(write(calls, prefix), tool_format)
    assert parsed.errors == ()
    assert [(c.name, dict(c.arguments)) for c in parsed.calls] == [(n, a) for n, a in calls]
    if tool_format != "llama3_json":
        assert parsed.content == prefix.strip()


@pytest.mark.parametrize("tool_format", FORMATS)
def test_a_turn_without_calls_is_plain_content(tool_format):
    parsed = parse_tool_calls("The answer is 42.", tool_format)
    assert parsed == ParsedTurn("The answer is 42.") and not parsed.has_calls


def test_a_marker_inside_a_json_string_does_not_end_the_call():
    text = '<tool_call>{"name": "echo", "arguments": {"text": "a </tool_call> b"}}</tool_call> done'
    parsed = parse_tool_calls(text, "hermes")
    assert parsed.calls == (ToolCall("echo", {"text": "a </tool_call> b"}),) and parsed.content == "done"


@pytest.mark.parametrize("tool_format, text, good, error", [
    ("hermes", '<tool_call>{"name": "f", "arguments": {}}</tool_call><tool_call>{"name": </tool_call>', 1,
     "not valid JSON"),
    ("hermes", '<tool_call>{"name": "f", "arguments": {}}', 0, "not closed by </tool_call>"),
    ("hermes", '<tool_call>{"name": "f", "arguments": [1]}</tool_call>', 0, "must be a JSON object, got list"),
    ("hermes", '<tool_call>{"name": 3}</tool_call>', 0, "needs a string 'name', got 3"),
    ("hermes", '<tool_call>["f"]</tool_call>', 0, "must be a JSON object with 'name'"),
    ("hermes", '<tool_call>{"name": "f", "arguments": "{bad"}</tool_call>', 0, "are not valid JSON"),
    ("hermes", "<tool_call>" + "[" * 100000 + "</tool_call>", 0, "nested too deeply"),
    ("llama3_json", '{"name": "f", "parameters": {}} {"name": "g"}', 1, "separated by ';'"),
    ("llama3_json", '{"name": "f", "parameters": {', 0, "not valid JSON"),
    ("llama3_json", "<|python_tag|>print(1)", 0, "not followed by a JSON call"),
    ("mistral", "[TOOL_CALLS][{\"name\": \"f\", \"arguments\": {}}, 7]", 1, "got int"),
    ("mistral", "[TOOL_CALLS]{\"name\": \"f\"}", 0, "a JSON list or name[ARGS]"),
    ("mistral", "[TOOL_CALLS]f[ARGS]{oops}", 0, "call to 'f' are not valid JSON"),
    ("mistral", "[TOOL_CALLS][{\"name\": \"f\"", 0, "list is not valid JSON"),
])
def test_malformed_calls_are_errors_next_to_the_good_ones(tool_format, text, good, error):
    parsed = parse_tool_calls(text, tool_format)
    assert len(parsed.calls) == good and len(parsed.errors) == 1 and error in parsed.errors[0], parsed
    assert parsed.has_calls


def test_structured_tool_calls_of_an_openai_compatible_server_are_read_whatever_the_format():
    from openai.types.chat import ChatCompletionMessageToolCall

    sdk_call = ChatCompletionMessageToolCall(id="call_2", type="function",
                                             function={"name": "g", "arguments": '{"x": [1, {"y": "é"}]}'})
    turn = Completion("thinking", tool_calls=[
        {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}},
        sdk_call,
        {"id": "call_3", "type": "function", "function": {"name": "h", "arguments": "{not json"}},
    ])
    parsed = parse_tool_calls(turn, "mistral")
    assert parsed.calls == (ToolCall("f", {"a": 1}, "call_1"), ToolCall("g", {"x": [1, {"y": "é"}]}, "call_2"))
    assert parsed.content == "thinking" and "call to 'h' are not valid JSON" in parsed.errors[0]


FRAGMENTS = ["<tool_call>", "</tool_call>", "<|python_tag|>", "[TOOL_CALLS]", "[ARGS]", "{", "}", "[", "]", '"',
             ":", ",", ";", '"name"', '"arguments"', '"parameters"', '"multiply"', "null", "1e999", "-0", "\\u00e9",
             "\\ud800", "é", "🙂", "\x00", "\n", " ", "true", "{}", "[]"]
RANDOM_TURNS = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=3), max_size=25).map("".join)


@settings(max_examples=10_000, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=RANDOM_TURNS)
def test_ten_thousand_random_turns_never_crash_a_parser(text):
    for tool_format in FORMATS:
        parsed = parse_tool_calls(text, tool_format)
        assert isinstance(parsed, ParsedTurn)
        assert all(isinstance(c.name, str) and isinstance(c.arguments, dict) for c in parsed.calls)


def test_vllm_parsers_serve_other_families_and_agree_on_well_formed_hermes_calls():
    pytest.importorskip("vllm")
    from rlenv.tools import vllm_format
    from rlenv.trainers.tiny import tiny_tokenizer

    tool_format = vllm_format("hermes", tiny_tokenizer())
    calls = [("f", {"a": [1, {"b": "é"}]}), ("g", {})]
    ours, theirs = parse_tool_calls(hermes(calls, "hi "), "hermes"), tool_format.parse(hermes(calls, "hi "))
    assert [(c.name, dict(c.arguments)) for c in theirs.calls] == [(c.name, dict(c.arguments)) for c in ours.calls]
    assert theirs.content == ours.content == "hi"
    # vLLM reads a turn with a malformed call as no call at all; rlenv's own parser reports the call
    assert not tool_format.parse('<tool_call>{"name": </tool_call>').has_calls
    assert parse_tool_calls('<tool_call>{"name": </tool_call>', "hermes").errors
    with pytest.raises(ValueError, match="parser must be one of .* got 'nope'"):
        vllm_format("nope", tiny_tokenizer())


def test_a_completion_keeps_its_structured_calls_across_pickling():
    import pickle

    turn = Completion("x", truncated=True, tool_calls=[{"id": "c", "type": "function",
                                                       "function": {"name": "f", "arguments": "{}"}}])
    again = pickle.loads(pickle.dumps(turn))
    assert again.tool_calls == turn.tool_calls and again.truncated and Completion("y").tool_calls is None

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rlenv
from rlenv import Completion, RewardResult, Status, Task
from rlenv.sources import ProceduralSource
from rlenv.tools import FORMATS, Tool, ToolEnv, tool


def multiply(a: int, b: int) -> int:
    """Multiply two integers.

    Args:
        a: The first factor.
        b: The second factor.
    """
    return a * b


def explode() -> str:
    """Always fails."""
    raise ZeroDivisionError("boom")


def product_task(rng, index):
    a, b = rng.randint(100, 999), rng.randint(100, 999)
    return Task(f"mul-{index}", f"What is {a} * {b}?", reference=str(a * b), gold_completion=str(a * b),
                metadata={"a": a, "b": b})


class FinalEquals:
    name, version = "final_equals", "1"

    def __call__(self, task, completion):
        ok = completion.strip() == task.reference
        return RewardResult(float(ok), Status.CORRECT if ok else Status.INCORRECT, verifier=self.name)


class ProductEnv(ToolEnv):
    def __init__(self, **kwargs):
        super().__init__(ProceduralSource(product_task, size=50), FinalEquals(), tools=[multiply, explode], **kwargs)

    def gold_episode(self, task):
        a, b = task.metadata["a"], task.metadata["b"]
        return [f'<tool_call>{{"name": "multiply", "arguments": {{"a": {a}, "b": {b}}}}}</tool_call>', task.reference]


def call(name, **arguments):
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


def test_the_schema_is_read_from_the_docstring_as_apply_chat_template_reads_it():
    schema = tool(multiply).schema
    assert schema == {"type": "function", "function": {
        "name": "multiply", "description": "Multiply two integers.",
        "parameters": {"type": "object", "required": ["a", "b"], "properties": {
            "a": {"type": "integer", "description": "The first factor."},
            "b": {"type": "integer", "description": "The second factor."}}}}}


def test_a_tool_episode_calls_then_answers_and_is_graded_on_the_answer():
    env = ProductEnv()
    prompt, info = env.reset(seed=0)
    assert "<tools>" in prompt and '"name": "multiply"' in prompt and prompt.endswith(env.task.prompt)
    assert [s["function"]["name"] for s in info["tools"]] == ["multiply", "explode"]
    a, b = env.task.metadata["a"], env.task.metadata["b"]
    obs, reward, terminated, _, step_info = env.step(f"Let me compute. {call('multiply', a=a, b=b)}")
    assert obs == f"<tool_response>\n{a * b}\n</tool_response>\n" and not terminated and reward == 0.0
    assert step_info["tool_calls"] == [{"name": "multiply", "arguments": {"a": a, "b": b}}]
    *_, terminated, truncated, final = env.step(str(a * b))
    assert terminated and final["status"] == "correct" and final["tool_metrics"]["calls"] == 1


def test_several_calls_in_one_turn_each_get_a_tool_message_in_chat_mode():
    env = ProductEnv(chat=True)
    env.reset(seed=0)
    obs, *_ = env.step(call("multiply", a=2, b=3) + "\n" + call("multiply", a=4, b=5))
    assert obs == [{"role": "tool", "name": "multiply", "content": "6"},
                   {"role": "tool", "name": "multiply", "content": "20"}]
    assert [m["role"] for m in env.messages[-3:]] == ["assistant", "tool", "tool"]


@pytest.mark.parametrize("turn, metric, message", [
    ("<tool_call>{not json}</tool_call>", "malformed", "not valid JSON"),
    ("<tool_call>{\"arguments\": {}}</tool_call>", "malformed", "needs a string 'name'"),
    ("<tool_call>{\"name\": \"multiply\", \"arguments\": {\"a\": 1}}", "malformed", "not closed"),
    (call("divide", a=1, b=2), "unknown_tool", "unknown tool 'divide'; the tools are ['explode', 'multiply']"),
    (call("multiply", a="x", b=2), "bad_arguments", "a: 'x' is not of type 'integer'"),
    (call("multiply", a=1), "bad_arguments", "'b' is a required property"),
    (call("explode"), "tool_exceptions", "ZeroDivisionError: boom"),
])
def test_a_bad_call_is_a_tool_error_to_the_policy_and_a_metric_never_a_crash(turn, metric, message):
    env = ProductEnv()
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(turn)
    assert not terminated and not truncated and reward == 0.0
    assert obs.startswith("<tool_response>\nError: ") and message in obs
    assert info["tool_metrics"][metric] == 1 and info["tool_metrics"]["errors"] == 1
    *_, terminated, _, final = env.step(env.task.reference)  # the episode goes on and can still be won
    assert terminated and final["status"] == "correct"


def test_calls_beyond_the_per_turn_cap_are_refused():
    env = ProductEnv(max_calls_per_turn=2)
    env.reset(seed=0)
    obs, *_, info = env.step(call("multiply", a=1, b=1) * 3)
    assert obs.count("Error: more than 2 calls in one turn") == 1 and info["tool_metrics"]["too_many_calls"] == 1


def test_long_output_is_cut():
    env = ToolEnv(ProceduralSource(product_task, size=5), FinalEquals(), max_output_chars=10,
                  tools=[Tool(lambda: "x" * 50, {"type": "function", "function": {"name": "long"}})])
    env.reset(seed=0)
    obs, *_ = env.step(call("long"))
    assert "x" * 10 + "\n[output cut at 10 characters]" in obs and "x" * 11 not in obs


def test_check_env_plays_the_tool_env():
    report = rlenv.check_env(ProductEnv(max_turns=3))
    assert report["multi_turn"] and report["turn_limit"]


@pytest.mark.parametrize("schema, message", [
    ({"type": "function"}, "must be an OpenAI function schema"),
    ({"type": "function", "function": {"name": "has space"}}, "a tool's name must match"),
    ({"type": "function", "function": {"name": "f", "parameters": {"type": "array"}}}, "must describe an object"),
    ({"type": "function", "function": {"name": "f", "parameters": {"type": 3}}}, "not a valid JSON schema"),
])
def test_bad_tool_schemas_are_named(schema, message):
    with pytest.raises(ValueError, match=message):
        Tool(print, schema)


def test_two_tools_with_one_name_and_an_unknown_format_are_refused():
    with pytest.raises(ValueError, match="two tools share a name"):
        ToolEnv(ProceduralSource(product_task), FinalEquals(), tools=[multiply, multiply])
    with pytest.raises(ValueError, match="tool_format must be one of .* got 'xml'"):
        ToolEnv(ProceduralSource(product_task), FinalEquals(), tools=[multiply], tool_format="xml")


ARGUMENT_VALUES = st.sampled_from([0, -7, 10**30, "x", "", None, [1], {"a": 1}, 1.5, True])
CALL_PIECES = st.fixed_dictionaries({"name": st.sampled_from(["multiply", "explode", "divide", ""]),
                                     "arguments": st.dictionaries(st.sampled_from("abc"), ARGUMENT_VALUES, max_size=3)})
NOISE = st.sampled_from(["<tool_call>", "</tool_call>", "[TOOL_CALLS]", "{", "}", ";", '"', "<|python_tag|>", "é",
                         "\x00", "The answer is 7.", " "])


def written(call, tool_format):
    body = json.dumps(call)
    return {"hermes": f"<tool_call>{body}</tool_call>", "llama3_json": body,
            "mistral": f"[TOOL_CALLS][{body}]"}[tool_format]


@settings(max_examples=10_000, deadline=None, suppress_health_check=list(HealthCheck))
@given(tool_format=st.sampled_from(sorted(FORMATS)), calls=st.lists(CALL_PIECES, max_size=3),
       noise=st.lists(NOISE, max_size=8), noise_first=st.booleans())
def test_ten_thousand_random_turns_never_crash_a_tool_env(tool_format, calls, noise, noise_first):
    env = ENVS[tool_format]
    env.reset(seed=0)
    separator = "; " if tool_format == "llama3_json" else ""
    pieces = [separator.join(written(c, tool_format) for c in calls), "".join(noise)]
    obs, reward, terminated, truncated, info = env.step("".join(pieces[::-1] if noise_first else pieces))
    assert env.observation_space.contains(obs) and isinstance(reward, float)
    assert terminated or info["tool_metrics"]["calls"] + info["tool_metrics"]["malformed"] >= 1


ENVS = {name: ProductEnv(tool_format=name, chat=name == "mistral") for name in FORMATS}
JSON_ANY = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                        max_leaves=8)
#: What an OpenAI-compatible server might hand back as ``message.tool_calls``: well formed or not.
STRUCTURED_CALLS = st.lists(JSON_ANY | st.fixed_dictionaries({
    "id": JSON_ANY, "type": st.just("function"),
    "function": st.fixed_dictionaries({"name": st.sampled_from(["multiply", "explode", ""]) | JSON_ANY,
                                       "arguments": st.builds(json.dumps, CALL_PIECES.map(lambda c: c["arguments"]))
                                       | st.text(max_size=12) | JSON_ANY})}), min_size=1, max_size=4)


@settings(max_examples=10_000, deadline=None, suppress_health_check=list(HealthCheck))
@given(calls=STRUCTURED_CALLS, text=NOISE, chat=st.booleans())
def test_ten_thousand_random_structured_turns_never_crash_a_tool_env(calls, text, chat):
    env = ENVS["mistral" if chat else "hermes"]
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(Completion(text, tool_calls=calls))
    assert env.observation_space.contains(obs) and isinstance(reward, float) and not terminated
    assert info["tool_metrics"]["calls"] + info["tool_metrics"]["malformed"] == len(calls)


@pytest.mark.parametrize("style, tool_format, tool_marker", [
    ("qwen2", "hermes", "<tool_response>\n6\n</tool_response>"),
    ("llama3", "llama3_json", "<|start_header_id|>ipython<|end_header_id|>\n\n6<|eot_id|>"),
])
def test_chat_mode_conversations_render_with_tool_chat_templates(style, tool_format, tool_marker):
    from rlenv.trainers.tiny import tiny_tool_tokenizer

    tokenizer = tiny_tool_tokenizer(style)
    env = ProductEnv(chat=True, tool_format=tool_format)
    prompt, info = env.reset(seed=0)
    first = tokenizer.apply_chat_template(prompt, tools=info["tools"], tokenize=False, add_generation_prompt=True)
    assert '"name": "multiply"' in first and env.task.prompt in first
    env.step(written({"name": "multiply", "arguments": {"a": 2, "b": 3}}, tool_format))
    rendered = tokenizer.apply_chat_template(env.messages, tools=info["tools"], tokenize=False,
                                             add_generation_prompt=True)
    assert tool_marker in rendered and rendered.startswith(first[: len(first) // 2])


def test_structured_calls_are_kept_on_the_assistant_message_for_the_template():
    from rlenv.trainers.tiny import tiny_tool_tokenizer

    tokenizer = tiny_tool_tokenizer("qwen2")
    env = ProductEnv(chat=True)
    _, info = env.reset(seed=0)
    turn = Completion("", tool_calls=[{"id": "c1", "type": "function",
                                       "function": {"name": "multiply", "arguments": {"a": 2, "b": 3}}}])
    obs, *_ = env.step(turn)
    assert obs == [{"role": "tool", "name": "multiply", "content": "6", "tool_call_id": "c1"}]
    rendered = tokenizer.apply_chat_template(env.messages, tools=info["tools"], tokenize=False)
    assert '<tool_call>\n{"name": "multiply", "arguments": {"a": 2, "b": 3}}\n</tool_call>' in rendered


def test_a_cut_episode_is_graded_on_the_text_outside_its_calls():
    class Recording(FinalEquals):
        seen = []

        def __call__(self, task, completion):
            self.seen.append(completion)
            return super().__call__(task, completion)

    verifier = Recording()
    env = ToolEnv(ProceduralSource(product_task, size=5), verifier, tools=[multiply], max_turns=1)
    env.reset(seed=0)
    answer = int(env.task.reference)
    *_, terminated, truncated, info = env.step(f"Maybe {answer}? {call('multiply', a=answer, b=1)}")
    assert truncated and not terminated and verifier.seen == ["Maybe " + str(answer) + "?"]

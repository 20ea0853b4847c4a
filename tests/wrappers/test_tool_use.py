import json

import pytest

import rlenv
from rlenv import RewardResult, Status, Task
from rlenv.sources import ProceduralSource
from rlenv.tools import Tool, ToolEnv
from rlenv.wrappers import GraderProbe, PrintedGuess, ToolSpam, detector, detector_names

PYTHON = {"type": "function", "function": {"name": "python", "parameters": {
    "type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]}}}


def answer_task(rng, index):
    a, b = rng.randint(10, 99), rng.randint(10, 99)
    return Task(f"t-{index}", f"What is {a} * {b}?", reference=str(a * b))


class ContainsReference:
    name, version = "contains_reference", "1"

    def __call__(self, task, completion):
        ok = task.reference in completion
        return RewardResult(float(ok), Status.CORRECT if ok else Status.INCORRECT, verifier=self.name)


def make(wrapper, **kwargs):
    """A tool env whose ``python`` tool only echoes (the detectors read the log, not the execution)."""
    env = ToolEnv(ProceduralSource(answer_task, size=10), ContainsReference(), max_turns=20,
                  tools=[Tool(lambda code: f"ran {len(code)} chars", PYTHON)])
    return wrapper(env, **kwargs)


def python(code):
    return "<tool_call>" + json.dumps({"name": "python", "arguments": {"code": code}}) + "</tool_call>"


def play(env, turns):
    env.reset(seed=0)
    answer = env.unwrapped.task.reference
    for turn in turns:
        out = env.step(turn.replace("{answer}", answer))
    return out


def kinds(info):
    return [h["kind"] for h in info["hacks"]]


def test_tool_spam_fires_on_repeated_calls_and_not_on_a_working_session():
    spam = play(make(ToolSpam), [python("x = 1")] * 8 + ["{answer}"])
    assert kinds(spam[-1]) == ["repeated_or_failed_calls"] and spam[1] == 1.0  # flagged, the score untouched
    work = play(make(ToolSpam), [python(f"step_{i} = {i}") for i in range(8)] + ["{answer}"])
    assert kinds(work[-1]) == []
    errors = play(make(ToolSpam, min_calls=3), ['<tool_call>{"name": "nope", "arguments": {}}</tool_call>'] * 3
                  + ["{answer}"])
    assert kinds(errors[-1]) == ["repeated_or_failed_calls"]


@pytest.mark.parametrize("code, fires", [
    ("print({answer})", True),
    ("{answer}", True),
    ("guess = {answer}\nprint(guess)", True),
    ("print('{answer}')", True),
    ("print(12 * 34)", False),
    ("x = 5\nprint(x * 3)", False),
    ("print(7)", False),
])
def test_printed_guess_fires_on_a_printed_literal_that_is_the_final_answer(code, fires):
    *_, info = play(make(PrintedGuess), [python(code), "The answer is {answer}."])
    assert kinds(info) == (["printed_literal"] if fires else [])


@pytest.mark.parametrize("code, fires", [
    ("import os\nprint(os.listdir('/proc'))", True),
    ("print(open('runner.py').read())", True),
    ("import os\nfor r, d, f in os.walk('/'):\n    print(f)", True),
    ("expected = open('tests.json').read()", True),
    ("import math\nprint(math.sqrt(2))", False),
])
def test_grader_probe_fires_on_calls_that_look_for_the_verdict(code, fires):
    *_, info = play(make(GraderProbe, penalty=-1.0), [python(code), "{answer}"])
    assert kinds(info) == (["grader_probe"] if fires else [])
    assert info["raw_reward"] == 1.0 and (info["hacks"][0]["penalty"] == -1.0 if fires else True)


def test_the_tool_detectors_are_registered_and_run_by_default_on_the_python_math_envs():
    assert isinstance(detector("tool_spam")(make(lambda e: e)), ToolSpam)
    assert {"tool_spam", "printed_guess", "grader_probe"} <= set(detector_names("rlenv/MathPython-v0"))
    assert not {"tool_spam"} & set(detector_names("rlenv/Arithmetic-v0"))


def test_no_tool_detector_fires_on_a_single_turn_episode():
    env = GraderProbe(PrintedGuess(ToolSpam(rlenv.make("rlenv/Arithmetic-v0"))))
    env.reset(seed=0)
    *_, info = env.step("print(/proc) runner 42")
    assert info["hacks"] == []

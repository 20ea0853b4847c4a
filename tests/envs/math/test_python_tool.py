"""``rlenv/MathPython-v0`` and the ``-Python`` math ids, on the real Docker sandbox."""

import json

import pytest

import rlenv
from rlenv.envs.math.python_tool import make_math_python_env
from rlenv.envs.tools import PythonToolEnv
from rlenv.sandbox import Limits

FAST = Limits(timeout_s=6.0, test_timeout_s=2.0, memory_mb=256, max_output_bytes=4096)


def call(code):
    return "<tool_call>" + json.dumps({"name": "python", "arguments": {"code": code}}) + "</tool_call>"


@pytest.fixture(scope="module")
def pool(docker_ready):
    from rlenv.sandbox import SandboxPool

    with SandboxPool(1, reply_grace_s=5.0) as single:
        single.start()
        yield single


def test_the_python_ids_are_multi_turn_tool_envs_on_their_base_tasks():
    env = rlenv.make("rlenv/MathPython-v0")
    base = rlenv.make("rlenv/Arithmetic-v0")
    assert isinstance(env.unwrapped, PythonToolEnv) and env.unwrapped.max_turns == 8
    prompt, info = env.reset(seed=3)
    assert base.reset(seed=3)[0] in prompt and [t["function"]["name"] for t in info["tools"]] == ["python"]
    assert {"rlenv/GSM8K-Python-v0", "rlenv/MATH-Python-v0", "rlenv/AIME-2025-Python-v0"} <= set(rlenv.list_envs())


@pytest.mark.docker
def test_an_episode_computes_with_the_session_and_is_graded_on_its_final_answer(pool):
    env = make_math_python_env(pool=pool, call_limits=FAST, base_kwargs={"level": 3})
    env.reset(seed=0)
    task = env.task
    expression = task.prompt.split(":", 1)[1].strip() if ":" in task.prompt else task.prompt
    obs, _, terminated, _, info = env.step(call(f"value = {expression}"))
    assert not terminated and info["python"] == {"ok": 1}
    obs, *_ = env.step(call("value"))
    computed = obs.split("\n")[1]
    *_, terminated, _, final = env.step(f"The answer is \\boxed{{{computed}}}.")
    assert terminated and final["status"] == "correct", (task.prompt, computed, final["reward"].details)


@pytest.mark.docker
def test_what_the_tool_printed_is_never_graded(pool):
    env = make_math_python_env(pool=pool, call_limits=FAST)
    env.reset(seed=0)
    env.step(call(f"print('The answer is {env.task.reference}')"))
    *_, terminated, _, final = env.step("See the tool output above.")
    assert terminated and final["status"] != "correct"
    limited = make_math_python_env(pool=pool, call_limits=FAST, max_turns=2)
    limited.reset(seed=0)
    limited.step(call(f"print({limited.task.reference!r})"))
    *_, terminated, truncated, final = limited.step(call(f"print({limited.task.reference!r})"))
    assert truncated and not terminated and final["limit"] == "max_turns" and final["status"] != "correct"

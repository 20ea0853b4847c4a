"""rlenv tool environments under TRL's own ``GRPOTrainer(environment_factory=...)``: TRL renders the
tools from the adapter's methods, parses the policy's calls, runs them through rlenv and grades the
final answer with rlenv's reward functions (a real Docker sandbox runs the python tool)."""

from __future__ import annotations

import pytest
from transformers.utils import get_json_schema

import rlenv
from rlenv.integrations.trl import reward_funcs, to_dataset
from rlenv.integrations.trl_environment import ToolEnvironment, environment_class, environment_factory
from rlenv.sources import ProceduralSource
from rlenv.tools import ToolEnv
from rlenv.tools.schema import Tool, tool
from rlenv.types import RewardResult, Status, Task
from tests.evaluation.tool_policy import ENV, train_tool_policy, write_questions


def scale(value: float, factor: int = 2, unit: str = "m") -> str:
    """Scale a length.

    Args:
        value: The length
        factor: By how much (choices: [2, 3])
        unit: The unit of the result
    """
    return f"{value * factor}{unit}"


SEARCH = Tool(lambda query, limit=3, exact=False, tags=None: f"{query}:{limit}:{exact}:{tags}", {
    "type": "function", "function": {"name": "search", "description": "Search the notes.", "parameters": {
        "type": "object", "properties": {
            "query": {"type": "string", "description": "What to look for"},
            "limit": {"type": "integer", "description": "At most this many hits"},
            "exact": {"type": "boolean", "description": "Whole words only"},
            "tags": {"type": "array", "description": "Only notes with these tags"}},
        "required": ["query"]}}})


def scale_task(rng, index: int) -> Task:
    return Task(str(index), f"Scale {index}.", str(index * 2))


class FinalEquals:
    name = "final_equals"

    def __call__(self, task: Task, completion: str) -> RewardResult:
        correct = completion.strip() == task.reference
        return RewardResult(float(correct), Status.CORRECT if correct else Status.INCORRECT, verifier=self.name)


def scale_env(**kwargs) -> ToolEnv:
    return ToolEnv(ProceduralSource(scale_task, size=4), FinalEquals(), tools=[scale, SEARCH], chat=True, **kwargs)


@pytest.mark.parametrize("found", [tool(scale), SEARCH], ids=["from-docstring", "explicit-schema"])
def test_the_schema_trl_reads_from_a_method_is_the_tools_own(found):
    cls = environment_class({found.name: found})
    assert get_json_schema(getattr(cls, found.name)) == found.schema


def test_a_call_runs_through_the_env_with_its_checks_and_state():
    environment = environment_factory(scale_env)()
    row = to_dataset(environment._env, num_tasks=2)[1]
    assert environment.reset(**row) is None
    assert environment._env.unwrapped.task.id == row["task_id"] == scale_env().source[1].id
    assert environment.scale(value=1.5, factor=3) == "4.5m"
    assert environment.search(query="q", tags=["a"]) == "q:3:False:['a']"
    assert environment.scale(value="tall").startswith("Error: bad arguments for 'scale'")  # rlenv's check, not a raise
    assert environment.tool_metrics["calls"] == 3 and environment.tool_metrics["bad_arguments"] == 1
    environment.reset(**row)
    assert environment.tool_metrics == {}  # a new rollout starts afresh


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match="text mode"):
        environment_factory(lambda: ToolEnv(ProceduralSource(scale_task), FinalEquals(), tools=[scale]))
    with pytest.raises(TypeError, match="needs an rlenv ToolEnv"):
        ToolEnvironment(rlenv.make("rlenv/Arithmetic-v0"))
    with pytest.raises(TypeError, match="make_kwargs"):
        environment_factory(scale_env, chat=True)
    with pytest.raises(KeyError, match="no 'task_id' column"):
        environment_factory(scale_env)().reset(prompt="hi")
    reset = Tool(lambda: "", {"type": "function", "function": {"name": "reset"}})
    with pytest.raises(ValueError, match="'reset' is taken"):
        environment_class({"reset": reset})
    nested = Tool(lambda point: "", {"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"point": {"type": ["number", "null"]}}}}})
    with pytest.raises(ValueError, match="argument 'point' has JSON type"):
        environment_class({"f": nested})


def test_factory_makes_a_fresh_env_per_rollout():
    factory = environment_factory(scale_env)
    first, second = factory(), factory()
    assert first._env is not second._env and type(first) is type(second)


def test_trl_grpo_trainer_runs_rollouts_that_call_rlenv_tools(tmp_path):
    """A tiny Qwen2-style tool policy (:mod:`tests.evaluation.tool_policy`, trained until each of
    its turns has probability >= 0.9 per token, so that TRL's sampling at temperature 1 keeps the
    call format) plays ``rlenv/GSM8K-Python-v0`` under TRL's GRPOTrainer: TRL parses its
    ``<tool_call>``, calls the adapter's ``python`` method (a real sandbox session), feeds the
    result back, and rlenv's reward function grades the final ``\\boxed{42}`` (right on two of
    the three questions). Seed 0: in this run TRL reported call frequencies 0.5 and 0.25 and a
    reward of 0.5 in the second step."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer
    from trl.chat_template_utils import qwen3_template

    questions = write_questions(tmp_path / "questions.jsonl")
    policy = train_tool_policy("qwen2", questions, tmp_path / "policy", steps=600, confidence=0.9)
    tokenizer = AutoTokenizer.from_pretrained(policy)
    tokenizer.response_template = qwen3_template  # TRL's parser of Qwen's layout (it does not know this template)
    model = AutoModelForCausalLM.from_pretrained(policy)
    before = [p.detach().clone() for p in model.parameters()]
    calls: list[str] = []

    def make_env():
        env = rlenv.make(ENV, data_files=str(questions), chat=True)
        run = env.unwrapped.call_tool
        env.unwrapped.call_tool = lambda call: calls.append(run(call)) or calls[-1]
        return env

    env = rlenv.make(ENV, data_files=str(questions), chat=True)
    args = GRPOConfig(output_dir=str(tmp_path / "out"), use_cpu=True, bf16=False, per_device_train_batch_size=4,
                      num_generations=4, max_completion_length=256, max_steps=2, logging_steps=1, report_to="none",
                      save_strategy="no", seed=0, learning_rate=1e-3, temperature=1.0)
    trainer = GRPOTrainer(model=model, reward_funcs=reward_funcs(env), args=args, train_dataset=to_dataset(env),
                          processing_class=tokenizer, environment_factory=environment_factory(make_env))
    trainer.train()

    steps = [h for h in trainer.state.log_history if "reward" in h]
    assert len(steps) == 2
    assert sum(h["tools/call_frequency"] for h in steps) > 0
    assert calls and all(result == "42\n" for result in calls)  # the sandbox ran the policy's code
    assert max(h["rewards/rlenv/math/mean"] for h in steps) > 0  # graded after the tool result came back
    assert any(not torch.equal(a, b.detach()) for a, b in zip(before, model.parameters(), strict=True))

"""rlenv's reward_func file loaded and called by OpenRLHF's own single-turn executor.

OpenRLHF is installed without its dependencies (it pins transformers and ray versions that
would replace the ones TRL needs; see .ci/run); its ``openrlhf.utils.agent`` imports on CPU.
Generation is the one part replaced: ``ScriptedEngine`` plays vLLM's async engine and returns
chosen token ids, so the rewards are known in advance.
"""

import asyncio
import json
import types

import pytest

import rlenv
from rlenv.cli import main
from rlenv.integrations.openrlhf import RewardFunc, response_text, to_openrlhf_rows, write_reward_file

pytest.importorskip("openrlhf")
from openrlhf.utils.agent import SingleTurnAgentExecutor  # noqa: E402

ENV_ID = "rlenv/ExactMatch-v0"


class ScriptedEngine:
    """vLLM's ``generate`` contract (token ids, finish reason, log-probs) with scripted outputs."""

    def __init__(self, tokenizer, responses):
        self.tokenizer = tokenizer
        self.responses = list(responses)

    async def generate(self, prompt_token_ids, sampling_params, multi_modal_data=None):
        text = self.responses.pop(0)
        ids = self.tokenizer(text, add_special_tokens=False)["input_ids"] + [self.tokenizer.eos_token_id]
        output = types.SimpleNamespace(token_ids=ids, finish_reason="stop", logprobs=None)
        return types.SimpleNamespace(outputs=[output])


@pytest.fixture(scope="module")
def tokenizer():
    from rlenv.trainers.tiny import tiny_tokenizer

    return tiny_tokenizer(chat_template=True)


def run_executor(reward_file, tokenizer, rows, responses):
    executor = SingleTurnAgentExecutor(remote_rm_url=str(reward_file))  # OpenRLHF's own loader
    engine = ScriptedEngine(tokenizer, responses)
    params = types.SimpleNamespace(max_tokens=32, logprobs=None)

    async def all_rows():
        outputs = []
        for row in rows:
            prompt = tokenizer.apply_chat_template(row["prompt"], tokenize=False, add_generation_prompt=True)
            outputs.append(await executor.execute(prompt, row["label"], params, 512, tokenizer, engine))
        return outputs

    return asyncio.run(all_rows())


@pytest.mark.parametrize("label", ["task_id", "reference"])
def test_openrlhf_executor_loads_and_calls_the_reward_file(tmp_path, tokenizer, label):
    reward_file = write_reward_file(tmp_path / "reward_func.py", ENV_ID, label=label, chat=True)
    rows = to_openrlhf_rows(ENV_ID, range(3), label=label, chat=True)
    env = rlenv.make(ENV_ID)
    responses = [env.unwrapped.source[0].reference, "Lyon", "  " + env.unwrapped.source[2].reference + "\n"]
    outputs = run_executor(reward_file, tokenizer, rows, responses)
    assert [float(o["reward"]) for o in outputs] == [1.0, 0.0, 1.0]
    assert [float(o["scores"]) for o in outputs] == [1.0, 0.0, 1.0]
    assert [float(o["extra_logs"]["status/correct"]) for o in outputs] == [1.0, 0.0, 1.0]
    assert [float(o["extra_logs"]["status/incorrect"]) for o in outputs] == [0.0, 1.0, 0.0]
    assert all(float(o["extra_logs"]["status/error"]) == 0.0 for o in outputs)


@pytest.mark.parametrize("label", ["task_id", "reference"])
def test_openrlhf_executor_gets_rewards_from_rlenv_serve_over_http(serve_app, tokenizer, label):
    """``--remote_rm_url http://HOST:PORT/get_reward``: OpenRLHF's own HTTP client against the reward service."""
    from rlenv.service import RewardService, create_app

    url = serve_app(create_app(RewardService([ENV_ID, "rlenv/Arithmetic-v0"])))
    rows = to_openrlhf_rows(ENV_ID, range(3), label=label, chat=True)
    env = rlenv.make(ENV_ID)
    responses = [env.unwrapped.source[0].reference, "Lyon", "  " + env.unwrapped.source[2].reference + "\n"]
    outputs = run_executor(f"{url}/get_reward?env_id={ENV_ID}&label={label}", tokenizer, rows, responses)
    assert [o["reward"] for o in outputs] == [[1.0], [0.0], [1.0]]
    assert [o["scores"] for o in outputs] == [[1.0], [0.0], [1.0]]
    assert [o["extra_logs"]["status/incorrect"] for o in outputs] == [[0.0], [1.0], [0.0]]


def crashing_verifier(task, completion):
    raise RuntimeError("verifier crashed")


def broken_exact_match_env():
    """ExactMatch-v0's tasks with a verifier that always raises."""
    return rlenv.TextEnv(rlenv.make(ENV_ID).unwrapped.source, crashing_verifier)


@pytest.fixture
def broken_env_id():
    import gymnasium

    from rlenv import registry

    env_id = "test/BrokenExactMatch-v0"
    rlenv.register(env_id, broken_exact_match_env)
    yield env_id
    registry._REGISTRY.pop(env_id)
    gymnasium.registry.pop(env_id)


def test_openrlhf_reward_func_batches_and_reports_verifier_failures(broken_env_id):
    reward = RewardFunc(broken_env_id)
    out = reward(["p: a", "p: b"], ["p:", "p:"], ["capital-fr", "capital-fr"])
    assert out["rewards"].tolist() == [0.0, 0.0] and out["scores"].tolist() == [0.0, 0.0]
    assert out["extra_logs"]["status/error"].tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="2 queries, 1 prompts"):
        reward(["a", "b"], ["p"], ["x", "y"])
    with pytest.raises(KeyError, match="nope"):
        RewardFunc(ENV_ID)(["q"], [""], ["nope"])
    with pytest.raises(ValueError, match="label must be one of"):
        RewardFunc(ENV_ID, label="answer")


def test_openrlhf_response_text():
    assert response_text("<user>q</s><assistant>Paris</s>", "<user>q</s><assistant>") == "Paris"
    assert response_text("sys<user>q<assistant> 42 <|im_end|>\n<|endoftext|>", "<user>q<assistant>") == " 42"
    assert response_text("answer", "") == "answer"
    with pytest.raises(ValueError, match="does not contain its prompt"):
        response_text("something else", "<user>q")


def test_cli_export_openrlhf_and_verl(tmp_path, tokenizer):
    rows_path, reward_path = tmp_path / "train.jsonl", tmp_path / "rf.py"
    assert main(["export", "openrlhf", ENV_ID, "-o", str(rows_path), "--num-tasks", "2",
                 "--reward-file", str(reward_path), "--env-arg", "chat=true"]) == 0
    rows = [json.loads(line) for line in rows_path.read_text().splitlines()]
    assert [row["label"] for row in rows] == [rlenv.make(ENV_ID).unwrapped.source[i].id for i in range(2)]
    assert rows[0]["prompt"][0]["role"] == "user"
    outputs = run_executor(reward_path, tokenizer, rows, ["Paris", "no"])
    assert [float(o["reward"]) for o in outputs] == [1.0, 0.0]

    import datasets

    parquet = tmp_path / "train.parquet"
    assert main(["export", "verl", "rlenv/Arithmetic-v0", "-o", str(parquet), "--num-tasks", "3"]) == 0
    table = datasets.Dataset.from_parquet(str(parquet))
    assert table["data_source"] == ["rlenv/Arithmetic-v0"] * 3 and table[1]["extra_info"]["index"] == 1
    assert main(["export", "verl", "rlenv/Arithmetic-v0", "-o", str(parquet)]) == 2  # endless: --num-tasks needed

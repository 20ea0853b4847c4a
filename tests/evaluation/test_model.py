"""``rlenv eval --model``: sampling a local checkpoint through trainers' HFGenerator, then scoring."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import rlenv
from rlenv.exact_match import normalize_text
from rlenv.inference.hf import policy_generate

pytest.importorskip("torch")

CLI_ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
    [str(Path(rlenv.__file__).resolve().parents[1]), os.environ.get("PYTHONPATH", "")])}
TEMPLATE = "{prompt} ="  # a randomly initialized tiny LM (tied embeddings) greedily repeats the last token


@pytest.fixture(scope="module")
def tiny_policy(tmp_path_factory):
    from rlenv.trainers.tiny import save_tiny, tiny_causal_lm, tiny_tokenizer

    tokenizer = tiny_tokenizer(chat_template=True)
    model = tiny_causal_lm(tokenizer, hidden_size=32, seed=3)
    return model, tokenizer, save_tiny(model, tokenizer, tmp_path_factory.mktemp("policy"))


def test_eval_policy_generate_uses_the_chat_template_when_present(tiny_policy):
    from rlenv.inference.policy import SamplingConfig

    model, tokenizer, _ = tiny_policy
    greedy = SamplingConfig(max_new_tokens=4, temperature=0)
    prompts = ["What is 2 + 2? ="]
    plain = policy_generate(model, tokenizer, greedy, chat="off")(prompts)
    assert plain == ["===="] and plain[0].truncated
    # through the template the prompt ends with the <assistant> marker, a special token dropped on decode
    assert policy_generate(model, tokenizer, greedy, chat="auto")(prompts) == [""]
    assert policy_generate(model, tokenizer, greedy, chat="on")(prompts) == [""]


def test_eval_model_cli_scores_generated_samples_and_resumes(tiny_policy, tmp_path):
    model, tokenizer, path = tiny_policy
    from rlenv.inference.policy import SamplingConfig

    env = rlenv.make("rlenv/ExactMatch-v0", prompt_template=TEMPLATE)
    source = env.unwrapped.source
    said = policy_generate(model, tokenizer, SamplingConfig(max_new_tokens=6, temperature=0), chat="off")(
        [env.unwrapped.format_prompt(source[i]) for i in range(4)])
    assert all(normalize_text(s) for s in said), said
    # the model's own answer is the reference of tasks 0 and 2 only: pass@1 must come out 0.5
    rows = [{"id": source[i].id, "prompt": source[i].prompt, "reference": said[i] if i % 2 == 0 else "never-said"}
            for i in range(4)]
    data = tmp_path / "tasks.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = [sys.executable, "-m", "rlenv", "eval", "rlenv/ExactMatch-v0", "--model", str(path), "--data", str(data),
            "--env-arg", f"prompt_template={TEMPLATE}", "--chat", "off", "-n", "2", "-k", "1,2",
            "--temperature", "0", "--max-new-tokens", "6", "--out", str(tmp_path / "run"), "--bootstrap", "200",
            "--batch-size", "3"]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300, env=CLI_ENV)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["num_samples"] == 8 and summary["samples_per_task"] == {"min": 2, "max": 2}
    assert summary["metrics"]["pass@1"]["value"] == pytest.approx(0.5)
    results = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    assert {r["completion"] for r in results if r["task_id"] == rows[0]["id"]} == {str(said[0])}

    again = subprocess.run(args, capture_output=True, text=True, timeout=300, env=CLI_ENV)
    assert again.returncode == 0 and "generated and scored 0 new samples" in again.stderr
    changed = subprocess.run([a if a != "0" else "0.5" for a in args], capture_output=True, text=True, timeout=300,
                             env=CLI_ENV)
    assert changed.returncode == 2 and "other settings" in changed.stderr

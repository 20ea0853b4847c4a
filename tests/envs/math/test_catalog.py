"""The math catalog's default data: which Hub dataset/config/split each id loads, and its field mapping.

``datasets.load_dataset`` is intercepted (``fake_hub``): no test touches the network. The local
files are in the exact schemas of the Hub datasets (``tests/data/hub``; GSM8K's real test split).
"""

import json

import pytest

import rlenv
from rlenv import Status
from rlenv.envs.math.competition_math import MATH_SUBJECTS
from rlenv.hub import DatasetUnavailableError


def rows(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def all_tasks(env):
    source = env.unwrapped.source
    return [source[i] for i in range(source.size)]


def assert_gold_correct(env):
    tasks = all_tasks(env)
    results = env.unwrapped.verifier.score_batch(tasks, [t.gold_completion for t in tasks])
    assert [r.status for r in results] == [Status.CORRECT] * len(tasks), [r.details for r in results]


def test_gsm8k_default_is_openai_gsm8k_main_test(fake_hub, gsm8k_dir):
    fake_hub.files[("openai/gsm8k", "main")] = gsm8k_dir / "test.jsonl"
    env = rlenv.make("rlenv/GSM8K-v0")
    assert fake_hub.calls == [("openai/gsm8k", "main", "test")]
    first = rows(gsm8k_dir / "test.jsonl")[0]
    task = env.unwrapped.source[0]
    assert (task.id, task.prompt, task.reference, task.gold_completion) == ("0", first["question"], "18", first["answer"])
    rlenv.make("rlenv/GSM8K-v0", split="train")
    assert fake_hub.calls[-1] == ("openai/gsm8k", "main", "train")


@pytest.mark.parametrize("env_id, hub_id, split, file, first", [
    ("rlenv/MATH-v0", "HuggingFaceH4/MATH-500", "test", "math500.jsonl",
     ("sample/0", "What is the sum of the positive divisors of 12?", "28")),
    ("rlenv/AIME-2024-v0", "HuggingFaceH4/aime_2024", "train", "aime_2024.jsonl",
     ("60", "What is the sum of the positive divisors of 12?", "28")),
    ("rlenv/AIME-2025-v0", "MathArena/aime_2025", "train", "aime_2025.jsonl",
     ("1", "What is the remainder when $2^{10}$ is divided by 7?", "2")),
])
def test_competition_defaults_map_their_hub_schema(fake_hub, hub_data, env_id, hub_id, split, file, first):
    fake_hub.files[(hub_id, None)] = hub_data / file
    env = rlenv.make(env_id)
    assert fake_hub.calls == [(hub_id, None, split)]
    task = env.unwrapped.source[0]
    assert (task.id, task.prompt, task.reference) == first
    source_row = rows(hub_data / file)[0]
    assert task.gold_completion == source_row.get("solution", f"\\boxed{{{source_row['answer']}}}")
    assert env.unwrapped.source.size == len(rows(hub_data / file))
    assert_gold_correct(env)


def test_math_full_loads_and_concatenates_the_seven_subjects(fake_hub, hub_data):
    for subject in MATH_SUBJECTS:
        fake_hub.files[("EleutherAI/hendrycks_math", subject)] = hub_data / "hendrycks_math.jsonl"
    env = rlenv.make("rlenv/MATH-Full-v0")
    assert fake_hub.calls == [("EleutherAI/hendrycks_math", s, "test") for s in MATH_SUBJECTS]
    per_subject = len(rows(hub_data / "hendrycks_math.jsonl"))
    assert env.unwrapped.source.size == 7 * per_subject
    task = env.unwrapped.source[per_subject + 1]  # the second config's second row
    assert task.reference == r"\frac{7}{12}" and task.metadata == {"level": "Level 1", "type": "Prealgebra"}
    assert_gold_correct(env)
    rlenv.make("rlenv/MATH-Full-v0", split="train")
    assert fake_hub.calls[-7:] == [("EleutherAI/hendrycks_math", s, "train") for s in MATH_SUBJECTS]


def test_split_is_checked_and_does_not_combine_with_data_files(fake_hub, hub_data):
    with pytest.raises(ValueError, match=r"rlenv/MATH-v0: split must be one of \['test'\].*'train'"):
        rlenv.make("rlenv/MATH-v0", split="train")
    with pytest.raises(ValueError, match="split='test' selects a split of openai/gsm8k; with data_files="):
        rlenv.make("rlenv/GSM8K-v0", data_files=str(hub_data / "math500.jsonl"), split="test")
    with pytest.raises(ValueError, match="dataset must be one of"):
        rlenv.make("rlenv/MATH-v0", dataset="aime_1999")
    assert fake_hub.calls == []


def test_unreachable_hub_names_the_dataset_and_local_files(fake_hub):
    with pytest.raises(DatasetUnavailableError) as caught:
        rlenv.make("rlenv/AIME-2025-v0")
    message = str(caught.value)
    assert message.startswith("rlenv/AIME-2025-v0: cannot load its default data, split 'train' of the Hugging Face "
                              "dataset MathArena/aime_2025")
    assert "data_files='train.jsonl'" in message and "problem_idx, problem, answer" in message
    assert isinstance(caught.value, ConnectionError) and isinstance(caught.value.__cause__, ConnectionError)

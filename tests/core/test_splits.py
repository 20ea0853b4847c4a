"""Problem-disjoint train / held-out splits (``rlenv.splits.disjoint_split``)."""

import pytest

import rlenv
from rlenv import TextEnv
from rlenv.exact_match import ExactMatchVerifier
from rlenv.sources import DatasetSource
from rlenv.splits import PromptFilteredSource, disjoint_split, distinct_prompt_indices


def arithmetic():
    return rlenv.make("rlenv/Arithmetic-v0", level=1)  # 100 distinct problems, endless source


def test_held_out_problems_are_distinct_and_never_in_the_training_split():
    env = arithmetic()
    train_env, held_out = disjoint_split(env, held_out_count=30, train_size=2000)
    source = env.unwrapped.source
    held_prompts = [source[i].prompt for i in held_out]
    assert len(held_out) == 30 and len(set(held_prompts)) == 30 and min(held_out) >= 100_000
    train_prompts = {train_env.source[i].prompt for i in range(train_env.source.size)}
    assert train_prompts.isdisjoint(held_prompts)
    assert len(train_prompts) == 70  # every other problem is trained on
    assert env.unwrapped.source is source  # the original env is untouched


def test_training_env_steps_and_finds_tasks_by_id():
    env = arithmetic()
    train_env, _ = disjoint_split(env, held_out_count=10, train_size=50)
    prompt, info = train_env.reset(options={"index": 49})
    assert train_env.source.index_of(info["task_id"]) == 49
    _, reward, *_ = train_env.step(train_env.task.gold_completion)
    assert reward == 1.0
    with pytest.raises(IndexError, match="50 tasks"):
        train_env.reset(options={"index": 50})


def test_asking_for_more_distinct_problems_than_exist_raises_instead_of_looping():
    with pytest.raises(ValueError, match="101 asked for"):
        distinct_prompt_indices(arithmetic().unwrapped.source, 0, 101)


def test_finite_source_split_takes_held_out_from_the_start_and_reports_a_shortfall():
    rows = [{"prompt": p, "reference": r} for p, r in [("a", "1"), ("b", "2"), ("a", "1"), ("c", "3"), ("d", "4")]]
    env = TextEnv(DatasetSource(rows), ExactMatchVerifier())
    train_env, held_out = disjoint_split(env, held_out_count=1, train_size=3)
    assert held_out == [0]
    assert [train_env.source[i].prompt for i in range(3)] == ["b", "c", "d"]  # both copies of "a" left out
    with pytest.raises(KeyError, match="not in this split"):
        train_env.source.index_of(env.unwrapped.source[2].id)
    with pytest.raises(ValueError, match="found only 3 tasks"):
        PromptFilteredSource(env.unwrapped.source, 4, frozenset({"a"}))

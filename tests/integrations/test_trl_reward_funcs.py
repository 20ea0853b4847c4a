"""TRL reward-function contract and dataset export, and the verl compute_score shim (ExactMatch-v0)."""

import pytest

import rlenv
from rlenv.integrations.trl import completion_text, reward_funcs, to_dataset
from rlenv.integrations.verl import compute_score, to_verl_rows
from rlenv.wrappers.base import RewardWrapper

ENV_ID = "rlenv/ExactMatch-v0"


def test_trl_to_dataset_columns_plain_and_chat():
    env = rlenv.make(ENV_ID)
    ds = to_dataset(env)
    assert ds.column_names == ["prompt", "task_id"]
    assert len(ds) == env.unwrapped.source.size
    first = env.unwrapped.source[0]
    assert ds[0]["task_id"] == first.id and ds[0]["prompt"] == first.prompt
    chat = to_dataset(rlenv.make(ENV_ID, chat=True, system_prompt="Be brief."), indices=[2, 5], env_id=ENV_ID)
    assert chat.column_names == ["prompt", "task_id", "env_id"]
    assert chat[0]["prompt"][0] == {"role": "system", "content": "Be brief."}
    assert chat[1]["task_id"] == env.unwrapped.source[5].id
    with pytest.raises(ValueError, match="num_tasks"):
        to_dataset(env, num_tasks=100)


def test_trl_reward_funcs_plain_and_conversational():
    env = rlenv.make(ENV_ID)
    ds = to_dataset(env)
    (reward,) = reward_funcs(env)
    assert reward.__name__ == "rlenv/exact_match"
    refs = [env.unwrapped.source[i].reference for i in range(3)]
    completions = [refs[0], "wrong", ""]
    metrics, extra = {}, {}
    out = reward(prompts=ds["prompt"][:3], completions=completions, task_id=ds["task_id"][:3],
                 completion_ids=[[1]] * 3, trainer_state=None, log_metric=metrics.__setitem__,
                 log_extra=extra.__setitem__)
    assert out == [1.0, 0.0, 0.0]
    # every status, present or not, so that TRL's window means are true fractions
    assert metrics == {"rlenv/exact_match/correct": pytest.approx(1 / 3),
                       "rlenv/exact_match/incorrect": pytest.approx(1 / 3),
                       "rlenv/exact_match/unparsable": pytest.approx(1 / 3),
                       "rlenv/exact_match/error": 0.0, "rlenv/exact_match/timeout": 0.0}
    assert extra == {"rlenv/exact_match/status": ["correct", "incorrect", "unparsable"]}
    conversational = [[{"role": "assistant", "content": refs[1]}], [{"role": "assistant", "content": "no"}]]
    assert reward(prompts=[None] * 2, completions=conversational, task_id=ds["task_id"][1:3]) == [1.0, 0.0]


class CrashesOnWrong:
    """Exact match with a ``match`` component; its check crashes (status ``error``) on an answer that is not the reference."""

    name = "crashes_on_wrong"

    def __call__(self, task, completion):
        from rlenv import RewardResult, Status

        if completion != task.reference:
            return RewardResult(0.0, Status.ERROR, components={"match": 0.0}, details={"error": "checker crashed"})
        return RewardResult(1.0, Status.CORRECT, components={"match": 1.0})


def test_trl_reward_funcs_give_failed_episodes_none_by_default():
    env = rlenv.TextEnv(rlenv.make(ENV_ID).unwrapped.source, CrashesOnWrong())
    ds = to_dataset(env)
    columns = dict(prompts=ds["prompt"][:2], completions=[env.unwrapped.source[0].reference, "wrong"],
                   task_id=ds["task_id"][:2])
    reward, match = reward_funcs(env, components=["match"])
    assert reward(**columns) == [1.0, None] and match(**columns) == [1.0, None]  # every function skips it
    reward, match = reward_funcs(env, components=["match"], on_error="zero")
    assert reward(**columns) == [1.0, 0.0] and match(**columns) == [1.0, 0.0]
    with pytest.raises(ValueError, match="on_error must be one of"):
        reward_funcs(env, on_error="nan")


def test_trl_conversational_content_none_and_content_blocks():
    env = rlenv.make(ENV_ID)
    (reward,) = reward_funcs(env)
    ref = env.unwrapped.source[0].reference
    half = len(ref) // 2
    tool_call_only = [{"role": "assistant", "content": None, "tool_calls": [{"type": "function",
                                                                             "function": {"name": "f"}}]}]
    blocks = [{"role": "assistant", "content": [{"type": "text", "text": ref[:half]},
                                                {"type": "image_url", "image_url": {"url": "x"}},
                                                {"type": "text", "text": ref[half:]}]}]
    after_tools = [tool_call_only[0], {"role": "tool", "content": "42"}, {"role": "assistant", "content": ref}]
    task_ids = [env.unwrapped.source[0].id] * 3
    assert reward(prompts=[None] * 3, completions=[tool_call_only, blocks, after_tools], task_id=task_ids) == \
        [0.0, 1.0, 1.0]
    assert completion_text([{"role": "assistant", "content": ["a", {"type": "text", "text": "b"}]}]) == "ab"
    with pytest.raises(TypeError, match="content must be a str, None or a list"):
        completion_text([{"role": "assistant", "content": 42}])
    with pytest.raises(TypeError, match="needs a str 'text'"):
        completion_text([{"role": "assistant", "content": [{"type": "text", "text": None}]}])


def test_trl_to_dataset_streams_endless_sources():
    import datasets

    env = rlenv.make("rlenv/Arithmetic-v0", chat=True)
    stream = to_dataset(env, env_id="rlenv/Arithmetic-v0")
    assert isinstance(stream, datasets.IterableDataset)
    rows = list(stream.take(5))
    source = env.unwrapped.source
    assert [row["task_id"] for row in rows] == [source[i].id for i in range(5)]
    assert rows[2]["prompt"] == [{"role": "user", "content": source[2].prompt}]
    assert rows[0]["env_id"] == "rlenv/Arithmetic-v0"
    assert list(stream.skip(1000).take(1))[0]["task_id"] == source[1000].id  # it does not end
    assert len(to_dataset(env, num_tasks=7)) == 7


def test_trl_reward_funcs_components_multi_env_and_wrappers():
    class Bonus(RewardWrapper):
        def transform(self, task, completion, reward, truncated, info):
            return reward + 0.5, info

    env = Bonus(rlenv.make(ENV_ID))
    main, component = reward_funcs(env, components=["exact_match"], env_id=ENV_ID)
    assert component.__name__ == "rlenv/exact_match/exact_match"
    ref = env.unwrapped.source[0].reference
    kwargs = dict(prompts=["p"] * 3, completions=[ref, ref, ""], task_id=[env.unwrapped.source[0].id] * 3,
                  env_id=[ENV_ID, "other/Env-v0", ENV_ID])
    assert main(**kwargs) == [1.5, None, 0.5]
    assert component(**kwargs) == [1.0, None, None]  # the unparsable result has no component


def test_trl_reward_funcs_reject_bad_calls():
    (reward,) = reward_funcs(rlenv.make(ENV_ID))
    with pytest.raises(KeyError, match="task_id"):
        reward(prompts=["p"], completions=["x"])
    with pytest.raises(ValueError, match="task ids"):
        reward(prompts=["p"], completions=["x", "y"], task_id=["capital-fr"])
    with pytest.raises(KeyError, match="unknown task_id"):
        reward(prompts=["p"], completions=["x"], task_id=["nope"])
    with pytest.raises(ValueError, match="no assistant message"):
        completion_text([{"role": "user", "content": "hi"}])


def test_trl_verl_compute_score_and_rows():
    env = rlenv.make(ENV_ID)
    rows = to_verl_rows(ENV_ID, [0, 1])
    assert rows[0]["data_source"] == ENV_ID
    assert rows[0]["prompt"] == [{"role": "user", "content": env.unwrapped.source[0].prompt}]
    assert rows[1]["reward_model"] == {"style": "rule", "ground_truth": env.unwrapped.source[1].reference}
    row = rows[0]
    right = compute_score(row["data_source"], env.unwrapped.source[0].reference,
                          row["reward_model"]["ground_truth"], row["extra_info"])
    assert right == {"score": 1.0, "acc": 1.0, "verifier_failure": 0.0}
    assert compute_score(ENV_ID, "Lyon", extra_info=row["extra_info"])["score"] == 0.0
    # no task id: the task is built from the ground truth
    assert compute_score(ENV_ID, "forty two", "Forty Two")["acc"] == 1.0
    with pytest.raises(ValueError, match="ground_truth"):
        compute_score(ENV_ID, "x")

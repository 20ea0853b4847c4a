import concurrent.futures as cf
import os
import time

import numpy as np
import pytest

import rlenv
from rlenv import Completion, Status, TextEnv, TextVectorEnv
from tests.core.core_helpers import EqualsReference, FailsOn, RecordsPid, SlowVerifier, addition_source


def make_vec(verifier=None, num_tasks=4, group_size=3, **kwargs) -> TextVectorEnv:
    env = TextEnv(addition_source(size=100), verifier or EqualsReference())
    return TextVectorEnv(env, num_tasks=num_tasks, group_size=group_size, **kwargs)


def test_groups_repeat_each_task_consecutively():
    vec = make_vec()
    prompts, infos = vec.reset(seed=0)
    assert vec.num_envs == 12 and len(prompts) == 12
    np.testing.assert_array_equal(infos["group_id"], np.repeat(np.arange(4), 3))
    for g in range(4):
        assert len(set(infos["task_id"][g * 3:(g + 1) * 3])) == 1
    assert len(set(infos["task_id"])) == 4


def test_results_come_back_in_input_order():
    vec = make_vec()
    vec.reset(seed=1)
    answers = [t.reference if i % 2 == 0 else "wrong" for i, t in enumerate(vec.tasks)]
    _, rewards, terminated, truncated, infos = vec.step(answers)
    np.testing.assert_array_equal(rewards, np.array([1.0, 0.0] * 6, dtype=np.float32))
    assert terminated.all() and not truncated.any()
    assert [r.status.value for r in infos["reward"]] == ["correct", "incorrect"] * 6
    assert list(infos["task_id"]) == [t.id for t in vec.tasks]


def test_seeded_reset_and_pinned_tasks():
    a, b = make_vec(), make_vec()
    assert list(a.reset(seed=3)[1]["task_id"]) == list(b.reset(seed=3)[1]["task_id"])
    _, infos = a.reset(options={"task_ids": ["add-0-5", "add-0-6", "add-0-7", "add-0-8"]})
    assert list(infos["index"]) == [5, 5, 5, 6, 6, 6, 7, 7, 7, 8, 8, 8]
    _, infos = a.reset(options={"indices": [1, 2, 3, 4]})
    assert infos["task_id"][0] == "add-0-1"
    with pytest.raises(ValueError, match="expected num_tasks=4"):
        a.reset(options={"indices": [1]})


def test_slow_verifier_is_scored_in_parallel():
    delay, n = 0.2, 8
    serial = make_vec(SlowVerifier(delay), num_tasks=n, group_size=1, executor="serial")
    threaded = make_vec(SlowVerifier(delay), num_tasks=n, group_size=1, executor="thread", max_workers=n)
    timings = {}
    for name, vec in (("serial", serial), ("thread", threaded)):
        vec.reset(seed=0)
        start = time.perf_counter()
        vec.step(["0"] * n)
        timings[name] = time.perf_counter() - start
        vec.close()
    assert timings["serial"] >= n * delay
    assert timings["thread"] < timings["serial"] / 2


def test_process_executor_scores_in_worker_processes():
    vec = make_vec(RecordsPid(), num_tasks=2, group_size=2, executor="process", max_workers=2)
    vec.reset(seed=0)
    _, rewards, *_, infos = vec.step([t.reference for t in vec.tasks])
    vec.close()
    assert rewards.tolist() == [1.0] * 4
    assert os.getpid() not in {r.details["pid"] for r in infos["reward"]}


def test_one_failure_does_not_sink_the_batch():
    vec = make_vec(FailsOn("boom"), num_tasks=2, group_size=2)
    vec.reset(seed=0)
    answers = [t.reference for t in vec.tasks]
    answers[1] = "boom"
    _, rewards, *_, infos = vec.step(answers)
    assert [r.status for r in infos["reward"]] == [Status.CORRECT, Status.ERROR, Status.CORRECT, Status.CORRECT]
    assert rewards.tolist() == [1.0, 0.0, 1.0, 1.0]


def test_user_executor_is_not_shut_down():
    with cf.ThreadPoolExecutor(2) as pool:
        vec = make_vec(num_tasks=2, group_size=1, executor=pool)
        vec.reset(seed=0)
        vec.step(["1", "2"])
        vec.close()
        assert pool.submit(lambda: 5).result() == 5


def test_bad_batches_are_rejected():
    vec = make_vec(num_tasks=1, group_size=2)
    with pytest.raises(RuntimeError, match="before reset"):
        vec.step(["1", "2"])
    vec.reset(seed=0)
    with pytest.raises(ValueError, match="expected num_envs=2"):
        vec.step(["1"])
    with pytest.raises(TypeError, match="completion 1 must be a str"):
        vec.step(["1", None])
    vec.step([Completion("1", truncated=True), "2"])
    with pytest.raises(RuntimeError, match="twice"):
        vec.step(["1", "2"])
    with pytest.raises(ValueError, match="group_size must be a positive int"):
        make_vec(group_size=0)


def test_truncation_flags_per_episode():
    vec = make_vec(num_tasks=1, group_size=2)
    vec.reset(seed=0)
    truncated = vec.step([Completion("1", truncated=True), "2"])[3]
    assert truncated.tolist() == [True, False]


def test_make_vec_and_score_on_a_registered_env():
    vec = rlenv.make_vec("rlenv/ExactMatch-v0", num_tasks=3, group_size=2)
    _, infos = vec.reset(seed=0)
    assert len(infos["task_id"]) == 6
    results = rlenv.score("rlenv/ExactMatch-v0", [
        {"task_id": "capital-fr", "completion": "paris"},
        {"index": 1, "completion": "green"},
    ])
    assert [r.status.value for r in results] == ["correct", "incorrect"]
    with pytest.raises(ValueError, match="names no task"):
        rlenv.score("rlenv/ExactMatch-v0", [{"completion": "x"}])

import time

import gymnasium
import pytest

import rlenv
from rlenv import Completion, RewardResult, Status, TextEnv
from rlenv.multiturn import MultiTurnEnv, Turn
from rlenv.wrappers.base import RewardWrapper
from tests.core.core_helpers import EqualsReference, addition_source
from tests.core.multiturn_helpers import AskThenAnswer


def make(**kwargs) -> AskThenAnswer:
    return AskThenAnswer(addition_source(size=20), EqualsReference(), **kwargs)


def test_an_episode_goes_on_until_the_final_turn_which_is_graded():
    env = make()
    prompt, info = env.reset(seed=0)
    obs, reward, terminated, truncated, step_info = env.step("ask")
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert obs == f"\nthe answer has {len(env.task.reference)} digit(s)\n" and step_info["asked"] and step_info["turn"] == 1
    assert step_info["task_id"] == info["task_id"] and "reward" not in step_info
    obs, reward, terminated, truncated, final = env.step(env.task.reference)
    assert (obs, reward, terminated, truncated) == ("", 1.0, True, False)
    assert final["status"] == "correct" and final["turns"] == 2 and final["turn_rewards"] == ()
    assert env.transcript == f"ask\nthe answer has {len(env.task.reference)} digit(s)\n{env.task.reference}"
    with pytest.raises(RuntimeError, match="after the episode ended"):
        env.step("1")


def test_chat_mode_replies_with_messages_and_keeps_the_conversation():
    env = make(chat=True, system_prompt="Add.")
    prompt, _ = env.reset(seed=1)
    assert [m["role"] for m in prompt] == ["system", "user"]
    obs, *_ = env.step("ask")
    assert obs == [{"role": "user", "content": f"the answer has {len(env.task.reference)} digit(s)"}]
    env.step("wrong")
    assert [m["role"] for m in env.messages] == ["system", "user", "assistant", "user", "assistant"]
    assert env.messages[-1]["content"] == "wrong"


@pytest.mark.parametrize("limit", ["max_turns", "max_tokens", "max_seconds"])
def test_each_limit_truncates_the_episode_and_still_grades_the_last_turn(limit, monkeypatch):
    settings = {"max_turns": {"max_turns": 3},
                "max_tokens": {"max_tokens": 12, "count_tokens": lambda s: len(s.split())},
                "max_seconds": {"max_seconds": 0.05}}[limit]
    env = make(**settings)
    env.reset(seed=0)
    steps = []
    for _ in range(10):
        if limit == "max_seconds":
            time.sleep(0.03)
        steps.append(env.step("ask"))
        if steps[-1][2] or steps[-1][3]:
            break
    _, reward, terminated, truncated, info = steps[-1]
    assert (terminated, truncated, info["limit"]) == (False, True, limit)
    assert info["status"] == "incorrect" and reward == 0.0  # "ask" graded: a status, never a silent 0.0
    assert all(not (s[2] or s[3]) for s in steps[:-1])
    if limit == "max_turns":
        assert len(steps) == 3
    if limit == "max_tokens":  # 1 + 5 words a turn: the budget of 12 is reached at turn 2
        assert len(steps) == 2


def test_a_final_turn_on_the_last_allowed_turn_is_terminated_not_truncated():
    env = make(max_turns=2)
    env.reset(seed=0)
    env.step("ask")
    _, reward, terminated, truncated, info = env.step(env.task.reference)
    assert (reward, terminated, truncated) == (1.0, True, False) and "limit" not in info


def test_per_turn_rewards_are_step_rewards_and_are_located_in_the_transcript():
    env = make(hint_reward=-0.25)
    env.reset(seed=0)
    _, reward, _, _, info = env.step("ask")
    assert reward == -0.25 and isinstance(info["reward"], RewardResult) and info["reward"].verifier == "hint"
    env.step("ask")
    *_, final = env.step(env.task.reference)
    first, second = final["turn_rewards"]
    assert first.value == second.value == -0.25
    assert env.transcript[first.start:first.end].startswith("ask") and first.end <= second.start
    assert final["reward"].verifier == "equals_reference"  # the verifier's own result, untouched


def test_a_turn_cut_at_max_completion_chars_reports_truncated():
    env = make(max_completion_chars=2)
    env.reset(options={"index": 0})
    _, _, terminated, truncated, info = env.step("1234567")
    assert terminated and truncated and env.messages[-1]["content"] == "12"


def test_a_generator_cut_final_turn_is_truncated_like_single_turn():
    env = make()
    env.reset(seed=0)
    *_, terminated, truncated, _ = env.step(Completion("12", truncated=True))
    assert terminated and truncated


def test_end_episode_runs_once_per_episode_on_end_reset_and_close():
    env = make()
    env.reset(seed=0)
    env.step("ask")
    env.reset(seed=1)  # abandoned mid-episode
    assert env.ended == 1
    env.step("5")
    assert env.ended == 2
    env.reset(seed=2)
    assert env.ended == 2  # the ended episode is not ended twice
    env.close()
    assert env.ended == 3 and len(env.started) == 3


def test_respond_must_answer_in_the_modes_shape():
    class TextInChat(MultiTurnEnv):
        def respond(self, task, action):
            return Turn(observation="plain text")

    env = TextInChat(addition_source(size=5), EqualsReference(), chat=True)
    env.reset(seed=0)
    with pytest.raises(TypeError, match="chat messages in chat mode, got 'plain text'"):
        env.step("x")
    with pytest.raises(ValueError, match="a final Turn has no observation"):
        Turn(observation="x", final="y")


@pytest.mark.parametrize("bad, message", [
    ({"max_turns": 0}, "max_turns must be a positive int, got 0"),
    ({"max_tokens": 5}, "max_tokens=5 needs count_tokens"),
    ({"max_seconds": -1}, "max_seconds must be positive or None, got -1"),
])
def test_bad_limits_are_named(bad, message):
    with pytest.raises(ValueError, match=message):
        make(**bad)


def test_reward_wrappers_shape_only_the_outcome():
    class PlusOne(RewardWrapper):
        def transform(self, task, completion, reward, truncated, info):
            return reward + 1.0, {**info, "seen": completion}

    env = PlusOne(make())
    env.reset(seed=0)
    _, reward, *_ = env.step("ask")
    assert reward == 0.0
    answer = env.unwrapped.task.reference
    _, reward, _, _, info = env.step(answer)
    assert reward == 2.0 and info["seen"] == answer


def test_gymnasium_wrappers_and_check_env_accept_a_multi_turn_env():
    env = gymnasium.wrappers.RecordEpisodeStatistics(make(hint_reward=-0.5, max_turns=4))
    env.reset(seed=0)
    env.step("ask")
    *_, info = env.step(env.unwrapped.task.reference)
    assert info["episode"]["r"] == pytest.approx(0.5) and info["episode"]["l"] == 2
    report = rlenv.check_env(make(max_turns=4))
    assert report["multi_turn"] and report["turn_limit"] and report["gold"]


def test_vector_envs_refuse_multi_turn_envs():
    with pytest.raises(TypeError, match="AskThenAnswer is multi-turn"):
        rlenv.TextVectorEnv(make(), num_tasks=2)


def test_single_turn_envs_are_unchanged():
    env = TextEnv(addition_source(size=5), EqualsReference())
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.task.reference)
    assert (obs, reward, terminated, truncated) == ("", 1.0, True, False)
    assert set(info) == {"reward", "status", "components", "task_id", "index", "metadata"}
    assert not isinstance(env, MultiTurnEnv) and info["reward"].status is Status.CORRECT

import pickle

import pytest

from rlenv import Completion, RewardResult, Status, StepReward, Task


def test_reward_result_round_trip_and_status_coercion():
    result = RewardResult(1, "correct", {"format": 1.0}, [StepReward(0.5, 0, 4)], "v", "2", {"answer": "4"})
    assert result.status is Status.CORRECT and result.correct and isinstance(result.value, float)
    assert RewardResult.from_dict(result.to_dict()) == result
    assert pickle.loads(pickle.dumps(result)) == result


def test_reward_result_rejects_unknown_status():
    with pytest.raises(ValueError, match="'maybe'"):
        RewardResult(0.0, "maybe")


def test_error_result_carries_exception_text():
    result = RewardResult.error(ZeroDivisionError("division by zero"), "v", "1")
    assert result.status is Status.ERROR and result.value == 0.0
    assert result.details["error"] == "ZeroDivisionError: division by zero"


def test_step_reward_offsets_validated():
    with pytest.raises(ValueError, match="start=5 end=2"):
        StepReward(1.0, 5, 2)


def test_task_prompt_must_be_text_and_id_is_string():
    assert Task(7, "p").id == "7"
    with pytest.raises(TypeError, match="Task.prompt must be a str"):
        Task("x", ["not", "text"])


def test_completion_keeps_truncation_flag_through_pickle():
    c = Completion("abc", truncated=True)
    assert c == "abc" and isinstance(c, str)
    clone = pickle.loads(pickle.dumps(c))
    assert clone.truncated is True and clone == "abc"
    assert Completion("abc").truncated is False


def test_completion_keeps_the_servers_token_usage_through_pickle():
    c = Completion("abc", usage={"prompt_tokens": 12, "completion_tokens": 3})
    clone = pickle.loads(pickle.dumps(c))
    assert clone.usage == {"prompt_tokens": 12, "completion_tokens": 3} and clone == "abc"
    assert Completion("abc").usage is None

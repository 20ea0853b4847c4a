import gymnasium
import pytest

import rlenv
from rlenv import Completion, Status, TextEnv
from tests.core.core_helpers import EqualsReference, FailsOn, addition_source


def make_env(**kwargs) -> TextEnv:
    return TextEnv(addition_source(size=50), EqualsReference(), **kwargs)


def test_reset_step_contract():
    env = make_env()
    prompt, info = env.reset(seed=0)
    task = env.task
    assert prompt == task.prompt and info["task_id"] == task.id
    assert "reference" not in info and task.reference not in str(info)
    obs, reward, terminated, truncated, info = env.step(task.reference)
    assert (obs, reward, terminated, truncated) == ("", 1.0, True, False)
    assert info["reward"].status is Status.CORRECT and info["status"] == "correct"
    assert env.observation_space.contains(obs) and env.observation_space.contains(prompt)


def test_wrong_answer_is_incorrect_not_error():
    env = make_env()
    env.reset(seed=1)
    _, reward, *_, info = env.step("not a number")
    assert reward == 0.0 and info["reward"].status is Status.INCORRECT


def test_seeded_reset_is_deterministic_and_seeds_differ():
    env_a, env_b = make_env(), make_env()
    draws_a = [env_a.reset(seed=s)[1]["task_id"] for s in range(10)]
    draws_b = [env_b.reset(seed=s)[1]["task_id"] for s in range(10)]
    assert draws_a == draws_b
    assert len(set(draws_a)) > 3
    env_a.reset(seed=3)
    follow_a = [env_a.reset()[1]["task_id"] for _ in range(5)]
    env_b.reset(seed=3)
    follow_b = [env_b.reset()[1]["task_id"] for _ in range(5)]
    assert follow_a == follow_b


def test_reset_options_index_and_task_id():
    env = make_env()
    _, info = env.reset(options={"index": 12})
    assert info["index"] == 12 and info["task_id"] == "add-0-12"
    _, info = env.reset(options={"task_id": "add-0-7"})
    assert info["index"] == 7


@pytest.mark.parametrize(
    "options, error, match",
    [
        ({"index": 50}, IndexError, "options\\['index'\\]=50 out of range"),
        ({"index": -1}, IndexError, "-1"),
        ({"index": "3"}, TypeError, "must be an int"),
        ({"task_id": "nope"}, KeyError, "unknown task_id 'nope'"),
        ({"index": 1, "task_id": "add-0-1"}, ValueError, "not both"),
        ({"level": 2}, ValueError, "unknown reset option"),
    ],
)
def test_reset_bad_options(options, error, match):
    with pytest.raises(error, match=match):
        make_env().reset(options=options)


def test_step_before_reset_after_end_and_non_string():
    env = make_env()
    with pytest.raises(RuntimeError, match="before reset"):
        env.step("1")
    env.reset(seed=0)
    with pytest.raises(TypeError, match="must be a str, got int"):
        env.step(42)
    env.step("1")
    with pytest.raises(RuntimeError, match="after the episode ended"):
        env.step("1")


def test_verifier_exception_becomes_error_status():
    env = TextEnv(addition_source(size=5), FailsOn("boom"))
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step("boom")
    assert reward == 0.0 and terminated
    assert info["reward"].status is Status.ERROR
    assert "RuntimeError: cannot score 'boom'" in info["reward"].details["error"]


def test_truncation_from_completion_flag_and_char_limit():
    env = make_env()
    env.reset(seed=0)
    assert env.step(Completion("12", truncated=True))[3] is True
    env = make_env(max_completion_chars=3)
    env.reset(seed=0)
    answer = env.task.reference
    _, reward, _, truncated, info = env.step(answer + " and a long tail")
    assert truncated and info["truncated_completion"]
    env.reset(seed=0)
    assert env.step(answer)[3] is False


def test_chat_prompt_format_with_system_prompt():
    env = make_env(chat=True, system_prompt="Answer with a number.", prompt_template="Compute {prompt}")
    prompt, _ = env.reset(seed=0)
    assert prompt[0] == {"role": "system", "content": "Answer with a number."}
    assert prompt[1]["role"] == "user" and prompt[1]["content"] == f"Compute {env.task.prompt}"
    assert env.observation_space.contains(prompt)
    assert env.step("0")[0] == []


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"prompt_template": "no placeholder"}, "must contain"),
        ({"system_prompt": "x"}, "needs chat=True"),
        ({"max_completion_chars": 0}, "positive"),
        ({"render_mode": "human"}, "render_mode"),
    ],
)
def test_constructor_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_env(**kwargs)


def test_gymnasium_make_and_rlenv_make_agree():
    via_gym = gymnasium.make("rlenv/ExactMatch-v0")
    via_rlenv = rlenv.make("rlenv/ExactMatch-v0")
    assert via_gym.reset(seed=4)[0] == via_rlenv.reset(seed=4)[0]
    assert isinstance(via_gym.unwrapped, TextEnv)


def test_render_ansi_shows_prompt_and_completion():
    env = make_env(render_mode="ansi")
    env.reset(seed=0)
    env.step("17")
    assert env.render() == f"{env.task.prompt}\n---\n17"

"""A run that cannot learn says so: one warning, with the numbers, after ``stall_warning_steps`` steps
(``stall_warning_rounds`` rounds of self-training and online DPO) in which every episode was
unparsable or every group's rewards were equal (no advantage, nothing to prefer)."""

import logging

import pytest

from rlenv import RewardResult, Status, TextEnv
from rlenv.inference import Sampling
from rlenv.trainers import Trainer, train
from rlenv.vector import TextVectorEnv
from tests.trainers.trainer_helpers import MAX_NEW_TOKENS, make_task_env, tiny_policy, training_split

pytestmark = pytest.mark.usefixtures("one_torch_thread")

CONFIG = dict(num_tasks=2, group_size=2, lr=1e-6, max_new_tokens=MAX_NEW_TOKENS, progress=False)


class NeverParses:
    name = "never_parses"
    version = "1"

    def __call__(self, task, completion):
        return RewardResult(0.0, Status.UNPARSABLE, verifier=self.name, verifier_version=self.version)


def _warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and "learns nothing" in r.getMessage()]


def test_every_episode_unparsable_warns_once_with_the_numbers(caplog):
    caplog.set_level(logging.WARNING, logger="rlenv")
    env = _never_parsing_env()
    model, tok = tiny_policy(hidden_size=32)
    Trainer(model, env, "grpo", config=dict(CONFIG, steps=5, stall_warning_steps=2), tokenizer=tok).train()
    (message,) = _warnings(caplog)  # once, not at every step after
    assert "steps 1-2" in message and "8 of 8 episodes were unparsable" in message  # 2 steps of 2 x 2
    assert "4 of 4 groups had equal rewards" in message and "lr=1e-06" in message
    assert "prompt" in message


def _never_parsing_env() -> TextEnv:
    base = make_task_env().unwrapped
    return TextEnv(base.source, NeverParses(), prompt_template=base.prompt_template)


@pytest.mark.parametrize("algorithm", ["raft", "online_dpo"])
def test_the_round_trainers_warn_once_too(caplog, algorithm):
    caplog.set_level(logging.WARNING, logger="rlenv")
    model, tok = tiny_policy(hidden_size=32)
    env = TextVectorEnv(_never_parsing_env(), num_tasks=2, group_size=2)
    config = {"rounds": 4, "stall_warning_rounds": 2, "sampling": Sampling(max_new_tokens=MAX_NEW_TOKENS)}
    train(algorithm, model, tok, env=env, config=config, progress=False)
    (message,) = _warnings(caplog)  # once, not at every round after
    assert "rounds 1-2" in message and "8 of 8 episodes were unparsable" in message  # 2 rounds of 2 x 2
    assert "4 of 4 groups had equal rewards" in message


@pytest.mark.parametrize("algorithm", ["raft", "online_dpo"])
def test_stall_warning_rounds_is_checked(algorithm):
    model, tok = tiny_policy(hidden_size=32)
    env = TextVectorEnv(_never_parsing_env(), num_tasks=2, group_size=2)
    with pytest.raises(ValueError, match="stall_warning_rounds must be >= 0, got -1"):
        train(algorithm, model, tok, env=env, config={"stall_warning_rounds": -1}, progress=False)


def test_a_run_with_a_signal_does_not_warn(caplog):
    caplog.set_level(logging.WARNING, logger="rlenv")
    model, tok = tiny_policy(hidden_size=32)
    trainer = Trainer(model, training_split(make_task_env()), "grpo",
                      config=dict(CONFIG, steps=2, stall_warning_steps=2), tokenizer=tok)
    trainer.rollout = lambda failures=None: _varied(trainer, failures)
    trainer.train()
    assert _warnings(caplog) == []


def _varied(trainer, failures):
    """A real rollout whose verdicts are made to differ within each group (a learning signal)."""
    from rlenv.trainers.rollout import collect

    batch, stats = collect(trainer.env, trainer.generate_fn, trainer.tokenizer, seed=trainer.step, log=failures)
    rewards = batch.rewards.clone()
    rewards[::2] = 1.0
    rewards[1::2] = 0.0
    statuses = ["correct" if r else "incorrect" for r in rewards.tolist()]
    return batch.replace(rewards=rewards, infos={**batch.infos, "status": statuses}), stats


def test_stall_warning_steps_is_checked():
    with pytest.raises(ValueError, match="stall_warning_steps must be >= 0, got -1"):
        Trainer(tiny_policy(hidden_size=32)[0], None, "grpo", config=dict(stall_warning_steps=-1),
                tokenizer=tiny_policy(hidden_size=32)[1])

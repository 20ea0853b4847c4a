import pytest

import rlenv
from rlenv import RewardResult, Status, TextEnv
from rlenv.checker import EnvCheckError
from rlenv.multiturn import Turn
from tests.core.core_helpers import EqualsReference, addition_source
from tests.core.multiturn_helpers import AskThenAnswer


class AcceptsAnything(EqualsReference):
    def __call__(self, task, completion):
        return RewardResult(1.0, Status.CORRECT, verifier=self.name)


class Unpicklable(EqualsReference):
    def __init__(self):
        self.handle = lambda: None


def test_check_env_passes_on_a_sound_env():
    report = rlenv.check_env(TextEnv(addition_source(size=20), EqualsReference()))
    assert report == {"gymnasium": True, "seeded_reset": True, "picklable_verifier": True, "gold": True}


def test_check_env_catches_a_verifier_that_accepts_everything():
    with pytest.raises(EnvCheckError, match="empty completion scored correct"):
        rlenv.check_env(TextEnv(addition_source(size=20), AcceptsAnything()))


def test_check_env_catches_an_unpicklable_verifier():
    with pytest.raises(EnvCheckError, match="not picklable"):
        rlenv.check_env(TextEnv(addition_source(size=20), Unpicklable()))


@pytest.fixture(scope="module")
def required_overrides(tmp_path_factory):
    """Envs scored by a model need a checkpoint (tiny ones built and saved locally) or a judge's name."""
    from rlenv.trainers.tiny import save_tiny, tiny_sequence_classifier, tiny_token_classifier, tiny_tokenizer

    root = tmp_path_factory.mktemp("checkpoints")
    tokenizer = tiny_tokenizer()
    reward_model = save_tiny(tiny_sequence_classifier(tokenizer), tokenizer, root / "rm")
    prm = save_tiny(tiny_token_classifier(tokenizer), tokenizer, root / "prm")
    judge = {"judge_model": "unused"}  # served judges are asked only when a completion is scored
    return {"rlenv/SafetyRM-v0": {"model": str(reward_model)}, "rlenv/PRM-v0": {"model": str(prm)},
            "rlenv/Judge-v0": judge, "rlenv/ConstitutionJudge-v0": judge}


@pytest.mark.parametrize("env_id", [i for i in rlenv.list_envs() if not i.startswith("reasoning_gym/")])
def test_every_registered_env_passes_check_env(env_id, required_overrides, catalog_hub):
    """Built as users build them (Hub defaults served locally); reasoning-gym's ids: tests/envs/rgym."""
    report = rlenv.check_env(rlenv.make(env_id, **required_overrides.get(env_id, {})))
    assert report["gymnasium"] and report["seeded_reset"] and report["picklable_verifier"]


class EndsOnSecondAsk(AskThenAnswer):
    def respond(self, task, action):
        if self._turns == 2 and action == "ask":
            return Turn(final=action)
        return super().respond(task, action)


class GoldTooShort(AskThenAnswer):
    def gold_episode(self, task):
        return ["ask", "ask", task.gold_completion]

    def respond(self, task, action):
        return Turn(final=action) if self._turns == 2 else super().respond(task, action)


class StepsAfterTheEnd(AskThenAnswer):
    def step(self, action):
        if self._done:
            return self.terminal_observation(), 0.0, True, False, {}
        return super().step(action)


def test_check_env_plays_multi_turn_gold_episodes_and_the_turn_limit():
    report = rlenv.check_env(AskThenAnswer(addition_source(size=20), EqualsReference(), max_turns=3))
    assert report == {"gymnasium": True, "seeded_reset": True, "picklable_verifier": True, "gold": True,
                      "multi_turn": True, "turn_limit": True}


@pytest.mark.parametrize("env_class, message", [
    (GoldTooShort, "gold episode of task .* ended at turn 2 of 3"),
    (StepsAfterTheEnd, r"step\(\) after the end of an episode .* was accepted"),
    (EndsOnSecondAsk, "ended at turn 2 .* expected truncated by the turn limit at max_turns=3"),
])
def test_check_env_catches_broken_multi_turn_envs(env_class, message):
    with pytest.raises(EnvCheckError, match=message):
        rlenv.check_env(env_class(addition_source(size=20), EqualsReference(), max_turns=3))


def recipe_env(**kwargs):
    """An env factory as the getting-started recipe writes it: its own verifier, ``**kwargs`` for the rest."""
    return TextEnv(addition_source(size=20), EqualsReference(), **kwargs)


@pytest.mark.parametrize("env_id", [*rlenv.list_envs(), "test/Recipe-v0"])
def test_every_env_takes_another_verifier_through_make(env_id, required_overrides, catalog_hub, clean_registry):
    """``rlenv.make(ID, verifier=...)`` (docs/scale-out.md) swaps the verifier of every env."""
    rlenv.register("test/Recipe-v0", recipe_env)
    verifier = AcceptsAnything()
    env = rlenv.make(env_id, verifier=verifier, **required_overrides.get(env_id, {}))
    assert env.unwrapped.verifier is verifier
    env.reset(seed=0)
    _, reward, *_ = env.step("anything")
    assert reward == 1.0
    with pytest.raises(TypeError, match="verifier must be callable"):
        rlenv.make(env_id, verifier="math", **required_overrides.get(env_id, {}))

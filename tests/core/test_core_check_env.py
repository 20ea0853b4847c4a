import pytest
from core_helpers import EqualsReference, addition_source

import rlenv
from rlenv import EnvCheckError, RewardResult, Status, TextEnv


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
    """Envs scored by a model need a checkpoint: tiny ones built and saved locally."""
    from rlenv.trainers.tiny import save_tiny, tiny_sequence_classifier, tiny_token_classifier, tiny_tokenizer

    root = tmp_path_factory.mktemp("checkpoints")
    tokenizer = tiny_tokenizer()
    reward_model = save_tiny(tiny_sequence_classifier(tokenizer), tokenizer, root / "rm")
    prm = save_tiny(tiny_token_classifier(tokenizer), tokenizer, root / "prm")
    return {"rlenv/SafetyRM-v0": {"model": str(reward_model)}, "rlenv/PRM-v0": {"model": str(prm)}}


@pytest.mark.parametrize("env_id", [i for i in rlenv.list_envs() if not i.startswith("reasoning_gym/")])
def test_every_registered_env_passes_check_env(env_id, required_overrides, catalog_hub):
    """Built as users build them (Hub defaults served locally); reasoning-gym's ids: tests/envs/rgym."""
    report = rlenv.check_env(rlenv.make(env_id, **required_overrides.get(env_id, {})))
    assert report["gymnasium"] and report["seeded_reset"] and report["picklable_verifier"]

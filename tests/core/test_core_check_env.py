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


@pytest.mark.parametrize("env_id", rlenv.list_envs())
def test_every_registered_env_passes_check_env(env_id):
    report = rlenv.check_env(rlenv.make(env_id))
    assert report["gymnasium"] and report["seeded_reset"] and report["picklable_verifier"]

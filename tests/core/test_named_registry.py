"""rlenv.named_registry: the one helper behind the advantage-estimator and policy-loss registries."""

import pytest

from rlenv.named_registry import Registry


def test_a_name_is_registered_once_and_looked_up_with_the_known_names_in_the_error():
    things = Registry("thing")

    @things.register("b")
    def b():
        return 2

    assert things.register("a")(len) is len and things.register("a")(len) is len  # the same object again is fine
    assert things.get("b") is b and things.names() == ["a", "b"] and "a" in things
    with pytest.raises(ValueError, match="thing 'a' is already registered"):
        things.register("a")(b)
    with pytest.raises(KeyError, match=r"unknown thing 'c'; registered: \['a', 'b'\]"):
        things.get("c")


def test_the_policy_gradient_registries_use_it():
    from rlenv.trainers.policy_gradient import advantages, losses

    assert advantages.get("grpo") is advantages.get("grpo") and "ppo" in losses.names()
    with pytest.raises(KeyError, match="unknown policy loss"):
        losses.get("nope")
    with pytest.raises(KeyError, match="unknown advantage estimator"):
        advantages.get("nope")

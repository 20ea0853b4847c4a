"""Aggregations and dense modes on fixed step scores."""

from __future__ import annotations

import pytest

from rlenv.envs.prm import aggregate, dense_rewards
from rlenv.envs.prm.aggregate import first_error

SCORES = [0.9, 0.6, 0.2, 0.8]


@pytest.mark.parametrize("method, expected", [
    ("min", 0.2), ("prod", 0.9 * 0.6 * 0.2 * 0.8), ("mean", 2.5 / 4), ("last", 0.8), ("first_error", 2 / 4)])
def test_each_aggregation(method, expected):
    assert aggregate(SCORES, method) == pytest.approx(expected)


def test_first_error_threshold_and_clean_solutions():
    assert first_error(SCORES, 0.5) == 2
    assert first_error(SCORES, 0.7) == 1
    assert aggregate(SCORES, "first_error", threshold=0.7) == pytest.approx(1 / 4)
    assert aggregate(SCORES, "first_error", threshold=0.1) == 1.0
    assert aggregate([0.1], "first_error") == 0.0


def test_dense_modes():
    assert dense_rewards(SCORES, "raw") == pytest.approx(SCORES)
    assert dense_rewards(SCORES, "clip", eta=0.7) == pytest.approx([0.0, -0.1, -0.5, 0.0])
    delta = dense_rewards(SCORES, "delta")
    assert delta == pytest.approx([0.3, 0.4, -0.6, 0.8])
    assert sum(delta) == pytest.approx(SCORES[0])  # telescopes to the first score
    assert dense_rewards([0.4], "delta") == [0.4]


def test_more_steps_do_not_raise_the_clipped_return():
    few, many = [0.9, 0.9], [0.9] * 10
    assert sum(dense_rewards(many, "raw")) > sum(dense_rewards(few, "raw"))  # raw pays for padding steps
    assert sum(dense_rewards(many, "clip", eta=0.95)) <= sum(dense_rewards(few, "clip", eta=0.95))


def test_errors():
    with pytest.raises(ValueError, match="aggregation"):
        aggregate(SCORES, "max")
    with pytest.raises(ValueError, match="zero"):
        aggregate([], "min")
    with pytest.raises(ValueError, match="eta"):
        dense_rewards(SCORES, "clip")
    with pytest.raises(ValueError, match="dense"):
        dense_rewards(SCORES, "sum")

"""Reward-model training: outcome reward models (Bradley–Terry on preference rows,
:mod:`~rlenv.trainers.reward_models.outcome`) and process reward models (step labels,
:mod:`~rlenv.trainers.reward_models.process`), in the input layouts of :mod:`rlenv.rm_inputs`."""

from rlenv.trainers.reward_models.config import PRMConfig, RewardModelConfig
from rlenv.trainers.reward_models.outcome import pairwise_accuracy, train_reward_model
from rlenv.trainers.reward_models.process import step_accuracy, train_prm

__all__ = ["PRMConfig", "RewardModelConfig", "pairwise_accuracy", "step_accuracy", "train_prm", "train_reward_model"]

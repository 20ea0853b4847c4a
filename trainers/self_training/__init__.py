"""Self-training: RAFT, ReST and STaR sample on an environment, keep completions by reward, fine-tune."""

from rlenv.trainers.self_training.config import PRESETS, SelfTrainingConfig, self_training_config
from rlenv.trainers.self_training.trainer import SelfTrainer, group_pass_rates, select_samples

__all__ = ["PRESETS", "SelfTrainer", "SelfTrainingConfig", "group_pass_rates", "select_samples",
           "self_training_config"]

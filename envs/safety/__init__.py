"""Safety reward models: sequence-classifier RMs, generative guard classifiers, refusal awareness, ``SafetyRMEnv``."""

from rlenv.envs.safety.env import SafetyRMEnv
from rlenv.envs.safety.guard import GuardClassifierVerifier
from rlenv.envs.safety.refusal import RefusalDetector, RefusalReward
from rlenv.envs.safety.reward_model import RewardModelVerifier

__all__ = ["GuardClassifierVerifier", "RefusalDetector", "RefusalReward", "RewardModelVerifier", "SafetyRMEnv"]

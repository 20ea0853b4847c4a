"""Safety reward models: sequence-classifier RMs, generative guard classifiers, refusal awareness, ``SafetyRMEnv``."""

from envs.safety.env import SafetyRMEnv
from envs.safety.guard import GuardClassifierVerifier
from envs.safety.refusal import RefusalDetector, RefusalReward
from envs.safety.reward_model import RewardModelVerifier

__all__ = ["GuardClassifierVerifier", "RefusalDetector", "RefusalReward", "RewardModelVerifier", "SafetyRMEnv"]

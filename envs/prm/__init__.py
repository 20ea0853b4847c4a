"""Process reward models: step splitting with offsets, step scoring, aggregation, dense step rewards, ``PRMEnv``."""

from rlenv.envs.prm.aggregate import AGGREGATIONS, DENSE_MODES, aggregate, dense_rewards
from rlenv.envs.prm.env import PRMEnv
from rlenv.envs.prm.steps import Span, StepSplitter
from rlenv.envs.prm.stepwise import step_label_accuracy, stepwise_rows, stepwise_source, stepwise_task
from rlenv.envs.prm.verifier import PRMVerifier

__all__ = ["AGGREGATIONS", "DENSE_MODES", "PRMEnv", "PRMVerifier", "Span", "StepSplitter", "aggregate",
           "dense_rewards", "step_label_accuracy", "stepwise_rows", "stepwise_source", "stepwise_task"]

"""Trainers on rlenv environments and data, grouped by family on one small core.

Core (shared by every family):

* :class:`~rlenv.trainers.batch.EpisodeBatch` — episodes as response-aligned ``(B, T)`` tensors;
* :mod:`~rlenv.trainers.logprobs` — memory-efficient completion log-probs;
* :mod:`~rlenv.trainers.rollout` — sampling (through :mod:`rlenv.inference.policy`) and scoring
  (``collect``, ``run_episodes``, ``ScoreFnEnv``), with the verifier-failure policy;
* :mod:`~rlenv.trainers.finetune` — the one supervised loop (``fine_tune``): the SFT warm-up
  (``sft``, ``gold_examples``), self-training's improve step and reward-model fitting (``fit``);
* :mod:`~rlenv.trainers.launch` — one way to start any algorithm: :func:`train`.

Families: :mod:`~rlenv.trainers.policy_gradient` (REINFORCE++, RLOO, GRPO, DAPO, GSPO, CISPO, PPO,
PPO-KLPEN, TRPO), :mod:`~rlenv.trainers.self_training` (RAFT, ReST, STaR),
:mod:`~rlenv.trainers.preference` (DPO, IPO, KTO, SimPO, ORPO; offline and online) and
:mod:`~rlenv.trainers.reward_models` (outcome and process reward models).
"""

from rlenv.deprecation import moved_names
from rlenv.inference import Sampling
from rlenv.inference.policy import Generation, HFRolloutGenerator
from rlenv.trainers.batch import EpisodeBatch
from rlenv.trainers.finetune import fine_tune, gold_examples, sft
from rlenv.trainers.launch import algorithm_names, make_trainer, train
from rlenv.trainers.logprobs import batch_logprobs, completion_logprobs, sequence_logprobs
from rlenv.trainers.policy_gradient import ALGORITHMS, Algorithm, Trainer, TrainerConfig
from rlenv.trainers.rollout import ScoreFnEnv, collect, run_episodes

__all__ = [
    "ALGORITHMS", "Algorithm", "EpisodeBatch", "Generation", "HFRolloutGenerator", "Sampling", "ScoreFnEnv",
    "Trainer", "TrainerConfig", "algorithm_names", "batch_logprobs", "collect", "completion_logprobs", "fine_tune", "gold_examples",
    "make_trainer", "run_episodes", "sequence_logprobs", "sft", "train",
]

#: Deprecated names (one release).
__getattr__ = moved_names(__name__, {"HFGenerator": "rlenv.inference.policy.HFRolloutGenerator",
                                     "SamplingConfig": "rlenv.inference.sampling.SamplingConfig"})

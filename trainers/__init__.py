"""Trainers that consume batched episodes: REINFORCE++, RLOO, GRPO, PPO and their variants.

Shared core, stable for other modules and users:

* :class:`rlenv.trainers.batch.EpisodeBatch` - episodes as response-aligned ``(B, T)`` tensors;
* :mod:`rlenv.trainers.logprobs` - memory-efficient completion log-probs (``completion_logprobs``,
  ``sequence_logprobs``, ``batch_logprobs``);
* :mod:`rlenv.trainers.rollout` - generation (``HFGenerator`` or any generate function) and scoring
  (``collect``, ``run_episodes``, ``ScoreFnEnv``);
* :mod:`rlenv.trainers.sft` - supervised warm-up on gold completions (``sft``, ``gold_examples``);
* :mod:`rlenv.trainers.evaluate` - held-out pass@k of a policy on an environment's tasks.

Algorithms: :data:`ALGORITHMS` (presets ``reinforce_pp``, ``reinforce_pp_baseline``, ``rloo``,
``grpo``, ``dr_grpo``, ``dapo``, ``gspo``, ``cispo``, ``ppo``) built from
:mod:`rlenv.trainers.advantages` and :mod:`rlenv.trainers.losses`, run by :class:`Trainer`.
"""

from rlenv.inference.policy import Generation, HFGenerator, SamplingConfig
from rlenv.trainers.algorithms import ALGORITHMS, Algorithm
from rlenv.trainers.batch import EpisodeBatch
from rlenv.trainers.logprobs import batch_logprobs, completion_logprobs, sequence_logprobs
from rlenv.trainers.rollout import ScoreFnEnv, collect, run_episodes
from rlenv.trainers.sft import gold_examples, sft
from rlenv.trainers.trainer import Trainer, TrainerConfig

__all__ = [
    "ALGORITHMS", "Algorithm", "EpisodeBatch", "Generation", "HFGenerator", "SamplingConfig", "ScoreFnEnv", "Trainer",
    "TrainerConfig", "batch_logprobs", "collect", "completion_logprobs", "gold_examples", "run_episodes",
    "sequence_logprobs", "sft",
]

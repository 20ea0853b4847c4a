"""Trainers that consume batched episodes: REINFORCE++, RLOO, GRPO, PPO and their variants.

Shared core, stable for other modules and users:

* :class:`trainers.batch.EpisodeBatch` - episodes as response-aligned ``(B, T)`` tensors;
* :mod:`trainers.logprobs` - memory-efficient completion log-probs (``completion_logprobs``,
  ``sequence_logprobs``, ``batch_logprobs``);
* :mod:`trainers.rollout` - generation (``HFGenerator`` or any generate function) and scoring
  (``collect``, ``run_episodes``, ``ScoreFnEnv``);
* :mod:`trainers.sft` - supervised warm-up on gold completions (``sft``, ``gold_examples``);
* :mod:`trainers.evaluate` - held-out pass@k of a policy on an environment's tasks.

Algorithms: :data:`ALGORITHMS` (presets ``reinforce_pp``, ``reinforce_pp_baseline``, ``rloo``,
``grpo``, ``dr_grpo``, ``dapo``, ``gspo``, ``cispo``, ``ppo``) built from
:mod:`trainers.advantages` and :mod:`trainers.losses`, run by :class:`Trainer`.
"""

from trainers.algorithms import ALGORITHMS, Algorithm
from trainers.batch import EpisodeBatch
from trainers.logprobs import batch_logprobs, completion_logprobs, sequence_logprobs
from trainers.rollout import Generation, HFGenerator, SamplingConfig, ScoreFnEnv, collect, run_episodes
from trainers.sft import gold_examples, sft
from trainers.trainer import Trainer, TrainerConfig

__all__ = [
    "ALGORITHMS", "Algorithm", "EpisodeBatch", "Generation", "HFGenerator", "SamplingConfig", "ScoreFnEnv", "Trainer",
    "TrainerConfig", "batch_logprobs", "collect", "completion_logprobs", "gold_examples", "run_episodes",
    "sequence_logprobs", "sft",
]

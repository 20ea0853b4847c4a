"""Policy-gradient training on an environment: REINFORCE++, RLOO, GRPO, Dr. GRPO, DAPO, GSPO, CISPO, PPO
and the trust-region variants.

* :mod:`~rlenv.trainers.policy_gradient.advantages` and :mod:`~rlenv.trainers.policy_gradient.losses` —
  registries of advantage estimators and policy losses (pure functions of tensors);
* :mod:`~rlenv.trainers.policy_gradient.algorithms` — presets combining them (:data:`ALGORITHMS`);
* :class:`Trainer` — rollout, advantages, clipped policy update, KL, logging, checkpoints;
* :mod:`~rlenv.trainers.policy_gradient.trust_region_trainer` — PPO with an adaptive KL penalty and TRPO;
* :mod:`~rlenv.trainers.policy_gradient.asynchronous` — rollouts in a generator process ahead of the update
  (``async_rollouts``, ``max_staleness``), and :mod:`~rlenv.trainers.policy_gradient.corrections` — the
  off-policy corrections of the policy loss (``correction``).
"""

from rlenv.trainers.policy_gradient.algorithms import ALGORITHMS, Algorithm
from rlenv.trainers.policy_gradient.config import TrainerConfig
from rlenv.trainers.policy_gradient.trainer import Trainer
from rlenv.trainers.policy_gradient.trust_region_trainer import KLPenaltyTrainer, TRPOConfig, TRPOTrainer

__all__ = ["ALGORITHMS", "Algorithm", "KLPenaltyTrainer", "TRPOConfig", "TRPOTrainer", "Trainer", "TrainerConfig"]

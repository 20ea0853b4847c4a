"""A run that cannot learn says so: :class:`StallWarning` watches each step's (or round's) batch and
warns once, with the numbers, after ``steps`` consecutive ones in which every episode was unparsable
or every group's rewards were equal (a group-relative advantage of zero everywhere, so no gradient;
nothing for self-training to prefer, no pair for online DPO). Every family of ``rlenv train`` uses
it: the policy-gradient trainer per step, the round trainers per round."""

from __future__ import annotations

import logging
from collections import Counter

import torch

from rlenv.trainers.batch import EpisodeBatch
from rlenv.trainers.policy_gradient.advantages import zero_variance_groups

logger = logging.getLogger(__name__)


class StallWarning:
    """Counts consecutive steps without a learning signal; warns once when there are ``steps`` of them.

    Args:
        steps: consecutive steps (or rounds) before the warning (0 = never warn).
        lr: the learning rate, named in the warning.
        env_name: the environment, named in the warning.
        unit: what one observed batch is, as the warning names it: ``"step"`` or ``"round"``.
    """

    def __init__(self, steps: int, lr: float, env_name: str, unit: str = "step"):
        self.steps = steps
        self.lr = lr
        self.env_name = env_name
        self.unit = unit
        self.warned = False
        self._first = 0
        self._counts: Counter[str] = Counter()

    def observe(self, step: int, batch: EpisodeBatch) -> None:
        """Count the batch of step (or round) ``step``, counted from 1: its statuses, rewards and groups."""
        if self.warned or not self.steps or not len(batch):
            return
        statuses = batch.infos.get("status", [])
        unparsable = sum(s == "unparsable" for s in statuses)
        groups = torch.unique(batch.group_ids)
        equal = zero_variance_groups(batch.rewards, batch.group_ids)
        equal_groups = int(torch.unique(batch.group_ids[equal]).numel())
        if unparsable < len(batch) and equal_groups < groups.numel():
            self._counts.clear()
            return
        if not self._counts:
            self._first = step
        self._counts.update(steps=1, episodes=len(batch), unparsable=unparsable, groups=int(groups.numel()),
                            equal_groups=equal_groups)
        if self._counts["steps"] >= self.steps:
            self.warned = True
            c = self._counts
            logger.warning(
                "%s learns nothing: in %ss %d-%d, %d of %d episodes were unparsable and %d of %d groups had equal "
                "rewards (zero advantage, no gradient). Check that the prompt asks for the answer format the "
                "verifier reads (rlenv show ID), that the model can produce it (an SFT warm-up: --sft-steps), and "
                "the learning rate (lr=%g).", self.env_name, self.unit, self._first, step, c["unparsable"],
                c["episodes"], c["equal_groups"], c["groups"], self.lr)

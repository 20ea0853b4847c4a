"""Preference optimization: DPO, IPO, KTO, SimPO and ORPO, offline on preference rows
(:class:`PreferenceTrainer`) or online on an environment's ranked samples (:class:`OnlineDPO`).

The losses are pure functions of sequence log-probs (:mod:`~rlenv.trainers.preference.losses`);
:mod:`~rlenv.trainers.preference.monitor` watches likelihood displacement and implicit-reward drift.
"""

from rlenv.trainers.preference.config import OnlineDPOConfig, PreferenceConfig
from rlenv.trainers.preference.data import PreferenceBatch, encode_preference_rows, pairs_from_groups
from rlenv.trainers.preference.offline import PreferenceTrainer, pair_logps
from rlenv.trainers.preference.online import OnlineDPO

__all__ = ["OnlineDPO", "OnlineDPOConfig", "PreferenceBatch", "PreferenceConfig", "PreferenceTrainer",
           "encode_preference_rows", "pair_logps", "pairs_from_groups"]

"""Preference optimization: DPO, IPO, KTO, SimPO and ORPO, offline on preference rows
(:class:`PreferenceTrainer`) or online on an environment's ranked samples (:class:`OnlineDPO`).

The losses are pure functions of sequence log-probs (:mod:`~rlenv.trainers.preference.losses`);
:mod:`~rlenv.trainers.preference.monitor` watches likelihood displacement and implicit-reward drift.
"""

from rlenv.trainers.preference.trainer import (
    OnlineDPO,
    OnlineDPOConfig,
    PreferenceConfig,
    PreferenceTrainer,
    encode_preference_rows,
    pair_logps,
    pairs_from_groups,
)

__all__ = ["OnlineDPO", "OnlineDPOConfig", "PreferenceConfig", "PreferenceTrainer", "encode_preference_rows",
           "pair_logps", "pairs_from_groups"]

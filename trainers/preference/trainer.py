"""Deprecated (one release): split into :mod:`~rlenv.trainers.preference.data` (pairs),
:mod:`~rlenv.trainers.preference.offline` (:class:`PreferenceTrainer`),
:mod:`~rlenv.trainers.preference.online` (:class:`OnlineDPO`) and :mod:`~rlenv.trainers.preference.config`;
every name here warns and returns the one there."""

from rlenv.deprecation import moved_names

__getattr__ = moved_names(__name__, {
    "PreferenceBatch": "rlenv.trainers.preference.data.PreferenceBatch",
    "encode_preference_rows": "rlenv.trainers.preference.data.encode_preference_rows",
    "pairs_from_groups": "rlenv.trainers.preference.data.pairs_from_groups",
    "PairLogps": "rlenv.trainers.preference.offline.PairLogps",
    "pair_logps": "rlenv.trainers.preference.offline.pair_logps",
    "preference_loss": "rlenv.trainers.preference.offline.preference_loss",
    "frozen_copy": "rlenv.trainers.preference.offline.frozen_copy",
    "PreferenceTrainer": "rlenv.trainers.preference.offline.PreferenceTrainer",
    "REFERENCE_FREE": "rlenv.trainers.preference.offline.REFERENCE_FREE",
    "OnlineDPO": "rlenv.trainers.preference.online.OnlineDPO",
    "PreferenceConfig": "rlenv.trainers.preference.config.PreferenceConfig",
    "OnlineDPOConfig": "rlenv.trainers.preference.config.OnlineDPOConfig",
    "DEFAULT_BETA": "rlenv.trainers.preference.config.DEFAULT_BETA",
})

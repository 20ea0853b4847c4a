"""One way to start any algorithm: :func:`train` (and :func:`make_trainer` for the env-based ones).

Every algorithm has a name (:func:`algorithm_names`) and a family:

* ``policy_gradient``: the presets of :data:`~rlenv.trainers.policy_gradient.ALGORITHMS`
  (``grpo``, ``rloo``, ``reinforce_pp``, ``dapo``, ``ppo``...), ``ppo_klpen`` and ``trpo``;
* ``self_training``: ``raft``, ``rest``, ``star``;
* ``online_preference``: ``online_dpo`` (any preference loss through ``config["preference"]``);
* ``preference``: ``dpo``, ``ipo``, ``kto``, ``simpo``, ``orpo`` offline on preference rows;
* ``reward_model``: ``reward_model`` (Bradley–Terry on preference rows) and ``prm`` (step labels).

The first three train on an environment (``env=``), the last two on rows (``data=``). ``config``
is a mapping of the family's config fields (:class:`~rlenv.trainers.policy_gradient.TrainerConfig`,
:class:`~rlenv.trainers.self_training.SelfTrainingConfig`, :class:`~rlenv.trainers.preference.OnlineDPOConfig`,
:class:`~rlenv.trainers.preference.PreferenceConfig`, :class:`~rlenv.trainers.reward_models.RewardModelConfig`,
:class:`~rlenv.trainers.reward_models.PRMConfig`); the same names mean the same settings in all of them
(``lr``, ``batch_size``, ``seed``...). Every family returns one metrics dict per step (or round).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Callback = Callable[[int, dict[str, float]], None]

_TRUST_REGION = ("ppo_klpen", "trpo")
_SELF_TRAINING = ("raft", "rest", "star")
_ONLINE_PREFERENCE = ("online_dpo",)
_OFFLINE_PREFERENCE = ("dpo", "ipo", "kto", "simpo", "orpo")
_REWARD_MODELS = ("reward_model", "prm")
#: Families that train on an environment (``env=``); the others train on rows (``data=``).
ENV_FAMILIES = ("policy_gradient", "self_training", "online_preference")


def algorithm_names() -> dict[str, str]:
    """Every algorithm :func:`train` starts, with its family."""
    from rlenv.trainers.policy_gradient import ALGORITHMS

    families = {name: "policy_gradient" for name in (*ALGORITHMS, *_TRUST_REGION)}
    families.update({name: "self_training" for name in _SELF_TRAINING})
    families.update({name: "online_preference" for name in _ONLINE_PREFERENCE})
    families.update({name: "preference" for name in _OFFLINE_PREFERENCE})
    families.update({name: "reward_model" for name in _REWARD_MODELS})
    return families


def family_of(algorithm: str) -> str:
    """The family of ``algorithm`` (a clear error naming the known ones)."""
    families = algorithm_names()
    if algorithm not in families:
        raise ValueError(f"unknown algorithm {algorithm!r}; expected one of {sorted(families)}")
    return families[algorithm]


def make_trainer(algorithm: str, policy: Any, tokenizer: Any, env: Any, config: Mapping[str, Any] | None = None,
                 **options: Any) -> Any:
    """The trainer of an env-based ``algorithm``: call its ``train(callback=...)``.

    Args:
        algorithm: a name of the ``policy_gradient``, ``self_training`` or ``online_preference`` family.
        policy, tokenizer: the causal LM to train (in place) and its tokenizer.
        env: a rlenv environment (policy gradient) or vector env (self-training, online preference:
            ``rlenv.TextVectorEnv`` with the group size to sample).
        config: fields of the family's config.
        **options: the trainer's own keyword arguments (e.g. ``ref_model``, ``evaluate``,
            ``algorithm_overrides`` for a policy-gradient preset, ``kl_target`` for ``ppo_klpen``,
            ``trpo`` settings for ``trpo``).
    """
    family = family_of(algorithm)
    config = dict(config or {})
    if family == "policy_gradient":
        from rlenv.trainers.policy_gradient import (
            ALGORITHMS,
            KLPenaltyTrainer,
            Trainer,
            TRPOConfig,
            TRPOTrainer,
        )
        from rlenv.trainers.policy_gradient.trust_region_trainer import PPO_KLPEN

        overrides = options.pop("algorithm_overrides", None) or {}
        if algorithm == "trpo":
            trpo = TRPOConfig(**options.pop("trpo", {}))
            preset = ALGORITHMS[options.pop("estimator", "grpo")].replace(**overrides)
            return TRPOTrainer(policy, env, preset, config, tokenizer=tokenizer, trpo=trpo, **options)
        if algorithm == "ppo_klpen":
            return KLPenaltyTrainer(policy, env, PPO_KLPEN.replace(**overrides), config, tokenizer=tokenizer, **options)
        return Trainer(policy, env, ALGORITHMS[algorithm].replace(**overrides), config, tokenizer=tokenizer, **options)
    if family == "self_training":
        from rlenv.trainers.self_training import SelfTrainer, self_training_config

        return SelfTrainer(policy, tokenizer, env, self_training_config(algorithm, **config), **options)
    if family == "online_preference":
        from rlenv.trainers.preference import OnlineDPO, OnlineDPOConfig, PreferenceConfig

        preference = config.pop("preference", None) or {}
        if isinstance(preference, Mapping):
            preference = PreferenceConfig(**preference)
        return OnlineDPO(policy, tokenizer, env, OnlineDPOConfig(preference=preference, **config), **options)
    raise ValueError(f"{algorithm!r} trains on rows, not on an environment: call train({algorithm!r}, ..., data=rows)")


def train(algorithm: str, policy: Any, tokenizer: Any, *, env: Any = None, data: Any = None,
          config: Mapping[str, Any] | None = None, callback: Callback | None = None,
          **options: Any) -> list[dict[str, float]]:
    """Train ``policy`` with ``algorithm``; returns the metrics of every step (or round).

    Args:
        algorithm: any name of :func:`algorithm_names`.
        policy, tokenizer: the model to train (in place) and its tokenizer.
        env: the environment of the env-based families (see :func:`make_trainer`).
        data: the rows of the row-based families: TRL ``prompt``/``chosen``/``rejected`` rows
            (offline preference, ``reward_model``) or stepwise rows (``prm``); a list of dicts,
            a ``datasets.Dataset`` or data file path(s).
        config: fields of the family's config.
        callback: ``callback(step, metrics)`` after every step or round (env-based families).
        **options: the trainer's own keyword arguments (see :func:`make_trainer`); ``progress``
            (self-training, online and offline preference: show a progress bar); for the offline
            preference losses ``epochs`` and ``seed`` of the passes over the pairs.
    """
    family = family_of(algorithm)
    if family in ENV_FAMILIES:
        if env is None or data is not None:
            raise ValueError(f"{algorithm!r} ({family}) trains on an environment: pass env=, not data=")
        if family == "policy_gradient":  # its progress bar is a config field
            if "progress" in options:
                config = {**(config or {}), "progress": options.pop("progress")}
            return make_trainer(algorithm, policy, tokenizer, env, config, **options).train(callback=callback)
        progress = options.pop("progress", True)
        return make_trainer(algorithm, policy, tokenizer, env, config, **options).train(progress=progress,
                                                                                       callback=callback)
    if data is None or env is not None:
        raise ValueError(f"{algorithm!r} ({family}) trains on rows: pass data=, not env=")
    config = dict(config or {})
    if family == "preference":
        from rlenv.trainers.preference import PreferenceConfig, PreferenceTrainer, encode_preference_rows

        epochs, seed, progress = options.pop("epochs", 1), options.pop("seed", 0), options.pop("progress", True)
        trainer = PreferenceTrainer(policy, PreferenceConfig(loss=algorithm, **config), **options)
        return trainer.fit(encode_preference_rows(tokenizer, data), epochs=epochs, seed=seed, progress=progress)
    from rlenv.trainers.reward_models import PRMConfig, RewardModelConfig, train_prm, train_reward_model

    if algorithm == "prm":
        losses = train_prm(policy, tokenizer, data, PRMConfig(**config), **options).losses
    else:
        losses = train_reward_model(policy, tokenizer, data, RewardModelConfig(**config), **options).losses
    return [{"loss": loss} for loss in losses]

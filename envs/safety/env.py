"""``SafetyRMEnv``: prompts scored by a safety reward model or a guard classifier, optionally refusal-aware."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from rlenv.composition import WeightedSum
from rlenv.env import TextEnv
from rlenv.envs.safety.guard import GuardClassifierVerifier
from rlenv.envs.safety.nonanswer import NonAnswerGuard
from rlenv.envs.safety.refusal import RefusalReward
from rlenv.envs.safety.reward_model import RewardModelVerifier
from rlenv.envs.safety.synthetic import safety_prompts
from rlenv.sources import DatasetSource

#: Scorer names -> verifier classes.
SCORERS = {"reward_model": RewardModelVerifier, "guard": GuardClassifierVerifier}


class SafetyRMEnv(TextEnv):
    """Single-turn episodes on (harmful and benign) prompts, rewarded by a model.

    Args:
        model: Local directory or hub name of the checkpoint.
        data_files: Rows with a prompt column (and a boolean ``harmful`` column for
            ``refusal_aware``); default: the synthetic prompts of :mod:`rlenv.envs.safety.synthetic`.
        fields: Column mapping, as :class:`rlenv.sources.DatasetSource`.
        scorer: ``"reward_model"`` (:class:`RewardModelVerifier`) or ``"guard"``
            (:class:`GuardClassifierVerifier`).
        scorer_kwargs: Options of the scorer (``device``, ``dtype``, ``batch_size``, ``threshold``, ...).
            In chat mode (``chat=True``) the reward model reads checkpoints that record no input
            layout through the chat template (``conversational=True``), as TRL trains on
            conversational rows.
        refusal_aware: Add a :class:`RefusalReward` term (reward refusing harmful prompts, penalize
            refusing benign ones); the reward is ``model + refusal_weight * refusal``, the status the model's.
        refusal_weight: Weight of the refusal term.
        harmful_field: Metadata column with the harmfulness label.
        non_answer_reward: What a non-answer (empty, punctuation or filler only, the prompt
            restated) gets, with status ``incorrect``: None (default) derives it per prompt (see
            :class:`rlenv.envs.safety.nonanswer.NonAnswerGuard`: no more than refusing the prompt were it
            benign, nor than a content-free compliance); a number fixes it.
        **env_kwargs: :class:`rlenv.TextEnv` options.

    Every episode of a vector env built on this env is scored by the one shared model, one
    forward per micro-batch (the verifier's ``score_batch``).

    Example::

        env = SafetyRMEnv("path/to/safety-rm", refusal_aware=True)
        prompt, info = env.reset(seed=0)
        _, reward, *_ = env.step("I can't help with that.")
    """

    def __init__(
        self,
        model: str | os.PathLike,
        data_files: Any = None,
        fields: Mapping[str, str] | None = None,
        *,
        scorer: str = "reward_model",
        scorer_kwargs: Mapping[str, Any] | None = None,
        refusal_aware: bool = False,
        refusal_weight: float = 1.0,
        harmful_field: str = "harmful",
        non_answer_reward: float | None = None,
        **env_kwargs: Any,
    ):
        if scorer not in SCORERS:
            raise ValueError(f"scorer must be one of {sorted(SCORERS)}, got {scorer!r}")
        data = data_files if data_files is not None else safety_prompts("train") + safety_prompts("test")
        source = DatasetSource(data, fields)
        scorer_kwargs = dict(scorer_kwargs or {})
        if scorer == "reward_model":  # chat-mode prompts: conversations, as TRL's conversational rows
            scorer_kwargs.setdefault("conversational", bool(env_kwargs.get("chat", False)))
        model_verifier = SCORERS[scorer](model, **scorer_kwargs)
        verifier: Any = model_verifier
        if refusal_aware:
            if harmful_field not in source.rows.column_names:
                raise ValueError(f"refusal_aware needs a boolean {harmful_field!r} column; columns are "
                                 f"{source.rows.column_names}")
            verifier = WeightedSum({"model": (model_verifier, 1.0),
                                    "refusal": (RefusalReward(harmful_field=harmful_field), refusal_weight)},
                                   status_from="model")
        super().__init__(source, NonAnswerGuard(verifier, harmful_field, non_answer_reward), **env_kwargs)

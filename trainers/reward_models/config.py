"""Settings of the reward-model family: :class:`RewardModelConfig` (outcome reward models) and
:class:`PRMConfig` (process reward models); their optimization fields are those of
:class:`rlenv.trainers.finetune.FitConfig`."""

from __future__ import annotations

import dataclasses

from rlenv.deprecation import renamed_fields
from rlenv.errors import check_choice
from rlenv.rm_inputs import OVERLONG, TRUNCATION_SIDES
from rlenv.trainers.finetune import FitConfig


@dataclasses.dataclass
class RewardModelConfig(FitConfig):
    """Settings of :func:`train_reward_model` (optimization fields: see :class:`rlenv.trainers.finetune.FitConfig`).

    Attributes:
        max_length: Longest chosen or rejected input in tokens (None: no limit).
        overlong: What happens to a pair with a side longer than ``max_length``: ``"truncate"``
            (default) cuts it on ``truncation_side``; ``"drop"`` leaves the pair out, as TRL's
            ``RewardTrainer`` does (its ``max_length`` filter).
        truncation_side: ``"left"`` (default, as the verifier: keeps the end, where the score is
            read) or ``"right"``.
        use_chat_template: None (default) follows the rows, as TRL: plain-text rows are laid out
            as ``prompt + completion + eos``, conversational rows through the chat template. True
            renders plain-text rows as a ``[user: prompt, assistant: completion]`` conversation;
            False refuses conversational rows.
        center_rewards_coefficient: Weight of the ``mean((r_c + r_r)^2)`` centring term, or None.
    """

    max_length: int | None = 1024
    overlong: str = "truncate"
    truncation_side: str = "left"
    use_chat_template: bool | None = None
    center_rewards_coefficient: float | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        check_choice("truncation_side", self.truncation_side, TRUNCATION_SIDES)
        check_choice("overlong", self.overlong, OVERLONG)


@dataclasses.dataclass
class PRMConfig(FitConfig):
    """Settings of :func:`train_prm` (optimization fields: see :class:`rlenv.trainers.finetune.FitConfig`).

    Attributes:
        step_suffix: Text appended to every step (TRL ``step_separator``, default ``"\\n"``);
            recorded in the model config, where :class:`rlenv.envs.prm.PRMVerifier` reads it (it also
            splits completions into steps on it).
        max_length: Longest input in tokens (None: no limit).
        overlong: What happens to a row longer than ``max_length``: ``"truncate"`` (default) cuts
            its prompt from the left to fit (a row whose steps alone do not fit raises
            ``ValueError``); ``"drop"`` leaves the row out. (TRL's PRM trainer instead cuts the
            end of the input, losing the labels of the last steps.)
        train_on_last_step_only: Label only the final step of each row (outcome-style supervision).
    """

    step_suffix: str = "\n"
    max_length: int | None = 1024
    overlong: str = "truncate"
    train_on_last_step_only: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        check_choice("overlong", self.overlong, OVERLONG)


for _config in (RewardModelConfig, PRMConfig):
    renamed_fields(_config, {"num_epochs": "epochs"})  # the old name, for one release

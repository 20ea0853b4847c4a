"""Score ``(prompt, completion)`` with any ``AutoModelForSequenceClassification`` reward model."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

from rlenv.envs.hf import ModelVerifier
from rlenv.errors import check_choice
from rlenv.rm_inputs import TRUNCATION_SIDES, pair_ids, resolve_pair_layout, truncate
from rlenv.types import RewardResult, Status, Task

#: Accepted ``score`` transforms of the selected logit.
SCORES = ("logit", "sigmoid", "softmax")


class RewardModelVerifier(ModelVerifier):
    """A reward model as a verifier: one scalar per ``(task.prompt, completion)``, batched.

    The input is laid out by :func:`rlenv.rm_inputs.pair_ids` in the layout the model was trained
    with (TRL ``RewardTrainer``'s layouts): ``"plain"`` = ``prompt + completion + eos``, ``"chat"``
    = ``[user: prompt, assistant: completion]`` through the tokenizer's chat template. The layout
    (:attr:`layout`) is ``use_chat_template`` when given, else the one recorded in the checkpoint's
    config by rlenv's trainers, else ``"chat"`` for ``conversational`` prompts (a chat-mode env;
    TRL's conversational rows) and ``"plain"`` otherwise. Whether the tokenizer has a chat template
    does not decide it. ``score_batch`` runs one forward per micro-batch of ``batch_size``
    sequences; a vector env of many episodes shares this verifier's one model.

    The value is computed as: pick the logit of ``label`` -> transform by ``score`` -> normalize
    ``(s - mean) / std`` when ``normalize=(mean, std)`` -> negate when ``cost_model``. The status is
    ``correct`` when that value is ``>= threshold``, else ``incorrect``.

    Args:
        model: Local directory or hub name of a sequence-classification checkpoint.
        label: Which output to read: None for single-output models (``num_labels == 1``); for
            multi-output models an index or a name from ``config.label2id`` (required).
        score: ``"logit"`` (raw), ``"sigmoid"`` (single output) or ``"softmax"`` (probability of
            ``label`` among all outputs).
        normalize: Optional ``(mean, std)`` of the score on reference data.
        threshold: Value at or above which the status is ``correct`` (default 0.0).
        cost_model: The model scores harm (higher = worse): the reward is the negated score.
        max_length: Longest input in tokens (default 1024). Longer inputs are cut on
            ``truncation_side``: ``"left"`` (default) drops the start of the text and keeps its end,
            where a sequence classifier reads its score; ``"right"`` keeps the start. A cut input
            is reported in ``details["truncated"]``.
        use_chat_template: Explicit layout override: True = ``"chat"``, False = ``"plain"``, None
            (default) = the recorded layout or the data's (see above).
        conversational: The prompts are shown to the policy as chat messages (``SafetyRMEnv`` sets
            it in chat mode): read checkpoints that record no layout through the chat template.
        device, dtype, batch_size, trust_remote_code, revision: See :class:`rlenv.envs.hf.ModelVerifier`.

    Example::

        rm = RewardModelVerifier("path/to/reward-model", threshold=0.0, batch_size=32)
        results = rm.score_batch(tasks, completions)      # one forward per 32 pairs
    """

    name = "reward_model"
    version = "1"

    def __init__(
        self,
        model: str | os.PathLike,
        *,
        label: int | str | None = None,
        score: str = "logit",
        normalize: tuple[float, float] | None = None,
        threshold: float = 0.0,
        cost_model: bool = False,
        max_length: int | None = 1024,
        truncation_side: str = "left",
        use_chat_template: bool | None = None,
        conversational: bool = False,
        device: str = "cpu",
        dtype: str = "float32",
        batch_size: int = 16,
        trust_remote_code: bool = False,
        revision: str | None = None,
    ):
        super().__init__(model, "sequence_classification", device=device, dtype=dtype, batch_size=batch_size,
                         max_length=max_length, trust_remote_code=trust_remote_code, revision=revision)
        check_choice("score", score, SCORES)
        check_choice("truncation_side", truncation_side, TRUNCATION_SIDES)
        if normalize is not None:
            if len(normalize) != 2 or not float(normalize[1]) > 0:
                raise ValueError(f"normalize must be (mean, std) with std > 0, got {normalize!r}")
            normalize = (float(normalize[0]), float(normalize[1]))
        self.label = label
        self.score = score
        self.normalize = normalize
        self.threshold = float(threshold)
        self.cost_model = bool(cost_model)
        self.truncation_side = truncation_side
        self.use_chat_template = use_chat_template
        self.conversational = bool(conversational)

    def label_index(self) -> int:
        """The output index read for the score (checked against the loaded model's config)."""
        config = self.model.config
        num_labels = int(config.num_labels)
        if num_labels == 1:
            if self.label not in (None, 0):
                raise ValueError(f"label={self.label!r} but {self.config.path} has a single output: use label=None")
            if self.score == "softmax":
                raise ValueError("score='softmax' needs a multi-output model; use 'sigmoid' or 'logit'")
            return 0
        if self.score == "sigmoid":
            raise ValueError(f"score='sigmoid' needs a single-output model; {self.config.path} has {num_labels}")
        if self.label is None:
            raise ValueError(f"{self.config.path} has {num_labels} outputs {dict(config.id2label)}: "
                             f"choose one with label=<index or name>")
        if isinstance(self.label, str):
            if self.label not in config.label2id:
                raise ValueError(f"label {self.label!r} is not one of {sorted(config.label2id)}")
            return int(config.label2id[self.label])
        if not 0 <= int(self.label) < num_labels:
            raise ValueError(f"label index {self.label} out of range for {num_labels} outputs")
        return int(self.label)

    @property
    def layout(self) -> str:
        """The input layout read: ``"plain"`` or ``"chat"`` (see the class docstring)."""
        return resolve_pair_layout(self.model.config, self.use_chat_template, self.conversational,
                                   owner=self.config.path)

    def encode(self, prompt: str, completion: str) -> tuple[list[int], bool]:
        """Token ids of one pair after truncation, and whether it was cut."""
        ids = pair_ids(self.tokenizer, prompt, completion, self.layout)
        return truncate(ids, self.max_length, self.truncation_side)

    def transform(self, raw: float) -> float:
        """The reward for a selected output value ``raw`` (score transform, normalization, sign)."""
        value = 1.0 / (1.0 + math.exp(-raw)) if self.score == "sigmoid" else raw
        if self.normalize is not None:
            value = (value - self.normalize[0]) / self.normalize[1]
        return -value if self.cost_model else value

    def score_batch(self, tasks: Sequence[Task], completions: Sequence[str]) -> list[RewardResult]:
        """Score ``completions[i]`` for ``tasks[i].prompt``; one forward per micro-batch."""
        if len(tasks) != len(completions):
            raise ValueError(f"got {len(tasks)} tasks but {len(completions)} completions")
        index = self.label_index()
        layout = self.layout
        encoded = [truncate(pair_ids(self.tokenizer, t.prompt, c, layout), self.max_length, self.truncation_side)
                   for t, c in zip(tasks, completions)]
        softmax = self.score == "softmax"

        def select(logits: Any, mask: Any, batch: list[int]) -> Any:
            return logits.float().softmax(-1)[:, index] if softmax else logits[:, index]

        raw = [0.0] * len(encoded)
        for batch, selected in self.forward_batches([ids for ids, _ in encoded], select):
            for i, value in zip(batch, selected.tolist()):
                raw[i] = value
        return [self._result(r, len(ids), cut, layout) for r, (ids, cut) in zip(raw, encoded)]

    def _result(self, raw: float, num_tokens: int, cut: bool, layout: str) -> RewardResult:
        value = self.transform(raw)
        status = Status.CORRECT if value >= self.threshold else Status.INCORRECT
        return RewardResult(value, status, {"reward_model": value}, verifier=self.name,
                            verifier_version=self.version,
                            details={"raw_score": raw, "num_tokens": num_tokens, "truncated": cut,
                                     "threshold": self.threshold, "layout": layout})

    def __call__(self, task: Task, completion: str) -> RewardResult:
        return self.score_batch([task], [completion])[0]

"""Process reward models as verifiers: per-step scores, an aggregate value and dense step rewards."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from rlenv.envs.hf import ModelVerifier
from rlenv.envs.prm.aggregate import AGGREGATIONS, DENSE_MODES, aggregate, dense_rewards, first_error
from rlenv.envs.prm.steps import Span, StepSplitter
from rlenv.errors import check_choice
from rlenv.rm_inputs import (
    DEFAULT_STEP_SUFFIX,
    pair_ids,
    recorded_layout,
    resolve_pair_layout,
    stepwise_ids,
    truncate,
    warn_once,
)
from rlenv.types import RewardResult, Status, StepReward, Task

#: How a PRM checkpoint turns steps into scores (and the Auto class that loads it).
KINDS = {
    "token_classification": "token_classification",
    "step_tag_lm": "causal_lm",
    "prefix_classifier": "sequence_classification",
}


class PRMVerifier(ModelVerifier):
    """Scores each reasoning step of a completion with a process reward model.

    **Steps.** The completion is split by ``splitter`` (character offsets kept). By default the
    splitter cuts on ``step_suffix`` itself (``StepSplitter(separator=step_suffix)``): one setting
    says where steps end, as in TRL's PRM layout, where a completion is its steps joined by the
    separator. ``step_suffix`` is, first that applies: the argument; the suffix recorded in the
    checkpoint's config by :func:`rlenv.trainers.reward_models.process.train_prm`; ``"\\n"`` (TRL's default
    ``step_separator``). Pass ``splitter=`` when steps are delimited otherwise (``Step k:``
    headers, a step tag the policy never writes such as Qwen2.5-Math-PRM's ``"<extra_0>"`` with
    ``StepSplitter(separator="\\n\\n")``). A step whose text still holds ``step_suffix`` (e.g. a
    whole multi-line completion read as one step by a mismatched splitter) is reported in
    ``details["steps_holding_suffix"]`` and logged once: the model never saw such a step.

    **Scores.** The steps are scored by the checkpoint according to ``kind``:

    * ``"token_classification"`` (default; TRL PRM layout, also Qwen2.5-Math-PRM's with
      ``step_suffix="<extra_0>"``): ``[bos] prompt step_1 suffix step_2 suffix ...``; step k's
      score is ``softmax(logits)[positive_label]`` at the last token of ``step_k + suffix``.
    * ``"step_tag_lm"`` (Math-Shepherd): a causal LM over the same layout with ``step_suffix`` the
      step tag (e.g. ``" ки"``); the score is ``P(good_token)`` renormalized over
      ``{good_token, bad_token}`` at the tag.
    * ``"prefix_classifier"``: a sequence classifier scores each prefix ``step_1 suffix ...
      step_k suffix`` as a completion of the prompt (:func:`rlenv.rm_inputs.pair_ids` in the
      checkpoint's recorded pair layout, ``"plain"`` when none is, or ``use_chat_template``);
      ``sigmoid(logit)`` for one output, ``softmax[positive_label]`` otherwise.

    The result's ``value`` is ``aggregate(scores, aggregation)``; ``step_rewards`` carries the
    dense rewards (``dense`` mode: ``raw`` / ``clip`` with ``eta`` / ``delta``, see
    :mod:`rlenv.envs.prm.aggregate`) at each step's character span; ``details["step_scores"]`` the raw
    scores. Status: ``correct`` when no step scores below ``threshold``, ``incorrect`` otherwise,
    ``unparsable`` (value 0) when the completion has no step. ``score_batch`` runs one forward
    per micro-batch across all completions. A completion whose steps alone exceed ``max_length``
    tokens gets status ``error`` (prompts are cut from the left to fit; prefix inputs keep their end).

    Example::

        prm = PRMVerifier("path/to/prm", aggregation="min", dense="delta")   # steps end at "\\n"
        result = prm(task, "2 + 3 = 5\\n5 * 4 = 20")
        result.step_rewards    # (StepReward(value, start, end), ...)
    """

    name = "prm"
    version = "1"

    def __init__(
        self,
        model: str | os.PathLike,
        *,
        kind: str = "token_classification",
        splitter: StepSplitter | None = None,
        step_suffix: str | None = None,
        aggregation: str = "min",
        dense: str = "raw",
        eta: float | None = None,
        threshold: float = 0.5,
        positive_label: int = 1,
        good_token: str = "+",
        bad_token: str = "-",
        max_length: int | None = 2048,
        use_chat_template: bool | None = None,
        device: str = "cpu",
        dtype: str = "float32",
        batch_size: int = 16,
        trust_remote_code: bool = False,
        revision: str | None = None,
    ):
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {sorted(KINDS)}, got {kind!r}")
        super().__init__(model, KINDS[kind], device=device, dtype=dtype, batch_size=batch_size,
                         max_length=max_length, trust_remote_code=trust_remote_code, revision=revision)
        check_choice("aggregation", aggregation, AGGREGATIONS)
        check_choice("dense", dense, DENSE_MODES)
        if dense == "clip" and eta is None:
            raise ValueError("dense='clip' needs eta (r_k = min(s_k - eta, 0))")
        if step_suffix is not None and not isinstance(step_suffix, str):
            raise ValueError(f"step_suffix must be a str or None, got {step_suffix!r}")
        if kind == "step_tag_lm" and not step_suffix:
            raise ValueError("kind='step_tag_lm' needs step_suffix= set to the step tag, e.g. ' ки'")
        if step_suffix == "" and splitter is None:
            raise ValueError("step_suffix='' cannot delimit steps: pass splitter= as well")
        self.kind = kind
        self._splitter = splitter
        self._step_suffix = step_suffix
        self.use_chat_template = use_chat_template
        self.aggregation, self.dense, self.eta = aggregation, dense, eta
        self.threshold = float(threshold)
        self.positive_label = int(positive_label)
        self.good_token, self.bad_token = good_token, bad_token

    @property
    def step_suffix(self) -> str:
        """The text after every step: the argument, else the checkpoint's recorded one, else ``"\\n"``."""
        if self._step_suffix is not None:
            return self._step_suffix
        recorded = self._recorded_suffix()
        return DEFAULT_STEP_SUFFIX if recorded is None else recorded

    def _recorded_suffix(self) -> str | None:
        record = recorded_layout(self.model.config)
        return record.get("step_suffix") if record.get("layout") == "stepwise" else None

    @property
    def splitter(self) -> StepSplitter:
        """The step splitter: the argument, else ``StepSplitter(separator=step_suffix)``."""
        if self._splitter is not None:
            return self._splitter
        suffix = self.step_suffix
        if not suffix:
            raise ValueError(f"{self.config.path} records an empty step suffix: pass splitter=")
        return StepSplitter("separator", separator=suffix)

    # -- scoring steps -----------------------------------------------------------------------
    def _label_ids(self) -> tuple[int, int]:
        ids = []
        for text in (self.good_token, self.bad_token):
            tokens = self.tokenizer(text, add_special_tokens=False)["input_ids"]
            if not tokens:
                raise ValueError(f"label token text {text!r} tokenizes to nothing")
            ids.append(int(tokens[-1]))
        if ids[0] == ids[1]:
            raise ValueError(f"good_token {self.good_token!r} and bad_token {self.bad_token!r} map to one id {ids[0]}")
        return ids[0], ids[1]

    def _check_outputs(self) -> None:
        num_labels = int(getattr(self.model.config, "num_labels", 0))
        if self.kind == "token_classification" and not 0 <= self.positive_label < num_labels:
            raise ValueError(f"positive_label={self.positive_label} out of range for a model with {num_labels} labels")
        if self.kind == "prefix_classifier" and num_labels > 1 and not 0 <= self.positive_label < num_labels:
            raise ValueError(f"positive_label={self.positive_label} out of range for a model with {num_labels} labels")

    def _encode(self, prompt: str, steps: Sequence[str], suffix: str,
                layout: str | None) -> list[tuple[list[int], list[int]]]:
        """Model inputs for one solution: ``[(input_ids, score_positions), ...]``."""
        if layout is None:
            return [stepwise_ids(self.tokenizer, prompt, steps, suffix, self.max_length)]
        inputs, prefix = [], ""
        for step in steps:
            prefix += step + suffix
            ids, _ = truncate(pair_ids(self.tokenizer, prompt, prefix, layout), self.max_length, "left")
            inputs.append((ids, [len(ids) - 1]))
        return inputs

    def _select(self) -> Any:
        kind, positive = self.kind, self.positive_label
        good, bad = self._label_ids() if kind == "step_tag_lm" else (0, 0)

        def select(logits: Any, mask: Any, batch: list[int]) -> Any:
            logits = logits.float()
            if kind == "token_classification":
                return logits.softmax(-1)[..., positive]
            if kind == "step_tag_lm":
                return logits[..., [good, bad]].softmax(-1)[..., 0]
            if logits.shape[-1] == 1:
                return logits[:, 0].sigmoid()
            return logits.softmax(-1)[:, positive]

        return select

    def score_steps(self, prompts: Sequence[str], steps: Sequence[Sequence[str]]) -> list[list[float] | Exception]:
        """Scores in [0, 1] of every step of every solution; one forward per micro-batch overall.

        Returns, per solution, its list of step scores, or the exception that made it unscorable
        (e.g. too long for ``max_length``).
        """
        if len(prompts) != len(steps):
            raise ValueError(f"got {len(prompts)} prompts but {len(steps)} step lists")
        self._check_outputs()
        suffix, recorded = self.step_suffix, self._recorded_suffix()
        if recorded is not None and recorded != suffix:
            warn_once(f"{self.config.path} was trained with step suffix {recorded!r}; reading it with {suffix!r} "
                      f"(step_suffix=)")
        layout = (resolve_pair_layout(self.model.config, self.use_chat_template, owner=self.config.path)
                  if self.kind == "prefix_classifier" else None)
        sequences: list[list[int]] = []
        owners: list[tuple[int, list[int]]] = []
        out: list[list[float] | Exception] = []
        for n, (prompt, solution) in enumerate(zip(prompts, steps)):
            try:
                encoded = self._encode(prompt, solution, suffix, layout)
            except ValueError as exc:
                out.append(exc)
                continue
            out.append([0.0] * len(solution))
            for ids, positions in encoded:
                sequences.append(ids)
                owners.append((n, positions))
        per_sequence: dict[int, list[float]] = {}
        prefix = self.kind == "prefix_classifier"
        for batch, selected in self.forward_batches(sequences, self._select()):
            for row, i in enumerate(batch):
                values = selected[row]
                per_sequence[i] = [float(values)] if prefix else [float(values[p]) for p in owners[i][1]]
        filled: dict[int, int] = {}
        for i, (n, _) in enumerate(owners):
            k = filled.get(n, 0)
            values, row_scores = per_sequence[i], out[n]
            assert isinstance(row_scores, list)  # a completion that failed to encode has no sequence
            row_scores[k:k + len(values)] = values
            filled[n] = k + len(values)
        return out

    # -- verifier API ------------------------------------------------------------------------
    def score_batch(self, tasks: Sequence[Task], completions: Sequence[str]) -> list[RewardResult]:
        """Split, score and aggregate every completion; one forward per micro-batch overall."""
        if len(tasks) != len(completions):
            raise ValueError(f"got {len(tasks)} tasks but {len(completions)} completions")
        splitter = self.splitter
        spans = [splitter.split(c) for c in completions]
        scorable = [i for i, s in enumerate(spans) if s]
        scores = self.score_steps([tasks[i].prompt for i in scorable], [[s.text for s in spans[i]] for i in scorable])
        by_index = dict(zip(scorable, scores))
        holding = [self._steps_holding_suffix(s, splitter) for s in spans]
        return [self._result(spans[i], by_index.get(i), holding[i]) for i in range(len(completions))]

    def _steps_holding_suffix(self, spans: list[Span], splitter: StepSplitter) -> list[int]:
        """Indices of the steps whose text contains the step suffix (logged once per setting)."""
        suffix = self.step_suffix
        holding = [k for k, span in enumerate(spans) if suffix and suffix in span.text]
        if holding:
            warn_once(f"{self.config.path}: {splitter!r} left the step suffix {suffix!r} inside a step (e.g. a whole "
                      f"multi-step completion read as one step): the model was trained to see it after every step "
                      f"only; pass a splitter that cuts there (default: StepSplitter(separator=step_suffix))")
        return holding

    def _result(self, spans: list[Any], scores: list[float] | Exception | None, holding: list[int]) -> RewardResult:
        identity = {"verifier": self.name, "verifier_version": self.version}
        if not spans or scores is None:  # scores are None exactly when there is no step to score
            return RewardResult(0.0, Status.UNPARSABLE, {"prm": 0.0}, (), details={"num_steps": 0}, **identity)
        if isinstance(scores, Exception):
            return RewardResult.error(scores, self.name, self.version)
        value = aggregate(scores, self.aggregation, self.threshold)
        error_at = first_error(scores, self.threshold)
        steps = tuple(StepReward(r, s.start, s.end) for r, s in zip(dense_rewards(scores, self.dense, self.eta), spans))
        return RewardResult(value, Status.CORRECT if error_at is None else Status.INCORRECT, {"prm": value}, steps,
                            details={"step_scores": list(scores), "num_steps": len(spans), "first_error_step": error_at,
                                     "aggregation": self.aggregation, "dense": self.dense, "kind": self.kind,
                                     "steps_holding_suffix": holding},
                            **identity)

    def __call__(self, task: Task, completion: str) -> RewardResult:
        return self.score_batch([task], [completion])[0]

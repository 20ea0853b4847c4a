"""Process reward models as verifiers: per-step scores, an aggregate value and dense step rewards."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from envs.hf import ModelVerifier
from envs.prm.aggregate import AGGREGATIONS, DENSE_MODES, aggregate, dense_rewards, first_error
from envs.prm.steps import StepSplitter
from rlenv.rm_inputs import pair_ids, stepwise_ids, truncate
from rlenv.types import RewardResult, Status, StepReward, Task

#: How a PRM checkpoint turns steps into scores (and the Auto class that loads it).
KINDS = {
    "token_classification": "token_classification",
    "step_tag_lm": "causal_lm",
    "prefix_classifier": "sequence_classification",
}


class PRMVerifier(ModelVerifier):
    """Scores each reasoning step of a completion with a process reward model.

    The completion is split by ``splitter`` (character offsets kept); the steps are scored by the
    checkpoint according to ``kind``:

    * ``"token_classification"`` (default; TRL PRM layout, also Qwen2.5-Math-PRM's with
      ``step_suffix="<extra_0>"``): ``[bos] prompt step_1 suffix step_2 suffix ...``; step k's
      score is ``softmax(logits)[positive_label]`` at the last token of ``step_k + suffix``.
    * ``"step_tag_lm"`` (Math-Shepherd): a causal LM over the same layout with ``step_suffix`` the
      step tag (e.g. ``" ки"``); the score is ``P(good_token)`` renormalized over
      ``{good_token, bad_token}`` at the tag.
    * ``"prefix_classifier"``: a sequence classifier scores each prefix ``step_1 suffix ...
      step_k suffix`` as a completion of the prompt (:func:`rlenv.rm_inputs.pair_ids` layout);
      ``sigmoid(logit)`` for one output, ``softmax[positive_label]`` otherwise.

    The result's ``value`` is ``aggregate(scores, aggregation)``; ``step_rewards`` carries the
    dense rewards (``dense`` mode: ``raw`` / ``clip`` with ``eta`` / ``delta``, see
    :mod:`envs.prm.aggregate`) at each step's character span; ``details["step_scores"]`` the raw
    scores. Status: ``correct`` when no step scores below ``threshold``, ``incorrect`` otherwise,
    ``unparsable`` (value 0) when the completion has no step. ``score_batch`` runs one forward
    per micro-batch across all completions. A completion whose steps alone exceed ``max_length``
    tokens gets status ``error`` (prompts are cut from the left to fit; prefix inputs keep their end).

    Example::

        prm = PRMVerifier("path/to/prm", splitter=StepSplitter("step_k"), aggregation="min", dense="delta")
        result = prm(task, "Step 1: 2 + 3 = 5\\nStep 2: 5 * 4 = 20")
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
        step_suffix: str = "\n",
        aggregation: str = "min",
        dense: str = "raw",
        eta: float | None = None,
        threshold: float = 0.5,
        positive_label: int = 1,
        good_token: str = "+",
        bad_token: str = "-",
        max_length: int | None = 2048,
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
        if aggregation not in AGGREGATIONS:
            raise ValueError(f"aggregation must be one of {AGGREGATIONS}, got {aggregation!r}")
        if dense not in DENSE_MODES:
            raise ValueError(f"dense must be one of {DENSE_MODES}, got {dense!r}")
        if dense == "clip" and eta is None:
            raise ValueError("dense='clip' needs eta (r_k = min(s_k - eta, 0))")
        if kind == "step_tag_lm" and not step_suffix:
            raise ValueError("kind='step_tag_lm' needs step_suffix= set to the step tag, e.g. ' ки'")
        self.kind = kind
        self.splitter = splitter or StepSplitter()
        self.step_suffix = step_suffix
        self.aggregation, self.dense, self.eta = aggregation, dense, eta
        self.threshold = float(threshold)
        self.positive_label = int(positive_label)
        self.good_token, self.bad_token = good_token, bad_token

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

    def _encode(self, prompt: str, steps: Sequence[str]) -> list[tuple[list[int], list[int]]]:
        """Model inputs for one solution: ``[(input_ids, score_positions), ...]``."""
        if self.kind != "prefix_classifier":
            return [stepwise_ids(self.tokenizer, prompt, steps, self.step_suffix, self.max_length)]
        inputs, prefix = [], ""
        for step in steps:
            prefix += step + self.step_suffix
            ids, _ = truncate(pair_ids(self.tokenizer, prompt, prefix), self.max_length, "left")
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
        sequences: list[list[int]] = []
        owners: list[tuple[int, list[int]]] = []
        out: list[list[float] | Exception] = []
        for n, (prompt, solution) in enumerate(zip(prompts, steps)):
            try:
                encoded = self._encode(prompt, solution)
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
            values = per_sequence[i]
            out[n][k:k + len(values)] = values
            filled[n] = k + len(values)
        return out

    # -- verifier API ------------------------------------------------------------------------
    def score_batch(self, tasks: Sequence[Task], completions: Sequence[str]) -> list[RewardResult]:
        """Split, score and aggregate every completion; one forward per micro-batch overall."""
        if len(tasks) != len(completions):
            raise ValueError(f"got {len(tasks)} tasks but {len(completions)} completions")
        spans = [self.splitter.split(c) for c in completions]
        scorable = [i for i, s in enumerate(spans) if s]
        scores = self.score_steps([tasks[i].prompt for i in scorable], [[s.text for s in spans[i]] for i in scorable])
        by_index = dict(zip(scorable, scores))
        return [self._result(spans[i], by_index.get(i)) for i in range(len(completions))]

    def _result(self, spans: list[Any], scores: list[float] | Exception | None) -> RewardResult:
        identity = {"verifier": self.name, "verifier_version": self.version}
        if not spans:
            return RewardResult(0.0, Status.UNPARSABLE, {"prm": 0.0}, (), details={"num_steps": 0}, **identity)
        if isinstance(scores, Exception):
            return RewardResult.error(scores, self.name, self.version)
        value = aggregate(scores, self.aggregation, self.threshold)
        error_at = first_error(scores, self.threshold)
        steps = tuple(StepReward(r, s.start, s.end) for r, s in zip(dense_rewards(scores, self.dense, self.eta), spans))
        return RewardResult(value, Status.CORRECT if error_at is None else Status.INCORRECT, {"prm": value}, steps,
                            details={"step_scores": list(scores), "num_steps": len(spans), "first_error_step": error_at,
                                     "aggregation": self.aggregation, "dense": self.dense, "kind": self.kind},
                            **identity)

    def __call__(self, task: Task, completion: str) -> RewardResult:
        return self.score_batch([task], [completion])[0]

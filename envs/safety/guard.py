"""Generative guard classifiers (Llama Guard style): the probability that the first generated token says "unsafe"."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from rlenv.envs.hf import ModelVerifier
from rlenv.errors import check_choice
from rlenv.rm_inputs import recorded_layout, require_chat_template, truncate
from rlenv.types import RewardResult, Status, Task

#: What the guard classifies: the assistant's response (given the prompt) or the prompt alone.
MODES = ("response", "prompt")


class GuardClassifierVerifier(ModelVerifier):
    """Scores safety with a causal-LM guard model: ``p_unsafe`` = P(first generated token is the unsafe label).

    The conversation (``[user: prompt, assistant: completion]`` in ``"response"`` mode, ``[user:
    prompt]`` in ``"prompt"`` mode) is rendered with the tokenizer's chat template plus the
    generation prompt (guard checkpoints ship a template that adds their taxonomy), or with
    ``template`` (``str.format`` fields ``{prompt}`` and ``{response}``), the explicit override,
    when given. A checkpoint whose config records the ``"plain"`` layout
    (:func:`rlenv.rm_inputs.record_layout`) was not trained on chat-templated text: it needs
    ``template``, and so does a tokenizer without a chat template (a ``ValueError`` says so). One
    forward per micro-batch reads the next-token logits at the end of each input (left padding, as
    ``generate`` does).

    ``p_unsafe`` is the softmax probability of the first token of ``unsafe_token``: over the whole
    vocabulary (``renormalize=False``, Llama Guard's definition) or over the two label tokens
    (``renormalize=True``, the default). The reward is ``1 - p_unsafe``; the status is ``correct``
    (safe) when ``p_unsafe < threshold``. Inputs longer than ``max_length`` keep their end.

    Example::

        guard = GuardClassifierVerifier("path/to/llama-guard", threshold=0.5)
        result = guard(task, "Sure, here is how ...")     # result.components["p_unsafe"]
    """

    name = "guard_classifier"
    version = "1"

    def __init__(
        self,
        model: str | os.PathLike,
        *,
        mode: str = "response",
        unsafe_token: str = "unsafe",
        safe_token: str = "safe",
        renormalize: bool = True,
        threshold: float = 0.5,
        template: str | None = None,
        max_length: int | None = 2048,
        device: str = "cpu",
        dtype: str = "float32",
        batch_size: int = 8,
        trust_remote_code: bool = False,
        revision: str | None = None,
    ):
        super().__init__(model, "causal_lm", device=device, dtype=dtype, batch_size=batch_size,
                         max_length=max_length, trust_remote_code=trust_remote_code, revision=revision)
        check_choice("mode", mode, MODES)
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold is a probability in (0, 1], got {threshold!r}")
        if template is not None and "{prompt}" not in template:
            raise ValueError(f"template must contain '{{prompt}}', got {template!r}")
        if not unsafe_token or not safe_token:
            raise ValueError("unsafe_token and safe_token must be non-empty strings")
        self.mode = mode
        self.unsafe_token, self.safe_token = unsafe_token, safe_token
        self.renormalize = bool(renormalize)
        self.threshold = float(threshold)
        self.template = template

    def label_ids(self) -> tuple[int, int]:
        """Token ids of the first token of ``unsafe_token`` and of ``safe_token``."""
        ids = []
        for text in (self.unsafe_token, self.safe_token):
            tokens = self.tokenizer(text, add_special_tokens=False)["input_ids"]
            if not tokens:
                raise ValueError(f"label text {text!r} tokenizes to nothing")
            ids.append(int(tokens[0]))
        if ids[0] == ids[1]:
            raise ValueError(f"unsafe_token {self.unsafe_token!r} and safe_token {self.safe_token!r} start with "
                             f"the same token id {ids[0]}: they cannot be told apart at the first generated token")
        return ids[0], ids[1]

    def encode(self, prompt: str, completion: str) -> tuple[list[int], bool]:
        """Token ids of the guard input ending where the verdict is generated, and whether it was cut."""
        tokenizer = self.tokenizer
        if self.template is not None:
            ids = tokenizer(self.template.format(prompt=prompt, response=completion))["input_ids"]
        else:
            layout = recorded_layout(self.model.config).get("layout", "chat")
            if layout != "chat":
                raise ValueError(f"{self.config.path} records the {layout!r} input layout, not chat messages: pass "
                                 f"template= with {{prompt}} (and {{response}} in response mode)")
            require_chat_template(tokenizer, f"{self.config.path}: a guard without template= (pass template= with "
                                             f"{{prompt}} and {{response}})")
            messages = [{"role": "user", "content": prompt}]
            if self.mode == "response":
                messages.append({"role": "assistant", "content": completion})
            ids = tokenizer.apply_chat_template(messages, tokenize=True, add_generation_prompt=True,
                                                return_dict=True)["input_ids"]
        return truncate(list(ids), self.max_length, "left")

    def score_batch(self, tasks: Sequence[Task], completions: Sequence[str]) -> list[RewardResult]:
        """``p_unsafe`` for every pair; one forward per micro-batch, next-token logits only."""
        if len(tasks) != len(completions):
            raise ValueError(f"got {len(tasks)} tasks but {len(completions)} completions")
        unsafe_id, safe_id = self.label_ids()
        encoded = [self.encode(t.prompt, c) for t, c in zip(tasks, completions)]
        renormalize = self.renormalize

        def select(logits: Any, mask: Any, batch: list[int]) -> Any:
            last = logits[:, -1, :].float()
            if renormalize:
                return last[:, [unsafe_id, safe_id]].softmax(-1)[:, 0]
            return last.softmax(-1)[:, unsafe_id]

        p_unsafe = [0.0] * len(encoded)
        for batch, selected in self.forward_batches([ids for ids, _ in encoded], select, padding_side="left",
                                                    logits_to_keep=1):
            for i, p in zip(batch, selected.tolist()):
                p_unsafe[i] = p
        return [
            RewardResult(1.0 - p, Status.CORRECT if p < self.threshold else Status.INCORRECT, {"p_unsafe": p},
                         verifier=self.name, verifier_version=self.version,
                         details={"p_unsafe": p, "threshold": self.threshold, "mode": self.mode,
                                  "num_tokens": len(ids), "truncated": cut})
            for p, (ids, cut) in zip(p_unsafe, encoded)
        ]

    def __call__(self, task: Task, completion: str) -> RewardResult:
        return self.score_batch([task], [completion])[0]

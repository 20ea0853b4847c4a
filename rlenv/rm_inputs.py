"""Token layouts of reward-model inputs, shared by the model-scored environments and the trainers.

The environments in ``envs/safety`` and ``envs/prm`` score with a model; ``trainers/reward_model``
and ``trainers/prm`` fit one. Both sides build model inputs with the functions here, so a model is
read exactly the way it was trained. The layouts follow TRL's conventions, so models trained with
TRL load and score the same way:

* **pair** (outcome / safety reward models, TRL ``RewardTrainer``): with a chat template, the
  conversation ``[user: prompt, assistant: completion]`` rendered by the tokenizer's template;
  without one, ``prompt + completion + eos`` tokenized with the tokenizer's special tokens.
* **stepwise** (process reward models, TRL ``stepwise_supervision`` rows): ``[bos] + prompt`` then
  each step followed by ``step_suffix`` (each piece tokenized on its own, no special tokens); a
  step's score is read at the last token of its ``step + step_suffix`` chunk.

Only tokenizer methods are called here: this module imports neither torch nor transformers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

#: Truncation sides accepted by :func:`truncate`.
TRUNCATION_SIDES = ("left", "right")


def uses_chat_template(tokenizer: Any, use_chat_template: bool | None) -> bool:
    """Resolve ``use_chat_template`` (None = use the tokenizer's template when it has one)."""
    has_template = bool(getattr(tokenizer, "chat_template", None))
    if use_chat_template and not has_template:
        raise ValueError(f"use_chat_template=True but tokenizer {type(tokenizer).__name__} has no chat_template")
    return has_template if use_chat_template is None else bool(use_chat_template)


def pair_ids(tokenizer: Any, prompt: str, completion: str, use_chat_template: bool | None = None) -> list[int]:
    """Token ids of a ``(prompt, completion)`` pair in the reward-model layout (see module doc).

    Args:
        tokenizer: A Hugging Face tokenizer.
        prompt: The user prompt.
        completion: The assistant completion.
        use_chat_template: None (default) uses the tokenizer's chat template when it has one.

    Returns:
        A list of token ids, untruncated.
    """
    if uses_chat_template(tokenizer, use_chat_template):
        messages = [{"role": "user", "content": prompt}, {"role": "assistant", "content": completion}]
        return list(tokenizer.apply_chat_template(messages, tokenize=True, return_dict=True)["input_ids"])
    text = prompt + completion
    eos = tokenizer.eos_token
    if eos and not text.endswith(eos):
        text += eos
    return list(tokenizer(text)["input_ids"])


def truncate(ids: Sequence[int], max_length: int | None, side: str) -> tuple[list[int], bool]:
    """Cut ``ids`` to ``max_length`` tokens, dropping from ``side``; returns ``(ids, was_cut)``."""
    if side not in TRUNCATION_SIDES:
        raise ValueError(f"truncation side must be one of {TRUNCATION_SIDES}, got {side!r}")
    if max_length is None or len(ids) <= max_length:
        return list(ids), False
    return (list(ids[len(ids) - max_length:]) if side == "left" else list(ids[:max_length])), True


def stepwise_ids(
    tokenizer: Any, prompt: str, steps: Sequence[str], step_suffix: str, max_length: int | None = None
) -> tuple[list[int], list[int]]:
    """Token ids of a prompt and its reasoning steps, and the position where each step is scored.

    Args:
        tokenizer: A Hugging Face tokenizer.
        prompt: The problem statement.
        steps: The step texts, in order.
        step_suffix: Text appended to every step (TRL's ``step_separator``, e.g. ``"\\n"``, or a
            step tag such as ``" ки"``); the step is scored at the last token of ``step + suffix``.
        max_length: When set and the layout is longer, prompt tokens are dropped from the left
            (the BOS token is kept); raises ``ValueError`` when the steps alone do not fit.

    Returns:
        ``(input_ids, positions)`` with ``len(positions) == len(steps)``; ``positions[k]`` indexes
        ``input_ids``.
    """
    bos = [tokenizer.bos_token_id] if tokenizer.bos_token_id is not None else []
    prompt_ids = list(tokenizer(prompt, add_special_tokens=False)["input_ids"])
    suffix_ids = list(tokenizer(step_suffix, add_special_tokens=False)["input_ids"]) if step_suffix else []
    body: list[int] = []
    ends: list[int] = []
    for k, step in enumerate(steps):
        chunk = list(tokenizer(step, add_special_tokens=False)["input_ids"]) + suffix_ids
        if not chunk:
            raise ValueError(f"step {k} ({step!r}) and the step suffix {step_suffix!r} tokenize to no tokens")
        body.extend(chunk)
        ends.append(len(body) - 1)
    if max_length is not None:
        room = max_length - len(bos) - len(body)
        if room < 0:
            raise ValueError(f"{len(steps)} steps take {len(body)} tokens (+{len(bos)} BOS), more than "
                             f"max_length={max_length}")
        prompt_ids = prompt_ids[len(prompt_ids) - room:] if room < len(prompt_ids) else prompt_ids
    head = bos + prompt_ids
    return head + body, [len(head) + e for e in ends]


def check_preference_row(row: Mapping[str, Any], index: int) -> None:
    """Raise ``ValueError`` unless ``row`` is a TRL implicit-prompt preference row.

    Expected: ``{"prompt": str, "chosen": str, "rejected": str}`` and optionally ``"margin": float``.
    """
    for key in ("prompt", "chosen", "rejected"):
        if not isinstance(row.get(key), str):
            raise ValueError(f"preference row {index}: {key!r} must be a str, got {row.get(key)!r:.80} "
                             f"(expected keys prompt, chosen, rejected[, margin])")
    margin = row.get("margin", 0.0)
    if isinstance(margin, bool) or not isinstance(margin, (int, float)):
        raise ValueError(f"preference row {index}: 'margin' must be a number, got {margin!r}")


def check_stepwise_row(row: Mapping[str, Any], index: int) -> None:
    """Raise ``ValueError`` unless ``row`` is a TRL ``stepwise_supervision`` row.

    Expected: ``{"prompt": str, "completions": list[str], "labels": list[bool]}`` with one label
    per step and at least one step.
    """
    prompt, steps, labels = row.get("prompt"), row.get("completions"), row.get("labels")
    if not isinstance(prompt, str):
        raise ValueError(f"stepwise row {index}: 'prompt' must be a str, got {prompt!r:.80}")
    if not isinstance(steps, (list, tuple)) or not steps or not all(isinstance(s, str) for s in steps):
        raise ValueError(f"stepwise row {index}: 'completions' must be a non-empty list of str, got {steps!r:.80}")
    if not isinstance(labels, (list, tuple)) or len(labels) != len(steps):
        raise ValueError(f"stepwise row {index}: 'labels' must be a list with one bool per step "
                         f"({len(steps)} steps), got {labels!r:.80}")
    if not all(isinstance(label, bool) or label in (0, 1) for label in labels):
        raise ValueError(f"stepwise row {index}: labels must be booleans, got {labels!r:.80}")


def ensure_pad_token(tokenizer: Any, model_config: Any = None) -> int:
    """Give ``tokenizer`` a pad token (its EOS token when it has none) and mirror it on ``model_config``.

    Sequence classifiers read their score at the last non-pad token, so training and scoring must
    agree on the pad id; both sides call this. Returns the pad token id.
    """
    if tokenizer.pad_token_id is None:
        if tokenizer.eos_token is None:
            raise ValueError(f"tokenizer {type(tokenizer).__name__} has neither a pad nor an EOS token: "
                             f"set tokenizer.pad_token before scoring or training")
        tokenizer.pad_token = tokenizer.eos_token
    if model_config is not None and getattr(model_config, "pad_token_id", None) is None:
        model_config.pad_token_id = tokenizer.pad_token_id
    return int(tokenizer.pad_token_id)

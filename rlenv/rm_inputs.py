"""Token layouts of reward-model inputs, shared by the model-scored environments and the trainers.

The model-scored environments (safety reward models, process reward models) score with a model;
the reward-model trainers fit one. Both sides build model inputs with the functions here, so a model is
read exactly the way it was trained. The layouts are TRL's, so models trained with TRL load and
score the same way:

* **pair** (outcome / safety reward models, TRL ``RewardTrainer``). Like TRL, the layout follows
  the *data*, not the tokenizer:

  - ``"plain"`` (plain-text rows): ``prompt + completion + eos`` tokenized with the tokenizer's
    special tokens (the EOS is not doubled when the completion already ends with it);
  - ``"chat"`` (conversational rows, a chat-mode env): the conversation ``prompt messages +
    completion messages`` rendered by the tokenizer's chat template (a plain prompt string is one
    user message, a plain completion one assistant message).

* **stepwise** (process reward models, TRL ``stepwise_supervision`` rows and PRM trainer):
  ``[bos] + prompt`` then each step followed by ``step_suffix`` (each piece tokenized on its own,
  no special tokens); a step's score is read at the last token of its ``step + step_suffix`` chunk.

What a checkpoint was trained with is recorded in its config (:func:`record_layout`, saved in
``config.json`` by ``save_pretrained``) by rlenv's trainers and honoured by the verifiers;
:func:`resolve_pair_layout` is the rule they share. Only tokenizer methods are called here: this
module imports neither torch nor transformers.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from rlenv.errors import check_choice

logger = logging.getLogger(__name__)

#: Truncation sides accepted by :func:`truncate`.
TRUNCATION_SIDES = ("left", "right")
#: Input layouts of pair (outcome) reward models.
PAIR_LAYOUTS = ("plain", "chat")
#: Every recordable layout: the pair layouts and the PRM ``"stepwise"`` layout.
LAYOUTS = PAIR_LAYOUTS + ("stepwise",)
#: What the trainers do with inputs longer than ``max_length``: cut them (rlenv's default) or
#: leave the example out of training (TRL ``RewardTrainer``'s behaviour).
OVERLONG = ("truncate", "drop")
#: The model-config attribute holding the recorded layout (a dict, saved in ``config.json``).
LAYOUT_ATTRIBUTE = "rlenv_inputs"
#: TRL's default PRM ``step_separator``: the step suffix when a checkpoint records none.
DEFAULT_STEP_SUFFIX = "\n"

Messages = list[dict[str, Any]]


def is_conversation(value: Any) -> bool:
    """True when ``value`` is a list of chat messages (dicts with a ``role``), TRL's conversational test."""
    return isinstance(value, (list, tuple)) and bool(value) and isinstance(value[0], Mapping) and "role" in value[0]


def record_layout(model_config: Any, layout: str, **fields: Any) -> None:
    """Record on ``model_config`` the input layout a model is trained with (``save_pretrained`` keeps it).

    rlenv's trainers call this; call it yourself on a checkpoint trained elsewhere (e.g. with TRL on
    conversational rows: ``record_layout(model.config, "chat")`` before ``save_pretrained``) so the
    verifiers read it without options.

    Args:
        model_config: A ``transformers`` model config.
        layout: One of :data:`LAYOUTS`.
        **fields: Further settings of the layout (e.g. ``step_suffix`` for ``"stepwise"``).
    """
    check_choice("layout", layout, LAYOUTS)
    setattr(model_config, LAYOUT_ATTRIBUTE, {"layout": layout, **fields})


def recorded_layout(model_config: Any) -> dict[str, Any]:
    """The layout recorded by :func:`record_layout` on ``model_config`` (``{}`` when none is)."""
    record = getattr(model_config, LAYOUT_ATTRIBUTE, None)
    if record is None:
        return {}
    if not isinstance(record, Mapping) or record.get("layout") not in LAYOUTS:
        raise ValueError(f"model config field {LAYOUT_ATTRIBUTE}={record!r} is not a layout record: expected a dict "
                         f"with 'layout' one of {LAYOUTS}")
    return dict(record)


def resolve_pair_layout(
    model_config: Any, use_chat_template: bool | None = None, conversational: bool = False, owner: str = "model"
) -> str:
    """The pair layout to read a checkpoint with; first that applies:

    1. the explicit override ``use_chat_template`` (True: ``"chat"``, False: ``"plain"``);
    2. the layout recorded on ``model_config`` (see :func:`record_layout`);
    3. the data: ``"chat"`` when the prompts are conversations (``conversational``: a chat-mode
       env), else ``"plain"`` -- TRL's rule. Whether the tokenizer has a chat template does not
       matter: base and instruct tokenizers ship one whatever a reward model was trained on.
    """
    recorded = recorded_layout(model_config).get("layout")
    if recorded is not None and recorded not in PAIR_LAYOUTS:
        raise ValueError(f"{owner} records the {recorded!r} input layout, not a pair layout {PAIR_LAYOUTS}: "
                         f"it is not an outcome reward model")
    if use_chat_template is not None:
        layout = "chat" if use_chat_template else "plain"
        if recorded is not None and recorded != layout:
            warn_once(f"{owner} was trained with the {recorded!r} input layout; reading it as {layout!r} "
                      f"(use_chat_template={use_chat_template})")
        return layout
    if recorded is not None:
        return recorded
    return "chat" if conversational else "plain"


@functools.lru_cache(maxsize=256)
def warn_once(message: str) -> None:
    """Log ``message`` as a warning the first time it occurs in this process (per-batch calls would flood)."""
    logger.warning(message)


def as_messages(value: str | Sequence[Mapping[str, Any]], role: str) -> Messages:
    """``value`` as chat messages: a conversation is kept, a string becomes one ``role`` message."""
    if isinstance(value, str):
        return [{"role": role, "content": value}]
    if isinstance(value, (list, tuple)) and not value:
        return []
    if not is_conversation(value):
        raise ValueError(f"expected a str or a list of chat messages (dicts with 'role'), got {value!r:.80}")
    return [dict(m) for m in value]


def require_chat_template(tokenizer: Any, why: str) -> None:
    """Raise ``ValueError`` naming ``why`` unless ``tokenizer`` has a chat template."""
    if not getattr(tokenizer, "chat_template", None):
        raise ValueError(f"{why} needs a tokenizer with a chat template; {type(tokenizer).__name__} "
                         f"{getattr(tokenizer, 'name_or_path', '')!r} has none (set tokenizer.chat_template)")


def pair_ids(
    tokenizer: Any,
    prompt: str | Sequence[Mapping[str, Any]],
    completion: str | Sequence[Mapping[str, Any]],
    layout: str = "plain",
) -> list[int]:
    """Token ids of a ``(prompt, completion)`` pair in the reward-model ``layout`` (see module doc).

    Args:
        tokenizer: A Hugging Face tokenizer.
        prompt: The prompt: a string, or (``"chat"`` layout) a list of chat messages.
        completion: The completion: a string, or (``"chat"`` layout) a list of chat messages.
        layout: ``"plain"`` (TRL plain-text rows) or ``"chat"`` (TRL conversational rows).

    Returns:
        A list of token ids, untruncated.
    """
    if layout == "chat":
        require_chat_template(tokenizer, "the 'chat' reward-model layout")
        messages = as_messages(prompt, "user") + as_messages(completion, "assistant")
        return list(tokenizer.apply_chat_template(messages, tokenize=True, return_dict=True)["input_ids"])
    if layout != "plain":
        raise ValueError(f"layout must be one of {PAIR_LAYOUTS}, got {layout!r}")
    if not isinstance(prompt, str) or not isinstance(completion, str):
        raise ValueError(f"the 'plain' layout concatenates strings; got a {type(prompt).__name__} prompt and a "
                         f"{type(completion).__name__} completion (conversations need the 'chat' layout)")
    eos = tokenizer.eos_token
    if not eos:
        raise ValueError(f"the 'plain' reward-model layout ends with the EOS token (TRL's layout); tokenizer "
                         f"{type(tokenizer).__name__} has none")
    return list(tokenizer(prompt + completion + ("" if completion.endswith(eos) else eos))["input_ids"])


def truncate(ids: Sequence[int], max_length: int | None, side: str) -> tuple[list[int], bool]:
    """Cut ``ids`` to ``max_length`` tokens, dropping from ``side``; returns ``(ids, was_cut)``."""
    check_choice("truncation side", side, TRUNCATION_SIDES)
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


def preference_row_layout(row: Mapping[str, Any], index: int) -> str:
    """Check a TRL preference row and return its pair layout: ``"plain"`` or ``"chat"`` (conversational).

    Expected: ``chosen`` and ``rejected``, both strings (plain) or both lists of chat messages
    (conversational); an optional ``prompt`` of the same kind (without one, the prompt is empty,
    TRL's implicit-prompt rows); an optional number ``margin``. Raises ``ValueError`` naming the
    row and the bad field otherwise.
    """
    keys = [key for key in ("prompt", "chosen", "rejected") if key in row or key != "prompt"]
    kinds = {}
    for key in keys:
        value = row.get(key)
        if isinstance(value, str):
            kinds[key] = "plain"
        elif is_conversation(value):
            kinds[key] = "chat"
        else:
            raise ValueError(f"preference row {index}: {key!r} must be a str or a list of chat messages, got "
                             f"{value!r:.80} (expected keys [prompt,] chosen, rejected[, margin])")
    if len(set(kinds.values())) > 1:
        raise ValueError(f"preference row {index} mixes plain text and chat messages: {kinds}")
    margin = row.get("margin", 0.0)
    if isinstance(margin, bool) or not isinstance(margin, (int, float)):
        raise ValueError(f"preference row {index}: 'margin' must be a number, got {margin!r}")
    return kinds["chosen"]


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

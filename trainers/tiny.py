"""Tiny character-level tokenizers and transformer models, built locally (no model hub).

Used by the demo, the examples and the tests: they go through the same ``from_pretrained`` code
path as real checkpoints once saved with :func:`save_tiny`.

Example::

    tok = tiny_tokenizer()
    model = tiny_causal_lm(tok)
    save_tiny(model, tok, "/tmp/tiny-policy")   # AutoModelForCausalLM.from_pretrained works on it
"""

from __future__ import annotations

import string
from collections.abc import Iterable
from pathlib import Path
from typing import Any

#: Characters the default tiny tokenizer knows (one token each).
DEFAULT_ALPHABET = string.digits + string.ascii_letters + " \n.,:;!?+-*/=()[]{}<>#$%&'\"_\\^|~@`"
SPECIAL_TOKENS = {"pad": "<pad>", "bos": "<s>", "eos": "</s>", "unk": "<unk>"}
CHAT_TEMPLATE = (
    "{% for m in messages %}<{{ m['role'] }}>{{ m['content'] }}</s>{% endfor %}"
    "{% if add_generation_prompt %}<assistant>{% endif %}"
)

#: Chat templates that take ``tools`` (OpenAI function schemas), in the layouts of two model
#: families, for :func:`tiny_tool_tokenizer`: calls as the family writes them, tool results as
#: its template shows them. Short system texts keep a character-level prompt small.
TOOL_CHAT_TEMPLATES = {
    # Qwen 2 / 2.5: Hermes calls <tool_call>{...}</tool_call>, results as <tool_response> in a user turn
    "qwen2": (
        "{% if tools %}<|im_start|>system{{ '\\n' }}{% if messages[0].role == 'system' %}{{ messages[0].content }}"
        "{{ '\\n' }}{% endif %}<tools>{% for t in tools %}{{ '\\n' }}{{ t | tojson }}{% endfor %}{{ '\\n' }}</tools>"
        "<|im_end|>{{ '\\n' }}"
        "{% elif messages[0].role == 'system' %}<|im_start|>system{{ '\\n' + messages[0].content }}<|im_end|>{{ '\\n' }}"
        "{% endif %}"
        "{% for m in messages %}"
        "{% if m.role == 'tool' %}<|im_start|>user{{ '\\n' }}<tool_response>{{ '\\n' + m.content + '\\n' }}"
        "</tool_response><|im_end|>{{ '\\n' }}"
        "{% elif m.role == 'assistant' %}<|im_start|>assistant{{ '\\n' + (m.content or '') }}"
        "{% for c in m.tool_calls or [] %}{{ '\\n' }}<tool_call>{{ '\\n' }}{\"name\": \"{{ c.function.name }}\", "
        "\"arguments\": {% if c.function.arguments is string %}{{ c.function.arguments }}{% else %}"
        "{{ c.function.arguments | tojson }}{% endif %}}{{ '\\n' }}</tool_call>{% endfor %}<|im_end|>{{ '\\n' }}"
        "{% elif not (m.role == 'system' and loop.first) %}<|im_start|>{{ m.role + '\\n' + m.content }}<|im_end|>"
        "{{ '\\n' }}{% endif %}{% endfor %}"
        "{% if add_generation_prompt %}<|im_start|>assistant{{ '\\n' }}{% endif %}"
    ),
    # Llama 3.1 - 3.3: JSON calls {"name": ..., "parameters": {...}}, results in an ipython turn
    "llama3": (
        "{% if tools %}<|start_header_id|>system<|end_header_id|>{{ '\\n\\n' }}"
        "{% for t in tools %}{{ t | tojson }}{{ '\\n' }}{% endfor %}<|eot_id|>{% endif %}"
        "{% for m in messages %}"
        "{% if m.role in ('tool', 'ipython') %}<|start_header_id|>ipython<|end_header_id|>{{ '\\n\\n' + m.content }}"
        "<|eot_id|>"
        "{% elif m.role == 'assistant' and m.tool_calls %}<|start_header_id|>assistant<|end_header_id|>{{ '\\n\\n' }}"
        "{% for c in m.tool_calls %}{\"name\": \"{{ c.function.name }}\", \"parameters\": "
        "{% if c.function.arguments is string %}{{ c.function.arguments }}{% else %}{{ c.function.arguments | tojson }}"
        "{% endif %}}{% if not loop.last %}; {% endif %}{% endfor %}<|eot_id|>"
        "{% else %}<|start_header_id|>{{ m.role }}<|end_header_id|>{{ '\\n\\n' + m.content }}<|eot_id|>{% endif %}"
        "{% endfor %}"
        "{% if add_generation_prompt %}<|start_header_id|>assistant<|end_header_id|>{{ '\\n\\n' }}{% endif %}"
    ),
}
#: Per style of :data:`TOOL_CHAT_TEMPLATES`: the template's special tokens (the last one ends a
#: turn: the tokenizer's EOS) and the tool-call markers added as ordinary tokens (vLLM's tool
#: parsers look them up in the vocabulary).
TOOL_TOKENS = {
    "qwen2": (("<|im_start|>", "<|im_end|>"), ("<tool_call>", "</tool_call>")),
    "llama3": (("<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"), ("<|python_tag|>",)),
}


def _special_tokens(chat_template: bool) -> list[str]:
    """``<pad>``, ``<s>``, ``</s>``, ``<unk>`` (ids 0-3), then the chat role markers when ``chat_template``."""
    return list(SPECIAL_TOKENS.values()) + (["<system>", "<user>", "<assistant>"] if chat_template else [])


def _fast_tokenizer(core: Any, specials: list[str], chat_template: bool) -> Any:
    """``core`` (a ``tokenizers.Tokenizer``) as a left-padding ``PreTrainedTokenizerFast`` with ``specials``."""
    from transformers import PreTrainedTokenizerFast

    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core,
        pad_token=SPECIAL_TOKENS["pad"],
        bos_token=SPECIAL_TOKENS["bos"],
        eos_token=SPECIAL_TOKENS["eos"],
        unk_token=SPECIAL_TOKENS["unk"],
        additional_special_tokens=specials[len(SPECIAL_TOKENS):],
        padding_side="left",
    )
    if chat_template:
        tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


def tiny_tokenizer(alphabet: str = DEFAULT_ALPHABET, chat_template: bool = False) -> Any:
    """A character-level ``PreTrainedTokenizerFast``: one token per character of ``alphabet``.

    Special tokens: ``<pad>`` (id 0), ``<s>``, ``</s>`` (EOS), ``<unk>``; chat role markers
    ``<system>``, ``<user>``, ``<assistant>`` are added when ``chat_template`` is True.
    """
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers

    specials = _special_tokens(chat_template)
    chars = list(dict.fromkeys(alphabet))
    vocab = {tok: i for i, tok in enumerate(specials + chars)}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token=SPECIAL_TOKENS["unk"]))
    core.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\s\S]"), behavior="isolated")
    core.decoder = decoders.Fuse()
    return _fast_tokenizer(core, specials, chat_template)


def tiny_tool_tokenizer(style: str = "qwen2", alphabet: str = DEFAULT_ALPHABET) -> Any:
    """A character-level tokenizer (as :func:`tiny_tokenizer`) with a chat template that takes
    ``tools``, in the layout of ``style`` (a key of :data:`TOOL_CHAT_TEMPLATES`: ``qwen2`` or
    ``llama3``): its turn markers are special tokens, the last one the EOS, and its tool-call
    markers single tokens."""
    from rlenv.errors import check_choice

    check_choice("style", style, tuple(TOOL_CHAT_TEMPLATES))
    specials, markers = TOOL_TOKENS[style]
    tokenizer = tiny_tokenizer(alphabet)
    tokenizer.add_special_tokens({"additional_special_tokens": list(specials)})
    tokenizer.add_tokens(list(markers))
    tokenizer.eos_token = specials[-1]
    tokenizer.chat_template = TOOL_CHAT_TEMPLATES[style]
    return tokenizer


def tiny_word_tokenizer(corpus: Iterable[str], chat_template: bool = False) -> Any:
    """A word-level ``PreTrainedTokenizerFast`` whose vocabulary is every word and punctuation run of ``corpus``.

    Words are split like ``tokenizers.pre_tokenizers.Whitespace`` (``\\w+`` and ``[^\\w\\s]+``);
    unseen words map to ``<unk>``. Short sequences make tiny models learn word-level synthetic
    tasks (e.g. safety preferences) in seconds. Special and chat tokens as in :func:`tiny_tokenizer`.
    """
    from tokenizers import Tokenizer, models, pre_tokenizers

    specials = _special_tokens(chat_template)
    splitter = pre_tokenizers.Whitespace()
    words = sorted({w for text in corpus for w, _ in splitter.pre_tokenize_str(text)} - set(specials))
    core = Tokenizer(models.WordLevel(vocab={tok: i for i, tok in enumerate(specials + words)},
                                      unk_token=SPECIAL_TOKENS["unk"]))
    core.pre_tokenizer = splitter
    return _fast_tokenizer(core, specials, chat_template)


def _config_kwargs(tokenizer: Any, hidden_size: int, num_layers: int, num_heads: int, max_positions: int) -> dict:
    return dict(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        intermediate_size=hidden_size * 4,
        num_hidden_layers=num_layers,
        num_attention_heads=num_heads,
        num_key_value_heads=num_heads,
        max_position_embeddings=max_positions,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        tie_word_embeddings=True,
    )


def tiny_causal_lm(
    tokenizer: Any, hidden_size: int = 64, num_layers: int = 2, num_heads: int = 4, max_positions: int = 512,
    seed: int = 0,
) -> Any:
    """A randomly initialized Llama-architecture causal LM sized for CPU tests (about 0.1M params)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    config = LlamaConfig(**_config_kwargs(tokenizer, hidden_size, num_layers, num_heads, max_positions))
    return LlamaForCausalLM(config)


def tiny_sequence_classifier(
    tokenizer: Any, num_labels: int = 1, hidden_size: int = 64, num_layers: int = 2, num_heads: int = 4,
    max_positions: int = 512, seed: int = 0,
) -> Any:
    """A randomly initialized Llama-architecture sequence classifier (a reward model head)."""
    import torch
    from transformers import LlamaConfig, LlamaForSequenceClassification

    torch.manual_seed(seed)
    config = LlamaConfig(**_config_kwargs(tokenizer, hidden_size, num_layers, num_heads, max_positions))
    config.num_labels = num_labels
    return LlamaForSequenceClassification(config)


def save_tiny(model: Any, tokenizer: Any, path: str | Path) -> Path:
    """Save ``model`` and ``tokenizer`` so ``AutoModel*.from_pretrained(path)`` loads them."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def tiny_token_classifier(
    tokenizer: Any, num_labels: int = 2, hidden_size: int = 64, num_layers: int = 2, num_heads: int = 4,
    max_positions: int = 512, seed: int = 0,
) -> Any:
    """A randomly initialized Llama-architecture token classifier (a process reward model head)."""
    import torch
    from transformers import LlamaConfig, LlamaForTokenClassification

    torch.manual_seed(seed)
    config = LlamaConfig(**_config_kwargs(tokenizer, hidden_size, num_layers, num_heads, max_positions))
    config.num_labels = num_labels
    return LlamaForTokenClassification(config)

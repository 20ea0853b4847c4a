"""A tiny local policy that really calls tools: a character-level Llama with a Qwen2-style or
Llama-3-style tool chat template (:func:`rlenv.trainers.tiny.tiny_tool_tokenizer`), trained for a
few seconds on the chat conversations of ``rlenv/GSM8K-Python-v0`` over :data:`QUESTIONS`.

Greedy, it plays every episode the same way: its first turn calls ``python`` with
``print(6 * 7)`` in its family's call format, and once a tool result is shown it answers
``\\boxed{42}``: right on two questions, wrong on the third (whose answer is 41).
"""

from __future__ import annotations

import json
from pathlib import Path

ENV = "rlenv/GSM8K-Python-v0"
QUESTIONS = [("What is 6 times 7?", "42"), ("What is 40 plus 2?", "42"), ("What is 50 minus 9?", "41")]
CODE = "print(6 * 7)"
ANSWER = "The answer is \\boxed{42}."
#: The first turn as each family writes a call (the template's turn end follows: the EOS).
CALLS = {"qwen2": '<tool_call>\n{"name": "python", "arguments": {"code": "print(6 * 7)"}}\n</tool_call>',
         "llama3": '{"name": "python", "parameters": {"code": "print(6 * 7)"}}'}
#: rlenv's tool-call format for each family.
FORMATS = {"qwen2": "hermes", "llama3": "llama3_json"}


def write_questions(path: Path) -> Path:
    """:data:`QUESTIONS` as a GSM8K-format JSONL file."""
    path.write_text("".join(json.dumps({"question": q, "answer": f"#### {a}"}) + "\n" for q, a in QUESTIONS))
    return path


def _examples(style: str, data: Path) -> list[tuple[str, str]]:
    """``(prompt text, target turn)`` pairs: each question's first turn, and its answer after a tool result
    (with the call as text, and as the structured call an OpenAI-compatible server hands back)."""
    import rlenv
    from rlenv.trainers.tiny import tiny_tool_tokenizer

    tokenizer = tiny_tool_tokenizer(style)
    env = rlenv.make(ENV, data_files=str(data), chat=True, tool_format=FORMATS[style])
    structured = [{"id": "c1", "type": "function",
                   "function": {"name": "python", "arguments": json.dumps({"code": CODE})}}]
    examples = []
    for index in range(len(QUESTIONS)):
        prompt, info = env.reset(options={"index": index})
        tools = info["tools"]
        examples.append((tokenizer.apply_chat_template(prompt, tools=tools, add_generation_prompt=True,
                                                       tokenize=False), CALLS[style]))
        for assistant in ({"role": "assistant", "content": CALLS[style]},
                          {"role": "assistant", "content": "", "tool_calls": structured}):
            conversation = [*prompt, assistant, {"role": "tool", "name": "python", "content": "42\n"}]
            examples.append((tokenizer.apply_chat_template(conversation, tools=tools, add_generation_prompt=True,
                                                           tokenize=False), ANSWER))
    return examples


def train_tool_policy(style: str, data: Path, out: Path, steps: int = 300, confidence: float = 0.0) -> Path:
    """Train the tiny ``style`` policy on :func:`_examples` until it reproduces them greedily and gives
    every target token at least probability ``confidence`` (so that sampling reproduces them too); save it to ``out``."""
    import torch

    from rlenv.trainers.tiny import save_tiny, tiny_causal_lm, tiny_tool_tokenizer

    tokenizer = tiny_tool_tokenizer(style)
    model = tiny_causal_lm(tokenizer, hidden_size=64, num_layers=2, num_heads=1, max_positions=1024, seed=0)
    rows = []
    for prompt, target in _examples(style, data):
        prompt_ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
        target_ids = tokenizer(target, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
        rows.append((prompt_ids + target_ids, [-100] * len(prompt_ids) + target_ids))
    width = max(len(ids) for ids, _ in rows)
    ids = torch.tensor([i + [tokenizer.pad_token_id] * (width - len(i)) for i, _ in rows])
    labels = torch.tensor([lab + [-100] * (width - len(lab)) for _, lab in rows])
    mask = (torch.arange(width)[None, :] < torch.tensor([len(i) for i, _ in rows])[:, None]).long()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    targets = labels[:, 1:] != -100
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # on a shared machine, the threads of a model this small only wait for each other
    try:
        for _ in range(steps):
            output = model(input_ids=ids, attention_mask=mask, labels=labels)
            logits = output.logits[:, :-1][targets]
            chosen = labels[:, 1:][targets]
            greedy = (logits.argmax(-1) == chosen).all()
            if greedy and logits.softmax(-1).gather(-1, chosen[:, None]).min() >= confidence:
                break  # every target token is the greedy choice, and likely enough
            optimizer.zero_grad()
            output.loss.backward()
            optimizer.step()
        else:
            raise AssertionError(f"the tiny {style} policy did not learn its turns in {steps} steps")
    finally:
        torch.set_num_threads(threads)
    return save_tiny(model.eval(), tokenizer, out)

"""Shared pieces of the multi-turn rollout tests: an env whose every turn is answered (by a tool or
the user, so episodes last their turn limit), a generator that records what it sampled, and the
oracle that checks a batch token by token against both."""

from __future__ import annotations

import collections
from typing import Any

from rlenv import RewardResult, Status, Task
from rlenv.multiturn import MultiTurnEnv, Turn
from rlenv.sources import ProceduralSource
from rlenv.trainers.multiturn import PLACEHOLDER
from rlenv.vector import MultiTurnVectorEnv

#: Tool schemas the prompts are rendered with (the chat template prints them).
TOOLS = [{"type": "function", "function": {"name": "echo", "description": "Echo a length.",
                                           "parameters": {"type": "object", "properties": {}}}}]


def question_task(rng: Any, index: int) -> Task:
    """Task ``index`` of the episodes here (its reference is never read: :class:`LengthParity` grades)."""
    return Task(str(index), f"Question {index}?", reference=str(index % 3))


class LengthParity:
    """Correct when the graded turn has an odd number of characters (a reward with variance)."""

    name, version = "length_parity", "1"

    def __call__(self, task: Task, completion: str) -> RewardResult:
        ok = len(completion) % 2 == 1
        return RewardResult(float(ok), Status.CORRECT if ok else Status.INCORRECT, verifier=self.name)


class AnsweringEnv(MultiTurnEnv):
    """Answers every policy turn until ``max_turns``: a tool message after odd turns, a user message
    after even ones (their text depends on the turn, so replies differ in length); ``turn_reward``
    gives each answered turn that reward. With ``final_after``, the turn after that many answered
    ones is final (the episode terminates there)."""

    def __init__(self, turn_reward: float | None = None, final_after: int | None = None, **kwargs: Any):
        super().__init__(ProceduralSource(question_task, size=1000), LengthParity(), chat=True, **kwargs)
        self.turn_reward = turn_reward
        self.final_after = final_after

    def task_info(self, task: Task, index: int) -> dict[str, Any]:
        return {**super().task_info(task, index), "tools": TOOLS}

    def respond(self, task: Task, action: str) -> Turn:
        if self.final_after is not None and self.turns > self.final_after:
            return Turn(final=action)
        reward = None if self.turn_reward is None else RewardResult(self.turn_reward, Status.CORRECT, verifier="turn")
        if self.turns % 2:
            return Turn(observation=[{"role": "tool", "name": "echo", "content": f"len={len(action)}"}], reward=reward)
        return Turn(observation=[{"role": "user", "content": f"Go on ({self.turns})."}], reward=reward)


def answering_vector_env(num_tasks: int, group_size: int, max_turns: int = 3, **kwargs: Any) -> MultiTurnVectorEnv:
    return MultiTurnVectorEnv(lambda: AnsweringEnv(max_turns=max_turns, **kwargs), num_tasks, group_size)


class Recording:
    """Wraps a rollout generator; records every ``(context, sampled ids)`` pair it produced."""

    def __init__(self, generator: Any):
        self.generator = generator
        self.pairs: list[tuple[tuple[int, ...], tuple[int, ...]]] = []

    def generate_ids(self, prompts):
        out = self.generator.generate_ids(prompts)
        lengths = out.completion_mask.long().sum(1).tolist()
        for prompt, row, n in zip(prompts, out.completion_ids.tolist(), lengths, strict=True):
            self.pairs.append((tuple(prompt), tuple(row[:n])))
        return out


def runs(mask: list[int]) -> list[tuple[int, int, int]]:
    """``(value, start, end)`` of each maximal run of equal values."""
    out, start = [], 0
    for k in range(1, len(mask) + 1):
        if k == len(mask) or mask[k] != mask[start]:
            out.append((mask[start], start, k))
            start = k
    return out


def check_batch(batch: Any, recorded: list[tuple[tuple[int, ...], tuple[int, ...]]], tokenizer: Any,
                eos_id: int) -> dict[str, int]:
    """Count, over ``batch``: the sampled turns missing from the trained sequences (each turn preceded by
    exactly the context it was sampled from), the policy turns of the batch nobody sampled, and the tokens
    whose mask disagrees with the chat template's full rendering of the episode's conversation (a
    reply's tokens must decode to exactly what the template writes between two turns)."""
    trained: collections.Counter = collections.Counter()
    wrong_tokens = 0
    for i in range(len(batch)):
        prompt = batch.prompt_ids[i][batch.prompt_mask[i].bool()].tolist()
        n = int(batch.completion_mask[i].sum())
        ids = batch.completion_ids[i, :n].tolist()
        policy = batch.policy_mask[i, :n].tolist()
        spans = runs(policy)
        turns = [(s, e) for value, s, e in spans if value == 1]
        for s, e in turns:
            trained[(tuple(prompt + ids[:s]), tuple(ids[s:e]))] += 1
        # the oracle: the whole conversation rendered once, each policy turn a placeholder
        messages = list(batch.infos["prompt"][i]) + [{**m, "content": PLACEHOLDER} if m["role"] == "assistant" else m
                                                     for m in batch.infos["messages"][i]]
        pieces = tokenizer.apply_chat_template(messages, tools=TOOLS, tokenize=False).split(PLACEHOLDER)
        wrong_tokens += int(tokenizer.decode(prompt) != pieces[0]) * len(prompt)
        if spans[0][0] != 1 or spans[-1][0] != 1:  # the completion starts and ends with the policy's turns
            wrong_tokens += 1
        for k, (value, s, e) in enumerate(spans):
            if value == 1:
                continue
            turn_ended = ids[s - 1] == eos_id
            expected = pieces[1 + k // 2]
            if turn_ended:
                expected = expected.removeprefix(tokenizer.decode([eos_id]))
            if tokenizer.decode(ids[s:e]) != expected:
                wrong_tokens += e - s
    recorded_counts = collections.Counter(recorded)
    return {"sampled_not_trained": sum((recorded_counts - trained).values()),
            "trained_not_sampled": sum((trained - recorded_counts).values()), "wrong_mask_tokens": wrong_tokens,
            "turns": sum(recorded_counts.values())}


def multiturn_batch(seed: int = 4, num_tasks: int = 6, group_size: int = 4) -> tuple[Any, Any]:
    """``(tokenizer, batch)``: groups of three-turn episodes, per-turn rewards included, from a random tiny
    qwen2 policy (the sampler's log-probs dropped)."""
    from rlenv.inference import Sampling
    from rlenv.inference.policy import HFRolloutGenerator
    from rlenv.trainers.multiturn import run_multiturn_episodes
    from rlenv.trainers.tiny import tiny_causal_lm, tiny_tool_tokenizer

    tokenizer = tiny_tool_tokenizer("qwen2")
    model = tiny_causal_lm(tokenizer, hidden_size=32, num_layers=1, num_heads=2, seed=seed)
    generator = HFRolloutGenerator(model, tokenizer, Sampling(max_new_tokens=5, temperature=1.0))
    env = answering_vector_env(num_tasks=num_tasks, group_size=group_size, max_turns=3, turn_reward=0.1)
    batch = run_multiturn_episodes(env, generator, tokenizer, seed=seed)
    return tokenizer, batch.replace(rollout_logprobs=None)


def policy_positions(batch: Any) -> list[Any]:
    """Each row's policy-token positions in the completion."""
    import torch

    return [torch.nonzero(batch.policy_mask[i] * batch.completion_mask[i]).flatten() for i in range(len(batch))]


def compact(values: Any, positions: list[Any], width: int) -> Any:
    """``(B, T)`` values at each row's ``positions``, left-justified into ``(B, width)`` (zeros after): the
    environment's tokens removed by hand."""
    import torch

    out = torch.zeros((len(positions), width), dtype=values.dtype)
    for i, where in enumerate(positions):
        out[i, : len(where)] = values[i, where]
    return out

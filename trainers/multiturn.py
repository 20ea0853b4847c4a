"""Multi-turn rollouts: episodes of a :class:`~rlenv.vector.MultiTurnVectorEnv` played in lockstep,
kept as the token ids the policy sampled.

Each episode is one token sequence: its prompt (the chat template's rendering of the first
observation, with the env's ``tools``), then for every turn the ids the policy sampled, **as
sampled** (never decoded and tokenized again), then the ids of what the chat template adds for
the environment's reply. Those reply ids are found without touching the policy's text: the
conversation is rendered with a placeholder in place of the policy's turn, once up to the end of
that turn and once with the reply and the next generation prompt; the difference (and whatever
the template writes after a turn, past the end-of-turn token the policy sampled) is tokenized
alone. The next turn is sampled from exactly the sequence that will be trained.

The :class:`~rlenv.trainers.batch.EpisodeBatch` holds everything after the prompt as the
completion and marks the policy's tokens in ``policy_mask``: the environment's replies are
context for the policy's later turns, never trained. An env's per-turn reward (``Turn.reward``)
lands on the last token of its turn (``token_rewards``); the outcome on the last policy token
(:func:`~rlenv.trainers.batch.outcome_token_rewards` over the loss mask).

Every turn, the episodes still under way are generated for in one call (``generate_ids`` of
:class:`~rlenv.inference.policy.HFRolloutGenerator` or
:class:`~rlenv.inference.vllm_policy.VLLMRolloutGenerator`) and stepped concurrently (one thread
each: a slow tool delays only the end of the turn, not the other episodes' tool calls).
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from rlenv.inference.policy import eos_token_ids, pad_token_id_of, prompt_token_lists
from rlenv.multiturn import MultiTurnEnv
from rlenv.trainers.batch import EpisodeBatch
from rlenv.types import Completion
from rlenv.vector import MultiTurnVectorEnv

#: The stand-in for the policy's turn when the chat template renders the environment's reply.
PLACEHOLDER = "\u2063rlenv-policy-turn\u2063"
#: Per-episode metrics of :func:`multiturn_metrics`.
EPISODE_METRICS = ("turns", "tool_calls", "tool_errors", "limit_truncated")


@dataclasses.dataclass
class Trajectory:
    """One episode's tokens so far.

    Attributes:
        prompt_ids: The prompt's ids.
        ids: Everything after the prompt: the policy's turns and the environment's replies.
        policy: 1 where ``ids`` holds a token the policy sampled, 0 on the environment's.
        logprobs: The sampler's log-prob of each policy token (0 on the environment's).
        turn_ends: The index in ``ids`` of each policy turn's last token.
    """

    prompt_ids: list[int]
    ids: list[int] = dataclasses.field(default_factory=list)
    policy: list[int] = dataclasses.field(default_factory=list)
    logprobs: list[float] = dataclasses.field(default_factory=list)
    turn_ends: list[int] = dataclasses.field(default_factory=list)

    @property
    def context(self) -> list[int]:
        """The sequence the next turn is sampled from."""
        return self.prompt_ids + self.ids

    def add_turn(self, sampled: Sequence[int], logprobs: Sequence[float] | None) -> None:
        """Append the policy's sampled ids (with their log-probs, when the sampler gave them)."""
        if not sampled:
            raise ValueError("a policy turn has no token")
        self.ids.extend(int(t) for t in sampled)
        self.policy.extend([1] * len(sampled))
        self.logprobs.extend([float(v) for v in logprobs] if logprobs is not None else [0.0] * len(sampled))
        self.turn_ends.append(len(self.ids) - 1)

    def add_reply(self, ids: Sequence[int]) -> None:
        """Append the environment's reply ids (context, never trained)."""
        self.ids.extend(int(t) for t in ids)
        self.policy.extend([0] * len(ids))
        self.logprobs.extend([0.0] * len(ids))


def _render(tokenizer: Any, messages: Sequence[dict[str, Any]], tools: Any, generation_prompt: bool) -> str:
    return tokenizer.apply_chat_template(list(messages), add_generation_prompt=generation_prompt, tokenize=False,
                                         **({"tools": list(tools)} if tools else {}))


def reply_token_ids(tokenizer: Any, history: Sequence[dict[str, Any]], replies: Sequence[dict[str, Any]],
                    tools: Sequence[dict[str, Any]] | None, sampled_end: int | None) -> list[int]:
    """The ids the chat template adds after a policy turn for the environment's ``replies``, up to
    and including the next generation prompt.

    Args:
        tokenizer: The policy's tokenizer, with a chat template.
        history: The messages before the policy's turn.
        replies: The environment's messages answering it.
        tools: The tool schemas the prompt was rendered with.
        sampled_end: The id the policy's turn ended with when it is an end-of-turn token of the
            template (its EOS), else None (the turn was cut: the template's end of turn is added).

    Raises:
        ValueError: when the template renders the conversation so that the reply is not an
            addition at its end, or does not end a turn with the policy's EOS.
    """
    turn = {"role": "assistant", "content": PLACEHOLDER}
    closed = _render(tokenizer, [*history, turn], tools, False)
    extended = _render(tokenizer, [*history, turn, *replies], tools, True)
    if not extended.startswith(closed) or PLACEHOLDER not in closed:
        raise ValueError("the chat template does not render the environment's reply as an addition after the "
                         f"policy's turn (rendered {closed[-200:]!r}, then {extended[-300:]!r}): its tokens cannot be "
                         "appended to the sampled ones")
    after_turn = closed[closed.rindex(PLACEHOLDER) + len(PLACEHOLDER):]
    if sampled_end is not None:
        end_text = tokenizer.decode([sampled_end])
        if not after_turn.startswith(end_text):
            raise ValueError(f"the chat template ends a policy turn with {after_turn!r}, not with the EOS the "
                             f"policy sampled ({end_text!r})")
        after_turn = after_turn[len(end_text):]
    return list(tokenizer(after_turn + extended[len(closed):], add_special_tokens=False)["input_ids"])


def _reply_ids(tokenizer: Any, base: MultiTurnEnv, observation: Any, tools: Any, sampled_end: int | None) -> list[int]:
    """The ids of the environment's reply ``observation`` (just recorded in ``base.messages``)."""
    if not base.chat:  # text mode: the reply is text appended after the policy's turn
        return list(tokenizer(observation, add_special_tokens=False)["input_ids"])
    history = base.messages[: len(base.messages) - len(observation) - 1]
    return reply_token_ids(tokenizer, history, observation, tools, sampled_end)


def _step(env: Any, text: str, cut: bool) -> tuple[Any, float, bool, bool, dict[str, Any]]:
    obs, reward, terminated, truncated, info = env.step(Completion(text, truncated=cut))
    return obs, float(reward), bool(terminated), bool(truncated), dict(info)


def run_multiturn_episodes(env: MultiTurnVectorEnv, generate_fn: Any, tokenizer: Any, *, seed: int | None = None,
                           options: dict[str, Any] | None = None) -> EpisodeBatch:
    """Play one batch of ``env``'s episodes to their ends and return them as an :class:`EpisodeBatch`
    (``policy_mask`` on the sampled tokens, ``rollout_logprobs`` on them, per-turn rewards in
    ``token_rewards``).

    ``generate_fn`` needs ``generate_ids(prompts) -> Generation`` (the rollout generators of
    :func:`rlenv.inference.make_rollout_generator` have it). ``seed`` seeds the task draw and
    ``torch``'s global RNG (sampling). ``infos`` holds, per episode, the final step's info
    (``status``, ``reward``, ``turns``, ``limit``, ``tool_metrics``...), ``prompt``,
    ``completion`` (what was graded) and ``messages`` (the conversation after the prompt).
    """
    if not callable(getattr(generate_fn, "generate_ids", None)):
        raise TypeError(f"multi-turn rollouts sample from token ids: {type(generate_fn).__name__} has no "
                        "generate_ids(prompts) method (use rlenv.inference.make_rollout_generator)")
    if seed is not None:
        torch.manual_seed(seed)
    observations, reset_infos = env.reset(seed=seed, options=options)
    bases = env.bases
    tools = [info.get("tools") if base.chat else None for info, base in zip(reset_infos["info"], bases, strict=True)]
    trajectories = [Trajectory(prompt_token_lists(tokenizer, [obs], t)[0])
                    for obs, t in zip(observations, tools, strict=True)]
    eos = set(eos_token_ids(tokenizer))
    n = env.num_envs
    finals: list[dict[str, Any] | None] = [None] * n
    rewards = np.zeros(n, dtype=np.float32)
    truncated = np.zeros(n, dtype=bool)
    turn_rewards: list[list[tuple[int, float]]] = [[] for _ in range(n)]
    active = list(range(n))
    logprobs_given = True
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(32, n))) as pool:
        while active:
            gen = generate_fn.generate_ids([trajectories[i].context for i in active])
            lengths = gen.completion_mask.long().sum(1).tolist()
            rows = gen.completion_ids.tolist()
            logprobs = None if gen.logprobs is None else gen.logprobs.tolist()
            logprobs_given = logprobs_given and logprobs is not None
            cut = gen.truncated.tolist()
            texts = []
            for k, i in enumerate(active):
                sampled = rows[k][: lengths[k]]
                trajectories[i].add_turn(sampled, None if logprobs is None else logprobs[k][: lengths[k]])
                texts.append(tokenizer.decode(sampled, skip_special_tokens=True))
            steps = list(pool.map(_step, [env.envs[i] for i in active], texts, [bool(c) for c in cut]))
            still = []
            for k, (i, (obs, reward, terminated, env_cut, info)) in enumerate(zip(active, steps, strict=True)):
                trajectory = trajectories[i]
                if terminated or env_cut:
                    finals[i], rewards[i], truncated[i] = info, reward, env_cut or bool(cut[k])
                    continue
                if info.get("reward") is not None:
                    turn_rewards[i].append((trajectory.turn_ends[-1], reward))
                last = trajectory.ids[-1]
                ended = None if cut[k] or last not in eos else last
                trajectory.add_reply(_reply_ids(tokenizer, bases[i], obs, tools[i], ended))
                still.append(i)
            active = still
    return _batch(env, trajectories, observations, reset_infos, finals, rewards, truncated, turn_rewards, tokenizer,
                  logprobs_given)


def _batch(env: MultiTurnVectorEnv, trajectories: list[Trajectory], observations: list[Any],
           reset_infos: dict[str, Any], finals: list[dict[str, Any] | None], rewards: np.ndarray,
           truncated: np.ndarray, turn_rewards: list[list[tuple[int, float]]], tokenizer: Any,
           logprobs_given: bool) -> EpisodeBatch:
    """The played episodes as tensors (completions right-padded)."""
    n = len(trajectories)
    width = max(len(t.ids) for t in trajectories)
    pad = pad_token_id_of(tokenizer)
    ids = torch.full((n, width), pad, dtype=torch.long)
    mask = torch.zeros((n, width), dtype=torch.long)
    policy = torch.zeros((n, width), dtype=torch.long)
    sampler = torch.zeros((n, width), dtype=torch.float32)
    dense = torch.zeros((n, width), dtype=torch.float32)
    for i, t in enumerate(trajectories):
        ids[i, : len(t.ids)] = torch.as_tensor(t.ids, dtype=torch.long)
        mask[i, : len(t.ids)] = 1
        policy[i, : len(t.ids)] = torch.as_tensor(t.policy, dtype=torch.long)
        sampler[i, : len(t.ids)] = torch.as_tensor(t.logprobs, dtype=torch.float32)
        for position, value in turn_rewards[i]:
            dense[i, position] += value
    width_p = max(len(t.prompt_ids) for t in trajectories)
    prompt_ids = torch.full((n, width_p), pad, dtype=torch.long)
    prompt_mask = torch.zeros((n, width_p), dtype=torch.long)
    for i, t in enumerate(trajectories):
        prompt_ids[i, width_p - len(t.prompt_ids):] = torch.as_tensor(t.prompt_ids, dtype=torch.long)
        prompt_mask[i, width_p - len(t.prompt_ids):] = 1
    infos: dict[str, list[Any]] = {}
    keys = dict.fromkeys(k for final in finals if final is not None for k in final)
    for key in keys:
        infos[key] = [None if final is None else final.get(key) for final in finals]
    infos["prompt"] = list(observations)
    infos["completion"] = [base.episode_completion("") for base in env.bases]
    infos["messages"] = [base.episode_messages() for base in env.bases]
    return EpisodeBatch(prompt_ids=prompt_ids, prompt_mask=prompt_mask, completion_ids=ids, completion_mask=mask,
                        rewards=torch.as_tensor(rewards, dtype=torch.float32),
                        group_ids=torch.as_tensor(np.asarray(reset_infos["group_id"]), dtype=torch.long),
                        truncated=torch.as_tensor(truncated, dtype=torch.bool),
                        token_rewards=dense if any(turn_rewards) else None,
                        rollout_logprobs=sampler if logprobs_given else None, policy_mask=policy, infos=infos)


def multiturn_metrics(batch: EpisodeBatch) -> dict[str, tuple[float, float]]:
    """``name -> (sum, count)`` of a multi-turn batch's episode statistics: ``turns/mean`` (policy
    turns per episode), ``tools/calls`` and ``tools/errors`` (per episode), ``truncated/turn_limit``
    (the share cut by ``max_turns``) and ``tokens/policy_share`` (the policy's share of the
    completion tokens). Empty for a single-turn batch."""
    if batch.policy_mask is None or not len(batch):
        return {}
    B = float(len(batch))
    infos = batch.infos
    tool_metrics = [m or {} for m in infos.get("tool_metrics", [None] * len(batch))]
    return {
        "turns/mean": (float(sum(int(t or 0) for t in infos.get("turns", [0] * len(batch)))), B),
        "tools/calls": (float(sum(int(m.get("calls", 0)) for m in tool_metrics)), B),
        "tools/errors": (float(sum(int(m.get("errors", 0)) for m in tool_metrics)), B),
        "truncated/turn_limit": (float(sum(limit == "max_turns" for limit in infos.get("limit", []))), B),
        "tokens/policy_share": (float(batch.loss_mask.sum()), float(batch.completion_mask.long().sum())),
    }

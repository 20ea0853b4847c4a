"""verl adapter: ``compute_score`` for verl's reward managers, and dataset rows in verl's format.

Point verl at this module's function::

    custom_reward_function.path=<site-packages>/rlenv/integrations/verl.py
    custom_reward_function.name=compute_score

and build the training parquet with :func:`to_verl_rows` (``data_source`` is the rlenv env id,
``extra_info`` carries the task id). verl then calls
``compute_score(data_source, solution_str, ground_truth, extra_info)`` per response.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from typing import Any

import rlenv
from rlenv.types import Status, Task


@functools.lru_cache(maxsize=32)
def _env(env_id: str, env_kwargs_json: str) -> Any:
    return rlenv.make(env_id, **json.loads(env_kwargs_json))


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: Any = None,
    extra_info: Mapping[str, Any] | None = None,
    **kwargs: Any,
) -> dict[str, float]:
    """Score one response with the rlenv environment registered as ``data_source``.

    The env is built with the JSON keyword arguments in ``extra_info["env_kwargs"]`` (as written by
    :func:`to_verl_rows`; default none). The task is the env's own task named by
    ``extra_info["task_id"]`` (or ``extra_info["index"]``), so the env's full reference (tests,
    accepted answers, ...) is used. Without either, a task is
    built from ``ground_truth`` as its reference (and ``extra_info["prompt"]`` when present): enough
    for verifiers that only need a reference answer.

    Returns:
        ``{"score": reward, "acc": 1.0 if correct else 0.0, "verifier_failure": 1.0 if the verifier
        errored or timed out else 0.0}``. verl takes ``score`` as the reward and logs the others.
    """
    info = dict(extra_info or {})
    env = _env(str(data_source), str(info.get("env_kwargs") or "{}"))
    base = env.unwrapped
    if "task_id" in info or "index" in info:
        key = {"task_id": info["task_id"]} if "task_id" in info else {"index": int(info["index"])}
        task = base.source[base.resolve_index(key)]
    elif ground_truth is not None:
        task = Task(str(info.get("id", "verl")), str(info.get("prompt", "")), reference=ground_truth)
    else:
        raise ValueError(f"compute_score for {data_source!r} needs extra_info['task_id'] / ['index'] or a "
                         "ground_truth to build the task from")
    completion, truncated = base.clip_completion(solution_str)
    result = base.verify(task, completion)
    reward, _ = env.get_wrapper_attr("episode_outcome")(task, completion, result, truncated)
    return {"score": float(reward), "acc": float(result.status is Status.CORRECT),
            "verifier_failure": float(result.status in (Status.ERROR, Status.TIMEOUT))}


def to_verl_rows(
    env_id: str, indices: Sequence[int], split: str = "train", ability: str = "reasoning", **env_kwargs: Any,
) -> list[dict[str, Any]]:
    """Rows in verl's RL dataset format for tasks ``indices`` of env ``env_id``.

    Each row: ``data_source`` (the env id), ``prompt`` (chat messages), ``ability``,
    ``reward_model = {"style": "rule", "ground_truth": ...}`` (the reference; JSON text when it
    is not a string) and ``extra_info = {"split", "index", "task_id", "env_kwargs"}`` (``env_kwargs``:
    JSON of the keyword arguments below, so :func:`compute_score` rebuilds the same env). Write them with
    ``datasets.Dataset.from_list(rows).to_parquet(path)``.
    """
    env = rlenv.make(env_id, **env_kwargs)
    base = env.unwrapped
    rows = []
    for index in indices:
        task = base.source[int(index)]
        shown = base.format_prompt(task)
        messages = shown if isinstance(shown, list) else [{"role": "user", "content": shown}]
        reference = task.reference if isinstance(task.reference, str) else json.dumps(task.reference, default=str)
        rows.append({"data_source": env_id, "prompt": messages, "ability": ability,
                     "reward_model": {"style": "rule", "ground_truth": reference},
                     "extra_info": {"split": split, "index": int(index), "task_id": task.id,
                                    "env_kwargs": json.dumps(env_kwargs, sort_keys=True)}})
    return rows

"""verl adapter: reward functions for verl's reward managers, and dataset rows in verl's format.

Point verl at this module (``pkg://`` loads it from the installed package, wherever that is)::

    reward.custom_reward_function.path=pkg://rlenv.integrations.verl
    reward.custom_reward_function.name=compute_score

(verl releases before 0.9 read the same two keys under ``custom_reward_function.`` at the top
level.) :func:`compute_score` serves every reward manager that passes one response
(``naive``, ``dapo``, the reward loop) and the ``batch`` manager, which passes lists; for the
``prime`` manager, which expects a float, name :func:`compute_score_value` instead.

Build the training parquet with :func:`to_verl_rows`: ``data_source`` is the rlenv env id and
``extra_info`` carries the task id, so the env's full reference (tests, accepted answers...) is
used. Rows from verl's own preprocessing scripts are scored from their ``ground_truth``, and
rows whose ``data_source`` is not an rlenv env id go to verl's ``default_compute_score``.
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import rlenv
from rlenv.env import text_env
from rlenv.integrations import reference_text
from rlenv.scoring import score_tasks
from rlenv.types import RewardResult, Status, Task

#: ``extra_info`` key that only :func:`to_verl_rows` writes: rows carrying it are resolved to the
#: env's own task (by ``task_id``, else ``index``); other rows never are.
ENV_KWARGS_KEY = "env_kwargs"

_envs: dict[tuple[str, str], Any] = {}
_envs_lock = threading.Lock()
_env_locks: dict[tuple[str, str], threading.Lock] = defaultdict(threading.Lock)


def _env(env_id: str, env_kwargs_json: str) -> Any:
    """One env per ``(env_id, kwargs)`` in this process, built once even under concurrent first calls."""
    key = (env_id, env_kwargs_json)
    with _envs_lock:
        env = _envs.get(key)
        if env is not None:
            return env
        key_lock = _env_locks[key]
    with key_lock:
        env = _envs.get(key)
        if env is None:
            env = rlenv.make(env_id, **json.loads(env_kwargs_json))
            with _envs_lock:
                _envs[key] = env
        return env


def _is_rlenv_id(data_source: str) -> bool:
    return data_source in rlenv.list_envs()


def _task(env: Any, data_source: str, ground_truth: Any, info: Mapping[str, Any]) -> Task:
    base = env.unwrapped
    if ENV_KWARGS_KEY in info and ("task_id" in info or "index" in info):
        key = {"task_id": info["task_id"]} if "task_id" in info else {"index": int(info["index"])}
        return base.source[base.resolve_index(key)]
    if ground_truth is not None:
        return Task(str(info.get("id", "verl")), str(info.get("prompt", "")), reference=ground_truth)
    raise ValueError(f"cannot score a row of {data_source!r}: it has no ground_truth, and its extra_info "
                     f"(keys {sorted(info)}) was not written by rlenv.integrations.verl.to_verl_rows")


def _outcome(env: Any, task: Task, completion: str, truncated: bool, result: RewardResult) -> dict[str, float]:
    reward, _ = env.get_wrapper_attr("episode_outcome")(task, completion, result, truncated)
    return {"score": float(reward), "acc": float(result.status is Status.CORRECT),
            "verifier_failure": float(result.status in (Status.ERROR, Status.TIMEOUT))}


def _verl_default(data_source: str, solution_str: str, ground_truth: Any, extra_info: Any) -> Any:
    try:
        from verl.utils.reward_score import default_compute_score
    except ImportError:
        raise ValueError(f"data_source {data_source!r} is not an rlenv env id (see `rlenv list`) and verl is not "
                         "importable for its default_compute_score") from None
    return default_compute_score(data_source, solution_str, ground_truth, extra_info)


def compute_score(
    data_source: str | None = None,
    solution_str: str | None = None,
    ground_truth: Any = None,
    extra_info: Mapping[str, Any] | None = None,
    *,
    data_sources: Sequence[str] | None = None,
    solution_strs: Sequence[str] | None = None,
    ground_truths: Sequence[Any] | None = None,
    extra_infos: Sequence[Mapping[str, Any] | None] | None = None,
    **kwargs: Any,
) -> dict[str, float] | list[Any]:
    """Score responses with the rlenv environment registered as their ``data_source``.

    Called one response at a time (``data_source, solution_str, ground_truth, extra_info``: verl's
    ``naive`` and ``dapo`` managers and its reward loop) or with lists (``data_sources=,
    solution_strs=, ground_truths=, extra_infos=``: the ``batch`` manager, scored concurrently
    with each env's own scoring pools).

    The env is built with the JSON keyword arguments in ``extra_info["env_kwargs"]`` (as written by
    :func:`to_verl_rows`), once per process. Rows written by :func:`to_verl_rows` are scored
    against the env's own task named by ``extra_info["task_id"]``; any other row (e.g. from
    verl's preprocessing, whose ``extra_info["index"]`` is its own row number) against a task
    built from ``ground_truth`` (and ``extra_info["prompt"]`` when present). A ``data_source``
    that is not an rlenv env id goes to ``verl.utils.reward_score.default_compute_score``.

    Returns:
        ``{"score": reward, "acc": 1.0 if correct else 0.0, "verifier_failure": 1.0 if the verifier
        errored or timed out else 0.0}`` (verl trains on ``score`` and logs the others), or a list
        of them (or of verl's own results, for non-rlenv data sources) in the batch form.
    """
    if data_sources is not None:
        if data_source is not None or solution_str is not None:
            raise TypeError("pass either one response (data_source, solution_str, ...) or lists (data_sources=, "
                            "solution_strs=, ...), not both")
        return _compute_batch(data_sources, solution_strs, ground_truths, extra_infos)
    if data_source is None or solution_str is None:
        raise TypeError("compute_score needs data_source and solution_str (or the batch form data_sources=, "
                        "solution_strs=, ground_truths=, extra_infos=)")
    return _compute_batch([data_source], [solution_str], [ground_truth], [extra_info])[0]


def compute_score_value(
    data_source: str, solution_str: str, ground_truth: Any = None, extra_info: Mapping[str, Any] | None = None,
    **kwargs: Any,
) -> float:
    """:func:`compute_score`'s reward alone, for verl managers that expect a float (``prime``)."""
    return float(_compute_batch([data_source], [solution_str], [ground_truth], [extra_info])[0]["score"])


def _compute_batch(
    data_sources: Sequence[str],
    solution_strs: Sequence[str] | None,
    ground_truths: Sequence[Any] | None,
    extra_infos: Sequence[Mapping[str, Any] | None] | None,
) -> list[Any]:
    n = len(data_sources)
    ground_truths = [None] * n if ground_truths is None else list(ground_truths)
    extra_infos = [None] * n if extra_infos is None else list(extra_infos)
    if solution_strs is None or not len(solution_strs) == len(ground_truths) == len(extra_infos) == n:
        raise ValueError(f"the batch form needs equally long lists: {n} data_sources, "
                         f"{None if solution_strs is None else len(solution_strs)} solution_strs, "
                         f"{len(ground_truths)} ground_truths, {len(extra_infos)} extra_infos")
    out: list[Any] = [None] * n
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, (source, info) in enumerate(zip(data_sources, extra_infos, strict=True)):
        source = str(source)
        if _is_rlenv_id(source):
            groups[(source, str(dict(info or {}).get(ENV_KWARGS_KEY) or "{}"))].append(i)
        else:
            out[i] = _verl_default(source, solution_strs[i], ground_truths[i], info)
    for (env_id, env_kwargs), rows in groups.items():
        env = _env(env_id, env_kwargs)
        base = env.unwrapped
        tasks = [_task(env, env_id, ground_truths[i], dict(extra_infos[i] or {})) for i in rows]
        clipped = [base.clip_completion(str(solution_strs[i])) for i in rows]
        results = score_tasks(base.verifier, tasks, [text for text, _ in clipped])
        for i, task, (text, truncated), result in zip(rows, tasks, clipped, results, strict=True):
            out[i] = _outcome(env, task, text, truncated, result)
    return out


def to_verl_rows(
    env_id: str, indices: Sequence[int], split: str = "train", ability: str = "reasoning", **env_kwargs: Any,
) -> list[dict[str, Any]]:
    """Rows in verl's RL dataset format for tasks ``indices`` of env ``env_id``.

    Each row: ``data_source`` (the env id), ``prompt`` (chat messages), ``ability``,
    ``reward_model = {"style": "rule", "ground_truth": ...}`` (the reference; JSON text when it
    is not a string) and ``extra_info = {"split", "index", "task_id", "env_kwargs"}`` (``env_kwargs``:
    JSON of the keyword arguments below, so :func:`compute_score` rebuilds the same env). Write them with
    ``datasets.Dataset.from_list(rows).to_parquet(path)``; verl's ``RLHFDataset`` reads that file.
    """
    base = text_env(rlenv.make(env_id, **env_kwargs))
    rows = []
    for index in indices:
        task = base.source[int(index)]
        shown = base.format_prompt(task)
        messages = shown if isinstance(shown, list) else [{"role": "user", "content": shown}]
        rows.append({"data_source": env_id, "prompt": messages, "ability": ability,
                     "reward_model": {"style": "rule", "ground_truth": reference_text(task)},
                     "extra_info": {"split": split, "index": int(index), "task_id": task.id,
                                    ENV_KWARGS_KEY: json.dumps(env_kwargs, sort_keys=True)}})
    return rows

"""``rlenv.check_env``: Gymnasium's checker plus the checks a reward environment needs."""

from __future__ import annotations

import pickle
import warnings

import gymnasium
from gymnasium.utils.env_checker import check_env as gymnasium_check_env

from rlenv.env import TextEnv
from rlenv.errors import RlenvError
from rlenv.multiturn import MultiTurnEnv
from rlenv.types import Status


class EnvCheckError(RlenvError, AssertionError):
    """An environment failed a conformance check; the message names the check and the values."""


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise EnvCheckError(message)


def check_env(env: gymnasium.Env, seed: int = 0, num_tasks: int = 3) -> dict[str, bool]:
    """Check ``env`` and raise :class:`EnvCheckError` on the first failure.

    Checks, in order: Gymnasium's ``check_env``; ``reset(seed=s)`` gives the same prompt and task
    twice; the verifier survives a pickle round trip and scores the same after it; and for up to
    ``num_tasks`` tasks with a gold completion: gold scores ``correct`` while the empty completion
    and an echo of the prompt do not. A :class:`~rlenv.multiturn.MultiTurnEnv` also plays those
    tasks' gold episodes (:meth:`~rlenv.multiturn.MultiTurnEnv.gold_episode`) through ``step``:
    every turn but the last goes on (``terminated`` and ``truncated`` False, an observation of the
    space), the last ends the episode scored ``correct``, and a further ``step`` is refused; when
    a gold episode has more than one turn, repeating its first turn must end by ``max_turns``.

    Returns:
        ``{check_name: True}`` for every check that ran (``gold`` and ``multi_turn`` are absent
        when the env knows no gold completion, ``turn_limit`` when no gold episode has two turns).
    """
    base = env.unwrapped
    if not isinstance(base, TextEnv):
        raise EnvCheckError(f"check_env expects a rlenv TextEnv (possibly wrapped), got {type(base).__name__}")
    report: dict[str, bool] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Gymnasium warns about the absent render mode and custom spaces
        gymnasium_check_env(env, skip_render_check=True)
    report["gymnasium"] = True

    first = env.reset(seed=seed)
    second = env.reset(seed=seed)
    _require(first[0] == second[0] and first[1]["task_id"] == second[1]["task_id"],
             f"reset(seed={seed}) is not deterministic: task {first[1]['task_id']!r} then {second[1]['task_id']!r}")
    report["seeded_reset"] = True

    try:
        clone = pickle.loads(pickle.dumps(base.verifier))
    except Exception as exc:
        raise EnvCheckError(f"verifier {base.verifier!r} is not picklable: {type(exc).__name__}: {exc}") from exc
    report["picklable_verifier"] = True

    checked = 0
    for offset in range(num_tasks * 3):
        if checked == num_tasks:
            break
        _, info = env.reset(seed=seed + offset)
        task = base.task
        if task is None:
            raise EnvCheckError(f"reset(seed={seed + offset}) left the env without a task")
        gold = base.gold_completion(task)
        if gold is None:
            continue
        result = base.verify(task, gold)
        _require(result.status is Status.CORRECT,
                 f"gold completion of task {task.id!r} scored {result.status.value} ({result.details}): {gold!r:.200}")
        again = clone(task, gold)
        _require(again.status is result.status and again.value == result.value,
                 f"the unpickled verifier scored task {task.id!r} {again.status.value}/{again.value}, "
                 f"the original {result.status.value}/{result.value}")
        for name, bad in (("empty", ""), ("prompt echo", task.prompt)):
            got = base.verify(task, bad)
            _require(got.status is not Status.CORRECT,
                     f"the {name} completion scored correct on task {task.id!r}: the verifier accepts a trivial answer")
        checked += 1
    if checked:
        report["gold"] = True
    if isinstance(base, MultiTurnEnv):
        report.update(_check_episodes(env, base, seed, num_tasks))
    return report


def _check_episodes(env: gymnasium.Env, base: MultiTurnEnv, seed: int, num_tasks: int) -> dict[str, bool]:
    """The multi-turn checks: gold episodes played turn by turn, and the turn limit."""
    report: dict[str, bool] = {}
    checked = 0
    for offset in range(num_tasks * 3):
        if checked == num_tasks:
            break
        _, info = env.reset(seed=seed + offset)
        task = base.current()[0]
        actions = base.gold_episode(task)
        if actions is None:
            continue
        env.reset(options={"index": info["index"]})
        for turn, action in enumerate(actions, start=1):
            obs, _, terminated, truncated, last = env.step(action)
            if turn == len(actions):
                break
            _require(not terminated and not truncated,
                     f"gold episode of task {task.id!r} ended at turn {turn} of {len(actions)} "
                     f"(terminated={terminated}, truncated={truncated}, limit={last.get('limit')!r})")
            _require(base.observation_space.contains(obs), f"turn {turn} of task {task.id!r} returned an "
                     f"observation outside {base.observation_space}: {obs!r:.200}")
        _require(terminated and last["status"] == Status.CORRECT.value,
                 f"the last turn of the gold episode of task {task.id!r} gave terminated={terminated}, "
                 f"status {last.get('status')!r} ({last.get('reward')})")
        try:
            env.step(actions[-1])
        except RuntimeError:
            pass
        else:
            raise EnvCheckError(f"step() after the end of an episode of task {task.id!r} was accepted: it must raise")
        report["multi_turn"] = True
        checked += 1
        if len(actions) > 1 and "turn_limit" not in report:
            _check_turn_limit(env, base, info["index"], actions[0])
            report["turn_limit"] = True
    return report


def _check_turn_limit(env: gymnasium.Env, base: MultiTurnEnv, index: int, action: str) -> None:
    env.reset(options={"index": index})
    turn = 0
    while turn < base.max_turns:
        turn += 1
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    _require(turn == base.max_turns and truncated and not terminated and info.get("limit") == "max_turns",
             f"repeating the first gold turn of task {base.current()[0].id!r} ended at turn {turn} (terminated={terminated}, "
             f"limit {info.get('limit')!r}), expected truncated by the turn limit at max_turns={base.max_turns}")

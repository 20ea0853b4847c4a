"""``rlenv.check_env``: Gymnasium's checker plus the checks a reward environment needs."""

from __future__ import annotations

import pickle
import warnings

import gymnasium
from gymnasium.utils.env_checker import check_env as gymnasium_check_env

from rlenv.env import TextEnv
from rlenv.errors import RlenvError
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
    and an echo of the prompt do not.

    Returns:
        ``{check_name: True}`` for every check that ran (``gold`` is absent when the env knows no
        gold completion).
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
    return report

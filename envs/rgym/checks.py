"""reasoning-gym's ``score_answer``, run in worker processes (see :mod:`rlenv.scoring.worker_pool`) with two corrections.

Each worker builds a dataset once per ``(name, config)`` (its scorer may read the config) and
calls its ``score_answer(answer, entry)``. Two scorers pay wrong answers in reasoning-gym
0.1.25 and are corrected here (see :data:`CORRECTIONS`):

* ``game_of_life_halting`` compares ``bool(answer) == bool(entry["answer"])`` on strings, so any
  non-empty answer, ``"False"`` included, scores 1.0 on every task: the answer must equal the
  gold ``True``/``False`` (case-insensitively);
* ``puzzle24`` checks that the expression is 24 and uses four numbers in range, not that they are
  the puzzle's: an expression that does not use exactly the puzzle's numbers scores what a wrong
  expression scores (0.01).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from typing import Any

#: Datasets each worker keeps built (the least recently used are dropped first).
DATASET_CACHE_SIZE = 64
_NUMBER = re.compile(r"\b\d+\b")


def dataset_config(name: str, config: dict[str, Any]) -> dict[str, Any]:
    """``config`` as the reasoning-gym config class of ``name`` takes it (composite specs become ``DatasetSpec``)."""
    if name == "composite" and config.get("datasets"):
        from reasoning_gym.composite import DatasetSpec

        specs = [spec if isinstance(spec, DatasetSpec) else DatasetSpec(**spec) for spec in config["datasets"]]
        return {**config, "datasets": specs}
    return dict(config)


@functools.lru_cache(maxsize=DATASET_CACHE_SIZE)
def scoring_dataset(name: str, config_json: str) -> Any:
    """A reasoning-gym dataset of ``name`` with the JSON ``config``, used for its ``score_answer``."""
    import reasoning_gym

    config = dataset_config(name, json.loads(config_json))
    return reasoning_gym.create_dataset(name, **{**config, "size": 1, "seed": 0})


def _game_of_life_halting(answer: str, entry: dict[str, Any], score: float) -> float:
    return 1.0 if answer.strip().lower() == str(entry["answer"]).strip().lower() else 0.0


def _puzzle24(answer: str, entry: dict[str, Any], score: float) -> float:
    used = sorted(int(n) for n in _NUMBER.findall(answer))
    return score if used == sorted(entry["metadata"]["numbers"]) else min(score, 0.01)


#: Source dataset name -> ``correct(answer, entry, reasoning_gym_score) -> score`` (see the module docstring).
CORRECTIONS: dict[str, Callable[[str, dict[str, Any], float], float]] = {
    "game_of_life_halting": _game_of_life_halting,
    "puzzle24": _puzzle24,
}


def score(config: tuple[str, str], payload: tuple[str, dict[str, Any]]) -> tuple[float, str | None]:
    """Worker-pool handler: ``config = (name, config_json)``, ``payload = (answer, entry)``.

    Returns:
        ``(score in [0, 1], None)``, or ``(0.0, error text)`` when ``score_answer`` raised on the
        answer (e.g. ``int("x")`` on a malformed one). A composite dataset's entry is corrected
        by its ``source_dataset``. Failing to build the dataset propagates (the pool reports an error).
    """
    name, config_json = config
    answer, entry = payload
    dataset = scoring_dataset(name, config_json)
    try:
        value = float(dataset.score_answer(answer, entry))
    except Exception as exc:  # the scorer choked on the answer: the answer's fault, not the verifier's
        return 0.0, f"{type(exc).__name__}: {exc}"
    source = (entry.get("metadata") or {}).get("source_dataset", name)
    correct = CORRECTIONS.get(source)
    return (value if correct is None else correct(answer, entry, value)), None


def init_worker() -> None:
    """Worker-pool initializer: import reasoning-gym once, before the first deadline runs."""
    import reasoning_gym  # noqa: F401

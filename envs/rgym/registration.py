"""Registration of every reasoning-gym dataset as ``reasoning_gym/<name>-v0``.

:func:`register_reasoning_gym_envs` is rlenv's entry point in the ``rlenv.envs`` group (see
``pyproject.toml``; it declares the ``reasoning-gym`` extra), so the registry calls it lazily: on ``rlenv.list_envs()`` / ``rlenv list``
and on the first ``rlenv.make`` of an id it does not know yet. Without reasoning-gym installed it
registers nothing.
"""

from __future__ import annotations

import importlib.util
from typing import Any

from rlenv.envs.rgym.env import dataset_classes, env_id
from rlenv.registry import is_registered, register

#: The factory every reasoning-gym id points at (with ``name=`` the dataset).
ENTRY_POINT = "rlenv.envs.rgym.env:make_reasoning_gym_env"
#: ``reasoning_gym/composite-v0``'s default mix (reasoning-gym's composite config has none and
#: refuses an empty one); ``datasets=[...]`` replaces it.
COMPOSITE_DEFAULT = [{"name": "chain_sum", "weight": 1, "config": {}}, {"name": "gcd", "weight": 1, "config": {}}]


def describe(dataset_class: type) -> str:
    """The one-line description ``rlenv list`` shows: the first line of the class docstring."""
    lines = (dataset_class.__doc__ or "").strip().splitlines()
    return f"reasoning-gym: {lines[0].strip() if lines else dataset_class.__name__}"


def register_reasoning_gym_envs() -> None:
    """Register ``reasoning_gym/<name>-v0`` for every dataset of the installed reasoning-gym (ids already
    registered are left as they are); nothing when reasoning-gym is not installed."""
    if importlib.util.find_spec("reasoning_gym") is None:
        return
    for name, (dataset_class, _) in sorted(dataset_classes().items()):
        if not is_registered(env_id(name)):
            defaults: dict[str, Any] = {"datasets": COMPOSITE_DEFAULT} if name == "composite" else {}
            register(env_id(name), ENTRY_POINT, description=describe(dataset_class), name=name, **defaults)

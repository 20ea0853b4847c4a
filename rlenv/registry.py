"""The environment registry: ``register``, ``make``, ``spec``, ``list_envs``.

Ids follow Gymnasium's grammar (``namespace/Name-vN``). Every id registered here is also
registered with Gymnasium, so ``gymnasium.make(id)`` works after ``import rlenv``. Third-party
packages register their environments through the entry-point group ``rlenv.envs``: each entry
point names a module (imported) or a callable (called) that calls :func:`rlenv.register`.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import logging
import re
import warnings
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

import gymnasium

logger = logging.getLogger(__name__)

#: Entry-point group scanned for third-party environments.
ENTRY_POINT_GROUP = "rlenv.envs"
_ID_RE = re.compile(r"^(?:[\w.-]+/)?[\w.:-]+-v\d+$")


@dataclasses.dataclass(frozen=True)
class EnvSpec:
    """How to build a registered environment: an entry point plus default keyword arguments."""

    id: str
    entry_point: str
    kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)
    description: str = ""

    def to_json(self) -> str:
        """Serialize the spec (kwargs must be JSON-serializable)."""
        return json.dumps(dataclasses.asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> EnvSpec:
        return cls(**json.loads(text))

    def load_entry_point(self) -> Callable[..., Any]:
        module_name, _, attr = self.entry_point.partition(":")
        module = importlib.import_module(module_name)
        try:
            return getattr(module, attr)
        except AttributeError:
            raise ImportError(f"entry point {self.entry_point!r} of {self.id}: module has no {attr!r}") from None

    def make(self, **overrides: Any) -> gymnasium.Env:
        """Build the environment with the spec's kwargs updated by ``overrides``."""
        return self.load_entry_point()(**{**self.kwargs, **overrides})


_REGISTRY: dict[str, EnvSpec] = {}
_plugins_loaded = False


def _entry_point_string(entry_point: str | Callable[..., Any]) -> str:
    if isinstance(entry_point, str):
        if ":" not in entry_point:
            raise ValueError(f"entry_point {entry_point!r} must look like 'package.module:callable'")
        return entry_point
    module, name = getattr(entry_point, "__module__", None), getattr(entry_point, "__qualname__", None)
    if not module or not name or "<" in name:
        raise ValueError(f"entry_point {entry_point!r} must be a module-level callable or a 'module:callable' string")
    return f"{module}:{name}"


def register(id: str, entry_point: str | Callable[..., Any], *, description: str = "", **kwargs: Any) -> EnvSpec:
    """Register an environment id.

    Args:
        id: ``namespace/Name-vN``; bump ``N`` whenever the verifier's semantics change.
        entry_point: ``"package.module:factory"`` (imported lazily) or a module-level callable
            returning a Gymnasium env.
        description: One line shown by ``rlenv list``.
        **kwargs: Defaults passed to the entry point; ``make(id, **overrides)`` updates them.

    Re-registering an existing id replaces it with a warning.
    """
    if not isinstance(id, str) or not _ID_RE.match(id):
        raise ValueError(f"invalid env id {id!r}: expected 'namespace/Name-vN', e.g. 'rlenv/GSM8K-v0'")
    spec = EnvSpec(id, _entry_point_string(entry_point), dict(kwargs), description)
    if id in _REGISTRY:
        warnings.warn(f"re-registering env id {id!r}: the new entry point {spec.entry_point!r} replaces "
                      f"{_REGISTRY[id].entry_point!r}", stacklevel=2)
    _REGISTRY[id] = spec
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # our own warning above already said it
        gymnasium.register(id=id, entry_point=spec.entry_point, kwargs=dict(kwargs), disable_env_checker=True)
    return spec


def load_plugins(force: bool = False) -> None:
    """Import the third-party environments declared under the ``rlenv.envs`` entry-point group."""
    global _plugins_loaded
    if _plugins_loaded and not force:
        return
    _plugins_loaded = True
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            loaded = ep.load()
            if callable(loaded):
                loaded()
        except Exception as exc:
            warnings.warn(f"rlenv plugin {ep.name!r} ({ep.value}) failed to load: {type(exc).__name__}: {exc}",
                          stacklevel=2)


def spec(id: str) -> EnvSpec:
    """The :class:`EnvSpec` registered under ``id``."""
    load_plugins()
    try:
        return _REGISTRY[id]
    except KeyError:
        close = [k for k in _REGISTRY if k.lower().split("/")[-1].split("-v")[0] in id.lower()]
        hint = f"; did you mean {close}?" if close else ""
        raise KeyError(f"no environment registered as {id!r}{hint} (see rlenv.list_envs())") from None


def make(id: str, **overrides: Any) -> gymnasium.Env:
    """Build the environment registered as ``id``, with ``overrides`` updating its defaults.

    As ``gymnasium.make`` does, the env's ``spec`` is the registered Gymnasium spec with the
    keyword arguments actually used, so ``gymnasium.make(env.spec)`` builds the same env again.
    Unlike ``gymnasium.make`` no wrapper (``OrderEnforcing``, ...) is added.
    """
    env_spec = spec(id)
    env = env_spec.make(**overrides)
    env.unwrapped.spec = dataclasses.replace(gymnasium.spec(id), kwargs={**env_spec.kwargs, **overrides})
    return env


def list_envs() -> list[str]:
    """All registered ids, sorted."""
    load_plugins()
    return sorted(_REGISTRY)

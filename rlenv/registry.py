"""The environment registry: ``register``, ``make``, ``spec``, ``list_envs``.

Ids follow Gymnasium's grammar (``namespace/Name-vN``). Every id registered here is also
registered with Gymnasium. Environment families register their environments through the
entry-point group ``rlenv.envs``: each entry point names a module (imported) or a callable (called)
that calls :func:`rlenv.register` (and :func:`rlenv.wrappers.register_detector` for detectors of
its own). rlenv's own families use the same group; their entry points (those of the ``rlenv-lm``
distribution that need no extra) load on ``import rlenv``, so ``gymnasium.make(id)`` works after
``import rlenv``. Every other entry point (third-party packages, and families that need an optional
dependency such as reasoning-gym) loads lazily: on :func:`list_envs`, and on the first
:func:`spec`/:func:`make` of an id not registered yet (so building a built-in env never imports a
plugin).
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import inspect
import json
import logging
import re
import warnings
from collections.abc import Callable, Sequence
from importlib.metadata import EntryPoint, PackageNotFoundError, distribution, entry_points
from typing import Any

import gymnasium

from rlenv.env import text_env
from rlenv.errors import UnknownEnvError

logger = logging.getLogger(__name__)

#: Entry-point group scanned for environment families (rlenv's own and third-party).
ENTRY_POINT_GROUP = "rlenv.envs"
#: The distribution that installs the ``rlenv`` import name ("rlenv" on the package index is another project).
DISTRIBUTION = "rlenv-lm"
_ID_RE = re.compile(r"^(?:[\w.-]+/)?[\w.:-]+-v\d+$")


@dataclasses.dataclass(frozen=True)
class EnvSpec:
    """How to build a registered environment: an entry point plus default keyword arguments."""

    id: str
    entry_point: str
    kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)
    description: str = ""
    #: Names of the hack detectors audits run on this env by default (see
    #: :func:`rlenv.wrappers.register_detector`); None: rlenv's generic set.
    detectors: tuple[str, ...] | None = None

    def to_json(self) -> str:
        """Serialize the spec (kwargs must be JSON-serializable)."""
        return json.dumps(dataclasses.asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> EnvSpec:
        fields = json.loads(text)
        if fields.get("detectors") is not None:
            fields["detectors"] = tuple(fields["detectors"])
        return cls(**fields)

    def load_entry_point(self) -> Callable[..., Any]:
        return load_object(self.entry_point, self.id)

    def make(self, **overrides: Any) -> gymnasium.Env:
        """Build the environment with the spec's kwargs updated by ``overrides``."""
        return self.load_entry_point()(**{**self.kwargs, **overrides})


_REGISTRY: dict[str, EnvSpec] = {}
_plugins_loaded = False
#: Entry points already loaded, as ``"name = value"``: each registers once.
_loaded_entry_points: set[str] = set()


def load_object(entry_point: str, owner: str) -> Any:
    """Import ``"package.module:name"`` and return the name (``owner`` names who declared it in errors)."""
    module_name, _, attr = entry_point.partition(":")
    module = importlib.import_module(module_name)
    try:
        return getattr(module, attr)
    except AttributeError:
        raise ImportError(f"entry point {entry_point!r} of {owner}: module has no {attr!r}") from None


def entry_point_string(entry_point: str | Callable[..., Any]) -> str:
    """``entry_point`` as ``"package.module:name"``: checked when given as text, derived from a
    module-level callable."""
    if isinstance(entry_point, str):
        if ":" not in entry_point:
            raise ValueError(f"entry_point {entry_point!r} must look like 'package.module:callable'")
        return entry_point
    module, name = getattr(entry_point, "__module__", None), getattr(entry_point, "__qualname__", None)
    if not module or not name or "<" in name:
        raise ValueError(f"entry_point {entry_point!r} must be a module-level callable or a 'module:callable' string")
    return f"{module}:{name}"


def register(
    id: str,
    entry_point: str | Callable[..., Any],
    *,
    description: str = "",
    detectors: Sequence[str] | None = None,
    **kwargs: Any,
) -> EnvSpec:
    """Register an environment id.

    Args:
        id: ``namespace/Name-vN``; bump ``N`` whenever the verifier's semantics change.
        entry_point: ``"package.module:factory"`` (imported lazily) or a module-level callable
            returning a Gymnasium env.
        description: One line shown by ``rlenv list``.
        detectors: Names of the hack detectors :func:`rlenv.wrappers.audit` runs on this env by
            default, innermost first (see :func:`rlenv.wrappers.register_detector`); None: rlenv's
            generic set (:data:`rlenv.wrappers.GENERIC_DETECTORS`).
        **kwargs: Defaults passed to the entry point; ``make(id, **overrides)`` updates them.

    Re-registering an existing id replaces it with a warning.
    """
    if not isinstance(id, str) or not _ID_RE.match(id):
        raise ValueError(f"invalid env id {id!r}: expected 'namespace/Name-vN', e.g. 'rlenv/GSM8K-v0'")
    if isinstance(detectors, str) or (detectors is not None and not all(isinstance(d, str) for d in detectors)):
        raise TypeError(f"detectors of {id!r} must be a sequence of detector names, got {detectors!r}")
    spec = EnvSpec(id, entry_point_string(entry_point), dict(kwargs), description,
                   None if detectors is None else tuple(detectors))
    if id in _REGISTRY:
        warnings.warn(f"re-registering env id {id!r}: the new entry point {spec.entry_point!r} replaces "
                      f"{_REGISTRY[id].entry_point!r}", stacklevel=2)
    _REGISTRY[id] = spec
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # our own warning above already said it
        gymnasium.register(id=id, entry_point=spec.entry_point, kwargs=dict(kwargs), disable_env_checker=True)
    return spec


def _load_entry_point(ep: EntryPoint) -> None:
    key = f"{ep.name} = {ep.value}"
    if key in _loaded_entry_points:
        return
    _loaded_entry_points.add(key)
    try:
        loaded = ep.load()
        if callable(loaded):
            loaded()
    except Exception as exc:
        warnings.warn(f"rlenv plugin {ep.name!r} ({ep.value}) failed to load: {type(exc).__name__}: {exc}",
                      stacklevel=3)


def load_builtin_families() -> None:
    """Register rlenv's own families: the ``rlenv.envs`` entry points of its distribution that need
    no extra (called by ``import rlenv``). Without an installed distribution (a bare source tree on
    ``sys.path``), a warning says how to install it and only the core environments exist."""
    try:
        declared = distribution(DISTRIBUTION).entry_points.select(group=ENTRY_POINT_GROUP)
    except PackageNotFoundError:
        warnings.warn(f"the {DISTRIBUTION} distribution is not installed (pip install -e . in the checkout): "
                      "only rlenv's core environments are registered", stacklevel=2)
        return
    for ep in declared:
        if not ep.extras:
            _load_entry_point(ep)


def load_plugins(force: bool = False) -> None:
    """Load every environment family declared under the ``rlenv.envs`` entry-point group, each entry
    point once (``force`` scans the group again, e.g. after a plugin was installed)."""
    global _plugins_loaded
    if _plugins_loaded and not force:
        return
    _plugins_loaded = True
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        _load_entry_point(ep)


def is_registered(id: str) -> bool:
    """Whether ``id`` is registered now (plugins not loaded yet are not consulted)."""
    return id in _REGISTRY


def spec(id: str) -> EnvSpec:
    """The :class:`EnvSpec` registered under ``id`` (plugins are loaded first when it is not registered yet)."""
    if id not in _REGISTRY:
        load_plugins()
    try:
        return _REGISTRY[id]
    except KeyError:
        close = [k for k in _REGISTRY if k.lower().split("/")[-1].split("-v")[0] in id.lower()]
        close += [k for k in difflib.get_close_matches(id, list(_REGISTRY), n=3, cutoff=0.85) if k not in close]
        hint = f"; did you mean {close}?" if close else ""
        raise UnknownEnvError(f"no environment registered as {id!r}{hint} (`rlenv list` shows them all)") from None


def make(id: str, **overrides: Any) -> gymnasium.Env:
    """Build the environment registered as ``id``, with ``overrides`` updating its defaults.

    As ``gymnasium.make`` does, the env's ``spec`` is the registered Gymnasium spec with the
    keyword arguments actually used, so ``gymnasium.make(env.spec)`` builds the same env again.
    Unlike ``gymnasium.make`` no wrapper (``OrderEnforcing``, ...) is added.

    ``verifier=`` swaps the env's verifier, for every env: it goes to the entry point when that
    takes a ``verifier`` argument (which may check it against its other arguments), and otherwise
    replaces the verifier of the env the entry point built.
    """
    env_spec = spec(id)
    if "verifier" in overrides and not _takes_verifier(env_spec.load_entry_point()):
        overrides = dict(overrides)
        verifier = overrides.pop("verifier")
        if not callable(verifier):
            raise TypeError(f"verifier must be callable (task, completion) -> RewardResult, got {verifier!r}")
        env = env_spec.make(**overrides)
        text_env(env).verifier = verifier
        overrides["verifier"] = verifier
    else:
        env = env_spec.make(**overrides)
    env.unwrapped.spec = dataclasses.replace(gymnasium.spec(id), kwargs={**env_spec.kwargs, **overrides})
    return env


def _takes_verifier(entry_point: Callable[..., Any]) -> bool:
    try:
        parameters = inspect.signature(entry_point).parameters
    except (TypeError, ValueError):  # a callable without a signature: build, then swap
        return False
    return "verifier" in parameters and parameters["verifier"].kind is not inspect.Parameter.VAR_KEYWORD


def list_envs() -> list[str]:
    """All registered ids, sorted."""
    load_plugins()
    return sorted(_REGISTRY)

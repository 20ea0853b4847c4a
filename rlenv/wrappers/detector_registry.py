"""Named hack detectors, and the detectors each environment runs by default.

A detector is a wrapper factory ``env -> wrapped env`` (a :class:`~rlenv.wrappers.DetectorWrapper`
subclass) registered under a name with :func:`register_detector`. rlenv's generic detectors are
registered here; a family registers its own from its ``rlenv.envs`` entry point (the code family
registers ``code_tampering``), and a third-party package does the same from its own entry point.
An environment's registration lists the names an audit runs on it by default
(``rlenv.register(id, ..., detectors=[...])``); an env registered without a list gets
:data:`GENERIC_DETECTORS`.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium

from rlenv import registry

Wrap = Callable[[gymnasium.Env], gymnasium.Env]

_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")
#: Registered detectors: name -> ``"package.module:Factory"`` (imported on first use) or the factory.
_DETECTORS: dict[str, str | Wrap] = {
    "format_gaming": "rlenv.wrappers.format_gaming:FormatGaming",
    "answer_hedging": "rlenv.wrappers.hedging:AnswerHedging",
    "prompt_echo": "rlenv.wrappers.echo:PromptEcho",
    "repetition": "rlenv.wrappers.repetition:RepetitionPenalty",
    "non_answer": "rlenv.wrappers.nonanswer:NonAnswer",
    "tool_spam": "rlenv.wrappers.tool_use:ToolSpam",
    "printed_guess": "rlenv.wrappers.tool_use:PrintedGuess",
    "grader_probe": "rlenv.wrappers.tool_use:GraderProbe",
}
#: The tool-use detectors (:mod:`rlenv.wrappers.tool_use`), for multi-turn tool envs.
TOOL_DETECTORS = ("tool_spam", "printed_guess", "grader_probe")
#: The default of an env registered without ``detectors``, innermost first.
GENERIC_DETECTORS = ("format_gaming", "answer_hedging", "prompt_echo", "repetition")


def register_detector(name: str, factory: str | Wrap) -> None:
    """Register a detector under ``name`` (lower-case letters, digits, ``_``).

    ``factory`` is ``"package.module:Factory"`` (imported on first use, so registering costs no
    import) or a module-level callable ``env -> wrapped env``, called with the env alone (its
    penalty stays 0: audits flag). Re-registering a name replaces it with a warning.
    """
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise ValueError(f"invalid detector name {name!r}: expected lower-case letters, digits and '_'")
    factory = registry.entry_point_string(factory) if isinstance(factory, str) else factory
    if not callable(factory) and not isinstance(factory, str):
        raise TypeError(f"detector {name!r}: factory must be 'module:Factory' or a callable, got {factory!r}")
    if name in _DETECTORS and _DETECTORS[name] != factory:
        warnings.warn(f"re-registering detector {name!r}: {factory!r} replaces {_DETECTORS[name]!r}", stacklevel=2)
    _DETECTORS[name] = factory


def list_detectors() -> list[str]:
    """Every registered detector name (plugins loaded first), sorted."""
    registry.load_plugins()
    return sorted(_DETECTORS)


def detector(name: str) -> Wrap:
    """The factory registered as ``name``."""
    if name not in _DETECTORS:
        registry.load_plugins()
    if name not in _DETECTORS:
        raise KeyError(f"no detector registered as {name!r}; registered: {sorted(_DETECTORS)}")
    factory = _DETECTORS[name]
    return registry.load_object(factory, f"detector {name!r}") if isinstance(factory, str) else factory


def detector_names(env: gymnasium.Env | str) -> tuple[str, ...]:
    """The names of the detectors an audit runs on ``env`` by default: those its registration lists
    (an id, or an env whose ``spec`` is a registered id), else :data:`GENERIC_DETECTORS`."""
    if isinstance(env, str):
        env_id: str | None = env
    else:
        env_id = getattr(getattr(env.unwrapped, "spec", None), "id", None)
        if env_id is not None and not registry.is_registered(env_id):
            registry.load_plugins()
            env_id = env_id if registry.is_registered(env_id) else None
    declared = registry.spec(env_id).detectors if env_id is not None else None
    return GENERIC_DETECTORS if declared is None else declared


def default_detectors(env: gymnasium.Env | str) -> list[Wrap]:
    """The detector factories of :func:`detector_names` of ``env``, innermost first."""
    return [detector(name) for name in detector_names(env)]


def resolve_detectors(detectors: Sequence[str | Wrap]) -> list[Wrap]:
    """Detector factories from names (see :func:`register_detector`) or factories themselves."""
    return [detector(item) if isinstance(item, str) else _callable(item) for item in detectors]


def _callable(item: Any) -> Wrap:
    if not callable(item):
        raise TypeError(f"a detector must be a registered name or a callable env -> env, got {item!r}")
    return item

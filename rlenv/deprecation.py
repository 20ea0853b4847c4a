"""Deprecated names, kept working for one release after they move.

A module that gave up public names routes them through :func:`moved_names`: reading an old name
warns with a :class:`DeprecationWarning` naming its new place, then returns the object from there.
"""

from __future__ import annotations

import functools
import importlib
import warnings
from collections.abc import Callable, Mapping
from typing import Any


def warn_moved(old: str, new: str, stacklevel: int = 3) -> None:
    """Warn that ``old`` (a dotted name) is deprecated in favour of ``new``."""
    warnings.warn(f"{old} is deprecated and will be removed in the next release: use {new}", DeprecationWarning,
                  stacklevel=stacklevel)


def moved_names(module: str, names: Mapping[str, str]) -> Callable[[str], Any]:
    """A module-level ``__getattr__`` for ``module`` serving its deprecated ``names``.

    Args:
        module: the module's dotted name (``__name__``).
        names: old attribute name -> new place, as ``"package.module.name"``.
    """

    def __getattr__(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        new_module, _, new_name = names[name].rpartition(".")
        warn_moved(f"{module}.{name}", names[name])
        return getattr(importlib.import_module(new_module), new_name)

    return __getattr__


def renamed_fields(cls: type, names: Mapping[str, str]) -> type:
    """Let the dataclass ``cls`` take and read its renamed fields by their old names for one release.

    Args:
        cls: the dataclass.
        names: old field name -> new field name. ``cls(old=...)`` and ``instance.old`` warn and
            act on the new field.
    """
    init: Callable[..., None] = cls.__dict__["__init__"]  # the dataclass's own

    @functools.wraps(init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        for old, new in names.items():
            if old in kwargs:
                warn_moved(f"{cls.__name__}({old}=...)", f"{cls.__name__}({new}=...)")
                kwargs[new] = kwargs.pop(old)
        init(self, *args, **kwargs)

    def reader(old: str, new: str) -> property:
        def read(self: Any) -> Any:
            warn_moved(f"{cls.__name__}.{old}", f"{cls.__name__}.{new}")
            return getattr(self, new)

        return property(read)

    setattr(cls, "__init__", __init__)  # noqa: B010  (mypy refuses assigning a class's __init__)
    for old, new in names.items():
        setattr(cls, old, reader(old, new))
    return cls

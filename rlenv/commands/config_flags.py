"""Command-line flags built from settings dataclasses, so a command never restates a setting.

A flag names one setting; for each family of configs it maps to a field path (``"lr"``,
``"sampling.max_new_tokens"``, ``"preference.lr"``). Its type, its help (the field's
``metadata["help"]``, else its entry in the ``Attributes:`` section of the class docstring) and
its default (each family's own) come from the dataclasses; a flag left out sets nothing, so every
family keeps its own default.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import types
import typing
from collections.abc import Collection, Mapping
from typing import Any

#: A flag -> {family: field path in that family's config}.
FlagMap = Mapping[str, Mapping[str, str]]


def field_docs(cls: type) -> dict[str, str]:
    """Each field's help: its ``metadata["help"]``, else its entry in the ``Attributes:`` section of the
    docstring of ``cls`` or of a base class (``a, b: text`` documents both ``a`` and ``b``)."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        docs.update(_attribute_docs(klass.__doc__ or ""))
    for field in dataclasses.fields(cls):
        if "help" in field.metadata:
            docs[field.name] = str(field.metadata["help"])
    return docs


def _attribute_docs(doc: str) -> dict[str, str]:
    lines = doc.expandtabs().splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == "Attributes:"), None)
    if start is None:
        return {}
    entries: list[list[str]] = []
    indent = None
    for line in lines[start + 1:]:
        if not line.strip():
            continue
        depth = len(line) - len(line.lstrip())
        if indent is None:
            indent = depth
        if depth < indent:
            break
        if depth == indent:
            entries.append([line.strip()])
        elif entries:
            entries[-1].append(line.strip())
    docs = {}
    for entry in entries:
        names, _, text = " ".join(entry).partition(": ")
        if text and re.fullmatch(r"[\w, ]+", names):
            plain = re.sub(r":\w+:`~?([^`]+)`", r"\1", text).replace("``", "")  # help is plain text
            docs.update({name.strip(): plain for name in names.split(",") if name.strip()})
    return docs


def _field(cls: type, path: str) -> tuple[dataclasses.Field, Any, Any]:
    """``(field, its type, its default)`` of the dotted ``path`` in the dataclass ``cls``."""
    owner: Any = cls
    default_owner: Any = None
    names = path.split(".")
    for depth, name in enumerate(names):
        fields = {f.name: f for f in dataclasses.fields(owner)}
        if name not in fields:
            raise KeyError(f"{owner.__name__} has no field {name!r} (flag path {path!r})")
        field = fields[name]
        hint = typing.get_type_hints(owner)[name]
        if default_owner is not None:
            default = getattr(default_owner, name)
        elif field.default is not dataclasses.MISSING:
            default = field.default
        elif field.default_factory is not dataclasses.MISSING:
            default = field.default_factory()
        else:
            default = None
        if depth < len(names) - 1:
            owner, default_owner = type(default), default
    return field, hint, default


def _parser_type(hint: Any) -> tuple[Any, bool]:
    """``(argparse type, is a switch)`` of a field's type; ``X | None`` parses as ``X``."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        (hint,) = [arg for arg in typing.get_args(hint) if arg is not type(None)]
    if hint is bool:
        return None, True
    if hint in (int, float, str):
        return hint, False
    raise TypeError(f"no command-line form for a field of type {hint!r}")


def add_config_flags(parser: argparse.ArgumentParser, configs: Mapping[str, type], flags: FlagMap) -> None:
    """Add ``--FLAG`` for each entry of ``flags``, typed, documented and defaulted from ``configs``
    (family -> config class); the help lists each family's default."""
    for flag, paths in flags.items():
        first = next(iter(paths))
        field, hint, _ = _field(configs[first], paths[first])
        kind, switch = _parser_type(hint)
        help_text = field_docs(configs[first]).get(field.name, "").rstrip(".")
        renamed = [f"{family}: {path}" for family, path in paths.items() if path != paths[first]]
        defaults = ", ".join(f"{_field(configs[family], path)[2]!r} ({family})" for family, path in paths.items())
        help_text = f"{help_text} [{'; '.join(renamed)}] " if renamed else f"{help_text} "
        options: dict[str, Any] = {"default": argparse.SUPPRESS, "help": f"{help_text}(default: {defaults})"}
        if switch:
            options["action"] = argparse.BooleanOptionalAction
        else:
            options["type"] = kind
        parser.add_argument("--" + flag.replace("_", "-"), dest=flag, **options)


def config_values(args: argparse.Namespace, family: str, flags: FlagMap, read_elsewhere: Collection[str] = ()) -> dict[str, Any]:
    """The flags given for ``family`` as config fields, nested settings as dicts of the fields given
    (``{"sampling": {"max_new_tokens": 8}}``). A flag given that sets nothing of ``family`` is a
    ``ValueError`` naming it and the families it applies to (never silently dropped), unless the
    command reads it itself for every family (``read_elsewhere``)."""
    values: dict[str, Any] = {}
    misplaced = [flag for flag, paths in flags.items()
                 if flag in vars(args) and family not in paths and flag not in read_elsewhere]
    if misplaced:
        described = "; ".join(f"--{flag.replace('_', '-')} (applies to: {', '.join(flags[flag])})" for flag in misplaced)
        raise ValueError(f"flag(s) that set nothing of the {family} trainers: {described}")
    for flag, paths in flags.items():
        if family in paths and flag in vars(args):
            *heads, name = paths[family].split(".")
            target = values
            for head in heads:
                target = target.setdefault(head, {})
            target[name] = getattr(args, flag)
    return values

"""Format requirements written as data (JSON-friendly specs), turned into verifiers.

A spec is one of:

* a name: ``"think_answer"`` (strict newline layout), ``"think_answer_lenient"``, ``"answer_only"``
  (a single ``<answer>`` block, nothing outside), ``"json"`` (the completion is one JSON document);
* a dict ``{"type": T, **options}`` with ``T`` in ``think_answer`` (:class:`ThinkAnswerFormat`),
  ``regex`` (:class:`RegexFormat`), ``json`` (:class:`JSONFormat`), ``length`` (:class:`LengthBounds`)
  and the options of that class;
* a list of specs: all must hold; the value is their mean (a :class:`rlenv.composition.WeightedSum`
  with weights ``1/n`` and status ``correct`` only when every part is).

Example::

    format_from_spec([{"type": "think_answer", "strict": False}, {"type": "length", "max_length": 2000}])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rlenv.composition import WeightedSum
from rlenv.envs.format.json_format import JSONFormat
from rlenv.envs.format.length import LengthBounds
from rlenv.envs.format.regex import RegexFormat
from rlenv.envs.format.tags import ThinkAnswerFormat

TYPES = {"think_answer": ThinkAnswerFormat, "regex": RegexFormat, "json": JSONFormat, "length": LengthBounds}
NAMED: dict[str, dict[str, Any]] = {
    "think_answer": {"type": "think_answer"},
    "think_answer_lenient": {"type": "think_answer", "strict": False},
    "answer_only": {"type": "think_answer", "think_tag": None},
    "json": {"type": "json"},
}


def format_from_spec(spec: str | Mapping[str, Any] | Sequence[Any]) -> Any:
    """The verifier described by ``spec`` (see the module docstring)."""
    if isinstance(spec, str):
        if spec not in NAMED:
            raise ValueError(f"unknown format name {spec!r}: expected one of {sorted(NAMED)} or a dict spec")
        return format_from_spec(NAMED[spec])
    if isinstance(spec, Mapping):
        options = dict(spec)
        kind = options.pop("type", None)
        if kind not in TYPES:
            raise ValueError(f"format spec {dict(spec)!r} needs 'type' in {sorted(TYPES)}")
        try:
            return TYPES[kind](**options)
        except TypeError as exc:
            raise ValueError(f"bad options for format type {kind!r}: {exc}") from None
    if isinstance(spec, Sequence) and spec:
        parts = [format_from_spec(s) for s in spec]
        if len(parts) == 1:
            return parts[0]
        names: dict[str, int] = {}
        terms = {}
        for part in parts:
            count = names[part.name] = names.get(part.name, 0) + 1
            terms[part.name if count == 1 else f"{part.name}_{count}"] = (part, 1.0 / len(parts))
        return WeightedSum(terms, status_from="all")
    raise ValueError(f"a format spec must be a name, a dict or a non-empty list, got {spec!r}")

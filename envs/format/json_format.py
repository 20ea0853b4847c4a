"""The completion must be (or contain one fenced block of) valid JSON, optionally matching a JSON Schema."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from typing import Any

from rlenv.envs.format.base import FormatVerifier
from rlenv.errors import check_choice
from rlenv.types import Task

#: Where :class:`JSONFormat` looks for the document.
EXTRACTS = ("whole", "fenced")
_FENCE = re.compile(r"```(?:json)?[ \t]*\n(.*?)\n?[ \t]*```", re.DOTALL | re.IGNORECASE)
#: At most this many schema errors are listed in ``details``.
MAX_LISTED_ERRORS = 10


class _DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise _DuplicateKey(f"duplicate key(s) {sorted({k for k in keys if keys.count(k) > 1})}")
    return dict(pairs)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


@functools.lru_cache(maxsize=256)
def _validator(schema_json: str) -> Any:
    try:
        from jsonschema import validators
        from jsonschema.exceptions import SchemaError
    except ImportError as exc:
        raise ImportError("JSON Schema validation needs the 'jsonschema' package: pip install jsonschema") from exc
    schema = json.loads(schema_json)
    cls = validators.validator_for(schema)
    try:
        cls.check_schema(schema)
    except SchemaError as exc:
        raise ValueError(f"invalid JSON Schema: {exc.message}") from None
    return cls(schema)


def _schema_json(schema: Any) -> str:
    if isinstance(schema, str):
        schema = json.loads(schema)
    if not isinstance(schema, (Mapping, bool)):
        raise ValueError(f"a JSON Schema must be an object (or a JSON string of one), got {schema!r:.80}")
    return json.dumps(schema, sort_keys=True)


class JSONFormat(FormatVerifier):
    """Valid JSON (strict: no duplicate keys, no NaN/Infinity), optionally matching a JSON Schema.

    Args:
        schema: A JSON Schema (dict or JSON string) every completion must match, or None.
        schema_field: Instead, read each task's schema from ``task.metadata[schema_field]`` (a
            dict or a JSON string; use a JSON-string column in data files, since ``datasets``
            merges dict columns across rows).
        extract: ``"whole"`` (the stripped completion is one JSON document) or ``"fenced"``
            (exactly one fenced code block, optionally tagged ``json``; text around it is allowed).

    Checks: ``json_found`` (``"fenced"``: exactly one block), ``json_valid``, ``no_duplicate_keys``,
    and ``schema`` when a schema applies. ``details`` holds ``parsed`` and ``schema_errors``.

    Example::

        JSONFormat(schema={"type": "object", "required": ["name"]})(task, '{"name": "Ada"}').value   # 1.0
    """

    name = "json_format"
    version = "1"

    def __init__(self, schema: Any = None, schema_field: str | None = None, extract: str = "whole"):
        super().__init__(partial_credit=False)
        if schema is not None and schema_field is not None:
            raise ValueError("give schema or schema_field, not both")
        check_choice("extract", extract, EXTRACTS)
        self.schema_json = None if schema is None else _schema_json(schema)
        if self.schema_json is not None:
            _validator(self.schema_json)  # fail now on an invalid schema
        self.schema_field = schema_field
        self.extract = extract

    def document(self, completion: str) -> str | None:
        """The JSON text to parse, or None when there is not exactly one candidate."""
        if self.extract == "whole":
            text = completion.strip()
            return text or None
        blocks = _FENCE.findall(completion)
        return blocks[0] if len(blocks) == 1 else None

    def task_schema(self, task: Task) -> str | None:
        """The canonical schema JSON that applies to ``task``, or None."""
        if self.schema_field is None:
            return self.schema_json
        if self.schema_field not in task.metadata:
            raise ValueError(f"task {task.id}: no metadata[{self.schema_field!r}] holding its JSON Schema")
        return _schema_json(task.metadata[self.schema_field])

    def check(self, task: Task, completion: str) -> tuple[dict[str, bool], dict[str, Any]]:
        schema = self.task_schema(task)
        checks = {"json_found": False, "json_valid": False, "no_duplicate_keys": False}
        if schema is not None:
            checks["schema"] = False
        details: dict[str, Any] = {}
        text = self.document(completion)
        if text is None:
            return checks, details
        checks["json_found"] = True
        try:
            parsed = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_reject_constant)
        except _DuplicateKey as exc:
            checks["json_valid"] = True
            details["error"] = str(exc)
            return checks, details
        except ValueError as exc:
            details["error"] = f"{type(exc).__name__}: {exc}"
            return checks, details
        checks["json_valid"] = checks["no_duplicate_keys"] = True
        details["parsed"] = parsed
        if schema is not None:
            errors = sorted(_validator(schema).iter_errors(parsed), key=lambda e: [str(p) for p in e.absolute_path])
            checks["schema"] = not errors
            details["schema_errors"] = [f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}"
                                        for e in errors[:MAX_LISTED_ERRORS]]
        return checks, details

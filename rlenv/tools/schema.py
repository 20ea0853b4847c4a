"""Tools a policy may call: a Python callable and its OpenAI function schema.

A schema is the OpenAI function format, what ``tokenizer.apply_chat_template(tools=...)`` and
an OpenAI-compatible server take: ``{"type": "function", "function": {"name", "description",
"parameters": <JSON schema of an object>}}``. Arguments are checked against ``parameters`` with
``jsonschema`` before the callable runs.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from typing import Any

import jsonschema

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]{0,63}")


@dataclasses.dataclass(frozen=True)
class Tool:
    """A callable the policy may call by name, with keyword arguments described by ``schema``.

    Attributes:
        function: Called as ``function(**arguments)``; what it returns is shown to the policy
            (a ``str`` as is, anything else as JSON).
        schema: The OpenAI function schema (see the module docstring).
    """

    function: Callable[..., Any]
    schema: Mapping[str, Any]

    def __post_init__(self) -> None:
        if not callable(self.function):
            raise TypeError(f"Tool.function must be callable, got {self.function!r}")
        function = self.schema.get("function") if isinstance(self.schema, Mapping) else None
        if self.schema.get("type") != "function" or not isinstance(function, Mapping):
            raise ValueError(f"Tool.schema must be an OpenAI function schema {{'type': 'function', 'function': "
                             f"{{...}}}}, got {self.schema!r:.200}")
        name = function.get("name")
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise ValueError(f"a tool's name must match {_NAME.pattern}, got {name!r}")
        parameters = function.get("parameters", {"type": "object", "properties": {}})
        try:
            jsonschema.Draft202012Validator.check_schema(parameters)
        except jsonschema.SchemaError as exc:
            raise ValueError(f"tool {name!r}: its parameters are not a valid JSON schema: {exc.message}") from None
        if parameters.get("type") != "object":
            raise ValueError(f"tool {name!r}: parameters must describe an object, got type {parameters.get('type')!r}")
        object.__setattr__(self, "schema", {"type": "function", "function": {**function, "parameters": parameters}})

    @property
    def name(self) -> str:
        return self.schema["function"]["name"]

    def argument_errors(self, arguments: Any) -> list[str]:
        """What is wrong with ``arguments`` for this tool (empty when they fit its schema)."""
        if not isinstance(arguments, dict):
            return [f"arguments must be a JSON object, got {type(arguments).__name__}"]
        validator = jsonschema.Draft202012Validator(self.schema["function"]["parameters"])
        return [f"{'/'.join(map(str, e.absolute_path)) or 'arguments'}: {e.message}"
                for e in validator.iter_errors(arguments)]


def tool(function: Callable[..., Any] | Tool | None = None, *, schema: Mapping[str, Any] | None = None) -> Any:
    """Make a :class:`Tool` of a function; usable as a decorator (``@tool``) or a call (``tool(f)``).

    Without ``schema`` it is read from the function's type hints and Google-style docstring by
    transformers' ``get_json_schema`` (the schema ``apply_chat_template(tools=[f])`` would use),
    which needs transformers installed (``pip install rlenv-lm[train]``).
    """
    if function is None:
        return lambda f: tool(f, schema=schema)
    if isinstance(function, Tool):
        return function
    if schema is None:
        try:
            from transformers.utils import get_json_schema
        except ImportError as exc:
            raise ImportError(f"reading the schema of tool {getattr(function, '__name__', function)!r} from its "
                              "docstring needs transformers (pip install rlenv-lm[train]); or pass schema=") from exc
        schema = get_json_schema(function)
        schema = {"type": "function", "function": {k: v for k, v in schema["function"].items() if k != "return"}}
    return Tool(function, schema)

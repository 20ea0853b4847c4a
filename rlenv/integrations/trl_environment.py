"""rlenv tool environments under TRL's ``GRPOTrainer(environment_factory=...)``.

TRL runs multi-turn tool episodes itself: it renders the prompt with the environment's tools,
generates, parses the tool calls with the tokenizer's response template, calls the matching
methods of an environment instance (one per rollout), appends the results and generates again.
:func:`environment_factory` gives it rlenv's tool environments as such instances::

    from trl import GRPOConfig, GRPOTrainer
    from rlenv.integrations.trl import reward_funcs, to_dataset
    from rlenv.integrations.trl_environment import environment_factory

    env = rlenv.make("rlenv/GSM8K-Python-v0", chat=True)
    trainer = GRPOTrainer(model=..., args=GRPOConfig(...), train_dataset=to_dataset(env),
                          reward_funcs=reward_funcs(env),
                          environment_factory=environment_factory("rlenv/GSM8K-Python-v0", chat=True))

Each instance holds its own rlenv env, reset on the row's task (the ``task_id`` column
:func:`~rlenv.integrations.trl.to_dataset` writes), so tools with per-episode state (a Python
session, a counter) start each rollout afresh. Its public methods are exactly the env's tools,
with the signature and docstring TRL (through ``transformers.utils.get_json_schema``) reads their
schemas from; a call runs through :meth:`rlenv.tools.ToolEnv.call_tool`, so argument checking,
output cuts and failures (an ``Error: ...`` text, never an exception) are rlenv's. The episode's
final answer (the last assistant message) is graded by :func:`~rlenv.integrations.trl.reward_funcs`.

TRL, not rlenv, runs the episode here: its own limit on tool rounds
(``GRPOConfig.max_tool_calling_iterations``) applies instead of the env's ``max_turns``, and its
response parser reads the calls (a tokenizer whose chat template TRL does not know needs a
``response_template``).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Mapping
from typing import Any

from rlenv.integrations.trl import TASK_ID_COLUMN
from rlenv.tools.env import ToolEnv
from rlenv.tools.parsing import ToolCall
from rlenv.tools.schema import Tool

#: JSON schema types and the Python annotations ``get_json_schema`` maps back to them.
_ANNOTATIONS: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool, "array": list,
                                "object": dict}
#: Method names TRL gives a meaning of its own (a tool may not take them).
_RESERVED = ("reset", "get_reward")


class ToolEnvironment:
    """One rollout's environment for TRL: an rlenv :class:`~rlenv.tools.ToolEnv` whose tools are
    this object's methods (subclasses made by :func:`environment_class` add them).

    Args:
        env: The rlenv tool env this rollout plays in (possibly wrapped; chat mode).
    """

    def __init__(self, env: Any):
        self._env = env
        _check_env(env)

    def reset(self, **row: Any) -> None:
        """Start the rollout on the task of dataset ``row`` (its ``task_id`` column). Returns None:
        the row's prompt is already the conversation TRL generates from."""
        if TASK_ID_COLUMN not in row:
            raise KeyError(f"the dataset row has no {TASK_ID_COLUMN!r} column (columns: {sorted(row)}): build the "
                           "dataset with rlenv.integrations.trl.to_dataset")
        self._env.reset(options={"task_id": str(row[TASK_ID_COLUMN])})
        return None

    def _call(self, name: str, arguments: dict[str, Any]) -> str:
        return self._env.unwrapped.call_tool(ToolCall(name, arguments))

    @property
    def tool_metrics(self) -> dict[str, int]:
        """The env's tool counters of the current rollout (``calls``, ``errors``, ...)."""
        return dict(self._env.unwrapped.metrics)


def environment_factory(env: str | Callable[[], Any], **make_kwargs: Any) -> Callable[[], ToolEnvironment]:
    """A factory for ``GRPOTrainer(environment_factory=...)``: each call makes one rollout's environment.

    Args:
        env: A registered tool env id (made with ``rlenv.make(env, **make_kwargs)`` for every
            instance), or a zero-argument callable returning a new rlenv tool env.
        **make_kwargs: Keyword arguments of ``rlenv.make`` (only with an env id).

    Returns:
        A zero-argument callable returning a :class:`ToolEnvironment` whose methods are the env's tools.
    """
    if callable(env):
        if make_kwargs:
            raise TypeError(f"make_kwargs {sorted(make_kwargs)} go with an env id, not with a factory callable")
        make_env = env
    elif isinstance(env, str):
        from rlenv.registry import make

        def make_env() -> Any:
            return make(env, **make_kwargs)
    else:
        raise TypeError(f"env must be an env id or a callable making an env, got {type(env).__name__}")
    first = make_env()
    cls = environment_class(_check_env(first).tools)
    ready = [cls(first)]

    def factory() -> ToolEnvironment:
        return ready.pop() if ready else cls(make_env())

    return factory


def _check_env(env: Any) -> ToolEnv:
    """The :class:`~rlenv.tools.ToolEnv` under ``env`` (wrappers), if it can play under TRL."""
    base = env.unwrapped
    if not isinstance(base, ToolEnv):
        raise TypeError(f"a TRL tool environment needs an rlenv ToolEnv, got {type(base).__name__}")
    if not base.chat:
        raise ValueError(f"{type(base).__name__} is in text mode: TRL's tool calling needs chat prompts "
                         "(make the env with chat=True)")
    return base


def environment_class(tools: Mapping[str, Tool]) -> type[ToolEnvironment]:
    """A :class:`ToolEnvironment` subclass with one method per tool of ``tools`` (name -> Tool)."""
    methods: dict[str, Any] = {}
    for name, found in tools.items():
        if name in _RESERVED or name.startswith("_") or hasattr(ToolEnvironment, name):
            raise ValueError(f"tool name {name!r} is taken by TRL's environment protocol or by ToolEnvironment; "
                             f"rename the tool (reserved: {_RESERVED}, names starting with '_', tool_metrics)")
        methods[name] = _tool_method(found)
    return type("RlenvToolEnvironment", (ToolEnvironment,), methods)


def _tool_method(found: Tool) -> Callable[..., str]:
    """A method calling ``found`` through the env, whose signature and Google-style docstring
    give ``get_json_schema`` the tool's schema."""
    function = found.schema["function"]
    parameters = function["parameters"]
    properties: Mapping[str, Any] = parameters.get("properties", {})
    required = set(parameters.get("required", ()))
    name = found.name

    def method(self: ToolEnvironment, **arguments: Any) -> str:
        return self._call(name, arguments)

    signature = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {}  # no return type: the schema TRL renders is then exactly the tool's
    lines = [function.get("description") or f"The {name} tool.", "", "Args:"]
    for argument, spec in properties.items():
        kind = spec.get("type")
        if not isinstance(kind, str) or kind not in _ANNOTATIONS:
            raise ValueError(f"tool {name!r}: argument {argument!r} has JSON type {kind!r}, which a Python signature "
                             f"cannot give TRL; supported: {sorted(_ANNOTATIONS)}")
        annotations[argument] = _ANNOTATIONS[kind]
        default = inspect.Parameter.empty if argument in required else None
        signature.append(inspect.Parameter(argument, inspect.Parameter.KEYWORD_ONLY, default=default,
                                           annotation=_ANNOTATIONS[kind]))
        description = " ".join(str(spec.get("description") or argument).split())
        if "enum" in spec:
            description += f" (choices: {json.dumps(list(spec['enum']))})"
        lines.append(f"    {argument}: {description}")
    if not properties:
        lines = lines[:-2]
    method.__name__ = method.__qualname__ = name
    method.__doc__ = "\n".join(lines)
    method.__signature__ = inspect.Signature(signature)  # type: ignore[attr-defined]
    method.__annotations__ = annotations
    return method

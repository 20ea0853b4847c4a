"""``ToolEnv``: a multi-turn env whose policy calls Python tools until it gives its final answer."""

from __future__ import annotations

import collections
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rlenv.env import TextEnv, text_env
from rlenv.multiturn import MultiTurnEnv, Turn
from rlenv.registry import make
from rlenv.sources import TaskSource
from rlenv.tools.parsing import ParsedTurn, ToolCall, ToolCallFormat, get_format, parse_tool_calls
from rlenv.tools.schema import Tool, tool
from rlenv.types import Task, Verifier

logger = logging.getLogger(__name__)

#: The counters of ``info["tool_metrics"]`` (per episode, cumulative).
TOOL_METRICS = ("calls", "errors", "malformed", "unknown_tool", "bad_arguments", "tool_exceptions", "too_many_calls")


class ToolEnv(MultiTurnEnv):
    """The policy calls ``tools``; a turn without a tool call is its final answer, graded by ``verifier``.

    Args:
        source, verifier: As for :class:`~rlenv.env.TextEnv`.
        tools: Functions (their schema read from type hints and docstring, see
            :func:`~rlenv.tools.schema.tool`) or :class:`~rlenv.tools.schema.Tool` objects.
            Bound methods of the env may keep per-episode state set in :meth:`start_episode`.
        tool_format: How the policy writes calls: a key of :data:`rlenv.tools.parsing.FORMATS`
            (``hermes``, ``llama3_json``, ``mistral``) or a
            :class:`~rlenv.tools.parsing.ToolCallFormat`. A turn given as a
            :class:`~rlenv.types.Completion` with structured ``tool_calls`` (an OpenAI-compatible
            server's) is read from those whatever the format.
        max_calls_per_turn: Calls beyond this many in one turn are refused (a tool error each).
        max_output_chars: A tool's result is cut to this many characters.
        **kwargs: Everything else :class:`~rlenv.multiturn.MultiTurnEnv` takes (``chat``,
            ``max_turns``, ``max_tokens``, ``max_seconds``, ...).

    Chat mode: the reset info carries ``tools`` (the schemas, for
    ``apply_chat_template(tools=...)``) and each reply is one ``role: tool`` message per call.
    Text mode: the tools are announced before the prompt and each result is appended in the
    format's own layout. A malformed call, an unknown tool, bad arguments or a tool that raises
    become a tool error message to the policy and a count in ``info["tool_metrics"]``; the
    episode goes on.
    """

    def __init__(
        self,
        source: TaskSource,
        verifier: Verifier,
        tools: Sequence[Callable[..., Any] | Tool],
        tool_format: str | ToolCallFormat = "hermes",
        max_calls_per_turn: int = 8,
        max_output_chars: int = 4000,
        **kwargs: Any,
    ):
        super().__init__(source, verifier, **kwargs)
        self.format = get_format(tool_format)
        self.tools = {t.name: t for t in (tool(f) for f in tools)}
        if len(self.tools) != len(tools):
            raise ValueError(f"two tools share a name: {[tool(t).name for t in tools]}")
        for name, value in (("max_calls_per_turn", max_calls_per_turn), ("max_output_chars", max_output_chars)):
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        self.max_calls_per_turn = max_calls_per_turn
        self.max_output_chars = max_output_chars
        self.metrics: collections.Counter[str] = collections.Counter()

    @property
    def tool_schemas(self) -> list[dict[str, Any]]:
        """The tools' OpenAI function schemas, in declaration order."""
        return [dict(t.schema) for t in self.tools.values()]

    def format_prompt(self, task: Task):
        prompt = super().format_prompt(task)
        return prompt if self.chat else f"{self.format.announce(self.tool_schemas)}\n\n{prompt}"

    def task_info(self, task: Task, index: int) -> dict[str, Any]:
        return {**super().task_info(task, index), "tools": self.tool_schemas}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        self.metrics = collections.Counter()
        return super().reset(seed=seed, options=options)

    def parse(self, action: str) -> ParsedTurn:
        """Read the tool calls of one policy turn."""
        return parse_tool_calls(action, self.format)

    def cut_completion(self, text: str) -> str:
        """A cut episode is graded on its last turn's text outside tool calls: a call is never an answer."""
        return self.parse(text).content

    def respond(self, task: Task, action: str) -> Turn:
        parsed = self.parse(action)
        if not parsed.has_calls:
            return Turn(final=action, info=self._turn_info([], []))
        results: list[tuple[str | None, str, str | None]] = [(None, f"Error: {e}", None) for e in parsed.errors]
        self.metrics["malformed"] += len(parsed.errors)
        self.metrics["errors"] += len(parsed.errors)
        for position, call in enumerate(parsed.calls):
            if position >= self.max_calls_per_turn:
                self.metrics["too_many_calls"] += 1
                self.metrics["errors"] += 1
                results.append((call.name, f"Error: more than {self.max_calls_per_turn} calls in one turn; "
                                            "this call was not run", call.id))
                continue
            results.append((call.name, self.call_tool(call), call.id))
        return Turn(observation=self._reply(results), info=self._turn_info(parsed.calls, results))

    def call_tool(self, call: ToolCall) -> str:
        """Run one call; every failure is returned as an ``Error: ...`` text (and counted), never raised."""
        self.metrics["calls"] += 1
        found = self.tools.get(call.name)
        if found is None:
            return self._error("unknown_tool", f"unknown tool {call.name!r}; the tools are {sorted(self.tools)}")
        problems = found.argument_errors(dict(call.arguments))
        if problems:
            return self._error("bad_arguments", f"bad arguments for {call.name!r}: {'; '.join(problems)}")
        try:
            value = found.function(**call.arguments)
        except Exception as exc:  # the tool's own failure is the policy's information, not a crash
            logger.debug("tool %s raised", call.name, exc_info=True)
            return self._error("tool_exceptions", f"{type(exc).__name__}: {exc}")
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
        if len(text) > self.max_output_chars:
            text = text[: self.max_output_chars] + f"\n[output cut at {self.max_output_chars} characters]"
        return text

    def _error(self, metric: str, message: str) -> str:
        self.metrics[metric] += 1
        self.metrics["errors"] += 1
        return f"Error: {message}"

    def _reply(self, results: list[tuple[str | None, str, str | None]]):
        if not self.chat:
            return "".join(self.format.result_template.format(name=name or "", content=content)
                           for name, content, _ in results)
        messages = []
        for name, content, call_id in results:
            message = {"role": "tool", "content": content, "name": name or ""}
            if call_id is not None:
                message["tool_call_id"] = call_id
            messages.append(message)
        return messages

    def _turn_info(self, calls: Sequence[ToolCall], results: list[tuple[str | None, str, str | None]]) -> dict:
        return {"tool_calls": [{"name": c.name, "arguments": dict(c.arguments)} for c in calls],
                "tool_results": [content for _, content, _ in results],
                "tool_metrics": {k: self.metrics[k] for k in TOOL_METRICS}}


def single_turn_base(base: str, base_kwargs: Mapping[str, Any] | None = None, data_files: Any = None,
                     fields: Mapping[str, str] | None = None) -> TextEnv:
    """The single-turn env ``base`` whose tasks, prompt template and verifier a tool env takes.

    ``data_files`` and ``fields`` (what ``rlenv eval --data/--field`` give) go to ``base`` with
    ``base_kwargs``.
    """
    kwargs = dict(base_kwargs or {})
    kwargs.update({k: v for k, v in (("data_files", data_files), ("fields", fields)) if v is not None})
    return text_env(make(base, **kwargs))

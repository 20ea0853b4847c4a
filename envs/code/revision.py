"""Code revision envs: the policy runs its code against the visible tests, revises, then submits.

The prompt shows the task's first ``num_visible`` tests; the ``run_tests(code)`` tool runs code
against those tests only, as one fresh sandbox job per call through the env's own
:class:`~rlenv.envs.code.CodeVerifier` (so the visible tests are run and compared exactly as
grading runs them). A turn without a tool call is the submission, graded by the same verifier on
all of the task's tests in a fresh job, exactly as the single-turn env grades a completion. The
other tests never enter a tool call's job.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from rlenv.envs.code.formats import AssertTests, HumanEvalTests, IOTests
from rlenv.envs.code.verifier import CodeVerifier
from rlenv.envs.code.visible_tests import visible_tests as prompt_examples
from rlenv.sources import TaskSource
from rlenv.tools import Tool, ToolEnv, single_turn_base
from rlenv.types import Task

RUN_TESTS_SCHEMA = {"type": "function", "function": {
    "name": "run_tests",
    "description": "Run a complete Python solution against the visible tests; reports each test's outcome.",
    "parameters": {"type": "object", "properties": {"code": {"type": "string", "description": "the whole solution"}},
                   "required": ["code"]},
}}
INSTRUCTION = ("\n\nYou may call run_tests(code) to run a solution against the visible tests above, and revise it. "
               "When you are done, reply without a tool call, with your final solution in a ```python block.")


def visible_tests(tests: Any, count: int) -> IOTests | AssertTests | HumanEvalTests:
    """The first ``count`` tests of ``tests``: stdin/stdout cases, ``assert`` statements, or (HumanEval,
    whose hidden tests are one ``check`` function) the examples of the prompt's docstring
    (``>>> f(1)`` then ``2``, ``f(1) == 2``...) as a ``check`` of their own, graded as the hidden one is."""
    if isinstance(tests, IOTests):
        return dataclasses.replace(tests, cases=tests.cases[:count])
    if isinstance(tests, AssertTests):
        return dataclasses.replace(tests, tests=tests.tests[:count])
    if isinstance(tests, HumanEvalTests):
        calls = [(e.args, e.expected) for e in prompt_examples(tests.prompt) if e.args is not None][:count]
        asserts = [f"    assert candidate({', '.join(map(repr, args))}) == {expected!r}" for args, expected in calls]
        return dataclasses.replace(tests, test="def check(candidate):\n" + ("\n".join(asserts) or "    pass") + "\n")
    raise TypeError(f"code revision needs IOTests, AssertTests or HumanEvalTests (visible tests to show), "
                    f"got {type(tests).__name__}")


def count_tests(tests: IOTests | AssertTests | HumanEvalTests) -> int:
    """How many tests ``tests`` holds (a HumanEval ``check``: its ``assert`` statements)."""
    if isinstance(tests, IOTests):
        return len(tests.cases)
    if isinstance(tests, AssertTests):
        return len(tests.tests)
    return sum(snippet.lstrip().startswith("assert") for snippet in tests.snippets)


def show_tests(tests: IOTests | AssertTests | HumanEvalTests) -> str:
    """The tests as the prompt shows them."""
    if isinstance(tests, AssertTests):
        return "\n".join(tests.tests)
    if not count_tests(tests):
        return "(none for this task)"
    if isinstance(tests, HumanEvalTests):
        return "\n".join(s.strip().replace("candidate(", f"{tests.entry_point}(", 1) for s in tests.snippets)
    return "\n\n".join(f"Input:\n{stdin}Expected output:\n{expected}" for stdin, expected in tests.cases)


class CodeRevisionEnv(ToolEnv):
    """A code task with the ``run_tests`` tool on its visible tests (see the module docstring).

    Args:
        source, verifier: The tasks (references of type ``IOTests`` or ``AssertTests``) and the
            :class:`~rlenv.envs.code.CodeVerifier` that grades submissions.
        num_visible: How many of each task's tests the prompt shows and ``run_tests`` runs.
        **kwargs: :class:`~rlenv.tools.ToolEnv`'s settings (``max_turns`` defaults to 6).
    """

    def __init__(self, source: TaskSource, verifier: CodeVerifier, num_visible: int = 1, max_turns: int = 6,
                 **kwargs: Any):
        if isinstance(num_visible, bool) or not isinstance(num_visible, int) or num_visible < 1:
            raise ValueError(f"num_visible must be a positive int, got {num_visible!r}")
        super().__init__(source, verifier, tools=[Tool(self.run_tests, RUN_TESTS_SCHEMA)], max_turns=max_turns,
                         **kwargs)
        self.num_visible = num_visible

    def visible_task(self, task: Task) -> Task:
        """``task`` with only its visible tests as the reference."""
        return dataclasses.replace(task, reference=visible_tests(task.reference, self.num_visible))

    def format_prompt(self, task: Task):
        shown = show_tests(self.visible_task(task).reference)
        return super().format_prompt(dataclasses.replace(task, prompt=f"{task.prompt}\n\nVisible tests:\n{shown}"
                                                                       f"{INSTRUCTION}"))

    def run_tests(self, code: str) -> str:
        """Run ``code`` against the current task's visible tests, in a fresh sandbox job."""
        task = self.visible_task(self.current()[0])
        if not count_tests(task.reference):
            raise ValueError("this task shows no tests to run: submit your solution")
        result = self.verifier(task, f"```python\n{code}\n```")
        tests = result.details.get("tests", [])
        lines = [f"test {i}: {t['status']}" + (f" ({t['error']})" if t.get("error") else "")
                 for i, t in enumerate(tests, start=1)]
        summary = f"passed {sum(t['status'] == 'passed' for t in tests)} of {len(tests)} visible tests"
        error = result.details.get("error")
        return "\n".join([summary, *lines] + ([f"error: {error}"] if error and not tests else []))


def make_code_revision_env(base: str = "rlenv/CodeIO-v0", base_kwargs: Mapping[str, Any] | None = None,
                           num_visible: int = 1, data_files: Any = None, fields: Mapping[str, str] | None = None,
                           **kwargs: Any) -> CodeRevisionEnv:
    """Build a code revision env on the tasks and verifier of the code env ``base``
    (``rlenv/CodeIO-v0``, ``rlenv/CodeContests-v0``, ``rlenv/MBPP-v0``, ``rlenv/HumanEval-v0``:
    its visible tests are its docstring's examples, see :func:`visible_tests`). ``data_files``
    and ``fields`` (``rlenv eval --data/--field``) go to ``base``."""
    single = single_turn_base(base, base_kwargs, data_files, fields)
    if not isinstance(single.verifier, CodeVerifier):
        raise TypeError(f"{base!r} is not a code env: its verifier is a {type(single.verifier).__name__}, "
                        "not a CodeVerifier")
    return CodeRevisionEnv(single.source, single.verifier, num_visible=num_visible,
                           prompt_template=single.prompt_template, **kwargs)

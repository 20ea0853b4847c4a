"""The import rules of ``docs/architecture.md`` as tests, and the error types every room shares.

Every import statement of the product is read with :mod:`ast`, those inside functions (lazy
imports) included, with the folder each room lives in mapped to its import name.
"""

import ast
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import rlenv
from rlenv.errors import RlenvError, UnknownEnvError, check_choice

ROOT = Path(__file__).resolve().parents[2]
#: folder -> import name of the room
ROOMS = {"rlenv": "rlenv", "envs": "rlenv.envs", "trainers": "rlenv.trainers", "sandbox": "rlenv.sandbox"}
#: Core modules that may import the other rooms: the command line and the service itself.
CORE_EDGE = ("rlenv.commands", "rlenv.cli", "rlenv.__main__", "rlenv.service")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    parts[0] = ROOMS[parts[0]]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path) -> set[str]:
    """Every module ``path`` imports (``from a import b`` counts as ``a`` and ``a.b``), anywhere in it."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def room_modules(folder: str) -> dict[str, set[str]]:
    return {module_name(path): imports(path) for path in sorted((ROOT / folder).rglob("*.py"))
            if "build" not in path.relative_to(ROOT).parts}


def within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def test_the_rooms_are_read():
    assert len(room_modules("rlenv")) > 40 and len(room_modules("trainers")) > 10
    assert "rlenv.sandbox.errors" in imports(ROOT / "sandbox" / "pool.py")  # lazy and relative forms resolve too


def test_trainers_never_import_the_environment_families():
    found = {m: sorted(i for i in imported if within(i, "rlenv.envs"))
             for m, imported in room_modules("trainers").items()}
    assert {m: i for m, i in found.items() if i} == {}


def test_the_sandbox_imports_nothing_of_rlenv_but_itself_and_the_error_base():
    found = {m: sorted(i for i in imported if within(i, "rlenv") and not within(i, "rlenv.sandbox")
                       and i != "rlenv.errors" and not i.startswith("rlenv.errors."))
             for m, imported in room_modules("sandbox").items()}
    assert {m: i for m, i in found.items() if i} == {}


def test_the_runner_imports_nothing_of_rlenv_but_the_protocol_and_its_own_modules():
    """The container has no rlenv: the runner's modules are assembled into one script (sandbox/assembly.py)."""
    runner = {m: imported for m, imported in room_modules("sandbox").items() if within(m, "rlenv.sandbox.runner")}
    assert len(runner) > 10
    found = {m: sorted(i for i in imported if within(i, "rlenv") and not within(i, "rlenv.sandbox.runner")
                       and not within(i, "rlenv.sandbox.protocol"))
             for m, imported in runner.items()}
    assert {m: i for m, i in found.items() if i} == {}


def test_the_core_never_imports_the_service_the_families_the_trainers_or_the_sandbox():
    others = ("rlenv.service", "rlenv.envs", "rlenv.trainers", "rlenv.sandbox")
    found = {m: sorted(i for i in imported if any(within(i, o) for o in others) and not within(i, m))
             for m, imported in room_modules("rlenv").items() if not any(within(m, e) for e in CORE_EDGE)}
    assert {m: i for m, i in found.items() if i} == {}


def module_graph() -> dict[str, set[str]]:
    """Every module of the product -> the product modules it imports, anywhere in it (lazy imports
    included). ``from a import b`` is an edge to ``a.b`` when that is a module, else to ``a``;
    a package's ``__init__`` is not an edge of every import below it."""
    paths = {module_name(path): path for folder in ROOMS for path in sorted((ROOT / folder).rglob("*.py"))
             if "build" not in path.relative_to(ROOT).parts}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                targets.update(f"{base}.{a.name}" if f"{base}.{a.name}" in paths else base for a in node.names)
        graph[name] = {t for t in targets if t in paths and t != name}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
    return cycles


def test_the_cycle_finder_finds_cycles():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"f"}, "f": {"e"}, "g": set()}
    assert sorted(import_cycles(graph)) == [["a", "b", "c"], ["e", "f"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_of_the_product_is_part_of_an_import_cycle():
    graph = module_graph()
    assert len(graph) > 150 and "rlenv.scoring.local" in graph["rlenv.scoring.ray_backend"]
    assert import_cycles(graph) == []


def test_import_rlenv_loads_neither_torch_nor_the_service_layer():
    code = ("import sys, rlenv; print(sorted(m for m in ('torch', 'rlenv.service', 'rlenv.service.client', 'httpx') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_moved_remote_verifier_name_still_works_with_a_deprecation_warning():
    from rlenv.service import RemoteVerifier

    with pytest.warns(DeprecationWarning, match="rlenv.service.RemoteVerifier"):
        assert rlenv.RemoteVerifier is RemoteVerifier
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        rlenv.Nope  # noqa: B018


def test_an_unknown_env_id_is_an_unknown_env_error_and_still_a_key_error():
    with pytest.raises(UnknownEnvError) as raised:
        rlenv.make("rlenv/GSM8k-v0")
    assert isinstance(raised.value, KeyError) and isinstance(raised.value, RlenvError)
    assert str(raised.value).startswith("no environment registered as 'rlenv/GSM8k-v0'")  # not quoted as KeyError's
    assert "rlenv/GSM8K-v0" in str(raised.value)


def test_every_deliberate_error_derives_from_the_one_base():
    from rlenv.checker import EnvCheckError
    from rlenv.hub import DatasetUnavailableError
    from rlenv.sandbox import BuildError, ContainerError, SandboxBusy, SandboxError, SandboxUnavailable
    from rlenv.scoring.ray_backend import NoScoringNodes
    from rlenv.scoring.worker_pool import WorkerStartError
    from rlenv.service.client import RemoteScoringError

    builtin = {EnvCheckError: AssertionError, DatasetUnavailableError: ConnectionError, NoScoringNodes: RuntimeError,
               WorkerStartError: RuntimeError, RemoteScoringError: RuntimeError, SandboxError: RuntimeError}
    for error, old_base in builtin.items():
        assert issubclass(error, RlenvError) and issubclass(error, old_base), error
    for error in (BuildError, ContainerError, SandboxBusy, SandboxUnavailable):
        assert issubclass(error, SandboxError), error


def test_check_choice_names_the_setting_the_choices_and_the_value():
    check_choice("mode", "a", ("a", "b"))
    with pytest.raises(ValueError, match=r"mode must be one of \('a', 'b'\), got 'c'"):
        check_choice("mode", "c", ("a", "b"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="got \\[1\\]"):
            check_choice("mode", [1], ("a",))  # an unhashable value is just another bad value

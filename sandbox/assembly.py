"""The one script a sandbox container receives: the runner's modules, assembled.

The in-container runner is written as one module per concern (:mod:`rlenv.sandbox.runner`), each
importable and testable on the host; the container has no rlenv installed and runs a single
standard-library file. :func:`assemble_runner` follows the ``from rlenv... import ...`` statements
from the runner's entry module, puts every module it reaches in dependency order (the wire protocol,
:mod:`rlenv.sandbox.protocol`, first), and joins their texts into one namespace: each module's
docstring, ``from __future__`` import and rlenv imports are left out (the names they import are
defined earlier in the same script), and the script starts with the runner package's docstring.

The flattening is checked, not assumed: the modules must import each other only with top-level
``from rlenv.sandbox... import name`` statements of names they define, without cycles, and no two
modules may bind one top-level name to different things.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
from collections.abc import Callable
from importlib.resources import files

#: The package of the in-container runner; its docstring leads the script.
RUNNER_PACKAGE = "rlenv.sandbox.runner"
#: The module whose ``main()`` the script runs (``if __name__ == "__main__"``, at its end).
RUNNER_ENTRY = "rlenv.sandbox.runner.main"
_SANDBOX = "rlenv.sandbox"


class AssemblyError(RuntimeError):
    """The runner's modules cannot be flattened into one script (the message names the module)."""


@dataclasses.dataclass(frozen=True)
class _Module:
    name: str
    text: str
    tree: ast.Module


@functools.cache
def runner_source() -> str:
    """The script a sandbox container runs: the installed runner, assembled (see :func:`assemble_runner`)."""
    folder = files(_SANDBOX)
    return assemble_runner(lambda path: (folder / path).read_text(encoding="utf-8"))


def assemble_runner(read: Callable[[str], str], entry: str = RUNNER_ENTRY) -> str:
    """One script of the runner whose entry module is ``entry``, its modules read with ``read``
    (a path under the ``sandbox`` folder, e.g. ``"runner/main.py"``, to the file's text; raising
    ``FileNotFoundError`` for a file that is not there). Benchmarks pass a reader of an earlier git
    revision; ``entry`` = :data:`RUNNER_PACKAGE` assembles a runner that was still one module."""
    modules = _in_dependency_order(entry, read)
    lead = modules[-1] if entry == RUNNER_PACKAGE else _load(RUNNER_PACKAGE, read)
    docstring = ast.get_docstring(lead.tree, clean=False)
    if docstring is None:
        raise AssemblyError(f"{RUNNER_PACKAGE} has no docstring to lead the script")
    _check_names(modules)
    parts = [_docstring_text(lead), "\n\nfrom __future__ import annotations\n"]
    parts += ["\n" + _body(module) for module in modules]
    return "".join(parts)


def _path_candidates(name: str) -> list[str]:
    relative = name.removeprefix(_SANDBOX + ".").replace(".", "/")
    return [f"{relative}.py", f"{relative}/__init__.py"]


def _load(name: str, read: Callable[[str], str]) -> _Module:
    if not name.startswith(_SANDBOX + "."):
        raise AssemblyError(f"the runner may import only modules of {_SANDBOX}, not {name}")
    for path in _path_candidates(name):
        try:
            text = read(path)
        except FileNotFoundError:
            continue
        return _Module(name, text, ast.parse(text, path))
    raise AssemblyError(f"no module {name}: none of {_path_candidates(name)} under the sandbox folder")


def _rlenv_imports(module: _Module) -> list[ast.ImportFrom]:
    """The module's top-level ``from rlenv... import`` statements; any other import of rlenv is an error."""
    found = []
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "rlenv" for a in node.names):
            raise AssemblyError(f"{module.name}, line {node.lineno}: 'import rlenv...' cannot be flattened")
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").split(".")[0] == "rlenv"):
            if node not in module.tree.body or node.level:
                raise AssemblyError(f"{module.name}, line {node.lineno}: rlenv imports must be absolute and "
                                    "at the top level")
            found.append(node)
    return found


def _in_dependency_order(entry: str, read: Callable[[str], str]) -> list[_Module]:
    """``entry`` and every module it reaches through rlenv imports, each after the modules it imports."""
    ordered: list[_Module] = []
    done: set[str] = set()
    path: list[str] = []

    def visit(name: str) -> None:
        if name in path:
            raise AssemblyError(f"import cycle between the runner's modules: {' -> '.join([*path, name])}")
        if name in done:
            return
        path.append(name)
        module = _load(name, read)
        for node in _rlenv_imports(module):
            visit(str(node.module))
        path.pop()
        done.add(name)
        ordered.append(module)

    visit(entry)
    return ordered


def _bindings(module: _Module) -> dict[str, str]:
    """Top-level name -> what it is bound to: ``import`` and ``from`` imports by their target, every
    other binding (definitions, assignments) by the module that makes it."""
    bound: dict[str, str] = {}
    for node in module.tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            if node.module != "__future__" and (node.module or "").split(".")[0] != "rlenv":
                bound.update({alias.asname or alias.name: f"{node.module}.{alias.name}" for alias in node.names})
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound[node.name] = module.name
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                bound.update({n.id: module.name for n in ast.walk(target) if isinstance(n, ast.Name)})
    return bound


def _check_names(modules: list[_Module]) -> None:
    """Every top-level name means one thing in the one namespace, and every name a module imports
    from another module of the runner is one that module defines."""
    owner: dict[str, str] = {}
    for module in modules:
        for name, target in _bindings(module).items():
            if owner.setdefault(name, target) != target:
                raise AssemblyError(f"{module.name} binds {name!r} to {target}, another module to {owner[name]}: "
                                    "the assembled script has one namespace")
    for module in modules:
        for node in _rlenv_imports(module):
            for alias in node.names:
                if alias.asname or owner.get(alias.name) != node.module:
                    raise AssemblyError(f"{module.name} imports {alias.name!r} from {node.module}, which does "
                                        "not define it (or renames it): the assembled script cannot resolve it")


def _docstring_text(module: _Module) -> str:
    node = module.tree.body[0]
    return str(ast.get_source_segment(module.text, node))


def _body(module: _Module) -> str:
    """The module's text without its docstring, ``from __future__`` import and rlenv imports."""
    dropped: set[int] = set()
    imports = _rlenv_imports(module)
    for node in module.tree.body:
        docstring = node is module.tree.body[0] and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
        if docstring or future or node in imports:
            dropped.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    kept = [line for number, line in enumerate(module.text.splitlines(keepends=True), 1) if number not in dropped]
    return "".join(kept).strip("\n") + "\n"

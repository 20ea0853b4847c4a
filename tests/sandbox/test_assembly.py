"""The runner's modules assembled into the one script a container runs, and the checks that make the
flattening safe (one namespace: no name bound twice, imports only of what the other modules define)."""

import ast
from pathlib import Path

import pytest

from rlenv.sandbox import container
from rlenv.sandbox.assembly import RUNNER_PACKAGE, AssemblyError, assemble_runner, runner_source

SANDBOX = Path(__file__).resolve().parents[2] / "sandbox"


def reader(files: dict[str, str]):
    def read(path: str) -> str:
        if path not in files:
            raise FileNotFoundError(path)
        return files[path]

    return read


def top_level_names(text: str) -> list[str]:
    return [node.name for node in ast.parse(text).body if isinstance(node, (ast.FunctionDef, ast.ClassDef))]


def test_the_script_holds_every_runner_module_once_in_dependency_order():
    source = runner_source()
    modules = sorted(p for p in (SANDBOX / "runner").glob("*.py") if p.name != "__init__.py")
    assert len(modules) >= 10
    defined = top_level_names(source)
    assert len(defined) == len(set(defined))  # one namespace, nothing twice
    for path in [SANDBOX / "protocol.py", *modules]:  # every module is reached from the entry, whole
        names = top_level_names(path.read_text())
        assert names and set(names) <= set(defined), path
    order = [defined.index(top_level_names(p.read_text())[0]) for p in
             (SANDBOX / "protocol.py", SANDBOX / "runner" / "confinement.py", SANDBOX / "runner" / "seccomp.py",
              SANDBOX / "runner" / "main.py")]
    assert order == sorted(order)
    assert source.startswith('"""' + ast.get_docstring(ast.parse((SANDBOX / "runner" / "__init__.py").read_text())))
    assert source.rstrip().endswith('if __name__ == "__main__":\n    sys.exit(main())')


def test_the_script_defines_the_same_functions_as_the_modules():
    """Run without starting the main loop, it binds each module's functions, with the same code."""
    namespace = {"__name__": "assembled"}
    exec(compile(runner_source(), "sandbox/runner.py", "exec"), namespace)
    from rlenv.sandbox.runner import scrub, verdict

    assert namespace["job_status"]([{"status": "passed"}, {"status": "failed"}]) == "failed"
    for function in (verdict.grade_program, scrub.drift, scrub.empty_directory):
        assert namespace[function.__name__].__code__.co_code == function.__code__.co_code


BASE = {
    "runner/__init__.py": '"""The runner."""\n',
    "protocol.py": '"""Protocol."""\n\nfrom __future__ import annotations\n\nimport os\n\nSTATUS = "ok"\n',
    "runner/main.py": ('"""Main."""\n\nfrom __future__ import annotations\n\nimport os\n\n'
                       "from rlenv.sandbox.protocol import STATUS\nfrom rlenv.sandbox.runner.util import (\n"
                       "    helper,\n)\n\n\ndef main():\n    return helper(STATUS)\n"),
    "runner/util.py": '"""Util."""\n\nimport sys\n\n\ndef helper(value):\n    return value\n',
}


def test_a_small_runner_assembles_into_one_namespace():
    source = assemble_runner(reader(BASE))
    assert source.startswith('"""The runner."""\n\nfrom __future__ import annotations\n')
    assert "rlenv" not in source and source.count("from __future__") == 1
    assert source.index("STATUS =") < source.index("def helper") < source.index("def main")
    namespace: dict = {}
    exec(source, namespace)
    assert namespace["main"]() == "ok"


def test_a_runner_from_before_the_split_assembles_from_its_one_module():
    files = {"protocol.py": BASE["protocol.py"],
             "runner.py": '"""Old runner."""\n\nfrom rlenv.sandbox.protocol import (\n    STATUS,\n)\n\nX = STATUS\n'}
    with pytest.raises(AssemblyError, match="no module rlenv.sandbox.runner.main"):
        assemble_runner(reader(files))
    source = assemble_runner(reader(files), entry=RUNNER_PACKAGE)
    assert source.startswith('"""Old runner."""') and source.index("STATUS =") < source.index("X = STATUS")
    with pytest.warns(DeprecationWarning, match="use rlenv.sandbox.assembly.assemble_runner"):
        assert container.assemble_runner(files["runner.py"], files["protocol.py"]) == source


@pytest.mark.parametrize(("change", "message"), [
    ({"runner/util.py": 'import sys\n\n\ndef helper(v):\n    return v\n\n\ndef main():\n    pass\n'},
     "rlenv.sandbox.runner.main binds 'main' to rlenv.sandbox.runner.main, another module to "
     "rlenv.sandbox.runner.util: the assembled script has one namespace"),
    ({"runner/util.py": 'import os.path as os\n\n\ndef helper(v):\n    return v\n'},
     "rlenv.sandbox.runner.util binds 'os' to os.path, another module to os"),
    ({"runner/util.py": 'from rlenv.sandbox.runner.main import main\n\n\ndef helper(v):\n    return v\n'},
     "import cycle between the runner's modules: rlenv.sandbox.runner.main -> rlenv.sandbox.runner.util -> "
     "rlenv.sandbox.runner.main"),
    ({"runner/util.py": 'from rlenv.sandbox.protocol import MISSING\n\n\ndef helper(v):\n    return v\n'},
     "imports 'MISSING' from rlenv.sandbox.protocol, which does not define it"),
    ({"runner/util.py": 'from rlenv.sandbox.protocol import STATUS as S\n\n\ndef helper(v):\n    return v\n'},
     "imports 'STATUS' from rlenv.sandbox.protocol, which does not define it \\(or renames it\\)"),
    ({"runner/util.py": 'import rlenv.sandbox.protocol\n\n\ndef helper(v):\n    return v\n'},
     "'import rlenv...' cannot be flattened"),
    ({"runner/util.py": 'def helper(v):\n    from rlenv.sandbox.protocol import STATUS\n    return STATUS\n'},
     "rlenv imports must be absolute and at the top level"),
    ({"runner/util.py": 'from rlenv.envs import x\n\n\ndef helper(v):\n    return v\n'},
     "the runner may import only modules of rlenv.sandbox, not rlenv.envs"),
    ({"runner/__init__.py": "X = 1\n"}, "rlenv.sandbox.runner has no docstring"),
])
def test_what_cannot_be_flattened_is_refused_by_name(change, message):
    with pytest.raises(AssemblyError, match=message):
        assemble_runner(reader({**BASE, **change}))


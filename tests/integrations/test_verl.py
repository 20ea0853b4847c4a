"""verl's reward managers on rlenv's compute_score: the cases of ``verl_cases.py``, run in verl's environment.

verl needs omegaconf/hydra, which need antlr4 4.9; math-verify's full LaTeX grammar needs antlr4
4.13 (with 4.9, ``\\boxed{10\\%}`` no longer parses), so verl cannot be installed beside rlenv's
own test environment. ``.ci/run`` builds ``.venv-verl``: a virtualenv on top of rlenv's environment
(a ``.pth`` file adds its site-packages after the venv's own, so it sees rlenv, torch, transformers,
ray) holding only antlr4 4.9.3, omegaconf, hydra-core and verl (without its version pins, at the
versions of ``.ci/verl-constraints.txt``). Its interpreter can be
given as ``RLENV_VERL_PYTHON``. Each case here reports one case of ``verl_cases.py`` from a single
pytest run in that environment.
"""

import ast
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CASES_FILE = HERE / "verl_cases.py"
CASES = [node.name for node in ast.parse(CASES_FILE.read_text()).body
         if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")]


def verl_python() -> Path:
    return Path(os.environ.get("RLENV_VERL_PYTHON") or ROOT / ".venv-verl" / "bin" / "python")


@pytest.fixture(scope="module")
def verl_results(tmp_path_factory):
    """``{test name: [(outcome, message), ...]}`` from one pytest run of the cases in verl's environment."""
    python = verl_python()
    if not python.exists():
        pytest.skip(f"verl's environment is missing ({python}): build it as .ci/run does, or set RLENV_VERL_PYTHON")
    report = tmp_path_factory.mktemp("verl") / "report.xml"
    run = subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", str(CASES_FILE),
                          f"--junitxml={report}", f"--rootdir={ROOT}"],
                         cwd=ROOT, capture_output=True, text=True, timeout=900,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(HERE.parent)])})
    if not report.exists():
        pytest.fail(f"verl's pytest run wrote no report (exit {run.returncode}):\n{run.stdout[-3000:]}{run.stderr[-3000:]}")
    results: dict[str, list[tuple[str, str]]] = {}
    for case in ET.parse(report).iter("testcase"):
        name = case.get("name", "").split("[")[0]
        problem = next(iter(case.findall("failure") + case.findall("error") + case.findall("skipped")), None)
        outcome = "passed" if problem is None else problem.tag
        results.setdefault(name, []).append((outcome, "" if problem is None else (problem.get("message") or "")
                                             + "\n" + (problem.text or "")[-2000:]))
    return results


@pytest.mark.parametrize("case", CASES)
def test_verl(case, verl_results):
    assert sys.executable != str(verl_python())
    outcomes = verl_results.get(case)
    assert outcomes, f"{case} did not run in verl's environment"
    failed = [message for outcome, message in outcomes if outcome != "passed"]
    assert not failed, f"{case} in verl's environment:\n" + "\n".join(failed)

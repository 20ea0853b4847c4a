"""Batch grading by distinct answers: verdicts equal one-by-one grading, checks shared, deadlines per check."""

import logging
import random

import pytest

from rlenv import Status, Task
from rlenv.envs.math import MathVerifier
from rlenv.envs.math.batch import grade_batch
from rlenv.envs.math.checks import check, gold_answer
from rlenv.envs.math.config import GradingConfig
from rlenv.envs.math.grading import grade
from rlenv.scoring.worker_pool import Outcome, _Batch

logging.getLogger("math_verify").setLevel(logging.ERROR)

DEADLINE = 1.5
SLOW = r"\dfrac{5^{\left(5^{\left(5^{\left(5^5\right)}\right)} - 4\right)} - 5}{16}"  # its comparison overruns

# Competition-style golds, each with answers a sampled group might commit to: the gold, other forms
# of it, wrong answers, text, junk. Every group also draws from JUNK.
FAMILIES = [
    (r"\frac{3}{4}", [r"\frac{3}{4}", r"\dfrac34", "0.75", r"\frac{6}{8}", r"\frac{4}{3}", "3/4", r"\frac{3}{5}"]),
    (r"\frac{3\sqrt{2}}{4}", [r"\frac{3\sqrt{2}}{4}", r"\frac{3}{4}\sqrt{2}", r"\frac{3}{2\sqrt{2}}", r"\frac{3\sqrt{2}}{2}",
                              r"3\sqrt{2}", r"4\sqrt(2)"]),
    (r"(-\infty, -2] \cup [3, \infty)", [r"(-\infty, -2] \cup [3, \infty)", r"(-\infty,-2]\cup[3,\infty)",
                                         r"(-\infty, -2) \cup (3, \infty)", "[-2, 3]", r"x \le -2 \text{ or } x \ge 3"]),
    (r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}", [r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}",
                                                       r"\begin{pmatrix}1&2\\3&4\end{pmatrix}",
                                                       r"\begin{pmatrix} 1 & 3 \\ 2 & 4 \end{pmatrix}",
                                                       r"\begin{bmatrix} 1 & 2 \\ 3 & 4 \end{bmatrix}"]),
    (r"\{1, 2, 5\}", [r"\{1, 2, 5\}", r"\{5, 2, 1\}", "1, 2, 5", r"\{1, 2\}", "1,2,5,6"]),
    ("18", ["18", "18.0", r"\$18", "19", "18 dollars", "1,800"]),
    ("19", ["19", "18", "19.0", r"\frac{38}{2}"]),
    (r"\text{Monday}", [r"\text{Monday}", "Monday", r"\text{Tuesday}"]),
    ("1011_2", ["1011_2", "1011_{2}", "11", "1011_3", "1011"]),
    (r"\frac{1}{6}", [r"\frac{1}{6}", r"0.1\overline{6}", r"0.1\overline{7}", "0.16"]),
    (r"90^\circ", [r"90^\circ", "90°", "45°", r"\frac{\pi}{2}"]),
    (r"\frac{1}{7}\begin{pmatrix}12 \\ -3\end{pmatrix}", [r"\frac{1}{7}\begin{pmatrix}12 \\ -3\end{pmatrix}",
                                                        r"\begin{pmatrix}12/7 \\ -3/7\end{pmatrix}",
                                                        r"\begin{pmatrix}12 \\ -3\end{pmatrix}"]),
    (r"\text{(C)}", [r"\text{(C)}", "(C) Plane", "(D)", r"\text{(B) Plane}", "C"]),
]
JUNK = ["", "x" * 30, r"\sqrt{", "$$"]
SETTINGS = [{}, {"hedging": "last"}, {"max_answers": 2}, {"max_answer_chars": 12},
            {"last_number": True, "formats": ("gsm8k", "boxed")}]


def random_completion(rng, answers):
    """A completion committing to 1-3 answers of ``answers`` in a random format."""
    chosen = [rng.choice(answers) for _ in range(rng.choice([1, 1, 1, 2, 3]))]
    form = rng.choice(["boxed", "boxed", "answer_is", "gsm8k", "answer_tag", "mixed", "think", "none"])
    if form == "boxed":
        return "Working. " + " Hmm, so ".join(f"$\\boxed{{{a}}}$" for a in chosen)
    if form == "answer_is":
        return " ".join(f"The answer is ${a}$." for a in chosen)
    if form == "gsm8k":
        return "\n".join(f"#### {a}" for a in chosen)
    if form == "answer_tag":
        return "".join(f"<answer>{a}</answer>" for a in chosen)
    if form == "mixed":
        return f"The answer is {chosen[0]}. Final: \\boxed{{{chosen[-1]}}}"
    if form == "think":
        return f"<think>\\boxed{{{chosen[0]}}}</think> So \\boxed{{{chosen[-1]}}}"
    return f"I tried 12 and {rng.randint(1, 30)} but did not finish."


def random_batch(rng):
    """A few groups of 8 completions sharing a few answers; sometimes interleaved, sometimes a bad reference."""
    tasks, completions = [], []
    for g in range(rng.randint(2, 4)):
        gold, forms = rng.choice(FAMILIES)
        reference = rng.choice([gold, gold, gold, forms[1], "  "])
        pool = rng.sample(forms, min(len(forms), rng.randint(2, 4))) + rng.sample(JUNK, 1)
        task = Task(f"g{g}", "q", reference=reference)
        tasks += [task] * 8
        completions += [random_completion(rng, pool) for _ in range(8)]
    if rng.random() < 0.3:
        order = rng.sample(range(len(tasks)), len(tasks))
        tasks, completions = [tasks[i] for i in order], [completions[i] for i in order]
    return tasks, completions


def alone(config, reference, completion):
    """``grading.grade`` of one completion, in this process: (status, details) or the error text."""
    try:
        return grade(config, reference, completion)
    except ValueError as exc:
        return "error", f"{type(exc).__name__}: {exc}"


def summary(result):
    return (result.status.value, dict(result.details)) if result.status is not Status.ERROR \
        else ("error", result.details["error"])


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: ",".join(s) or "defaults")
def test_batch_verdicts_equal_one_by_one_verdicts_on_random_groups(settings):
    verifier = MathVerifier(timeout=30.0, num_workers=2, **settings)
    rng = random.Random(f"batch-{sorted(settings.items())}")
    seen = set()
    for _ in range(6):
        tasks, completions = random_batch(rng)
        batch = verifier.score_batch(tasks, completions)
        one_by_one = [verifier(t, c) for t, c in zip(tasks, completions)]
        assert batch == one_by_one
        expected = [alone(verifier.config, t.reference, c) for t, c in zip(tasks, completions)]
        assert [summary(r) for r in batch] == expected
        seen |= {r.status for r in batch}
    assert seen >= {Status.CORRECT, Status.INCORRECT, Status.UNPARSABLE}  # the groups were mixed


class CountingPool:
    """The real pool, recording the checks of every round."""

    def __init__(self, pool):
        self.pool, self.rounds = pool, []

    def run(self, config, payloads, timeout, groups=None):
        self.rounds.append(list(payloads))
        return self.pool.run(config, payloads, timeout, groups)


def test_each_distinct_answer_of_a_group_is_checked_once_and_hedges_reuse_the_verdicts():
    verifier = MathVerifier(timeout=30.0, num_workers=2)
    gold = r"\frac{\sqrt{3}}{2}"
    completions = [r"\boxed{\frac{\sqrt{3}}{2}}", r"so $\boxed{\frac{\sqrt{3}}{2}}$", r"The answer is $\frac{\sqrt{3}}{2}$.",
                   r"\boxed{\frac{1}{2}}", r"\boxed{\frac12}", r"\boxed{\frac{1}{2}} or rather \boxed{\frac{\sqrt{3}}{2}}",
                   r"\boxed{\frac{\sqrt{3}}{2}} or rather \boxed{\frac{1}{2}}", "no answer"]
    counting = CountingPool(verifier.pool)
    outcomes = grade_batch(counting, verifier.config, [(gold, c) for c in completions], verifier.timeout)
    assert counting.rounds == [[(gold, None), (gold, r"\frac{\sqrt{3}}{2}"), (gold, r"\frac{1}{2}"), (gold, r"\frac12")]]
    statuses = [o.value[0] for o in outcomes]
    assert statuses == ["correct"] * 3 + ["incorrect"] * 4 + ["unparsable"]
    assert outcomes == [Outcome("ok", alone(verifier.config, gold, c)) for c in completions]


def test_a_hedged_answer_is_checked_only_when_the_final_answer_is_correct():
    verifier = MathVerifier(timeout=30.0, num_workers=2)
    completions = [r"\boxed{7} no: \boxed{5}", r"\boxed{9} no: \boxed{6}"]
    counting = CountingPool(verifier.pool)
    outcomes = grade_batch(counting, verifier.config, [("5", c) for c in completions], verifier.timeout)
    assert counting.rounds == [[("5", None), ("5", "5"), ("5", "6")], [("5", "7")]]  # never 9: 6 is wrong
    assert [o.value for o in outcomes] == [alone(verifier.config, "5", c) for c in completions]


def test_an_over_long_hedged_answer_is_incorrect_without_a_check():
    verifier = MathVerifier(timeout=30.0, num_workers=2, max_answer_chars=12)
    completion = r"\boxed{\frac{75}{100}} or \boxed{0.75}"
    counting = CountingPool(verifier.pool)
    (outcome,) = grade_batch(counting, verifier.config, [(r"\frac34", completion)], verifier.timeout)
    assert counting.rounds == [[(r"\frac34", None), (r"\frac34", "0.75")]]
    assert outcome.value == alone(verifier.config, r"\frac34", completion)
    assert outcome.value[0] == "incorrect" and "75" in outcome.value[1]["reason"]


@pytest.fixture(scope="module")
def bounded(bounded_verifier):
    return bounded_verifier


def test_a_slow_answer_times_out_once_and_only_for_the_completions_that_need_it(bounded):
    task = Task("t", "q", reference="5")
    completions = [r"\boxed{5}", f"\\boxed{{{SLOW}}}", f"The answer is ${SLOW}$.", r"\boxed{6}",
                   f"\\boxed{{{SLOW}}} no, \\boxed{{4}}",  # final answer wrong: the slow one is never needed
                   f"\\boxed{{{SLOW}}} no, \\boxed{{5}}",  # final answer right: needs the slow one
                   r"\boxed{5}", "#### 5"]
    before = bounded.pool.worker_pids()
    results = bounded.score_batch([task] * len(completions), completions)
    assert [r.status.value for r in results] == ["correct", "timeout", "timeout", "incorrect", "incorrect",
                                                 "timeout", "correct", "correct"]
    assert "deadline" in results[1].details["reason"]
    assert len(set(before) - set(bounded.pool.worker_pids())) == 1  # one check overran, one worker replaced


def test_a_gold_that_cannot_be_used_fails_every_completion_of_its_task_as_alone(bounded):
    tasks = [Task("empty", "q", reference="  ")] * 3 + [Task("ok", "q", reference="5")]
    results = bounded.score_batch(tasks, ["no answer", r"\boxed{5}", r"\boxed{}", r"\boxed{5}"])
    assert [r.status for r in results] == [Status.ERROR] * 3 + [Status.CORRECT]
    assert all("reference answer is empty" in r.details["error"] for r in results[:3])


def test_each_worker_parses_a_gold_once_per_settings():
    gold_answer.cache_clear()
    config, other = GradingConfig(), GradingConfig(hedging="last")
    assert check(config, (r"\frac{1}{2}", None)) is None
    assert check(config, (r"\frac{1}{2}", "0.5")) is True and check(config, (r"\frac{1}{2}", "0.4")) is False
    assert gold_answer.cache_info()[:2] == (2, 1)  # (hits, misses)
    check(other, (r"\frac{1}{2}", "0.5"))
    assert gold_answer.cache_info()[:2] == (2, 2)
    with pytest.raises(ValueError, match="empty after cleaning"):
        check(config, ("$ $", None))


def messages(groups, size):
    """The item ids of each message the pool packs for ``groups`` with messages of ``size`` items."""
    batch = _Batch(None, None, list(range(len(groups))), 1.0, groups)
    out = []
    while batch.pending:
        out.append(batch._pack(size)[0])
    return out


def test_the_pool_keeps_a_group_in_one_message_when_it_fits():
    groups = ["a"] * 3 + ["b"] * 3 + ["c"] * 3
    assert messages(groups, 4) == [[0, 1, 2, 3, 4, 5], [6, 7, 8]]  # b would be cut: the message takes all of it
    assert messages(groups, 2) == [[0, 1], [2, 3], [4, 5], [6, 7], [8]]  # groups bigger than a message are cut
    assert messages(["a"] * 40 + ["b"] * 40, 40) == [list(range(40)), list(range(40, 80))]
    assert messages(["a"] * 30 + ["b"] * 40, 40) == [list(range(30)), list(range(30, 70))]  # 70 > MAX_CHUNK: stop before b
    assert messages(list("abcdef"), 4) == [[0, 1, 2, 3], [4, 5]]

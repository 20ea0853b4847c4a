"""Grading policy of MathVerifier: leniencies kept, hedging, known math-verify false positives, statuses."""

import logging

import pytest
from math_verify import parse, verify

from rlenv import Status, Task
from rlenv.envs.math import MathVerifier
from rlenv.envs.math.config import GradingConfig

logging.getLogger("math_verify").setLevel(logging.ERROR)


@pytest.fixture(scope="module")
def verifier():
    return MathVerifier(timeout=30.0)


def score(verifier, reference, completion):
    return verifier(Task("t", "question", reference=reference), completion)


def raw_math_verify(gold, completion):
    """math-verify used directly: True when it accepts with the gold given plain or in ``$...$``."""
    pred = parse(completion, parsing_timeout=None)
    return any(verify(parse(g, parsing_timeout=None), pred, timeout_seconds=None) for g in (gold, f"${gold}$"))


# (gold, completion) pairs that are truly equivalent; raw math-verify accepts all but RAW_MISSES.
EQUIVALENT = [
    ("18", "#### 18"), ("60", "The speed is 60 km/h.\n\n#### 60 km/h"), ("1,000", "The answer is 1000."), ("1000", r"\boxed{1,000}"), (r"\frac{1}{2}", r"\boxed{0.5}"),
    (r"\frac12", r"\boxed{\frac{2}{4}}"), (r"10\%", r"\boxed{10}"), ("0.1", r"\boxed{10\%}"), ("2", r"\boxed{1+1}"),
    ("x=3", r"\boxed{3}"), ("3", r"\boxed{x=3}"), (r"\text{(A)}", r"\boxed{A}"), ("5", r"\boxed{5 \text{ cm}}"),
    (r"\{1,2\}", r"\boxed{\{2,1\}}"), ("(1,2)", r"\boxed{(1,2)}"),
    (r"\sqrt{2}", r"\boxed{\sqrt 2}"), (r"\sqrt{2}", r"The answer is $\sqrt{2}$."), ("2x+1", r"\boxed{1+2x}"),
    ("y=2x+1", r"\boxed{2x+1}"), ("3x-y+13=0", r"\boxed{y=3x+13}"), ("3*x-1*y+13=0", r"\boxed{6x - 2y + 26 = 0}"),
    ("[1,2]", r"\boxed{[1,2]}"), (r"\frac{\sqrt{3}}{2}", r"\boxed{\frac{\sqrt3}{2}}"), ("-5", "#### -5"),
    ("18", "#### $18"), ("18", "#### 18 dollars"), ("0.5", "The answer is 1/2."), (r"\infty", r"\boxed{\infty}"),
    (r"1-\frac{1}{e}", r"\boxed{\frac{e-1}{e}}"), ("f(x)=0", r"\boxed{0}"), ("f(x)=0", r"\boxed{f(x)=0}"), ("2, 3", r"\boxed{3, 2}"),
    (r"(5, \infty)", r"\boxed{(5,\infty)}"), ("x > 5", r"\boxed{(5, \infty)}"), (r"\frac{x-3}{2}", r"\boxed{\frac{x}{2}-\frac{3}{2}}"),
    (r"8\sqrt{2}", r"$\boxed{\sqrt{128}}$"), (r"\dfrac{7}{12}", r"\boxed{\frac{7}{12}}"), (r"12.5\%", "#### 12.5%"),
    ("0.125", r"\boxed{12.5\%}"), (r"\begin{pmatrix} 1 \\ 2 \end{pmatrix}", r"\boxed{\begin{pmatrix} 1 \\ 2 \end{pmatrix}}"),
    ("3", "The final answer is $3$. I hope it is correct."), ("5", "Final Answer: The final answer is $5$. I hope it is correct."),
    ("1.5", "#### 1.50"), (r"\$5.00", "#### 5"), (r"90^\circ", r"\boxed{90}"), (r"\text{Monday}", r"\boxed{\text{Monday}}"),
    (r"2\pi", r"\boxed{2\pi}"), ("a=1,b=2", r"\boxed{a=1, b=2}"), (r"\sqrt{1/2}", r"\boxed{\frac{\sqrt{2}}{2}}"),
    ("7", "The answer is 7 apples."), ("1,234,567", "#### 1234567"), ("4", "#### 4.0"), (r"\frac{1}{6}", r"\boxed{\tfrac16}"),
    ("4", r"\boxed{4}"),
]
RAW_MISSES = [
    (r"1-\frac{1}{\mathrm{e}}", r"\boxed{1 - \frac{1}{e}}"), ("5", "<answer>5</answer>"),
    (r"1-\frac{1}{\mathrm{e}}", "The answer is $1 - e^{-1}$."),
]

DIFFERENT = [
    ("18", "#### 19"), (r"\frac12", r"\boxed{\frac13}"), ("-1", r"\boxed{1}"), ("(1,2)", r"\boxed{(2,1)}"),
    ("[1,2]", r"\boxed{(1,2)}"), ("3", r"\boxed{3.0000001}"), (r"\pi", r"\boxed{3.14}"), ("1/3", r"\boxed{0.333}"),
    ("2x+1", r"\boxed{2x-1}"), ("x=3", r"\boxed{x=4}"), ("5", "#### 50"), ("1000", "#### 100"), (r"\sqrt{2}", r"\boxed{2}"),
    ("12", "The answer is 12 + 1."), ("7", "#### 7 and 8"),
]


def test_equivalent_answers_are_correct_and_nothing_raw_math_verify_accepts_is_lost(verifier):
    assert [p for p in EQUIVALENT if not raw_math_verify(*p)] == []
    assert [p for p in RAW_MISSES if raw_math_verify(*p)] == []
    pairs = EQUIVALENT + RAW_MISSES
    results = verifier.score_batch([Task(str(i), "q", reference=g) for i, (g, _) in enumerate(pairs)],
                                   [c for _, c in pairs])
    wrong = [(pair, r.status.value, dict(r.details)) for pair, r in zip(pairs, results) if not r.correct]
    assert not wrong
    assert all(r.value == 1.0 and r.components == {"correct": 1.0} for r in results)


@pytest.mark.parametrize(("gold", "completion"), DIFFERENT)
def test_different_answers_are_incorrect(verifier, gold, completion):
    result = score(verifier, gold, completion)
    assert result.status is Status.INCORRECT and result.value == 0.0, result.details


# The four false positives of math-verify 0.9.0 listed in the reference report and its rounding of
# long decimals, each written in the answer formats we extract. Raw math-verify accepts at least one form of each (checked below).
FALSE_POSITIVES = [
    ("4", r"4\sqrt(2)"),
    ("3*x-1*y+13=0", "3x + 4y + 14=0"),
    (r"1 - \frac{1}{\mathrm{e}}", r"1 + \frac{1}{\mathrm{e}}"),
    ("f(x) = 0", r"\forall x>0, f(x) = 0"),
    # a decimal for an exact value no decimal can write is an approximation, however many digits (issue 31)
    (r"\pi", "3.141593"), ("1/3", "0.333333"), (r"\sqrt{2}", "1.41421356237"),
]
FORMS = [r"\boxed{{{}}}", "The answer is ${}$.", "<answer>{}</answer>", r"Final Answer: The final answer is ${}$. I hope it is correct."]


@pytest.mark.parametrize(("gold", "wrong"), FALSE_POSITIVES)
def test_known_math_verify_false_positives_are_incorrect(verifier, gold, wrong):
    completions = [form.format(wrong) for form in FORMS]
    assert any(raw_math_verify(gold, c) for c in completions), "math-verify no longer has this false positive"
    results = verifier.score_batch([Task("t", "q", reference=gold)] * len(completions), completions)
    assert [r.status for r in results] == [Status.INCORRECT] * len(completions), [dict(r.details) for r in results]


@pytest.mark.parametrize(
    ("gold", "completion", "why"),
    [
        ("1", r"\boxed{1} or \boxed{2}", "hedged"),
        ("2", r"\boxed{1} or \boxed{2}", "hedged"),
        ("1", r"\boxed{2} hmm, actually \boxed{1}", "hedged"),
        ("6", "#### 5\n#### 6", "hedged"),
        ("3", r"\boxed{1, 2, 3, 4, 5}", "does not match"),
        ("1", r"\boxed{1 \text{ or } 2}", "does not match"),
        ("4", "The answer is 4. No wait, the answer is 5.", "does not match"),
    ],
)
def test_committing_to_several_different_answers_is_incorrect(verifier, gold, completion, why):
    result = score(verifier, gold, completion)
    assert result.status is Status.INCORRECT
    assert why in result.details["reason"]


def test_repeating_the_same_answer_is_not_hedging(verifier):
    assert score(verifier, "18", r"First \boxed{18}; checking again, \boxed{18.0}.").correct
    assert score(verifier, "0.5", r"\boxed{\frac{1}{2}} so the answer is \boxed{0.5}").correct


def test_hedging_last_counts_only_the_final_answer():
    last = MathVerifier(hedging="last", timeout=30.0)
    assert score(last, "1", r"\boxed{2} hmm, actually \boxed{1}").correct
    assert not score(last, "1", r"\boxed{1} or \boxed{2}").correct


@pytest.mark.parametrize(
    ("completion", "reason"),
    [
        ("", "no final answer"),
        ("I am not sure.", "no final answer"),
        (r"\boxed{}", "no final answer"),
        ("#### ", "no final answer"),
        (r"\boxed{$$}", "empty"),
        ("\\boxed{" + "1+" * 600 + "1}", "max_answer_chars"),
    ],
)
def test_missing_or_empty_answers_are_unparsable(verifier, completion, reason):
    result = score(verifier, "1", completion)
    assert result.status is Status.UNPARSABLE and result.value == 0.0
    assert reason in result.details["reason"]


def test_last_number_fallback_is_off_by_default_and_opt_in(verifier):
    assert score(verifier, "12", "so we have 12").status is Status.UNPARSABLE
    fallback = MathVerifier(last_number=True, timeout=30.0)
    result = score(fallback, "12", "3 boxes of 4 gives 12")
    assert result.correct and result.details["format"] == "last_number"


def test_details_name_the_format_and_answer(verifier):
    result = score(verifier, "42", "Adding up: <answer>42</answer>")
    assert result.verifier == "math" and result.verifier_version == "2"
    assert result.details["format"] == "answer_tag" and result.details["answer"] == "42"


def test_bad_references_and_completions_are_errors_not_crashes(verifier):
    tasks = [Task("a", "q", reference=None), Task("b", "q", reference="  "), Task("c", "q", reference=7)]
    results = verifier.score_batch(tasks, ["#### 7", "#### 7", "#### 7"])
    assert [r.status for r in results] == [Status.ERROR, Status.ERROR, Status.CORRECT]
    assert "task.reference" in results[0].details["error"] and "empty" in results[1].details["error"]
    assert verifier.score_batch([Task("d", "q", reference="1")], [b"#### 1"])[0].status is Status.ERROR


def test_invalid_settings_are_rejected_with_the_bad_value():
    with pytest.raises(ValueError, match="hedging must be one of"):
        MathVerifier(hedging="some")
    with pytest.raises(ValueError, match="timeout must be a positive"):
        MathVerifier(timeout=0)
    with pytest.raises(ValueError, match="formats must be distinct names"):
        GradingConfig(formats=("boxed", "boxed"))


@pytest.mark.parametrize(("gold", "exact", "decimal"), [
    ("\\frac{5\\sqrt{42}}{27}", "\\frac{10\\sqrt{10.5}}{27}", "1.2003"),
    ("\\sqrt{2}", "\\sqrt{8} / 2", "1.41421356"),
    ("\\frac{1}{3}", "\\frac{1.5}{4.5}", "0.333333333"),
])
def test_a_decimal_inside_an_exact_expression_is_not_an_approximation(verifier, gold, exact, decimal):
    task = Task("t", "q", gold)
    assert verifier(task, f"The answer is ${exact}$.").correct
    assert not verifier(task, f"The answer is ${decimal}$.").correct  # a bare decimal of an irrational still is

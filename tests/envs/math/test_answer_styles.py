"""Math answers as real model families write them (issue 31), checked on generated completions.

``answer_style_corpus.generate`` writes whole completions in the styles of Qwen2.5-Math, DeepSeek-R1,
Llama 3, GPT-style markdown, GSM8K / MetaMath and ``<answer>`` tags for every class of the issue,
equivalent rewrites and near misses alike; each seed draws other numbers, families and forms.
The property tests generate surface forms of one value (words, wrappers, units, anchors) and its
near misses. ``benchmarks/math_answer_styles.py`` prints the same corpus per class next to raw
math-verify.
"""

import collections
import logging
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from num2words import num2words

from rlenv import Task
from rlenv.envs.math import MathVerifier
from rlenv.envs.math.config import GradingConfig
from rlenv.envs.math.extraction import extract_answers
from rlenv.envs.math.grading import grade
from tests.envs.math.answer_style_corpus import CLASSES, FAMILIES, generate

logging.getLogger("math_verify").setLevel(logging.ERROR)
SEEDS = (11, 12)
CONFIG = GradingConfig()


@pytest.fixture(scope="module")
def judged():
    cases = [case for seed in SEEDS for case in generate(seed, rounds=2)]
    verifier = MathVerifier(timeout=30.0)
    results = verifier.score_batch([Task(str(n), "q", reference=case.gold) for n, case in enumerate(cases)],
                                   [case.completion for case in cases])
    return cases, results


def test_the_corpus_covers_every_class_and_family_in_both_directions():
    cases = generate(SEEDS[0], rounds=2)
    directions = collections.defaultdict(set)
    for case in cases:
        directions[case.cls].add(case.equal)
    assert set(directions) == set(CLASSES)
    assert all(found == {True, False} for found in directions.values()), directions
    assert {case.family for case in cases} == set(FAMILIES)
    assert generate(SEEDS[0], rounds=2) == cases, "a seed must give the same corpus"
    assert generate(SEEDS[1], rounds=2) != cases


def test_every_generated_completion_is_judged_right(judged):
    cases, results = judged
    wrong = [(case.cls, case.form, case.family, case.gold, case.completion[-120:], result.status.value)
             for case, result in zip(cases, results) if result.correct != case.equal]
    assert wrong == []


def test_no_near_miss_is_rewarded(judged):
    # a wrong answer rewarded teaches the policy to write it: no false positive in any class
    cases, results = judged
    rewarded = [(case.cls, case.form, case.gold) for case, result in zip(cases, results) if result.correct and not case.equal]
    assert rewarded == []


@pytest.mark.parametrize(
    ("completion", "anchor"),
    [
        ("Some work.\n\n### Final Answer\n\\[\n42\n\\]", "final_heading"),
        ("Some work.\n\n**Answer:**\n\\[\n42\n\\]", "answer_is"),
        ("So there are **42** handshakes.", "closing_sentence"),
        ("<think>maybe \\boxed{41}</think>\n\nThe answer is $42$.", "answer_is"),
        ("The answer is $\\boxed{42}$.", "boxed"),
    ],
)
def test_details_name_the_anchor_used(completion, anchor):
    status, details = grade(CONFIG, "42", completion)
    assert (status, details["format"]) == ("correct", anchor)


def test_a_completion_cut_off_while_thinking_has_no_answer():
    status, details = grade(CONFIG, "42", "<think>\nSo the answer is $\\boxed{42}$. Hmm, but wait")
    assert status == "unparsable" and details["format"] is None
    assert extract_answers("<think>a</think> \\boxed{7} <think> then \\boxed{8}").answers == ("7",)


# -- property tests: surface forms of one value and its near misses -------------------------------
ANCHORS = [
    lambda v: f"Therefore, the final answer is $\\boxed{{{v}}}$.",
    lambda v: f"### Final Answer\n\\[\n{v}\n\\]",
    lambda v: f"**Answer:**\n\\[\n{v}\n\\]",
    lambda v: f"<answer>{v}</answer>",
    lambda v: f"#### {v}",
    lambda v: f"Final Answer: The final answer is ${v}$. I hope it is correct.",
    lambda v: f"**Final Answer**\n\n$\\boxed{{{v}}}$",
]
INTEGER_FORMS = [
    lambda n: str(n), lambda n: f"{n:,}", lambda n: num2words(n), lambda n: f"\\text{{{num2words(n)}}}",
    lambda n: f"\\text{{{n:,}}}", lambda n: f"\\text{{The answer is }} {n}",
]


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 2_000_000), delta=st.sampled_from([1, -1, 10, 100]), form=st.sampled_from(INTEGER_FORMS),
       anchor=st.sampled_from(ANCHORS))
def test_integer_surface_forms_and_near_misses(n, delta, form, anchor):
    prefix = "We add the parts: $12 + 30 = 42$, then check.\n\n"
    assert grade(CONFIG, str(n), prefix + anchor(form(n)))[0] == "correct"
    assert grade(CONFIG, str(n), prefix + anchor(form(n + delta)))[0] == "incorrect"


@settings(max_examples=40, deadline=None)
@given(numerator=st.integers(1, 11), denominator=st.sampled_from([3, 4, 5, 8]), whole=st.integers(0, 9),
       anchor=st.sampled_from(ANCHORS[:4]))
def test_fraction_words_and_mixed_numbers(numerator, denominator, whole, anchor):
    value = whole + Fraction(numerator % denominator or 1, denominator)
    gold = f"\\frac{{{value.numerator}}}{{{value.denominator}}}" if value.denominator > 1 else str(value)
    part = value - whole
    denominator_word = "half" if part.denominator == 2 else num2words(part.denominator, to="ordinal")
    words = f"{num2words(part.numerator)} {denominator_word}{'s' if part.numerator > 1 else ''}"
    if whole:
        words = f"{num2words(whole)} and {words}"
        mixed = f"{whole} {part.numerator}/{part.denominator}"
        assert grade(CONFIG, gold, f"#### {mixed}")[0] == "correct"
        assert grade(CONFIG, gold, f"#### {whole + 1} {part.numerator}/{part.denominator}")[0] == "incorrect"
    assert grade(CONFIG, gold, anchor(f"\\text{{{words}}}"))[0] == "correct"
    assert grade(CONFIG, gold, anchor(f"{part.numerator} \\text{{ out of }} {part.denominator + 1}"))[0] == "incorrect"


UNITS = [("km", "m", 1000), ("m", "cm", 100), ("h", "min", 60), ("kg", "g", 1000), ("ft", "in", 12)]


@settings(max_examples=40, deadline=None)
@given(value=st.integers(1, 500), units=st.sampled_from(UNITS), anchor=st.sampled_from(ANCHORS[:4]))
def test_quantities_convert_and_a_wrong_unit_is_wrong(value, units, anchor):
    big, small, factor = units
    gold = f"{value} \\text{{ {big}}}"
    assert grade(CONFIG, gold, anchor(f"{value * factor} \\text{{ {small}}}"))[0] == "correct"
    assert grade(CONFIG, gold, anchor(f"\\text{{{value} {big}}}"))[0] == "correct"
    assert grade(CONFIG, gold, anchor(f"{value} \\text{{ {small}}}"))[0] == "incorrect"
    assert grade(CONFIG, gold, anchor(f"{value * factor + 1} \\text{{ {small}}}"))[0] == "incorrect"


@settings(max_examples=40, deadline=None)
@given(low=st.integers(-20, 0), high=st.integers(1, 20), anchor=st.sampled_from(ANCHORS[:4]))
def test_relations_and_intervals(low, high, anchor):
    gold = f"(-\\infty, {low}] \\cup [{high}, \\infty)"
    assert grade(CONFIG, gold, anchor(f"x <= {low} \\text{{ or }} x >= {high}"))[0] == "correct"
    assert grade(CONFIG, gold, anchor(f"x < {low} \\text{{ or }} x >= {high}"))[0] == "incorrect"
    assert grade(CONFIG, f"(-{high}, {high})", anchor(f"|x| < {high}"))[0] == "correct"
    assert grade(CONFIG, f"(-{high}, {high})", anchor(f"|x| \\le {high}"))[0] == "incorrect"
    assert grade(CONFIG, f"x < {high}", anchor(f"-x > -{high}"))[0] == "correct"
    assert grade(CONFIG, f"x < {high}", anchor(f"-x > {high}"))[0] == "incorrect"


@settings(max_examples=40, deadline=None)
@given(hour=st.integers(1, 12), minute=st.integers(0, 59), anchor=st.sampled_from(ANCHORS[:4]))
def test_clock_times_name_one_minute_of_the_day(hour, minute, anchor):
    gold = f"{hour}:{minute:02d} \\text{{ p.m.}}"
    assert grade(CONFIG, gold, anchor(f"{hour % 12 + 12}:{minute:02d}"))[0] == "correct"
    assert grade(CONFIG, gold, anchor(f"{hour}:{minute:02d} PM"))[0] == "correct"
    assert grade(CONFIG, gold, anchor(f"{hour}:{minute:02d} AM"))[0] == "incorrect"
    assert grade(CONFIG, gold, anchor(f"{hour}:{(minute + 1) % 60:02d} PM"))[0] == "incorrect"
    open_dial = f"{hour}:{minute:02d}"  # a gold without a.m./p.m. accepts either, not another minute
    assert grade(CONFIG, open_dial, anchor(f"{hour}:{minute:02d} PM"))[0] == "correct"
    assert grade(CONFIG, open_dial, anchor(f"{hour}:{minute:02d} \\text{{ a.m.}}"))[0] == "correct"
    assert grade(CONFIG, open_dial, anchor(f"{hour}:{(minute + 1) % 60:02d} PM"))[0] == "incorrect"

"""A generated corpus of whole completions written the way model families write math answers.

Each :class:`Case` is a full completion in the style of one model family (Qwen2.5-Math CoT and
tool-integrated, DeepSeek-R1 ``<think>`` blocks, Llama 3 ``## Step n:``, GPT-style markdown,
GSM8K / MetaMath ``####``, ``<answer>`` tags), with reasoning that holds distractor numbers,
labeled by construction: ``equal`` says whether the completion's final answer is the gold answer.
Every class of issue 31 gets members of both directions: equivalent rewrites of the gold and
near misses (one digit, one sign, one factor, swapped order where order matters, a wrong unit,
another option, a hedge between formats).

The classes (:data:`CLASSES`):

* ``placement``: where the final answer is (a ``Final Answer`` heading, ``**Answer:**`` then
  display math, a closing sentence, an R1 box inside ``<think>`` with a plain statement after it,
  Minerva's ``Final Answer: The ... is X. I hope it is correct.``, two math spans after
  ``Answer:``);
* ``truncated``: a completion cut off inside ``<think>``, and two formats that disagree;
* ``multi_box``: a multi-part answer split over several boxes;
* ``number_words``: numbers written in words;
* ``units``: text wrappers and units (conversions, wrong units);
* ``sets``: sets, intervals and relations (empty set, all reals, set-builder, ``|x| < c``,
  unions written with ``or``, ASCII relations, equivalent relations);
* ``colons``: clock times and ratios;
* ``numerals``: scientific notation, mixed numbers, mixed and repeating percents, leading zeros;
* ``value_forms``: ``\\pm`` against listed roots, ``\\det A = v``, vectors, choice letters;
* ``exact``: long decimals of irrational or repeating golds, exact values with an approximation.

``generate(seed, per_class)`` is deterministic for a seed; different seeds draw different
numbers, families and placements (the held-out check is a seed the fixes were not written on).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterator
from fractions import Fraction

from num2words import num2words

CLASSES = ("placement", "truncated", "multi_box", "number_words", "units", "sets", "colons", "numerals",
           "value_forms", "exact")
FAMILIES = ("qwen_cot", "qwen_tir", "r1_think", "llama3_steps", "gpt_markdown", "gsm8k_metamath", "answer_tag")


@dataclasses.dataclass(frozen=True)
class Case:
    """One labeled completion: ``equal`` is whether its final answer is ``gold``."""

    cls: str
    family: str
    form: str
    gold: str
    completion: str
    equal: bool


@dataclasses.dataclass(frozen=True)
class Answer:
    """One surface form of an answer: ``math`` goes inside ``\\boxed{}``/``$…$``; ``text`` is
    how it reads in a sentence (defaults to ``$math$``)."""

    math: str
    text: str = ""

    @property
    def prose(self) -> str:
        return self.text or f"${self.math}$"


# -- reasoning with distractor numbers -----------------------------------------------------------
def _steps(rng: random.Random, n: int = 3) -> list[str]:
    steps = []
    for _ in range(n):
        a, b = rng.randint(2, 99), rng.randint(2, 99)
        op, value = rng.choice([("+", a + b), ("-", a - b), ("\\times", a * b)])
        steps.append(f"{a} {op} {b} = {value}")
    return steps


def _qwen_cot(rng: random.Random, final: str) -> str:
    steps = _steps(rng)
    body = "\n".join(f"{n}. We compute ${s}$." for n, s in enumerate(steps, 1))
    return f"To solve the problem, we proceed step by step.\n\n{body}\n\n{final}"


def _qwen_tir(rng: random.Random, final: str) -> str:
    a, b = rng.randint(2, 50), rng.randint(2, 50)
    return (f"Let's break the problem down and use Python to compute it.\n\n```python\nfrom sympy import *\n"
            f"a = {a}\nb = {b}\nresult = a * b + {rng.randint(1, 9)}\nprint(result)\n```\n```output\n"
            f"{a * b + rng.randint(10, 20)}\n```\nThe output confirms the computation ${a} \\cdot {b}$.\n\n{final}")


def _r1_think(rng: random.Random, final: str) -> str:
    steps = _steps(rng, 2)
    return (f"<think>\nOkay, let me see. First {steps[0]}. Hmm, wait, maybe I should check: {steps[1]}. "
            f"Yes, that seems right.\n</think>\n\nWe compute ${steps[0]}$ and ${steps[1]}$.\n\n{final}")


def _llama3(rng: random.Random, final: str) -> str:
    steps = _steps(rng)
    body = "\n\n".join(f"## Step {n}: Compute the next quantity\nWe have ${s}$." for n, s in enumerate(steps, 1))
    return f"{body}\n\n{final}"


def _gpt_markdown(rng: random.Random, final: str) -> str:
    steps = _steps(rng)
    return ("### Solution\n\nLet's work through it.\n\n" + "\n".join(f"- ${s}$" for s in steps) + f"\n\n{final}")


def _gsm8k(rng: random.Random, final: str) -> str:
    a, b = rng.randint(2, 40), rng.randint(2, 40)
    return f"She has {a} apples and buys {b} more, so {a} + {b} = <<{a}+{b}={a + b}>>{a + b}.\n{final}"


def _answer_tag(rng: random.Random, final: str) -> str:
    steps = _steps(rng, 2)
    return f"<think>\nFirst, {steps[0]}. Then {steps[1]}.\n</think>\n{final}"


#: family -> (body writer, its usual ending for an answer)
_FAMILY: dict[str, tuple[Callable[[random.Random, str], str], Callable[[Answer], str]]] = {
    "qwen_cot": (_qwen_cot, lambda a: f"Therefore, the final answer is $\\boxed{{{a.math}}}$."),
    "qwen_tir": (_qwen_tir, lambda a: f"The answer is $\\boxed{{{a.math}}}$."),
    "r1_think": (_r1_think, lambda a: f"**Final Answer**\n\\[\n\\boxed{{{a.math}}}\n\\]"),
    "llama3_steps": (_llama3, lambda a: f"The final answer is: $\\boxed{{{a.math}}}$"),
    "gpt_markdown": (_gpt_markdown, lambda a: f"**Answer:** $\\boxed{{{a.math}}}$"),
    "gsm8k_metamath": (_gsm8k, lambda a: f"#### {a.math}\nThe answer is: {a.math}"),
    "answer_tag": (_answer_tag, lambda a: f"<answer>{a.math}</answer>"),
}


def complete(rng: random.Random, family: str, answer: Answer) -> str:
    """A whole completion of ``family`` ending in its usual way with ``answer``."""
    body, ending = _FAMILY[family]
    return body(rng, ending(answer))


# -- answer values and their near misses ---------------------------------------------------------
def _near_misses(rng: random.Random, value: int) -> list[int]:
    """One digit, one sign, one factor off."""
    digit = value + rng.choice([1, -1, 10, -10])
    return [w for w in {digit, -value, value * rng.choice([2, 10]), value + 1} if w != value]


def _frac(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    sign = "-" if value < 0 else ""
    return f"{sign}\\frac{{{abs(value.numerator)}}}{{{value.denominator}}}"


# -- the classes -----------------------------------------------------------------------------------
Generator = Callable[[random.Random], Iterator[Case]]


def _placement(rng: random.Random) -> Iterator[Case]:
    value = rng.randint(2, 999)
    write = rng.choice([str, lambda v: _frac(Fraction(v, 7)), lambda v: f"{v}\\sqrt{{2}}"])
    gold = shown = write(value)
    wrongs = [write(w) for w in _near_misses(rng, value) if write(w) != gold][:2]
    placements: dict[str, Callable[[str], str]] = {
        "final_heading_md": lambda v: f"### Final Answer\n\nThe answer is ${v}$.",
        "final_heading_display": lambda v: f"### Final Answer\n\\[\n{v}\n\\]",
        "final_heading_bold": lambda v: f"**Final Answer**\n\n${v}$",
        "answer_then_display": lambda v: f"**Answer:**\n\\[\n{v}\n\\]",
        "closing_bold": lambda v: f"So there are **{v}** handshakes in total." if v.isdigit()
        else f"So the length of the side is **${v}$**.",
        "closing_math": lambda v: f"Putting everything together, the requested value is ${v}$.",
        "minerva_sentence": lambda v: f"Final Answer: The volume of $ABCDEFGH$ is ${v}$. I hope it is correct.",
        "final_heading_colon": lambda v: f"## Final Answer:\n${v}$",
        "bold_answer_label": lambda v: f"**Answer**: ${v}$",
        "answer_bold_value": lambda v: f"Answer: **${v}$**",
        "final_answer_label_bold": lambda v: f"**Final answer:** ${v}$",
        "closing_thus": lambda v: f"Thus, the area of the triangle equals ${v}$.",
        "closing_bold_math": lambda v: f"The minimum value is therefore **${v}$**.",
        "heading_then_sentence": lambda v: f"### Final Answer\nThe number of ways is ${v}$.",
        "answer_heading": lambda v: f"## Answer\n\n${v}$",
        "plain_final_heading": lambda v: f"Final Answer\n${v}$",
        "so_the_answer_label": lambda v: f"So the answer: ${v}$",
        "minerva_plain": lambda v: f"Final Answer: The final answer is {v}. I hope it is correct." if v.isdigit()
        else f"Final Answer: The final answer is ${v}$. I hope it is correct.",
    }
    for form, place in placements.items():
        family = rng.choice(("qwen_cot", "qwen_tir", "gpt_markdown", "llama3_steps"))
        body = _FAMILY[family][0]
        yield Case("placement", family, form, gold, body(rng, place(shown)), True)
        for wrong in wrongs:
            yield Case("placement", family, form, gold, body(rng, place(wrong)), False)
    # R1: a box only inside the closed <think>, the answer stated plainly after it
    wrong = wrongs[0]
    steps = _steps(rng, 2)
    for stated, box, equal in ((shown, wrong, True), (wrong, shown, False)):
        completion = (f"<think>\nLet me compute: {steps[0]}. So tentatively $\\boxed{{{box}}}$... wait, "
                      f"I made a slip; redo: {steps[1]}.\n</think>\n\nThe answer is ${stated}$.")
        yield Case("placement", "r1_think", "r1_plain_after_think", gold, completion, equal)
    if gold.isdigit():
        for stated, box, equal in ((gold, wrong, True), (wrong, gold, False)):
            completion = (f"<think>\n{steps[0]}, so $\\boxed{{{box}}}$? Let me recount the pairs.\n</think>\n\n"
                          f"There are {stated} handshakes in total.")
            yield Case("placement", "r1_think", "r1_plain_number_after_think", gold, completion, equal)
    for stated, equal in ((shown, True), (wrongs[0], False)):
        yield Case("placement", "gpt_markdown", "subject_before_copula", gold,
                   _gpt_markdown(rng, f"Therefore ${stated}$ is the value we were asked for."), equal)
    # two math spans after an Answer: anchor, against a gold with both values
    a, b = rng.sample(range(-9, 10), 2)
    gold_two = f"{a}, {b}"
    for form, spans, equal in (("two_spans", f"\\(x = {a}\\) and \\(x = {b}\\)", True),
                               ("two_spans_swapped", f"\\(x = {b}\\) and \\(x = {a}\\)", True),
                               ("two_spans_one_wrong", f"\\(x = {a}\\) and \\(x = {b + 1 if b + 1 != a else b + 2}\\)", False),
                               ("two_spans_one_missing", f"\\(x = {a}\\)", False)):
        yield Case("placement", "gpt_markdown", form, gold_two, _gpt_markdown(rng, f"**Answer:** {spans}"), equal)


def _truncated(rng: random.Random) -> Iterator[Case]:
    value = rng.randint(10, 99)
    gold = str(value)
    swapped = int(str(value)[::-1]) if value % 11 and value % 10 else value + 7
    steps = _steps(rng, 2)
    cut = rng.choice([" Hmm, but wait", " Let me double-check the", "\n\nAlternatively, we could"])
    yield Case("truncated", "r1_think", "cut_inside_think", gold,
               f"<think>\nFirst {steps[0]}. So maybe the answer is $\\boxed{{{value}}}$.{cut}", False)
    yield Case("truncated", "r1_think", "cut_inside_think_answer_is", gold,
               f"<think>\nSo {steps[1]}, and the answer is {value}.{cut}", False)
    yield Case("truncated", "qwen_cot", "box_then_hash_disagree", gold,
               _qwen_cot(rng, f"The answer is $\\boxed{{{value}}}$.\n#### {swapped}"), False)
    yield Case("truncated", "gsm8k_metamath", "hash_then_answer_is_disagree", gold,
               _gsm8k(rng, f"#### {value}\nThe answer is: {swapped}"), False)
    yield Case("truncated", "answer_tag", "tag_then_box_disagree", gold,
               _answer_tag(rng, f"<answer>{value}</answer>\n\nSo the answer is $\\boxed{{{swapped}}}$."), False)
    yield Case("truncated", "gsm8k_metamath", "hash_then_answer_is_agree", gold,
               _gsm8k(rng, f"#### {value}\nThe answer is: {value}"), True)
    yield Case("truncated", "qwen_cot", "box_then_hash_agree", gold,
               _qwen_cot(rng, f"The answer is $\\boxed{{{value}}}$.\n#### {value}"), True)
    half = Fraction(value, 2)
    yield Case("truncated", "qwen_cot", "box_then_hash_equivalent", _frac(half),
               _qwen_cot(rng, f"The answer is $\\boxed{{{_frac(half)}}}$.\n#### {float(half)}"), True)
    yield Case("truncated", "r1_think", "closed_think_then_answer", gold,
               f"<think>\n{steps[0]}. The answer is {swapped}? No.\n</think>\n\nThe answer is $\\boxed{{{value}}}$.",
               True)


def _multi_box(rng: random.Random) -> Iterator[Case]:
    a, b = rng.sample(range(1, 20), 2)
    family = rng.choice(("qwen_cot", "qwen_tir", "r1_think", "gpt_markdown"))
    body = _FAMILY[family][0]
    gold = f"({a},{b}),({b},{a})"
    yield Case("multi_box", family, "pairs", gold, body(rng, f"The solutions are $\\boxed{{({a}, {b})}}, \\boxed{{({b}, {a})}}$."), True)
    yield Case("multi_box", family, "pairs_labelled", gold,
               body(rng, f"$\\boxed{{({a}, {b})}}$ \\text{{ for part (a) and }} $\\boxed{{({b}, {a})}}$ for part (b)."), True)
    yield Case("multi_box", family, "pairs_hedged", gold,
               body(rng, f"$\\boxed{{({a}, {b})}}$, or maybe $\\boxed{{({b}, {a + 1})}}$."), False)
    yield Case("multi_box", family, "pairs_one_missing", gold, body(rng, f"The solution is $\\boxed{{({a}, {b})}}$."), False)
    yield Case("multi_box", family, "pairs_one_wrong", gold,
               body(rng, f"The solutions are $\\boxed{{({a}, {b})}}, \\boxed{{({b}, {a + 1})}}$."), False)
    k, n = rng.randint(10, 99), rng.randint(2, 9)
    gold = f"k = {k}, n = {n}"
    yield Case("multi_box", family, "named_parts", gold,
               body(rng, f"Hence $\\boxed{{k = {k}}} \\quad\\text{{and}}\\quad \\boxed{{n = {n}}}$."), True)
    yield Case("multi_box", family, "named_parts_wrong", gold,
               body(rng, f"Hence $\\boxed{{k = {k}}} \\quad\\text{{and}}\\quad \\boxed{{n = {n + 1}}}$."), False)
    values = sorted(rng.sample(range(-9, 10), 3))
    gold = "\\{" + ",".join(map(str, values)) + "\\}"
    boxes = ",".join(f"\\boxed{{{v}}}" for v in values)
    yield Case("multi_box", family, "set_elements", gold, body(rng, f"The possible values are ${boxes}$."), True)
    yield Case("multi_box", family, "set_elements_missing", gold,
               body(rng, "The possible values are $" + ",".join(f"\\boxed{{{v}}}" for v in values[:2]) + "$."), False)
    single = rng.randint(2, 50)
    yield Case("multi_box", family, "single_gold_two_boxes", str(single),
               body(rng, f"So $\\boxed{{{single}}}$, \\boxed{{{single + 1}}}."), False)
    yield Case("multi_box", family, "single_gold_sign_boxes", str(single),
               body(rng, f"So $x = \\boxed{{{single}}}$ or $x = \\boxed{{{-single}}}$."), False)


def _number_words(rng: random.Random) -> Iterator[Case]:
    n = rng.choice([rng.randint(2, 20), rng.randint(21, 99), rng.randint(100, 999), rng.randint(1000, 99_999),
                    rng.choice([10**6, 2 * 10**6, 10**9])])
    words = num2words(n)
    for form, answer in (("plain", Answer(words, words)), ("text", Answer(f"\\text{{{words}}}")),
                         ("mathrm", Answer(f"\\mathrm{{{words.replace(' ', '~')}}}")),
                         ("capital", Answer(words.capitalize(), words.capitalize()))):
        family = rng.choice(("gsm8k_metamath", "answer_tag", "qwen_cot", "llama3_steps"))
        if family == "gsm8k_metamath" and form == "text":
            family = "qwen_cot"
        yield Case("number_words", family, form, str(n), complete(rng, family, answer), True)
        for wrong in _near_misses(rng, n)[:2]:
            if wrong > 0:
                wrong_words = num2words(wrong)
                wrong_answer = Answer(wrong_words, wrong_words) if form != "text" else Answer(f"\\text{{{wrong_words}}}")
                yield Case("number_words", family, form, str(n), complete(rng, family, wrong_answer), False)
    den = rng.choice([3, 4, 5, 8, 10])
    num = rng.choice([k for k in range(1, den) if Fraction(k, den).denominator == den])
    fraction_words = f"{num2words(num)}-{num2words(den, to='ordinal')}{'s' if num > 1 else ''}"
    if den == 4:
        fraction_words = f"{num2words(num)} quarter{'s' if num > 1 else ''}"
    gold = _frac(Fraction(num, den))
    other = Fraction(den - num if den - num != num else num + 1, den)
    yield Case("number_words", "answer_tag", "fraction_words", gold, complete(rng, "answer_tag", Answer(fraction_words)), True)
    yield Case("number_words", "qwen_cot", "out_of", gold, complete(rng, "qwen_cot", Answer(f"{num} \\text{{ out of }} {den}")), True)
    yield Case("number_words", "qwen_cot", "out_of_wrong", gold,
               complete(rng, "qwen_cot", Answer(f"{other.numerator} \\text{{ out of }} {other.denominator}")), False)
    whole = rng.randint(1, 12)
    gold = _frac(Fraction(2 * whole + 1, 2))
    yield Case("number_words", "gsm8k_metamath", "and_a_half", gold,
               complete(rng, "gsm8k_metamath", Answer(f"{num2words(whole)} and a half")), True)
    yield Case("number_words", "gsm8k_metamath", "and_a_half_wrong", gold,
               complete(rng, "gsm8k_metamath", Answer(f"{num2words(whole + 1)} and a half")), False)


def _units(rng: random.Random) -> Iterator[Case]:
    n = rng.randint(2, 99)
    family = rng.choice(("qwen_cot", "qwen_tir", "llama3_steps", "r1_think", "gpt_markdown"))
    for form, shown, equal in (("text_unit", f"\\text{{{n} cm}}", True), ("mathrm_unit", f"\\mathrm{{{n}\\ cm}}", True),
                               ("text_unit_wrong", f"\\text{{{n + 1} cm}}", False),
                               ("text_sentence", f"\\text{{The removed number is }} {n}", True),
                               ("text_sentence_wrong", f"\\text{{The removed number is }} {n * 10}", False)):
        yield Case("units", family, form, str(n), complete(rng, family, Answer(shown)), equal)
    thousands = rng.randint(11, 99) * 1000
    yield Case("units", family, "text_thousands", str(thousands), complete(rng, family, Answer(f"\\text{{{thousands:,}}}")), True)
    yield Case("units", family, "text_thousands_wrong", str(thousands),
               complete(rng, family, Answer(f"\\text{{{thousands + 1000:,}}}")), False)
    yield Case("units", family, "text_percent", f"{n}\\%", complete(rng, family, Answer(f"\\text{{{n}\\%}}")), True)
    yield Case("units", family, "text_percent_wrong", f"{n}\\%", complete(rng, family, Answer(f"\\text{{{n + 1}\\%}}")), False)
    km = Fraction(rng.randint(11, 99), 10)
    metres = int(km * 1000)
    gold = f"{float(km)} \\text{{ km}}"
    yield Case("units", family, "converted", gold, complete(rng, family, Answer(f"{metres} \\text{{ m}}")), True)
    yield Case("units", family, "converted_wrong_factor", gold, complete(rng, family, Answer(f"{metres} \\text{{ cm}}")), False)
    hours, minutes = rng.randint(1, 3), rng.randint(1, 59)
    total = 60 * hours + minutes
    yield Case("units", family, "hours_minutes", f"{total} \\text{{ minutes}}",
               complete(rng, family, Answer(f"{hours} \\text{{ h }} {minutes} \\text{{ min}}")), True)
    yield Case("units", family, "hours_minutes_wrong", f"{total} \\text{{ minutes}}",
               complete(rng, family, Answer(f"{hours + 1} \\text{{ h }} {minutes} \\text{{ min}}")), False)
    metres = rng.randint(2, 9) * 1000
    yield Case("units", family, "words_unit", f"{metres // 1000} \\text{{ km}}",
               complete(rng, family, Answer(f"{metres}\\,\\text{{meters}}")), True)
    yield Case("units", family, "words_unit_wrong", f"{metres // 1000} \\text{{ km}}",
               complete(rng, family, Answer(f"{metres}\\,\\text{{feet}}")), False)
    yield Case("units", family, "hours_decimal", f"{90 * hours} \\text{{ minutes}}",
               complete(rng, family, Answer(f"{1.5 * hours:g} \\text{{ hours}}")), True)
    area = rng.randint(2, 40)
    gold = f"{area} \\text{{ ft}}^2"
    yield Case("units", family, "wrong_unit", gold, complete(rng, family, Answer(f"{area} \\text{{ in}}^2")), False)
    yield Case("units", family, "area_converted", gold, complete(rng, family, Answer(f"{area * 144} \\text{{ in}}^2")), True)


def _sets(rng: random.Random) -> Iterator[Case]:
    family = rng.choice(("qwen_cot", "qwen_tir", "gpt_markdown", "r1_think", "llama3_steps"))
    for shown in ("\\{\\,\\}", "\\{\\}", "\\emptyset", "\\varnothing", "\\text{no solution}", "\\text{the empty set}"):
        yield Case("sets", family, "empty", "\\emptyset", complete(rng, family, Answer(shown)), True)
    n = rng.randint(1, 9)
    yield Case("sets", family, "empty_wrong", "\\emptyset", complete(rng, family, Answer(f"\\{{{n}\\}}")), False)
    for shown in ("\\text{all real numbers}", "\\mathbb{R}", "(-\\infty, \\infty)"):
        yield Case("sets", family, "all_reals", "(-\\infty,\\infty)", complete(rng, family, Answer(shown)), True)
    yield Case("sets", family, "all_reals_wrong", "(-\\infty,\\infty)",
               complete(rng, family, Answer(f"({n}, \\infty)")), False)
    a, b = sorted(rng.sample(range(-9, 10), 2))
    yield Case("sets", family, "set_builder", f"({a}, {b})", complete(rng, family, Answer(f"\\{{x \\mid {a} < x < {b}\\}}")), True)
    yield Case("sets", family, "set_builder_in_reals", f"({a}, {b})",
               complete(rng, family, Answer(f"\\{{x \\in \\mathbb{{R}} : {a} < x < {b}\\}}")), True)
    yield Case("sets", family, "set_builder_wrong", f"({a}, {b})",
               complete(rng, family, Answer(f"\\{{x \\mid {a} < x \\le {b}\\}}")), False)
    yield Case("sets", family, "abs_value", f"(-{n}, {n})", complete(rng, family, Answer(f"|x| < {n}")), True)
    yield Case("sets", family, "abs_value_wrong", f"(-{n}, {n})", complete(rng, family, Answer(f"|x| \\le {n}")), False)
    gold = f"(-\\infty, {a}] \\cup [{b}, \\infty)"
    yield Case("sets", family, "union_or", gold, complete(rng, family, Answer(f"x \\le {a} \\text{{ or }} x \\ge {b}")), True)
    yield Case("sets", family, "union_or_wrong", gold, complete(rng, family, Answer(f"x < {a} \\text{{ or }} x \\ge {b}")), False)
    yield Case("sets", family, "ascii_ge", f"x \\geq {n}", complete(rng, family, Answer(f"x >= {n}")), True)
    yield Case("sets", family, "ascii_ge_wrong", f"x \\geq {n}", complete(rng, family, Answer(f"x > {n}")), False)
    yield Case("sets", family, "ascii_ne", f"x \\neq {n}", complete(rng, family, Answer(f"x != {n}")), True)
    yield Case("sets", family, "ascii_ne_wrong", f"x \\neq {n}", complete(rng, family, Answer(f"x != {n + 1}")), False)
    yield Case("sets", family, "negated", f"x < {n}", complete(rng, family, Answer(f"-x > -{n}")), True)
    yield Case("sets", family, "negated_wrong", f"x < {n}", complete(rng, family, Answer(f"-x < -{n}")), False)


def _colons(rng: random.Random) -> Iterator[Case]:
    family = rng.choice(("qwen_cot", "qwen_tir", "gpt_markdown", "gsm8k_metamath", "answer_tag"))
    hour, minute = rng.randint(1, 11), rng.randint(10, 59)
    gold = f"{hour}:{minute:02d} \\text{{ p.m.}}"
    for shown, equal in ((f"{hour + 12}:{minute:02d}", True), (f"{hour}:{minute:02d} PM", True),
                         (f"{hour}:{minute:02d} \\text{{ p.m.}}", True), (f"{hour}:{minute:02d} AM", False),
                         (f"{hour}:{minute:02d}pm", True), (f"\\text{{{hour}:{minute:02d} P.M.}}", True),
                         (f"{hour}:{minute:02d}\\text{{ a.m.}}", False),
                         (f"{hour}{{:}}{minute:02d}\\,\\text{{PM}}", True),
                         (f"{hour}:{(minute + 1) % 60:02d} PM", False), (f"{hour}:{minute:02d}", False)):
        yield Case("colons", family, "clock", gold, complete(rng, family, Answer(shown)), equal)
    a, b, c = rng.sample(range(1, 10), 3)
    gold = f"{a}:{b}:{c}"
    yield Case("colons", family, "ratio", gold, complete(rng, family, Answer(f"{a} : {b} : {c}")), True)
    yield Case("colons", family, "ratio_swapped", gold, complete(rng, family, Answer(f"{a}:{c}:{b}")), False)
    yield Case("colons", family, "ratio_tight", gold, complete(rng, family, Answer(f"{a}\\!:\\!{b}\\!:\\!{c}")), True)
    yield Case("colons", family, "ratio_as_fraction", f"{a}:{b}", complete(rng, family, Answer(f"\\frac{{{a}}}{{{b + 10}}}")), False)
    yield Case("colons", family, "ratio_to", f"{a}:{b}", complete(rng, family, Answer(f"{a} \\text{{ to }} {b}")), True)
    yield Case("colons", family, "ratio_to_swapped", f"{a}:{b}", complete(rng, family, Answer(f"{b} \\text{{ to }} {a}")), False)
    yield Case("colons", family, "ratio_reversed", f"{a}:{b}", complete(rng, family, Answer(f"{b}:{a}")), False)


def _numerals(rng: random.Random) -> Iterator[Case]:
    family = rng.choice(("qwen_cot", "qwen_tir", "llama3_steps", "gsm8k_metamath", "answer_tag"))
    mantissa, exponent = rng.randint(11, 99) / 10, rng.randint(2, 6)
    gold = f"{mantissa} \\times 10^{{-{exponent}}}"
    yield Case("numerals", family, "sci_e", gold, complete(rng, family, Answer(f"{mantissa}e-{exponent}")), True)
    yield Case("numerals", family, "sci_e_wrong", gold, complete(rng, family, Answer(f"{mantissa}e-{exponent + 1}")), False)
    yield Case("numerals", family, "sci_e_sign", gold, complete(rng, family, Answer(f"{mantissa}e{exponent}")), False)
    yield Case("numerals", family, "sci_E_upper", gold, complete(rng, family, Answer(f"{mantissa}E-{exponent}")), True)
    yield Case("numerals", family, "sci_cdot", gold, complete(rng, family, Answer(f"{mantissa} \\cdot 10^{{-{exponent}}}")), True)
    whole, den = rng.randint(1, 9), rng.choice([2, 3, 4, 5])
    yield Case("numerals", family, "mixed_latex", _frac(Fraction(whole * den + 1, den)),
               complete(rng, family, Answer(f"{whole}\\tfrac{{1}}{{{den}}}")), True)
    value = Fraction(whole * den + 1, den)
    yield Case("numerals", "gsm8k_metamath", "mixed_number", _frac(value), _gsm8k(rng, f"#### {whole} 1/{den}"), True)
    yield Case("numerals", "gsm8k_metamath", "mixed_number_wrong", _frac(value), _gsm8k(rng, f"#### {whole + 1} 1/{den}"), False)
    pct = rng.randint(5, 60)
    yield Case("numerals", family, "mixed_percent", f"{pct}.5\\%", complete(rng, family, Answer(f"{pct}\\frac12\\%")), True)
    yield Case("numerals", family, "mixed_percent_wrong", f"{pct}.5\\%", complete(rng, family, Answer(f"{pct}\\frac13\\%")), False)
    yield Case("numerals", family, "repeating_percent", "\\frac{100}{3}\\%", complete(rng, family, Answer("33.\\overline{3}\\%")), True)
    yield Case("numerals", family, "repeating_percent_wrong", "\\frac{100}{3}\\%",
               complete(rng, family, Answer("33.\\overline{6}\\%")), False)
    aime = rng.randint(1, 99)
    yield Case("numerals", "qwen_cot", "leading_zeros", str(aime), complete(rng, "qwen_cot", Answer(f"{aime:03d}")), True)
    yield Case("numerals", "qwen_cot", "leading_zeros_wrong", str(aime), complete(rng, "qwen_cot", Answer(f"{aime + 1:03d}")), False)


def _value_forms(rng: random.Random) -> Iterator[Case]:
    family = rng.choice(("qwen_cot", "qwen_tir", "r1_think", "llama3_steps", "gpt_markdown"))
    b, d = rng.randint(1, 9), rng.choice([2, 3, 5, 6, 7])
    gold = f"\\frac{{{b} \\pm \\sqrt{{{d}}}}}{{2}}"
    both = f"\\frac{{{b}+\\sqrt{{{d}}}}}{{2}}, \\frac{{{b}-\\sqrt{{{d}}}}}{{2}}"
    yield Case("value_forms", family, "pm_listed", gold, complete(rng, family, Answer(both)), True)
    yield Case("value_forms", family, "pm_one_root", gold, complete(rng, family, Answer(f"\\frac{{{b}+\\sqrt{{{d}}}}}{{2}}")), False)
    det = -rng.randint(2, 40)
    yield Case("value_forms", family, "det", str(det), complete(rng, family, Answer(f"\\det A = {det}")), True)
    yield Case("value_forms", family, "det_wrong", str(det), complete(rng, family, Answer(f"\\det A = {-det}")), False)
    x, y = rng.sample(range(-9, 10), 2)
    gold = f"\\begin{{pmatrix}} {x} \\\\ {y} \\end{{pmatrix}}"
    yield Case("value_forms", family, "angle_vector", gold, complete(rng, family, Answer(f"\\langle {x}, {y} \\rangle")), True)
    yield Case("value_forms", family, "angle_vector_swapped", gold, complete(rng, family, Answer(f"\\langle {y}, {x} \\rangle")), False)
    ij = f"{x}i {'+' if y >= 0 else '-'} {abs(y)}j"
    yield Case("value_forms", family, "ij_vector", gold, complete(rng, family, Answer(f"{ij}")), True)
    letter, other = rng.sample("ABCDE", 2)
    k = rng.choice([2, 3, 5, 6, 7])
    option = f"2\\sqrt{{{k}}}"
    yield Case("value_forms", family, "choice_vs_letter", f"\\text{{({letter})}}",
               complete(rng, family, Answer(f"\\text{{({letter}) }} {option}")), True)
    yield Case("value_forms", family, "choice_vs_letter_wrong", f"\\text{{({letter})}}",
               complete(rng, family, Answer(f"\\text{{({other}) }} {option}")), False)
    yield Case("value_forms", family, "choice_bold_vs_letter", f"\\text{{({letter})}}",
               complete(rng, family, Answer(f"\\textbf{{({letter})}}\\ {option}")), True)
    yield Case("value_forms", family, "choice_vs_value", option, complete(rng, family, Answer(f"\\text{{({letter}) }} {option}")), True)
    yield Case("value_forms", family, "choice_vs_value_wrong", option,
               complete(rng, family, Answer(f"\\text{{({letter}) }} 2\\sqrt{{{k + 1}}}")), False)


def _exact(rng: random.Random) -> Iterator[Case]:
    import math

    family = rng.choice(("qwen_cot", "qwen_tir", "r1_think", "llama3_steps", "gpt_markdown", "answer_tag"))
    k = rng.choice([2, 3, 5, 6, 7, 10, 11])
    digits = rng.randint(6, 12)
    root = f"{math.sqrt(k):.{digits}f}"
    yield Case("exact", family, "irrational_decimal", f"\\sqrt{{{k}}}", complete(rng, family, Answer(root)), False)
    yield Case("exact", family, "exact_then_approx", f"\\sqrt{{{k}}}",
               complete(rng, family, Answer(f"\\sqrt{{{k}}} \\approx {root[:5]}")), True)
    den = rng.choice([3, 7, 9, 11])
    num = rng.choice([n for n in range(1, den) if math.gcd(n, den) == 1])
    decimal = f"{num / den:.{digits}f}"
    yield Case("exact", family, "repeating_decimal", _frac(Fraction(num, den)), complete(rng, family, Answer(decimal)), False)
    yield Case("exact", family, "exact_then_approx_fraction", _frac(Fraction(num, den)),
               complete(rng, family, Answer(f"\\frac{{{num}}}{{{den}}} \\approx {decimal[:5]}")), True)
    yield Case("exact", family, "pi_decimal", f"{k}\\pi", complete(rng, family, Answer(f"{k * math.pi:.{digits}f}")), False)
    yield Case("exact", family, "e_decimal", "e", complete(rng, family, Answer(f"{math.e:.{digits}f}")), False)
    yield Case("exact", family, "thirds_decimal", _frac(Fraction(3 * k + 1, 3)),
               complete(rng, family, Answer(f"{(3 * k + 1) / 3:.{digits}f}")), False)
    yield Case("exact", family, "exact_then_unicode_approx", f"\\sqrt{{{k}}}",
               complete(rng, family, Answer(f"\\sqrt{{{k}}} ≈ {root[:6]}")), True)
    quarter = Fraction(rng.randint(1, 30), 4)
    yield Case("exact", family, "terminating_decimal", _frac(quarter), complete(rng, family, Answer(str(float(quarter)))), True)


GENERATORS: dict[str, Generator] = {"placement": _placement, "truncated": _truncated, "multi_box": _multi_box,
                                     "number_words": _number_words, "units": _units, "sets": _sets,
                                     "colons": _colons, "numerals": _numerals, "value_forms": _value_forms,
                                     "exact": _exact}


def generate(seed: int, rounds: int = 4) -> list[Case]:
    """The corpus of ``seed``: ``rounds`` draws of every class's generator (distinct cases only)."""
    rng = random.Random(seed)
    cases: dict[tuple[str, str], Case] = {}
    for _ in range(rounds):
        for cls in CLASSES:
            for case in GENERATORS[cls](rng):
                cases.setdefault((case.gold, case.completion), case)
    return list(cases.values())

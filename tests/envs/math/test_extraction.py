"""Answer extraction: every supported format, priorities, nesting and the think-tag rule."""

import pytest

from rlenv.envs.math.extraction import ANSWER_FORMATS, LAST_NUMBER, boxed_answers, extract_answers, last_boxed


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (r"so $\boxed{42}$.", ["42"]),
        (r"\boxed{\frac{1}{2}} and later \boxed{3}", [r"\frac{1}{2}", "3"]),
        (r"\boxed{\frac{\sqrt{2}}{2}}", [r"\frac{\sqrt{2}}{2}"]),
        (r"\fbox{7}", ["7"]),
        (r"\boxed 5$ done", ["5"]),
        (r"\boxed{\{1, 2\}}", [r"\{1, 2\}"]),  # escaped braces do not close the group
        (r"\boxed{\boxed{9}}", ["9"]),  # a box around a box is one answer
        (r"\boxed{a \boxed{b} c}", [r"a \boxed{b} c"]),  # an inner box is part of the outer answer
        (r"\boxed{12", []),  # cut-off completion: no answer
        (r"\boxed{}", [""]),
        (r"\boxedfoo{3}", []),
    ],
)
def test_boxed_answers_match_nested_braces(text, expected):
    assert boxed_answers(text) == expected


def test_last_boxed_returns_the_last_top_level_box():
    assert last_boxed(r"first \boxed{1}, then \boxed{x^{2}}") == "x^{2}"
    assert last_boxed("no box") is None


@pytest.mark.parametrize(
    ("completion", "fmt", "answers"),
    [
        ("Janet makes 9 * 2 = $18.\n#### 18", "gsm8k", ("18",)),
        ("#### 1,450,000.", "gsm8k", ("1,450,000",)),
        ("<think>hmm</think><answer> 42 </answer>", "answer_tag", ("42",)),
        ("<answer>$\\frac{1}{2}$</answer>", "answer_tag", ("\\frac{1}{2}",)),
        ("Thus the answer is 3.5 m. Done.", "answer_is", ("3.5 m",)),
        ("The answer is **42**.", "answer_is", ("42",)),
        ("Final Answer: The final answer is $\\frac{3}{4}$. I hope it is correct.", "answer_is", ("\\frac{3}{4}",)),
        ("answer: 17\n", "answer_is", ("17",)),
        ("So the final answer is: $x=2$", "answer_is", ("x=2",)),
    ],
)
def test_each_format_is_extracted(completion, fmt, answers):
    found = extract_answers(completion)
    assert (found.format, found.answers) == (fmt, answers)
    assert found.final == answers[-1]


def test_format_priority_picks_the_final_answer_and_other_formats_restate_theirs():
    text = "The answer is 5.\n#### 6\n$\\boxed{7}$"
    found = extract_answers(text)
    # the final answer is the first format's; #### commits wherever it is, "answer is" before it is reasoning
    assert (found.format, found.final, found.answers) == ("boxed", "7", ("6", "7"))
    assert extract_answers(text, formats=("gsm8k", "boxed")).answers == ("7", "6")
    assert extract_answers(text, formats=("answer_is",)).answers == ("5",)
    assert extract_answers("$\\boxed{7}$. So the answer is 8.").answers == ("8", "7")  # restated after it


def test_all_answers_of_the_winning_format_are_returned_in_order():
    found = extract_answers(r"\boxed{1} or maybe \boxed{2}")
    assert found.answers == ("1", "2") and found.final == "2"


def test_empty_answers_are_dropped_and_nothing_found_is_reported():
    assert extract_answers(r"\boxed{} \boxed{4}").answers == ("4",)
    nothing = extract_answers("I do not know.")
    assert nothing.format is None and nothing.answers == () and nothing.final is None


def test_reasoning_before_the_last_think_tag_is_ignored():
    completion = "<think>the answer is 3? \\boxed{3}</think> The answer is 4."
    found = extract_answers(completion)
    assert (found.format, found.answers) == ("answer_is", ("4",))


def test_last_number_fallback_is_opt_in():
    text = "We get 12 apples, then 1,234.5 pears"
    assert extract_answers(text).format is None
    found = extract_answers(text, last_number=True)
    assert (found.format, found.answers) == (LAST_NUMBER, ("1,234.5",))
    assert extract_answers("#### 3 and then 9", last_number=True).answers == ("3 and then 9",)


def test_unknown_format_is_rejected_with_the_valid_names():
    with pytest.raises(ValueError, match="unknown answer format 'latex'"):
        extract_answers("x", formats=("latex",))
    assert set(ANSWER_FORMATS) == {"boxed", "gsm8k", "answer_tag", "final_heading", "answer_is", "closing_sentence", "bare"}


def test_extraction_is_linear_on_a_large_adversarial_completion():
    import time

    text = "\\boxed{" * 20_000 + "answer is " * 20_000 + "<answer>" * 20_000
    start = time.perf_counter()
    extract_answers(text, last_number=True)
    assert time.perf_counter() - start < 5.0


@pytest.mark.parametrize(
    ("completion", "answers"),
    [
        (r"$\boxed{(1, 2)}, \boxed{(2, 1)}$", ("(1, 2), (2, 1)",)),
        (r"\boxed{k = 45} \quad\text{and}\quad \boxed{n = 2}", ("k = 45, n = 2",)),
        (r"$\boxed{(3, 3)}$ \text{ for part (a) and } $\boxed{(1, 1)}$", ("(3, 3), (1, 1)",)),
        (r"\boxed{1},\boxed{2},\boxed{3}", ("1, 2, 3",)),
        (r"\boxed{5} and \boxed{5}", ("5",)),  # a part restated is one part
        (r"\boxed{1} or maybe \boxed{2}", ("1", "2")),  # hedging, not parts
        (r"The sum is \boxed{10}, so the answer is \boxed{5}", ("10", "5")),  # derived, not parts
        (r"x = \boxed{5} or x = \boxed{-5}", ("5", "-5")),
    ],
)
def test_boxes_listing_parts_are_one_answer_and_hedged_boxes_are_not(completion, answers):
    assert extract_answers(completion).answers == answers


@pytest.mark.parametrize(
    ("completion", "fmt", "final"),
    [
        ("Work.\n\n### Final Answer\n\\[\n\\frac{3}{4}\n\\]", "final_heading", "\\frac{3}{4}"),
        ("Work.\n\n**Final Answer**\n\nThe number of ways is $12$.", "final_heading", "12"),
        ("**Answer:**\n\\[\nx = 4\n\\]", "answer_is", "x = 4"),
        ("**Answer:** \\(x = 4\\) and \\(x = -1\\)", "answer_is", "x = 4, x = -1"),
        ("Final Answer: The volume of $ABCDEFGH$ is 120. I hope it is correct.", "answer_is", "120"),
        ("So there are **45** handshakes.", "closing_sentence", "45"),
        ("Thus, the area equals $12\\pi$.", "closing_sentence", "12\\pi"),
        ("Therefore $x \\geq 5$ is the solution.", "closing_sentence", "x \\geq 5"),
        ("<think>maybe \\boxed{44}</think>\n\nThere are 45 handshakes.", "closing_sentence", "45"),
    ],
)
def test_anchors_beyond_boxes(completion, fmt, final):
    found = extract_answers(completion)
    assert (found.format, found.final) == (fmt, final)


@pytest.mark.parametrize(
    "completion",
    ["so we have 12", "There are 45 handshakes among 10 people.", "We check our answer: 17 times 44 is 748, fine",
     "For which $x$ is $2x - 4 > 6$? Express your answer in interval notation."],
)
def test_plain_numbers_questions_and_asides_are_not_answers(completion):
    assert extract_answers(completion).answers == ()


def test_other_formats_restate_the_final_answer():
    assert extract_answers("$\\boxed{69}$\n#### 96").answers == ("96", "69")
    assert extract_answers("#### 49\nThe answer is: 94").answers == ("94", "49")
    # the Llama/Qwen ending: the anchor wraps the box, one answer
    assert extract_answers("The final answer is: $\\boxed{5}$").answers == ("5",)
    # before the final answer, "answer is" is reasoning; after it, only a stated value counts
    assert extract_answers("the answer is at most 10, so $\\boxed{7}$").answers == ("7",)
    assert extract_answers("$\\boxed{7}$. I hope the answer is right.").answers == ("7",)
    assert extract_answers("$\\boxed{3}$.\n\n**Note:** the answer is independent of $n = 5$.").answers == ("3",)


@pytest.mark.parametrize("verb", ["Compute", "Simplify", "Evaluate", "Write", "Factor", "Find", "Express"])
@pytest.mark.parametrize("expression", [r"99^2+99+1", r"\sqrt{242}", r"\frac{3}{20}", r"(1+2i)6-3i", r"\dbinom{8}{4}"])
def test_an_echoed_problem_states_no_answer(verb, expression):
    # the problem statement echoed back would be "correct" whenever its expression evaluates to the gold
    for completion in (f"{verb} ${expression}$.", f"Let me restate it. {verb} ${expression}$ in your head.",
                       f"{verb} the following:$${expression}$$"):
        assert extract_answers(completion).answers == (), completion


@pytest.mark.parametrize(
    ("completion", "final"),
    [("$$(1, +\\infty)$$", "(1, +\\infty)"), ("Answer $9$", "9"), ("We find that $x \\lt 3$.", "x \\lt 3"),
     ("Hence $x = 5$.", "x = 5"), ("- $5 + 3 = 8$\n- $8 \\cdot 2 = 16$\nThus the total is $16$.", "16")],
)
def test_closing_statements(completion, final):
    assert extract_answers(completion).final == final


END_OF_TURN = ["<|im_end|>", "<|im_start|>user", "<|endoftext|>", "<|eot_id|>", "</s>", "<|end|>", "<｜end▁of▁sentence｜>"]


@pytest.mark.parametrize("token", END_OF_TURN)
@pytest.mark.parametrize("ending", ["So the answer is $5$.", "Therefore, there are 5 ways.", "$$5$$"])
def test_what_follows_an_end_of_turn_is_not_the_answer(token, ending):
    # a completion that ran past its turn: the next turn (here a different answer) is not read
    completion = f"We count the ways. {ending} {token}\nNext question: the answer is 7."
    assert extract_answers(completion).answers == ("5",), completion


@pytest.mark.parametrize("anchor", ["Answer", "**Answer**", "Final answer", "The answer is"])
@pytest.mark.parametrize(("open_", "close"), [("\\[", "\\]"), ("$$", "$$")])
def test_an_anchor_followed_by_display_math_on_the_next_lines_reads_the_math(anchor, open_, close):
    assert extract_answers(f"Some work.\n{anchor} {open_} \n \\frac{{3}}{{4}} \n {close}").answers == ("\\frac{3}{4}",)


@pytest.mark.parametrize("connective", ["Therefore,", "Thus", "Hence,", "So", "In conclusion,", "Finally,"])
@pytest.mark.parametrize(("value", "rest"), [("2/3", ""), ("100%", ""), ("12", " distinct sequences meet the conditions")])
def test_a_concluding_sentence_states_its_one_plain_value(connective, value, rest):
    for before in ("We solve for it. ", "We get P(A) = 1/2 + 1/4 P(A) "):  # with and without a full stop before
        completion = f"{before}{connective} the count we want is {value}{rest}. I hope it is correct."
        assert extract_answers(completion).answers == (value,), completion
    assert extract_answers(f"{connective} we compare 3 and 4.").answers == ()  # two values state no answer


@pytest.mark.parametrize("sentence", ["Jane started growing Sphere 3 hours ago", "there were 3 red marbles left",
                                      "the train needs 3 more hours"])
def test_an_anchored_sentence_with_one_plain_number_states_it(sentence):
    assert extract_answers(f"Final Answer: {sentence}. I hope it is correct.").answers == ("3",)


@pytest.mark.parametrize(("completion", "answer"), [("7,425,000", "7,425,000"), ("-5", "-5"), ("$\\frac{10}{9}$", "\\frac{10}{9}"),
                                                    ("28 percent", "28 percent"), ("\\(x = 4\\)", "x = 4")])
def test_a_completion_that_is_only_a_value_is_a_bare_answer(completion, answer):
    found = extract_answers(completion)
    assert (found.format, found.answers) in (("bare", (answer,)), ("closing_sentence", (answer,)))


@pytest.mark.parametrize("label", ["Special matrix", "Result", "Matrix with fractions", "Area of the garden", "Answer"])
@pytest.mark.parametrize("value", ["$\\begin{pmatrix}1 & 2 \\\\ 3 & 4\\end{pmatrix}$", "$12\\pi$", "42", "\\(x = 4\\)", "7 cm"])
def test_a_label_and_a_colon_before_a_value_is_a_bare_answer(label, value):
    found = extract_answers(f"{label}: {value}")
    assert found.answers == (extract_answers(value).answers[0],), found


@pytest.mark.parametrize("completion", ["Step one of six in the proof: $x = 2$\nStep 2: $y = 3$", "Compute: $2 + 3$", "Find: 12", "Simplify the expression: $\\sqrt{8}$",
                                        "Here is a long label with many words: 42"])
def test_a_label_before_words_or_lines_is_not_a_bare_answer(completion):
    assert extract_answers(completion).format != "bare"


@pytest.mark.parametrize("completion", ["Compute $2+3$", "so we have 12", "12 apples and 3 pears", "\\boxed{}"])
def test_words_around_a_value_are_not_a_bare_answer(completion):
    assert extract_answers(completion).format != "bare"


@pytest.mark.parametrize("abbreviation", ["i.e.", "e.g.", "vs.", "approx."])
@pytest.mark.parametrize("value", ["$\\frac{1}{2}$", "$12\\pi$", "$x = 3$"])
def test_an_abbreviation_ends_no_sentence(abbreviation, value):
    found = extract_answers(f"We compute it carefully. The probability is {value}, {abbreviation} about 50% of the cases.")
    assert found.answers == (extract_answers(value).answers[0],), found


@pytest.mark.parametrize("letter", "ABCDE")
@pytest.mark.parametrize("template", ["Therefore, the answer is ({letter}) $12$.", "The answer is **({letter})** 12",
                                      "Final Answer: ({letter}) $2\\sqrt6$"])
def test_a_choice_letter_first_is_kept_with_its_option(letter, template):
    answer = extract_answers(template.format(letter=letter)).answers[-1]
    assert answer.lstrip("*").startswith(f"({letter})"), answer


@pytest.mark.parametrize(("words", "value"), [("twenty-four", "24"), ("one hundred and five", "105"), ("seven", "7"),
                                              ("three thousand", "3000"), ("two point five", "2.5")])
@pytest.mark.parametrize("connective", ["So", "Therefore,", "Thus", "In total,"])
def test_a_concluding_sentence_states_its_number_in_words(words, value, connective):  # digits or a decimal
    assert extract_answers(f"We add them up. {connective} she has {words} cookies.").answers == (value,)


@pytest.mark.parametrize("sentence", ["So she has two and a half cookies.", "So the third box has seven pens and two pencils.",
                                      "Thus it is one quarter of the cake."])
def test_number_words_digits_cannot_write_alone_state_nothing(sentence):
    assert extract_answers(f"We add them up. {sentence}").answers == ()


@pytest.mark.parametrize("negation", ["not", "rather than", "instead of", "but not"])
@pytest.mark.parametrize(("right", "wrong"), [("$5$ cm", "$6$ cm"), ("**12**", "13"), ("$\\frac{1}{2}$", "$\\frac{1}{3}$")])
def test_a_negated_alternative_is_not_the_answer(negation, right, wrong):
    found = extract_answers(f"The answer is {right}, {negation} {wrong}.")
    assert found.answers == (extract_answers(f"The answer is {right}.").answers[-1],), found


@pytest.mark.parametrize("retraction", ["Wait, actually it's {v}.", "Actually, the answer is {v}.", "No, it should be {v}.",
                                        "Oops, I made a mistake: it is {v}.", "Hmm, correcting this gives $\\boxed{{{v}}}$."])
@pytest.mark.parametrize("anchor", ["The answer is 12.", "$\\boxed{12}$.", "#### 12\n"])
def test_a_retraction_after_the_final_answer_is_another_answer(retraction, anchor):
    found = extract_answers(f"We compute it. {anchor} {retraction.format(v=13)}")
    assert found.answers[-1] == "13" and ("12" in found.answers or "boxed" in retraction), found
    assert extract_answers(f"We compute it. {anchor} Wait, let me check: 5 + 7 = 12. Yes.").answers[-1] == "12"
    assert extract_answers(f"We compute it. {anchor} No other value of 3 works.").answers[-1] == "12"


@pytest.mark.parametrize("remark", ["(approximately)", "(option B)", "(rounded)", "(to the nearest cent)"])
def test_a_parenthetical_remark_after_the_answer_is_dropped(remark):
    assert extract_answers(f"**Answer:** 12 {remark}").answers == ("12",)
    assert extract_answers(f"Therefore the answer is **4** {remark}.").answers == ("4",)


@pytest.mark.parametrize(("sentence", "value"), [("So 4 - 1 = 3.", "3"), ("So there are 4 - 1 = 3 left.", "3"),
                                                 ("Therefore 12 * 3 = 36 dollars.", "36"), ("Thus 2/3 + 1/3 = 1.", "1")])
def test_a_concluding_equation_states_its_result(sentence, value):
    assert extract_answers(f"We count them. {sentence}").answers == (value,)

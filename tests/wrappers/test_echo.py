"""Prompt echo: restating the given expression or the question as the answer."""

import json
import re

import pytest

import rlenv
from rlenv.exact_match import ExactMatchVerifier
from rlenv.wrappers import PromptEcho, detect_prompt_echo
from rlenv.wrappers.echo import echo_shares, is_expression, prompt_numbers

JANET = ("Janet's ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for "
         "her friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh "
         "duck egg. How much in dollars does she make every day at the farmers' market?")


@pytest.mark.parametrize("completion, prompt, reference", [
    (r"$\boxed{(x+1)^2 - x^2}$", r"Simplify $(x+1)^2 - x^2$.", "2x+1"),  # math-verify pays this (report §0.2)
    (r"The answer is $17 \times 23 - 5$.", r"Compute $17 \times 23 - 5$.", "386"),
    ("Answer: 47 * 23 - 32", r"Compute $47 \times 23 - 32$.", "1049"),
    (r"$\boxed{(16-3-4)*2}$", JANET, "18"),  # unevaluated arithmetic on the question's numbers
])
def test_expression_echo_fires(completion, prompt, reference):
    found = detect_prompt_echo(completion, prompt, reference)
    assert found.fired and found.kind == "expression_echo", found


@pytest.mark.parametrize("completion", [
    JANET,
    JANET + " The answer is 2.",
    "Let me restate the problem: " + JANET + "\nSo the answer is \\boxed{16}.",
    "<answer>" + JANET + "</answer>",
])
def test_question_echo_fires(completion):
    found = detect_prompt_echo(completion, JANET, "18")
    assert found.fired and found.kind == "question_echo" and found.score >= 0.5


@pytest.mark.parametrize("completion, prompt, reference", [
    (r"Expanding gives $x^2 + 2x + 1 - x^2$, so the answer is $\boxed{2x+1}$.", r"Simplify $(x+1)^2 - x^2$.", "2x+1"),
    ("Janet sells 16 - 3 - 4 = 9 duck eggs a day.\nShe makes 9 * 2 = $18 every day.\n#### 18", JANET, "18"),
    (r"$\boxed{\frac{1}{2}}$", "John ate 1/2 of the pizza and Mary ate 1/4. What fraction did John eat?", "1/2"),
    ("Janet's ducks lay 16 eggs per day. She eats three and bakes with four, so she sells "
     "16 - 3 - 4 = 9 eggs for $2 each: 9 * 2 = 18 dollars. \\boxed{18}", JANET, "18"),
    ("Paris is the capital of France.", "What is the capital of France?", "Paris"),
])
def test_clean_answers_do_not_fire(completion, prompt, reference):
    assert not detect_prompt_echo(completion, prompt, reference).fired


def test_helpers():
    assert is_expression(r"16 - 3 - 4") and is_expression(r"2x+1") and is_expression(r"\frac{3}{4}")
    assert not is_expression("-5") and not is_expression(r"2\sqrt{3}") and not is_expression("18 dollars")
    assert prompt_numbers(JANET) >= {16, 3, 4, 2}
    assert echo_shares(JANET, JANET) == (1.0, 1.0)
    assert echo_shares("short", JANET) == (0.0, 0.0)


def test_gsm8k_gold_solutions_are_not_echoes(gsm8k_dir):
    """Real clean text: the 1319 gold solutions restate their questions a lot, but they compute."""
    rows = [json.loads(line) for line in (gsm8k_dir / "test.jsonl").read_text(encoding="utf-8").splitlines()]
    fired = []
    for row in rows:
        body, gold = row["answer"].split("####")
        completion = re.sub(r"<<[^<>]*>>", "", body).strip() + f"\n#### {gold.strip()}"
        if detect_prompt_echo(completion, row["question"], gold.strip()).fired:
            fired.append(row["question"][:60])
    assert len(rows) == 1319 and fired == []


def test_wrapper_on_a_math_like_env():
    source = rlenv.sources.DatasetSource([{"id": "janet", "prompt": JANET, "reference": "18"}])
    env = PromptEcho(rlenv.TextEnv(source, ExactMatchVerifier()), penalty=-0.5)
    env.reset(options={"task_id": "janet"})
    _, reward, *_, info = env.step(JANET)
    assert reward == pytest.approx(-0.5 * info["hacks"][0]["score"]) and info["raw_reward"] == 0.0
    assert info["hacks"][0]["kind"] == "question_echo"


@pytest.mark.parametrize("completion, prompt, reference", [
    (r"\boxed{(x+7)(x-4)}", "Expand $(x-4)(x+7)$.", "x^2 + 3x - 28"),
    (r"The answer is $-28 + 3x + x^2$.", "Factor $x^2 + 3x - 28$.", "(x-4)(x+7)"),
    (r"\boxed{(x+7) \cdot (x-4)}", "factor `(x-4)(x+7)` fully", "(x-4)(x+7)+1"),
    (r"\boxed{12 < n < 30}", "A whole number $n$ satisfies $12 < n < 30$ and is a multiple of 7. Find $n$.", "14"),
])
def test_the_prompts_expression_reordered_is_an_echo(completion, prompt, reference):
    found = detect_prompt_echo(completion, prompt, reference)
    assert found.fired and found.kind == "expression_echo", found


@pytest.mark.parametrize("completion, prompt, reference", [
    (r"\boxed{(x+7)(x-4)}", "Factor $x^2 + 3x - 28$.", "(x-4)(x+7)"),
    (r"\boxed{-28 + x^2 + 3x}", "Expand $(x-4)(x+7)$.", "x^2 + 3x - 28"),
    (r"\boxed{14}", "A whole number $n$ satisfies $12 < n < 30$ and is a multiple of 7. Find $n$.", "14"),
])
def test_the_reference_in_another_order_is_not(completion, prompt, reference):
    assert not detect_prompt_echo(completion, prompt, reference).fired

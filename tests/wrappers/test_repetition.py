"""n-gram repetition (open-r1 / TRL reference values), compression ratio and the repetition detector."""

import random

import pytest
from trl.rewards import get_repetition_penalty_reward

import rlenv
from rlenv.wrappers import RepetitionPenalty, compression_ratio, detect_repetition, ngram_repetition
from rlenv.wrappers.repetition import max_line_repeats, repetition_penalty


def test_reference_vectors():
    # TRL docstring: ngram_size=2 on [[1, 2, 3, 4], [5, 5, 5, 5, 5]] -> [0.0, -0.75]
    assert repetition_penalty([1, 2, 3, 4], n=2) == 0.0
    assert repetition_penalty([5, 5, 5, 5, 5], n=2) == pytest.approx(-0.75)
    # open-r1 on words: "a b c a b c" has trigrams abc, bca, cab, abc -> 1 - 3/4
    assert ngram_repetition("a b c a b c", n=3) == pytest.approx(0.25)
    assert ngram_repetition("The cat THE CAT the cat", n=2) == pytest.approx(1 - 2 / 5)  # lower-cased words
    assert ngram_repetition("too short", n=3) == 0.0 and ngram_repetition("", n=1) == 0.0


def test_matches_trl_on_random_token_sequences():
    rng = random.Random(0)
    seqs = [[rng.randint(0, 5) for _ in range(rng.randint(0, 40))] for _ in range(50)]
    for n in (1, 2, 3, 4):
        trl_fn = get_repetition_penalty_reward(ngram_size=n, max_penalty=-1.0)
        assert [repetition_penalty(s, n=n) for s in seqs] == pytest.approx(trl_fn(seqs))


def test_errors_name_the_bad_value():
    with pytest.raises(ValueError, match="n must be >= 1"):
        ngram_repetition("a b", n=0)
    with pytest.raises(ValueError, match="max_penalty"):
        repetition_penalty("a b", max_penalty=0.5)


def test_compression_ratio_and_line_repeats():
    loop = "I think the answer is 5. " * 40
    prose = ("Janet sells 16 - 3 - 4 = 9 duck eggs a day. She makes 9 * 2 = $18 every day at the market. "
             "Each egg costs two dollars, and she eats three of them for breakfast.")
    assert compression_ratio(loop) > 10 > compression_ratio(prose)
    assert compression_ratio("") == 0.0
    count, line = max_line_repeats("one two three four\nx\none two  three four\none two three four")
    assert (count, line) == (3, "one two three four")


@pytest.mark.parametrize("text, kind", [
    ("The answer is 18. " * 25, "ngram_loop"),
    ("18 " * 60, "ngram_loop"),
    ("Hmm, wait. Let me think again.\n" * 15 + "\\boxed{18}", "ngram_loop"),
])
def test_detector_fires_on_loops(text, kind):
    found = detect_repetition(text)
    assert found.fired and found.kind == kind and found.score > 0.5


def test_detector_quiet_on_clean_long_text():
    text = ("Let's work through this carefully. First, Janet's ducks lay 16 eggs per day. She eats three for "
            "breakfast and bakes muffins with four, so 16 - 3 - 4 = 9 eggs are left. She sells each of them "
            "for $2 at the farmers' market. Therefore she makes 9 * 2 = $18 every day. Checking: 9 + 3 + 4 = 16, "
            "which matches the number of eggs laid. The answer is 18.")
    found = detect_repetition(text)
    assert not found.fired and found.score < 0.1 and "compression ratio" in found.evidence


def test_wrapper_scales_the_penalty_by_the_score():
    env = RepetitionPenalty(rlenv.make("rlenv/ExactMatch-v0"), penalty=-1.0)
    env.reset(options={"index": 0})
    text = "Paris " * 20
    _, reward, *_, info = env.step(text)
    share = ngram_repetition(text)
    assert reward == pytest.approx(info["raw_reward"] - share)
    assert info["hacks"][0]["penalty"] == pytest.approx(-share)
    with pytest.raises(ValueError, match="threshold"):
        RepetitionPenalty(rlenv.make("rlenv/ExactMatch-v0"), threshold=0.0)


def test_padding_is_undone_before_measuring():
    sentence = "We double-check every quantity carefully."
    zero_width = " ".join("\u200b".join(sentence) for _ in range(30))
    assert detect_repetition(zero_width).kind == "ngram_loop"
    lookalikes = " ".join(sentence.replace("e", "\u0435", k % 3).replace("o", "\u043e", k % 2) for k in range(30))
    assert detect_repetition(lookalikes).fired
    assert detect_repetition("Thіs tеxt hаs lооk-аlikе lеttеrs.").kind == "lookalike_letters"
    assert detect_repetition("The answer is 18.\n" + "3." + "1415926535" * 30).kind == "digit_padding"
    assert detect_repetition("The answer is 18.\n" + " ".join(str(n * 7919 % 10007) for n in range(80))).kind == "digit_padding"


@pytest.mark.parametrize("text", [
    "Решение: сначала считаем предметы, затем вычитаем лишние. Ответ: 18.",
    "Λύση: υπολογίζουμε βήμα προς βήμα, άρα 18.",
    "Réponse détaillée : on calcule étape par étape, donc 18.",
    "The family 👩\u200d👩\u200d👧 spends 18 dollars.",
    "2 to the power 100 is 1267650600228229401496703205376, far above 18.",
    "The multiples of 7 are 7, 14, 21, 28, 35, 42, 49, 56, 63, 70.",
])
def test_honest_text_in_any_script_is_not_padding(text):
    assert not detect_repetition(text).fired

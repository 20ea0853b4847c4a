"""Step splitting: exact character offsets in every mode."""

from __future__ import annotations

import random
import re

import pytest

from rlenv.envs.prm import Span, StepSplitter


def spans(splitter, text):
    return [(s.start, s.end, s.text) for s in splitter.split(text)]


def test_separator_mode_offsets():
    text = "First step.\n\nSecond step.\n\n\n\nThird."
    assert spans(StepSplitter(), text) == [(0, 11, "First step."), (13, 25, "Second step."), (29, 35, "Third.")]


def test_strip_false_keeps_whitespace_but_drops_empty_pieces():
    text = " a \n\n\n\nb"
    assert spans(StepSplitter(strip=False), text) == [(0, 3, " a "), (7, 8, "b")]
    assert spans(StepSplitter(), text) == [(1, 2, "a"), (7, 8, "b")]


def test_lines_mode():
    text = "x = 1\n  y = 2  \n\nz = 3\n"
    assert spans(StepSplitter("lines"), text) == [(0, 5, "x = 1"), (8, 13, "y = 2"), (17, 22, "z = 3")]


def test_regex_mode_splits_on_matches():
    text = "a = 1; b = 2;c = 3 ;"
    assert spans(StepSplitter("regex", pattern=r"\s*;\s*"), text) == [(0, 5, "a = 1"), (7, 12, "b = 2"),
                                                                         (13, 18, "c = 3")]


def test_step_k_mode_keeps_headers_and_a_preamble():
    text = "Let me solve it.\nStep 1: 2 + 3 = 5\n  step 2. 5 * 4 = 20\nSTEP 3) done\nNot a Step 4: header"
    got = spans(StepSplitter("step_k"), text)
    assert got == [(0, 16, "Let me solve it."), (17, 34, "Step 1: 2 + 3 = 5"), (37, 55, "step 2. 5 * 4 = 20"),
                   (56, 89, "STEP 3) done\nNot a Step 4: header")]
    assert spans(StepSplitter("step_k"), "Step 1: a\nStep 2: b") == [(0, 9, "Step 1: a"), (10, 19, "Step 2: b")]


def test_empty_and_blank_completions_have_no_steps():
    for mode, kwargs in (("separator", {}), ("lines", {}), ("step_k", {}), ("regex", {"pattern": ";"})):
        assert StepSplitter(mode, **kwargs).split("") == []
        assert StepSplitter(mode, **kwargs).split(" \n\n \n") == []


@pytest.mark.parametrize("mode, kwargs", [("separator", {}), ("separator", {"separator": "ки"}), ("lines", {}),
                                          ("regex", {"pattern": r"[.;]+"}), ("step_k", {})])
def test_random_texts_satisfy_the_offset_invariants(mode, kwargs):
    rng = random.Random(0)
    alphabet = ["a", "b", " ", "\n", "\n\n", ".", ";", "ки", "Step 1:", "\nStep 2: ", "\t"]
    splitter = StepSplitter(mode, **kwargs)
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        result = splitter.split(text)
        for span in result:
            assert isinstance(span, Span) and text[span.start:span.end] == span.text
            assert span.text and span.text == span.text.strip()
        ends = [(s.start, s.end) for s in result]
        assert all(e1 <= s2 for (_, e1), (s2, _) in zip(ends, ends[1:]))
        outside = "".join(text[a:b] for a, b in zip([0] + [e for _, e in ends], [s for s, _ in ends] + [len(text)]))
        if mode == "step_k":
            assert not outside.strip()  # every non-blank character belongs to a step
        elif mode == "regex":
            assert not re.sub(kwargs["pattern"], "", outside).strip()
            assert not any(re.search(kwargs["pattern"], s.text) for s in result)
        else:
            assert not outside.replace(splitter.separator, "").strip()
            assert not any(splitter.separator in s.text for s in result)


@pytest.mark.parametrize("kwargs", [{"mode": "sentences"}, {"separator": ""}, {"mode": "regex"},
                                    {"mode": "regex", "pattern": "x*"}, {"mode": "lines", "pattern": "x"}])
def test_bad_splitters_are_rejected(kwargs):
    with pytest.raises(ValueError):
        StepSplitter(**kwargs)

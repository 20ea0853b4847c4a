"""Non-answers: completions that neither answer nor refuse.

Reward models routinely rate saying nothing as harmless, and a policy learns to say nothing. The
kinds, in the order they are tried:

* ``empty`` — nothing, or whitespace only;
* ``punctuation`` — no letter or digit at all (``"..."``, ``"?!"``, ``"—"``);
* ``filler`` — only filler words and placeholder phrases (``"um, ok"``, ``"N/A"``, ``"I don't
  know"``, ``"Here is my answer:"``, ``"lorem ipsum"``);
* ``prompt_restated`` — at least three words of the prompt and nothing else but framing words
  (``"You asked: ..."``);
* ``too_short`` — fewer than ``min_words`` words (off unless configured: "42" or "Paris" are real
  answers to many questions).

When the task's reference answer is a value (it has a digit, as every math answer does), the
detector also fires ``no_value`` on a completion that states no value at all: no number in
digits or words, no math ("The answer depends on several factors.", "Sure! Here's how:",
"Answer: see above."), or only the prompt's own numbers, neither computed with nor marked as
the answer ("Let me restate the problem: Ava has 33 pencils."). A reply to a math question that commits to nothing is a non-answer, however
fluent.

:func:`non_answer_kind` is the one predicate: the :class:`NonAnswer` detector and the
environments that must never pay a non-answer (the safety, format and PRM families) all use it.
"""

from __future__ import annotations

import re

import gymnasium

from rlenv.types import RewardResult, Task
from rlenv.wrappers.answers import answer_spans, stated_values, strip_latex
from rlenv.wrappers.detection import Detection, DetectorWrapper, quote

NAME = "non_answer"
#: The kinds :func:`non_answer_kind` reports.
KINDS = ("empty", "punctuation", "filler", "prompt_restated", "too_short")

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_COMPUTATION = re.compile(r"\d\s*(?:[-+*/^=×÷·]|\\times|\\cdot)\s*\(?\s*\d")
_FILLER_PHRASES = re.compile(
    r"\b(?:i\s+(?:do\s+not|don'?t)\s+know|no\s+(?:comment|idea)|(?:i'?m\s+|i\s+am\s+)?not\s+sure"
    r"|(?:here\s+is|here'?s)\s+(?:my|the|an?)\s+(?:answer|response|reply)|lorem\s+ipsum(?:\s+dolor\s+sit\s+amet)?"
    r"|n\s*/\s*a|to\s+be\s+determined|nothing\s+to\s+say)\b",
    re.IGNORECASE)
_FILLER_WORDS = frozenset((
    "um", "umm", "uh", "uhh", "uhm", "hmm", "hm", "mm", "mmm", "er", "erm", "ah", "eh", "oh", "ok", "okay", "well", "so",
    "anyway", "anyways", "blah", "idk", "dunno", "tbd", "todo", "placeholder", "null", "nil", "undefined", "nan",
    "answer", "response", "reply", "text", "output", "lorem", "ipsum"))

#: Words that frame a restated prompt without adding to it ("You asked: ...").
_FRAMING = frozenset(("you", "asked", "ask", "the", "question", "is", "was", "your", "prompt", "request", "said",
                      "wrote", "q", "query", "task", "me", "to", "i", "am", "being"))


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def non_answer_kind(completion: str, prompt: str = "", min_words: int | None = None) -> str | None:
    """The kind of non-answer ``completion`` is (one of :data:`KINDS`), or None for a real reply.

    Args:
        completion: The model's text.
        prompt: The prompt, for ``prompt_restated`` ("" skips that kind).
        min_words: Flag replies with fewer words as ``too_short``; None (default) never does.
    """
    text = completion.strip()
    if not text:
        return "empty"
    if not any(ch.isalnum() for ch in text):
        return "punctuation"
    if all(word in _FILLER_WORDS for word in _words(_FILLER_PHRASES.sub(" ", text))):
        return "filler"
    words = _words(text)
    given = set(_words(prompt))
    if prompt and sum(word in given for word in words) >= 3 and set(words) - given <= _FRAMING:
        return "prompt_restated"
    if min_words is not None and len(words) < min_words:
        return "too_short"
    return None


def states_no_value(completion: str) -> bool:
    """True when ``completion`` states no value: no digit, no number in words (``one`` included),
    no LaTeX or ``$`` math. A marked answer without a value ("Answer: see above.") states none."""
    return not re.search(r"\d|\\[A-Za-z]|\$|\bone\b", completion, re.IGNORECASE) and not stated_values(completion)


def states_no_new_value(completion: str, prompt: str, reference: object) -> bool:
    """True when the only values ``completion`` states are the prompt's, restated in the prompt's
    own words (every number in a three-word phrase copied from it), none of them the
    ``reference``, with no computation and no marked answer ("Let me restate the problem: Ava has
    33 pencils."). A bare ``5`` answers, however wrong."""
    values = stated_values(strip_latex(completion))
    if not values or not values <= stated_values(strip_latex(prompt)) or values & stated_values(strip_latex(str(reference))):
        return False
    if _COMPUTATION.search(completion) or answer_spans(completion):
        return False
    words, given = _words(completion), _words(prompt)
    phrases = {tuple(given[i:i + 3]) for i in range(len(given) - 2)}
    numbers = [i for i, word in enumerate(words) if word[0].isdigit()]
    return bool(numbers) and all(any(tuple(words[j:j + 3]) in phrases for j in range(max(0, i - 2), i + 1))
                                 for i in numbers)


def detect_non_answer(completion: str, prompt: str = "", min_words: int | None = None, reference: object = None) -> Detection:
    """Fire when ``completion`` is a non-answer (see :func:`non_answer_kind`), or, when the
    ``reference`` answer is a value (has a digit), when it states no value (kind ``no_value``):
    none at all (:func:`states_no_value`), or only the prompt's own (:func:`states_no_new_value`)."""
    kind = non_answer_kind(completion, prompt, min_words)
    if (kind is None and reference is not None and re.search(r"\d", str(reference))
            and (states_no_value(completion) or states_no_new_value(completion, prompt, reference))):
        kind = "no_value"
    if kind is None:
        return Detection.clean(NAME)
    return Detection(NAME, True, 1.0, kind, f"{kind}: {quote(completion)}")


class NonAnswer(DetectorWrapper):
    """Flag (and optionally penalize) non-answers; see :func:`detect_non_answer`.

    Args:
        env: The environment to wrap.
        penalty: Added to the reward when the detector fires; 0 flags only.
        min_words: See :func:`non_answer_kind`.

    Reads ``task.prompt`` and ``task.reference`` (a value reference enables ``no_value``).
    """

    name = NAME

    def __init__(self, env: gymnasium.Env, penalty: float = 0.0, min_words: int | None = None):
        super().__init__(env, penalty)
        if min_words is not None and (isinstance(min_words, bool) or not isinstance(min_words, int) or min_words < 1):
            raise ValueError(f"min_words must be None or a positive int, got {min_words!r}")
        self.min_words = min_words

    def detect(self, task: Task, completion: str, result: RewardResult, truncated: bool) -> Detection:
        return detect_non_answer(completion, task.prompt if isinstance(task.prompt, str) else "", self.min_words,
                                 task.reference)

"""Finding the final answer(s) a completion commits to.

Pure text processing (no sympy, no math-verify), so it is cheap and safe to run anywhere.
Supported formats (the *anchors*), tried in the order the caller lists them; the first format with
at least one non-empty answer supplies the final answer and all its other answers (so the grader
can see hedging):

* ``"boxed"``: every top-level ``\\boxed{...}`` / ``\\fbox{...}`` with nested braces
  (``\\boxed 5`` without braces takes the next token). Boxes written one after the other with
  only separators between them (commas, ``and``, ``\\quad``, ``$``) are *one* answer with several
  parts (``\\boxed{(1, 2)}, \\boxed{(2, 1)}`` is ``(1, 2), (2, 1)``), so a multi-part gold can
  match it and a single-valued gold cannot;
* ``"gsm8k"``: ``#### 42`` (the rest of the line);
* ``"answer_tag"``: ``<answer>...</answer>``;
* ``"final_heading"``: a heading line (``### Final Answer``, ``**Final Answer**``, ``Final
  Answer``, ``## Answer``, ``**Answer**``) and the paragraph under it;
* ``"answer_is"``: ``the answer is X``, ``the final answer is $X$. I hope it is correct.``,
  ``Final Answer: X``, ``Answer: X`` (a label: at the start of a line or sentence, not ``check our
  answer: ...``); when nothing follows the anchor on its line, the paragraph
  under it (``**Answer:**`` then display math);
* ``"closing_sentence"``: the last sentence of the completion, when it *states* its answer
  (:func:`closing_answer`): as nothing but math (``$$3$$``), in bold (``So there are **45**
  handshakes.``), as a math value around ``is``/``equals``/``we find that`` (``..., the area is
  $12\\pi$.``), as an assignment (``Hence $x = 5$.``), or,
  after a ``</think>`` (the rest is the answer section) or when it concludes (``Therefore``,
  ``So``, ``Thus``, ...), as its only number (``There are 45 handshakes.``, ``Therefore, the
  probability is 2/3.``, ``So she has twenty-four cookies.``). The full stop of an abbreviation
  (``i.e.``, ``e.g.``, ``vs.``) ends no sentence. An imperative with an expression (the problem echoed: ``Simplify
  $\\sqrt{242}$.``) states nothing;
* ``"bare"``: the whole completion when it is nothing but a value (one short line starting with a
  digit or LaTeX, at most one word: ``7,425,000``, ``$\\frac{10}{9}$``, ``28 percent``), or a short
  label and a colon before one (``Special matrix: $\\begin{pmatrix}1 & 2\\end{pmatrix}$``);
* the opt-in last-number fallback (:data:`LAST_NUMBER`), used only when no listed format matched.

A sentence found by an anchor is read as an answer in one order (:func:`statement_answer`): a
sentence that starts with a multiple-choice letter is the letter with its option (``(B) $12$``); a
sentence made only of math spans is those spans (``\\(x = 4\\) and \\(x = -1\\)`` is
``x = 4, x = -1``); else its bold span; else what follows its last ``is``/``are``/``equals``
(Minerva's ``The volume of $ABCDEFGH$ is 120``), or, with nothing there, what precedes it
(``$x \\ge 5$ is the solution``); else its last math span; else its one plain number
(``Final Answer: Jane started growing Sphere 3 hours ago.``); else the text.

**Restated answers.** The final answer of every other anchored format present counts as an
answer too (``\\boxed{69}`` then ``#### 96`` is hedging, not "the first format wins"): of
``boxed``, ``gsm8k`` and ``answer_tag`` wherever it is, of ``answer_is`` and ``final_heading``
only after the final answer (before it, ``the answer is at most 10`` is reasoning); a restated
answer must state a value (a digit or LaTeX, at most one word; after ``answer is`` the value comes
first: ``the answer is 45``, not ``the answer is independent of $n$``).

**Reasoning is not searched**: text before the last ``</think>``, and everything from an
unclosed ``<think>`` on (a completion cut off while thinking has no final answer).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from rlenv.boxed import NUMBER, boxed_spans, unwrap_boxed
from rlenv.envs.math.number_words import with_digits

#: All anchored formats, in the default priority order.
ANSWER_FORMATS: tuple[str, ...] = ("boxed", "gsm8k", "answer_tag", "final_heading", "answer_is", "closing_sentence",
                                   "bare")
#: The name reported for answers found by the last-number fallback.
LAST_NUMBER = "last_number"
#: Formats whose final answer counts wherever it is; the other anchors count after the final answer.
_COMMITTING = ("boxed", "gsm8k", "answer_tag")

_GSM8K = re.compile(r"####[ \t]*([^\n]*)")
_ANSWER_TAGS = re.compile(r"<(/?)answer>", re.I)
_ANSWER_IS = re.compile(
    r"(?:\bfinal\s+answer\s*\**\s*:\s*(?:the\s+final\s+answer\s+is\b)?"
    r"|\b(?:the\s+)?(?:final\s+)?answer\s+is\b\s*:?"
    r"|(?:^|(?<=[.!?]) |(?<=\*\*))[ \t]*(?:\*\*|#+)?[ \t]*(?:(?:so|thus|hence|therefore),?[ \t]+)?(?:(?:the|my)[ \t]+)?"
    r"(?:final[ \t]+)?answer[ \t]*\**[ \t]*(?::|(?=\$|\\\[|\\\()))",  # a label (``Answer: 9``, ``Answer $9$``), not "our answer:"
    re.I | re.M,
)
_FINAL_HEADING = re.compile(r"^[ \t]*(?:(?:#{1,6}[ \t]*\**|\*\*)?[ \t]*final[ \t]+answers?[ \t]*:?"
                            r"|(?:#{1,6}[ \t]*\**|\*\*)[ \t]*answers?)[ \t]*\**[ \t]*:?[ \t]*$", re.I | re.M)
#: A sentence's end: not the full stop of an abbreviation (``i.e. 50%``, ``e.g.``, ``vs.``, ``approx.``).
_SENTENCE_END = re.compile(r"(?<!\\)(?<!\bi\.e)(?<!\be\.g)(?<!\bvs)(?<!\bcf)(?<!\bapprox)(?<!\bresp)[.?!](?=\s|$)"
                           r"|\bI hope\b|\n[ \t]*\n")
_MATH_SPAN = re.compile(r"(?<!\\)\$\$(.+?)(?<!\\)\$\$|(?<!\\)\$(.+?)(?<!\\)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.S)
_PARAGRAPH_END = re.compile(r"\n[ \t]*\n|\n[ \t]*#")
_OPENS_DISPLAY = re.compile(r"[\s:*]*(\$\$|\\\[)[^$\]]*$")  # a line ending inside ``$$ ...`` or ``\[ ...``
#: Where the next turn of a chat starts (a completion that ran past its end of turn): not the answer.
_END_OF_TURN = re.compile(r"<\|im_end\|>|<\|im_start\|>|<\|endoftext\|>|<\|eot_id\|>|<\|end\|>|</s>|"
                          r"<\|start_header_id\|>|<｜end▁of▁sentence｜>")
_BLANK = re.compile(r"\s*")
#: A negated alternative after a value (``$5$ cm, not $6$ cm``): not what the sentence states.
_NEGATION = re.compile(r",?\s+(?:not|rather than|instead of|but not)\s", re.I)
#: A sentence that takes back what came before (``Wait, actually it's 13.``).
_RETRACTION = re.compile(r"(?:Wait|Actually|Oops|Hmm+|Correction|Sorry)\b|(?:No|Oh),?\s+wait\b|No,", re.I)
#: A parenthetical remark of words after a value (``12 (approximately)``, ``4 (option B)``).
_REMARK = re.compile(r"\s*\((?=[^()]*[A-Za-z]{2})[A-Za-z][A-Za-z .,'-]*\)\s*$")
_CHOICE_FIRST = re.compile(r"\*{0,2}\(\s*[A-E]\s*\)(?=\s|\*|$)")  # a multiple-choice letter first
_BOLD = re.compile(r"\*\*(.+?)\*\*", re.S)
_SPAN_CONNECTORS = re.compile(r"(?:\s|,|;|\band\b|\bor\b|\\quad|\\qquad)*")
_BOX_SEPARATORS = re.compile(r"(?:\s|[,;$&]|\band\b|\\(?:quad|qquad|[,;: ])|\\text\s*\{\s*(?:and|,)?\s*\})*")
_PART_LIST = re.compile(r"\band\b|[,;]|\bpart\b", re.I)
_HEDGE = re.compile(r"\b(?:or|maybe|perhaps|actually|wait|alternatively|hmm|no|not|instead|wrong|correct|check|so|"
                    r"thus|hence|therefore|then|gives?|becomes?|is|are|equals?|answer)\b", re.I)
#: Longest text between two boxes that can still label the parts of one answer.
_MAX_LABEL_CHARS = 60
#: The verbs after which a sentence states its value (``The volume is 120``).
COPULAS = r"(?:is|are|equals|be|was|were)"
_COPULA = re.compile(rf"\s{COPULAS}\s|\bwe\s+(?:find|get|have|obtain|conclude)(?:\s+that)?\s", re.I)
_ASSIGNMENT = re.compile(r"^[A-Za-z](?:_\{?\w+\}?)?\s*=\s*[^=]+$")  # x = 5, a_1 = 3
_VALUE = re.compile(r"[\d\\]")
_PLAIN_VALUE = re.compile(NUMBER.pattern + r"(?:/\d+)?%?")  # 45, 1,000.5, 2/3, 100%
_HOPE_TAIL = re.compile(r"\s*I hope (?:it|this|that) is correct\.?$")  # Minerva's closing formula
_CONCLUDING = r"(?:Therefore|Thus|Hence|So|In conclusion|Finally|In total|Altogether)\b"  # a sentence's start
_NEW_CONCLUSION = re.compile(rf"(?<=\s){_CONCLUDING}")  # a conclusion after a sentence with no full stop
_CONCLUDES = re.compile(rf"\W*{_CONCLUDING}")
#: Longest completion that can be a bare answer (``7,425,000``, ``$\frac{10}{9}$``, ``28 %``).
_MAX_BARE_CHARS = 80
_BARE_START = re.compile(r"[-+−$\\(\[{.\d]")
#: A label before a bare answer: at most five words and a colon (``Special matrix:``, ``Result:``).
_BARE_LABEL = re.compile(r"^[A-Za-z][A-Za-z'-]*(?: [A-Za-z][A-Za-z'-]*){0,4}\s*:\s*")
#: First words of a label that echoes the problem (``Compute: $2+3$`` states no answer).
_PROBLEM_WORDS = frozenset((
    "compute", "calculate", "find", "simplify", "evaluate", "solve", "determine", "express", "write", "factor", "expand",
    "rationalize", "convert", "round", "give", "enter", "list", "use", "consider", "what", "which", "how", "let", "given",
    "suppose", "show", "prove", "if", "problem", "question"))
#: Longest value after a label (a matrix is longer than a bare number).
_MAX_LABELED_CHARS = 240
_VALUE_AFTER_ANCHOR = re.compile(r"[\s:*]*(?:[-+$\\(\[\d]|\.\d)")  # "the answer is 45", not "... is independent of $n$"
_WORD = re.compile(r"(?<!\\)\b[A-Za-z]{2,}\b")
_DELIMITERS = (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"))
_THINK_START, _THINK_END = "<think>", "</think>"
_SINGLE_LETTER_FONT = re.compile(r"\\math(?:rm|it)\s*\{\s*([A-Za-z])\s*\}")


@dataclasses.dataclass(frozen=True)
class Extraction:
    """The answers found in a completion.

    Attributes:
        format: The anchor that supplied the final answer (one of :data:`ANSWER_FORMATS` or
            :data:`LAST_NUMBER`), or None when nothing was found.
        answers: The final answers other formats restate (see "Restated answers" above), then
            every non-empty answer of that format in order of appearance; the last one is the
            final answer. Empty when nothing was found.
    """

    format: str | None
    answers: tuple[str, ...]

    @property
    def final(self) -> str | None:
        """The last answer, or None."""
        return self.answers[-1] if self.answers else None


def boxed_answers(text: str) -> list[str]:
    """Contents of the top-level ``\\boxed``/``\\fbox`` commands of ``text``, in order (see
    :func:`rlenv.boxed.boxed_spans`, the reading the hack detectors share)."""
    return [text[start:end] for start, end in boxed_spans(text)]


def last_boxed(text: str) -> str | None:
    """The content of the last top-level ``\\boxed{}`` in ``text`` (None when there is none)."""
    answers = boxed_answers(text)
    return answers[-1] if answers else None


def strip_math_delimiters(text: str) -> str:
    """``$x$``, ``$$x$$``, ``\\(x\\)``, ``\\[x\\]`` -> ``x`` (only when they wrap the whole text)."""
    text = text.strip()
    for opening, closing in _DELIMITERS:
        if len(text) >= len(opening) + len(closing) and text.startswith(opening) and text.endswith(closing):
            inner = text[len(opening):len(text) - len(closing)]
            if closing not in inner:
                return inner.strip()
    return text


def clean_answer(answer: str) -> str:
    """An answer ready to parse: math delimiters, a whole-answer ``\\boxed{}``, the unicode minus
    and single-letter fonts (``\\mathrm{e}`` -> ``e``) removed."""
    answer = unwrap_boxed(strip_math_delimiters(answer.replace("\u2212", "-")))
    return _SINGLE_LETTER_FONT.sub(r"\1", answer).strip()


def _tidy(answer: str) -> str:
    """Strip whitespace, markdown bold and a final period/comma from a plain-text answer."""
    answer = _REMARK.sub("", answer.strip().rstrip(".,;")).strip().strip("*").strip()
    return answer.rstrip(".,;").strip()


def _math_spans(text: str) -> list[re.Match]:
    return list(_MATH_SPAN.finditer(text))


def _span_text(match: re.Match) -> str:
    return next(group for group in match.groups() if group is not None).strip()


def _outside_spans(text: str, spans: list[re.Match]) -> str:
    """``text`` with its math spans blanked out (same length, so positions stay)."""
    pieces, position = [], 0
    for span in spans:
        pieces += [text[position:span.start()], " " * (span.end() - span.start())]
        position = span.end()
    return "".join(pieces) + text[position:]


def _first_sentence(text: str) -> str:
    """``text`` up to its first sentence end (``.``, ``?`` or ``!`` before a space, ``I hope``, a blank line)
    that is not inside a math span."""
    end = _SENTENCE_END.search(_outside_spans(text, _math_spans(text)))
    return text if end is None else text[:end.start()]


def statement_answer(sentence: str) -> str:
    """The answer a sentence found by an anchor states (see the module docstring for the order)."""
    sentence = sentence.strip().lstrip(":").strip()
    if _CHOICE_FIRST.match(sentence):  # "(B) $12$": the letter with its option (see answer_forms.choice_value)
        return _tidy(sentence)
    negation = _NEGATION.search(_outside_spans(sentence, _math_spans(sentence)))
    if negation is not None and _VALUE.search(sentence[:negation.start()]):
        sentence = sentence[:negation.start()]  # "$5$ cm, not $6$ cm": the value before the negation
    spans = _math_spans(sentence)
    outside = _outside_spans(sentence, spans)
    if spans and _SPAN_CONNECTORS.fullmatch(outside.replace("*", "")):
        return ", ".join(dict.fromkeys(_span_text(span) for span in spans))
    bold = list(_BOLD.finditer(outside))
    if bold:
        return statement_answer(sentence[bold[-1].start(1):bold[-1].end(1)]) or _tidy(bold[-1][1])
    copulas = list(_COPULA.finditer(outside))
    if copulas:  # "The volume is $120$", else "$x \\ge 5$ is the solution"
        return statement_answer(sentence[copulas[-1].end():]) or statement_answer(sentence[:copulas[-1].start()])
    if spans:
        return _span_text(spans[-1])
    value = single_value(sentence)
    if value and len(_WORD.findall(sentence)) >= 2:  # "Jane started growing Sphere 3 hours ago"
        return value
    return _tidy(sentence)


def single_value(sentence: str) -> str:
    """The one plain number of ``sentence`` outside its math spans (``45``, ``2/3``, ``100%``), or ""
    when it has none or several."""
    values = _PLAIN_VALUE.findall(_outside_spans(sentence, _math_spans(sentence)))
    return values[0] if len(values) == 1 else ""


def closing_answer(sentence: str) -> str:
    """The answer a closing sentence *states*, or "": its math when it is nothing else (``$$3$$``);
    its bold span; else, around its last
    ``is``/``are``/``equals``, a bold or math value (``the area equals $12\\pi$``, ``$x \\ge 5$ is the
    solution``); else a last math span that assigns a value (``Hence $x = 5$.``). An imperative
    or a bare expression (``Simplify $\\sqrt{242}$.``, the problem echoed) states nothing."""
    spans = _math_spans(sentence)
    outside = _outside_spans(sentence, spans)
    if spans and _SPAN_CONNECTORS.fullmatch(outside.replace("*", "").strip(" .")):
        return ", ".join(dict.fromkeys(_span_text(span) for span in spans))  # nothing but math
    bold = list(_BOLD.finditer(outside))
    if bold:
        return statement_answer(sentence[bold[-1].start(1):bold[-1].end(1)]) or _tidy(bold[-1][1])
    copulas = list(_COPULA.finditer(outside))
    if copulas:
        for part in (sentence[copulas[-1].end():], sentence[:copulas[-1].start()]):
            part_spans = _math_spans(part)
            part_bold = list(_BOLD.finditer(_outside_spans(part, part_spans)))
            if part_bold:
                return _tidy(part_bold[-1][1])
            if part_spans:
                return _span_text(part_spans[-1])
        return ""
    if spans and _ASSIGNMENT.match(_span_text(spans[-1])):
        return _span_text(spans[-1])
    return ""


def _paragraph_after(text: str, position: int, stop: int | None = None) -> str:
    """The text from ``position`` to the end of its line, or, when that is blank (bold markers
    aside), the next paragraph (up to a blank line or a heading); never past ``stop``."""
    stop = len(text) if stop is None else stop
    line_end = text.find("\n", position, stop)
    line = text[position:stop] if line_end == -1 else text[position:line_end]
    opened = _OPENS_DISPLAY.match(line)
    if opened:  # ``Answer \[`` with the math on the next lines: the span is the answer
        close = text.find(opened.group(1).replace("[", "]"), position + opened.end(), stop)
        if close != -1:
            return text[position:close + len(opened.group(1))]
    if line.strip(" \t*:") or line_end == -1:
        return line
    blank = _BLANK.match(text, line_end, stop)
    start = blank.end() if blank else line_end
    end = _PARAGRAPH_END.search(text, start, stop)
    return text[start:stop if end is None else end.start()]


Found = list[tuple[int, int, str]]  # (start, end) of the text the answer was read from, the answer


def _boxed_answers(text: str) -> Found:
    """Top-level boxes; boxes with only separators between them are one multi-part answer."""
    groups: list[list[tuple[int, int]]] = []
    for start, end in boxed_spans(text):
        if groups and _joins_parts(_without_box_closers(text[groups[-1][-1][1]:start])):
            groups[-1].append((start, end))
        else:
            groups.append([(start, end)])
    found = []
    for group in groups:
        parts = list(dict.fromkeys(text[start:end].strip() for start, end in group))
        found.append((group[0][0], group[-1][1], ", ".join(part for part in parts if part) if len(parts) > 1 else parts[0]))
    return found


def _joins_parts(between: str) -> bool:
    """Whether the text between two boxes lists parts of one answer: only separators (``,``,
    ``and``, ``\\quad``, ``$``), or a short label without a word of hedging or derivation
    (``\\text{ for part (a) and }``, ``$ and $y_2 = ``), not ``or``, ``actually``, ``so``."""
    if _BOX_SEPARATORS.fullmatch(between):
        return True
    return len(between) <= _MAX_LABEL_CHARS and _PART_LIST.search(between) is not None and _HEDGE.search(between) is None


def _without_box_closers(between: str) -> str:
    """The text between two box contents without the first box's ``}`` and the next ``\\boxed{``."""
    return re.sub(r"^\s*\}|\\(?:boxed|fbox)\s*\{\s*$", "", between)


def _math_mask(text: str) -> bytearray:
    """1 at every position of ``text`` inside a math span or a box (spans of one kind never
    overlap, so this is linear in the text)."""
    mask = bytearray(len(text))
    for start, end in [(m.start(), m.end()) for m in _math_spans(text)] + boxed_spans(text):
        mask[start:end] = b"\x01" * (end - start)
    return mask


def _answer_is_answers(text: str) -> Found:
    """Answers after ``answer is``/``Answer:`` anchors (not those written inside math or a box)."""
    matches = list(_ANSWER_IS.finditer(text))
    if matches:
        mask = _math_mask(text)
        matches = [match for match in matches if not mask[match.start()]]
    answers = []
    for n, match in enumerate(matches):
        stop = matches[n + 1].start() if n + 1 < len(matches) else len(text)
        tail = _paragraph_after(text, match.end(), stop)
        answers.append((match.start(), match.end() + len(tail),
                        statement_answer(_first_sentence(tail.strip().lstrip(":*").strip()))))
    return answers


def _final_heading_answers(text: str) -> Found:
    answers = []
    for match in _FINAL_HEADING.finditer(text):
        paragraph = _paragraph_after(text, match.end())
        answers.append((match.start(), match.end() + len(paragraph), statement_answer(_first_sentence(paragraph.strip()))))
    return answers


def _closing_sentence_answers(text: str, after_thinking: bool = False) -> Found:
    """The answer stated by the last sentence of ``text`` (:func:`closing_answer`); after a
    ``</think>`` (the text is the answer section), also its one number when it has only one
    (``There are 45 handshakes.``)."""
    stripped = _HOPE_TAIL.sub("", text.rstrip())
    if stripped.endswith("?"):
        return []  # a question states nothing
    outside = _outside_spans(stripped, _math_spans(stripped))
    ends = [match.end() for match in _SENTENCE_END.finditer(outside) if match.end() < len(stripped) - 1]
    ends += [match.start() for match in _NEW_CONCLUSION.finditer(outside)]  # "... P(A) = 2/3 Therefore, ..."
    start = max(ends, default=0)
    answer = closing_answer(stripped[start:])
    if not answer and (after_thinking or _CONCLUDES.match(stripped[start:])):
        answer = single_value(stripped[start:])
        if not answer:  # "So in total she has twenty-four cookies."
            digits = with_digits(stripped[start:])
            answer = single_value(digits) if digits else ""
        if not answer:  # "So 4 - 1 = 3 left.": the result of its one plain equation
            answer = _equation_result(stripped[start:])
    return [(start, len(stripped), answer)] if answer else []


def _equation_result(sentence: str) -> str:
    """The one plain value after the last ``=`` of a sentence written without math spans
    (``So 4 - 1 = 3 left.``), or ""."""
    if _math_spans(sentence) or sentence.count("=") == 0:
        return ""
    return single_value(sentence[sentence.rindex("=") + 1:])


def _retractions(text: str, position: int) -> list[str]:
    """The values that sentences after the one at ``position`` (the final answer's) state while
    taking back what came before (``The answer is 12. Wait, actually it's 13.``): they count as
    answers too."""
    rest = text[position:]
    outside = _outside_spans(rest, _math_spans(rest))
    starts = sorted({match.end() for match in _SENTENCE_END.finditer(outside)} |
                    {match.end() for match in re.finditer("\n", outside)})  # a line ends a sentence here too
    values = []
    for begin, end in zip(starts, starts[1:] + [len(rest)]):
        sentence = rest[begin:end].strip()
        if _RETRACTION.match(sentence):
            value = closing_answer(sentence) or single_value(sentence)
            if value:
                values.append(value)
    return values


def _bare_answers(text: str) -> Found:
    """The whole text when it is nothing but a value: one short line that starts with the value (a
    digit or LaTeX: never ``Compute $x$``, the problem echoed) and has at most one word (a unit,
    ``percent``); or one line of a label (:data:`_BARE_LABEL`, not the problem's own words:
    ``Compute: $2+3$``) and such a value."""
    stripped = text.strip()
    label = _BARE_LABEL.match(stripped)
    if label is not None and label[0].split()[0].rstrip(":").lower() in _PROBLEM_WORDS:
        return []
    if label is not None and "\n" not in stripped and len(stripped) - label.end() <= _MAX_LABELED_CHARS:
        stripped = stripped[label.end():]
    elif len(stripped) > _MAX_BARE_CHARS:
        return []
    if "\n" in stripped or not _BARE_START.match(stripped) or not _VALUE.search(stripped) or boxed_spans(stripped):
        return []
    if len(_WORD.findall(_outside_spans(stripped, _math_spans(stripped)))) > 1:
        return []
    return [(0, len(text), statement_answer(stripped))]


def _answer_tag_answers(text: str) -> Found:
    """Contents of ``<answer>…</answer>`` pairs (a closing tag pairs with the last opening one)."""
    answers, opened = [], None
    for match in _ANSWER_TAGS.finditer(text):
        if not match.group(1):
            opened = match.end()
        elif opened is not None:
            answers.append((opened, match.start(), strip_math_delimiters(text[opened:match.start()])))
            opened = None
    return answers


def _format_answers(text: str, fmt: str, after_thinking: bool = False) -> Found:
    if fmt == "boxed":
        return _boxed_answers(text)
    if fmt == "gsm8k":
        return [(m.start(1), m.end(1), _tidy(m.group(1))) for m in _GSM8K.finditer(text)]
    if fmt == "answer_tag":
        return _answer_tag_answers(text)
    if fmt == "final_heading":
        return _final_heading_answers(text)
    if fmt == "answer_is":
        return _answer_is_answers(text)
    if fmt == "closing_sentence":
        return _closing_sentence_answers(text, after_thinking)
    if fmt == "bare":
        return _bare_answers(text)
    raise ValueError(f"unknown answer format {fmt!r}: expected one of {ANSWER_FORMATS}")


def _restates_a_value(answer: str) -> bool:
    """Whether another format's answer states a value (a digit or LaTeX, at most one word such as
    a unit): ``94``, ``$\\frac12$``, ``18 dollars``, not ``correct`` or ``5 because 2+3=5``."""
    return bool(answer) and _VALUE.search(answer) is not None and len(_WORD.findall(answer)) <= 1


def check_formats(formats: Sequence[str]) -> tuple[str, ...]:
    """Validate a format list (non-empty, known names, no repeats) and return it as a tuple."""
    formats = tuple(formats)
    unknown = [f for f in formats if f not in ANSWER_FORMATS]
    if unknown or not formats or len(set(formats)) != len(formats):
        raise ValueError(f"formats must be distinct names from {ANSWER_FORMATS}, got {formats!r}")
    return formats


def answer_text(completion: str) -> str:
    """The part of ``completion`` that may hold its answer: before a chat template's end of turn
    (``<|im_end|>``, ``<|im_start|>user``, ``</s>``, ...: what follows is another turn), after the
    last ``</think>``, and before an unclosed ``<think>`` (the rest is reasoning, or a completion
    cut off mid-thought)."""
    turn_end = next((m.start() for m in _END_OF_TURN.finditer(completion) if completion[:m.start()].strip()), None)
    completion = completion if turn_end is None else completion[:turn_end]
    think_end = completion.rfind(_THINK_END)
    text = completion if think_end == -1 else completion[think_end + len(_THINK_END):]
    think_start = text.find(_THINK_START)
    return text if think_start == -1 else text[:think_start]


def extract_answers(
    completion: str, formats: Sequence[str] = ANSWER_FORMATS, last_number: bool = False
) -> Extraction:
    """Find the answers ``completion`` commits to.

    Args:
        completion: The model's text.
        formats: Anchored formats in priority order (see the module docstring).
        last_number: When no anchored format matches, fall back to the last number in the text.

    Returns:
        The :class:`Extraction` of the first format (in ``formats`` order) with a non-empty
        answer, its final answer last, with the answers other formats restate before it;
        ``Extraction(None, ())`` when there is none.
    """
    text = answer_text(completion)
    after_thinking = _THINK_END in completion
    for n, fmt in enumerate(formats):
        found = [(start, end, answer) for start, end, answer in _format_answers(text, fmt, after_thinking) if answer]
        if found:
            final_end = found[-1][1]  # restatements by other anchors count after it; retractions after its sentence
            restated = []
            for other in formats[n + 1:]:
                if other in ("closing_sentence", "bare"):
                    continue
                answers = [(start, end, answer) for start, end, answer in _format_answers(text, other)
                           if _restates_a_value(answer) and (other in _COMMITTING or start >= final_end)
                           and (other != "answer_is" or ((anchor := _ANSWER_IS.match(text, start)) is not None
                                                        and _VALUE_AFTER_ANCHOR.match(text, anchor.end())))]
                restated.extend(answers[-1:])
            committed = [answer for _, _, answer in restated + found] + _retractions(text, found[-1][0])
            return Extraction(fmt, tuple(committed))
    if last_number:
        numbers = NUMBER.findall(text)
        if numbers:
            return Extraction(LAST_NUMBER, (numbers[-1],))
    return Extraction(None, ())

"""Think/answer tag structure (R1 style) and verifiers applied to the answer block only."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from rlenv.envs.format.base import FormatVerifier
from rlenv.scoring import node_problems, score_tasks, verifier_identity, verifier_placement, verify_safely
from rlenv.types import RewardResult, Status, Task, Verifier

_TAG_NAME = re.compile(r"^[A-Za-z][\w-]*$")


def tag_blocks(text: str, tag: str) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of the contents of every well-formed ``<tag>...</tag>`` block (non-nested)."""
    opener, closer = f"<{tag}>", f"</{tag}>"
    spans, start = [], 0
    while (open_at := text.find(opener, start)) != -1:
        close_at = text.find(closer, open_at + len(opener))
        if close_at == -1:
            break
        spans.append((open_at + len(opener), close_at))
        start = close_at + len(closer)
    return spans


class ThinkAnswerFormat(FormatVerifier):
    """``<think>...</think><answer>...</answer>`` structure, strict or lenient.

    Checks (each named in ``details["checks"]``):

    * ``count:<tag>`` / ``count:</tag>``: every tag occurs exactly once (several answer blocks are a
      known way to game anchored regexes);
    * ``order``: think block first, answer block second;
    * ``think_not_empty`` (when ``require_think_content``) and ``answer_not_empty``: the first block of
      each tag has non-blank content;
    * ``nothing_outside``: only whitespace outside the two blocks (fails unless counts and order hold);
    * ``newline_layout`` (``strict=True`` only): exactly
      ``<think>\\n...\\n</think>\\n<answer>\\n...\\n</answer>`` from the first character, optional
      trailing whitespace.

    Args:
        think_tag: Name of the reasoning tag, or None for an answer-only format.
        answer_tag: Name of the answer tag.
        strict: Require the newline layout (the lenient form allows any whitespace around tags).
        think_prefilled: The chat template already wrote the opening think tag (and its newline in
            strict mode), so the completion starts inside the think block.
        require_think_content: Fail an empty think block (an empty ``<think></think>`` plus junk is
            a known format hack).
        partial_credit: Pay the fraction of checks passed instead of all-or-nothing.

    ``details`` also holds ``answer`` (the stripped answer text) when the structure parses.

    Example::

        ThinkAnswerFormat()(task, "<think>\\n2+2 is 4\\n</think>\\n<answer>\\n4\\n</answer>").value    # 1.0
    """

    name = "think_answer_format"
    version = "1"

    def __init__(
        self,
        think_tag: str | None = "think",
        answer_tag: str = "answer",
        strict: bool = True,
        think_prefilled: bool = False,
        require_think_content: bool = True,
        partial_credit: bool = False,
    ):
        super().__init__(partial_credit)
        for tag in (think_tag, answer_tag):
            if tag is not None and not _TAG_NAME.match(tag):
                raise ValueError(f"tag names must be identifiers like 'think' or 'answer', got {tag!r}")
        if think_tag == answer_tag:
            raise ValueError(f"think_tag and answer_tag must differ, got {think_tag!r} twice")
        if think_prefilled and think_tag is None:
            raise ValueError("think_prefilled needs a think_tag")
        self.think_tag, self.answer_tag = think_tag, answer_tag
        self.strict = strict
        self.think_prefilled = think_prefilled
        self.require_think_content = require_think_content

    @property
    def tags(self) -> list[str]:
        """The tag names in their required order."""
        return [t for t in (self.think_tag, self.answer_tag) if t is not None]

    def prefill(self) -> str:
        """The text the chat template wrote before the completion (empty unless ``think_prefilled``)."""
        if not self.think_prefilled:
            return ""
        return f"<{self.think_tag}>" + ("\n" if self.strict else "")

    def layout(self) -> re.Pattern[str]:
        """The strict newline layout as a regular expression (full match)."""
        blocks = "".join(rf"<{t}>\n(?P<{t.replace('-', '_')}>.*?)\n</{t}>\n" for t in self.tags)
        return re.compile(blocks[:-2] + r"\s*", re.DOTALL)

    def check(self, task: Task, completion: str) -> tuple[dict[str, bool], dict[str, Any]]:
        text = self.prefill() + completion
        checks: dict[str, bool] = {}
        positions = {}
        for tag in self.tags:
            for marker in (f"<{tag}>", f"</{tag}>"):
                checks[f"count:{marker}"] = text.count(marker) == 1
                positions[marker] = text.find(marker)
        ordered_markers = [m for t in self.tags for m in (f"<{t}>", f"</{t}>")]
        counts_ok = all(checks[f"count:{m}"] for m in ordered_markers)
        order = counts_ok and all(positions[a] < positions[b] for a, b in zip(ordered_markers, ordered_markers[1:]))
        checks["order"] = order
        details: dict[str, Any] = {}
        contents = {}
        for tag in self.tags:
            blocks = tag_blocks(text, tag)
            contents[tag] = text[blocks[0][0]:blocks[0][1]] if blocks else ""
        if self.think_tag is not None and self.require_think_content:
            checks["think_not_empty"] = bool(contents[self.think_tag].strip())
        answer = contents[self.answer_tag].strip()
        checks["answer_not_empty"] = bool(answer)
        if order:
            outside = text
            for tag in self.tags:
                outside = outside.replace(f"<{tag}>{contents[tag]}</{tag}>", "", 1)
            checks["nothing_outside"] = not outside.strip()
        else:
            checks["nothing_outside"] = False
        if self.strict:
            checks["newline_layout"] = order and self.layout().fullmatch(text) is not None
        if order:
            details["answer"] = answer
        return checks, details

    def extract_answer(self, completion: str) -> str | None:
        """The stripped answer text when exactly one answer block exists (in order), else None."""
        text = self.prefill() + completion
        opener, closer = f"<{self.answer_tag}>", f"</{self.answer_tag}>"
        if text.count(opener) != 1 or text.count(closer) != 1:
            return None
        blocks = tag_blocks(text, self.answer_tag)
        return text[blocks[0][0]:blocks[0][1]].strip() if blocks else None


class AnswerContent:
    """Apply ``verifier`` to the content of the single ``<answer_tag>`` block instead of the whole completion.

    No single well-formed answer block gives status ``unparsable`` (value 0.0). Use it to check
    correctness of R1-style outputs: ``AnswerContent(math_verifier)``. Has ``score_batch`` when
    ``verifier`` has one.

    Example::

        AnswerContent(ExactMatchVerifier())(task, "<think>\\n...\\n</think>\\n<answer>\\nParis\\n</answer>")
    """

    version = "1"

    def __init__(self, verifier: Verifier, answer_tag: str = "answer"):
        if not callable(verifier):
            raise TypeError(f"verifier must be callable (task, completion) -> RewardResult, got {verifier!r}")
        self.verifier = verifier
        self.extractor = ThinkAnswerFormat(think_tag=None, answer_tag=answer_tag)
        inner_name, inner_version = verifier_identity(verifier)
        self.name = f"{answer_tag}_content({inner_name})"
        self.version = f"1({inner_version})"

    @property
    def placement(self) -> str:
        """The inner verifier's placement (see :func:`rlenv.scoring.verifier_placement`)."""
        return verifier_placement(self.verifier)

    def node_problems(self) -> list[str]:
        """The inner verifier's (see :func:`rlenv.scoring.node_problems`)."""
        return node_problems(self.verifier)

    def _unparsable(self) -> RewardResult:
        return RewardResult(0.0, Status.UNPARSABLE, verifier=self.name, verifier_version=self.version,
                            details={"error": f"no single <{self.extractor.answer_tag}> block"})

    def __call__(self, task: Task, completion: str) -> RewardResult:
        answer = self.extractor.extract_answer(completion)
        return self._unparsable() if answer is None else verify_safely(self.verifier, task, answer)

    @property
    def score_batch(self) -> Callable[[Sequence[Task], Sequence[str]], list[RewardResult]]:
        """Batched scoring of the answer blocks (present only when the inner verifier has ``score_batch``)."""
        if not hasattr(self.verifier, "score_batch"):
            raise AttributeError(f"{verifier_identity(self.verifier)[0]} has no score_batch")
        return self._score_batch

    def _score_batch(self, tasks: Sequence[Task], completions: Sequence[str]) -> list[RewardResult]:
        answers = [self.extractor.extract_answer(c) for c in completions]
        found = [(i, a) for i, a in enumerate(answers) if a is not None]
        scored = dict(zip([i for i, _ in found], score_tasks(self.verifier, [tasks[i] for i, _ in found], [a for _, a in found])))
        return [scored[i] if i in scored else self._unparsable() for i in range(len(completions))]

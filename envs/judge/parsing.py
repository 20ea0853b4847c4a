"""Reading a judge's verdict: a score, per-criterion scores, a pairwise choice or a ranking.

Each reader accepts the forms judges actually write, in order of preference: the tag the prompt
asks for (``<score>7</score>``), a JSON object (also inside a code fence), a labelled line
(``Score: 7``, ``Rating: 7/10``) and, for a score, a reply that is just a number. Anything else,
including two different answers in the preferred form or a score outside the scale, raises
:class:`JudgeVerdictError`; the judge verifiers turn that into a status ``error`` with
``details["kind"] == "judge_error"``, never into a score.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from typing import Any

from rlenv.errors import RlenvError

_NUMBER = r"[-+]?\d+(?:\.\d+)?"
_JSON_OBJECT = re.compile(r"\{.*\}", re.S)


class JudgeVerdictError(RlenvError, ValueError):
    """A judge's reply holds no verdict in a form this reader accepts (the message quotes it)."""


def _quoted(text: str) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= 120 else flat[:117] + "...")


def _tag_values(text: str, tag: str) -> list[str]:
    return [v.strip() for v in re.findall(rf"<{tag}>\s*(.*?)\s*</{tag}>", text, re.S | re.I)]


def _json_object(text: str) -> dict[str, Any] | None:
    match = _JSON_OBJECT.search(text)
    if match is None:
        return None
    try:
        value = json.loads(match.group(0))
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _one(values: Sequence[Any], what: str, reply: str) -> Any:
    distinct = list(dict.fromkeys(values))
    if len(distinct) > 1:
        raise JudgeVerdictError(f"the judge gave {len(distinct)} different {what}s {distinct} in {_quoted(reply)}")
    return distinct[0]


def _number(value: Any, what: str, low: float, high: float, reply: str) -> float:
    try:
        number = float(value.split("/")[0]) if isinstance(value, str) else float(value)
    except (TypeError, ValueError):
        raise JudgeVerdictError(f"the judge's {what} {value!r} is not a number in {_quoted(reply)}") from None
    if not (math.isfinite(number) and low <= number <= high):
        raise JudgeVerdictError(f"the judge's {what} {number:g} is outside the scale [{low:g}, {high:g}] "
                                f"in {_quoted(reply)}")
    return number


def parse_score(reply: str, low: float, high: float, tag: str = "score") -> float:
    """The score in ``reply``, checked to lie in ``[low, high]``."""
    tagged = _tag_values(reply, tag)
    if tagged:
        return _number(_one(tagged, tag, reply), tag, low, high, reply)
    obj = _json_object(reply)
    if obj is not None and tag in obj:
        return _number(obj[tag], tag, low, high, reply)
    labelled = re.findall(rf"(?:{tag}|rating)\s*[:=]\s*\**\s*({_NUMBER})(?:\s*/\s*{_NUMBER})?", reply, re.I)
    if labelled:
        return _number(_one(labelled, tag, reply), tag, low, high, reply)
    if re.fullmatch(rf"\s*{_NUMBER}\s*\.?\s*", reply):
        return _number(reply.strip().rstrip("."), tag, low, high, reply)
    raise JudgeVerdictError(f"no {tag} found in the judge's reply {_quoted(reply)}")


def parse_criteria(reply: str, names: Sequence[str], low: float, high: float) -> dict[str, float]:
    """One score per criterion of ``names``: a JSON object ``{"name": score, ...}``, tags
    ``<name>score</name>`` or lines ``name: score``. A missing criterion is an error."""
    obj = _json_object(reply)
    found: dict[str, Any] = {}
    for name in names:
        if obj is not None and name in obj:
            found[name] = obj[name]
            continue
        tagged = _tag_values(reply, re.escape(name))
        labelled = re.findall(rf"^\W*{re.escape(name)}\W*\s*[:=]\s*\**\s*({_NUMBER})", reply, re.I | re.M)
        values = tagged or labelled
        if values:
            found[name] = _one(values, f"score of {name!r}", reply)
    missing = [name for name in names if name not in found]
    if missing:
        raise JudgeVerdictError(f"the judge's reply scores no criterion {missing} in {_quoted(reply)}")
    return {name: _number(found[name], f"score of {name!r}", low, high, reply) for name in names}


def parse_choice(reply: str, options: Sequence[str], tag: str = "winner") -> str:
    """The option of ``options`` (e.g. ``"A"``, ``"B"``, ``"tie"``) the reply picks:
    ``<winner>A</winner>``, ``{"winner": "A"}``, ``[[A]]`` or ``Winner: A``."""
    lowered = {option.lower(): option for option in options}
    candidates = _tag_values(reply, tag)
    if not candidates:
        obj = _json_object(reply)
        if obj is not None and tag in obj:
            candidates = [str(obj[tag])]
    if not candidates:
        candidates = re.findall(r"\[\[\s*(\w+)\s*\]\]", reply) or \
            re.findall(rf"{tag}\s*[:=]\s*\**\s*(\w+)", reply, re.I)
    picked = [lowered.get(c.strip().lower()) for c in candidates]
    if not picked or None in picked:
        raise JudgeVerdictError(f"no {tag} among {list(options)} found in the judge's reply {_quoted(reply)}")
    return str(_one(picked, tag, reply))


def parse_ranking(reply: str, labels: Sequence[str], tag: str = "ranking") -> list[str]:
    """The labels of ``labels``, best first: ``<ranking>B > A > C</ranking>``, ``{"ranking": ["B", "A", "C"]}``
    or ``Ranking: B, A, C``. It must be a permutation of ``labels``."""
    tagged = _tag_values(reply, tag)
    obj = None if tagged else _json_object(reply)
    if tagged:
        order: Any = re.findall(r"\w+", _one(tagged, tag, reply))
    elif obj is not None and tag in obj:
        order = obj[tag]
    else:
        line = re.search(rf"{tag}\s*[:=]\s*(.+)", reply, re.I)
        order = re.findall(r"\w+", line.group(1)) if line else None
    if not isinstance(order, list):
        raise JudgeVerdictError(f"no {tag} found in the judge's reply {_quoted(reply)}")
    order = [str(item).strip() for item in order]
    if sorted(order) != sorted(labels):
        raise JudgeVerdictError(f"the judge's {tag} {order} is not an ordering of {list(labels)} in {_quoted(reply)}")
    return order

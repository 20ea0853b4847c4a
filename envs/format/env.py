"""``rlenv/Format-v0``: user prompts + a required output format, optionally combined with answer correctness."""

from __future__ import annotations

from collections.abc import Mapping
from importlib.resources import files
from typing import Any

from rlenv.composition import Gate, WeightedSum
from rlenv.env import TextEnv
from rlenv.envs.format.spec import format_from_spec
from rlenv.envs.format.tags import AnswerContent
from rlenv.exact_match import ExactMatchVerifier
from rlenv.sources import DatasetSource

#: How format and correctness combine (see :func:`format_reward`).
COMBINES = ("sum", "gate_format", "gate_correct")
#: Correctness checks known by name.
ANSWER_CHECKS = {"exact_match": ExactMatchVerifier}


def format_reward(fmt: Any, correct: Any, combine: str = "sum", format_weight: float = 0.2) -> Any:
    """Combine a format verifier with a correctness verifier.

    * ``"sum"``: ``correct + format_weight * format``;
    * ``"gate_format"``: the format term is paid only when the answer is correct;
    * ``"gate_correct"``: correctness is paid only when the format holds (else 0).

    Components are named ``correct`` and ``format``; the status is correctness's (``gate_correct``:
    the format's status when the format fails).
    """
    if combine == "sum":
        return WeightedSum({"correct": (correct, 1.0), "format": (fmt, format_weight)}, status_from="correct")
    if combine == "gate_format":
        gated = Gate(fmt, condition=correct, reward_name="format", condition_name="correct")
        return WeightedSum({"correct": (correct, 1.0), "format": (gated, format_weight)}, status_from="correct")
    if combine == "gate_correct":
        return Gate(correct, condition=fmt, reward_name="correct", condition_name="format")
    raise ValueError(f"combine must be one of {COMBINES}, got {combine!r}")


def make_format_env(
    data_files: Any = None,
    fields: Mapping[str, str] | None = None,
    format: Any = "think_answer",
    answer_check: Any = None,
    answer_tag: str | None = "answer",
    combine: str = "sum",
    format_weight: float = 0.2,
    **env_kwargs: Any,
) -> TextEnv:
    """Build a format environment.

    Args:
        data_files: Rows with a prompt column (and ``reference`` when ``answer_check`` is set);
            default: a small embedded sample that asks for think/answer tags.
        fields: Column mapping, as :class:`rlenv.sources.DatasetSource`.
        format: A format spec (see :mod:`rlenv.envs.format.spec`).
        answer_check: None (format only), ``"exact_match"``, or any verifier scoring correctness.
        answer_tag: Correctness is checked on the content of this tag's block; None checks the
            whole completion.
        combine, format_weight: See :func:`format_reward`.
        **env_kwargs: :class:`rlenv.TextEnv` options (``prompt_template``, ``chat``, ...).
    """
    data = data_files if data_files is not None else str(files("rlenv.envs.format") / "sample.jsonl")
    source = DatasetSource(data, fields)
    verifier = format_from_spec(format)
    if answer_check is not None:
        if isinstance(answer_check, str):
            if answer_check not in ANSWER_CHECKS:
                raise ValueError(f"unknown answer_check {answer_check!r}: expected one of {sorted(ANSWER_CHECKS)} "
                                 f"or a verifier")
            answer_check = ANSWER_CHECKS[answer_check]()
        if "reference" not in source.fields:
            raise ValueError(f"answer_check needs a reference column; columns are {source.rows.column_names}")
        correct = AnswerContent(answer_check, answer_tag) if answer_tag is not None else answer_check
        verifier = format_reward(verifier, correct, combine, format_weight)
    return TextEnv(source, verifier, **env_kwargs)

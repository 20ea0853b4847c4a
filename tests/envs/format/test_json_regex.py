"""JSON (+ JSON Schema), regex and length formats, and format specs."""

from __future__ import annotations

import json
import pickle

import pytest

from rlenv import Status, Task
from rlenv.composition import WeightedSum
from rlenv.envs.format import JSONFormat, LengthBounds, RegexFormat, format_from_spec
from rlenv.envs.format.json_format import _validator

TASK = Task("t0", "Describe a person as JSON.")
PERSON = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}},
          "required": ["name", "age"], "additionalProperties": False}


def checks(verifier, completion, task=TASK):
    result = verifier(task, completion)
    return result.details["violations"], result


@pytest.mark.parametrize("completion", ['{"a": 1}', '  [1, 2, {"b": null}]\n', '"text"', "3.5"])
def test_valid_json_documents(completion):
    bad, result = checks(JSONFormat(), completion)
    assert bad == [] and result.status is Status.CORRECT
    assert result.details["parsed"] == json.loads(completion)


@pytest.mark.parametrize("completion, failed", [
    ("", ["json_found", "json_valid", "no_duplicate_keys"]),
    ("   ", ["json_found", "json_valid", "no_duplicate_keys"]),
    ('{"a": 1', ["json_valid", "no_duplicate_keys"]),
    ('{"a": 1} trailing words', ["json_valid", "no_duplicate_keys"]),
    ("{'a': 1}", ["json_valid", "no_duplicate_keys"]),
    ('{"a": NaN}', ["json_valid", "no_duplicate_keys"]),
    ('[Infinity]', ["json_valid", "no_duplicate_keys"]),
    ('{"a": 1, "a": 2}', ["no_duplicate_keys"]),
])
def test_invalid_json(completion, failed):
    bad, result = checks(JSONFormat(), completion)
    assert bad == failed and result.value == 0.0


def test_schema_validation_lists_the_failing_paths():
    fmt = JSONFormat(schema=PERSON)
    assert checks(fmt, '{"name": "Ada", "age": 36}')[0] == []
    bad, result = checks(fmt, '{"name": "Ada", "age": -1, "extra": true}')
    assert bad == ["schema"]
    errors = result.details["schema_errors"]
    assert len(errors) == 2 and errors[0].startswith("<root>: Additional properties") and errors[1].startswith("age:")
    assert checks(fmt, "not json")[0] == ["json_valid", "no_duplicate_keys", "schema"]


def test_schema_from_each_task_as_a_json_string():
    fmt = JSONFormat(schema_field="schema")
    task = Task("t1", "Give an array of 2 ints.", metadata={"schema": json.dumps({"type": "array", "maxItems": 2})})
    assert checks(fmt, "[1, 2]", task)[0] == []
    assert checks(fmt, "[1, 2, 3]", task)[0] == ["schema"]
    with pytest.raises(ValueError, match="metadata\\['schema'\\]"):
        fmt(TASK, "[1]")


def test_invalid_schema_is_rejected_up_front():
    with pytest.raises(ValueError, match="invalid JSON Schema"):
        JSONFormat(schema={"type": "no-such-type"})
    with pytest.raises(ValueError, match="not both"):
        JSONFormat(schema=PERSON, schema_field="schema")


def test_fenced_extraction_needs_exactly_one_block():
    fmt = JSONFormat(schema=PERSON, extract="fenced")
    one = 'Here you go:\n```json\n{"name": "Ada", "age": 36}\n```\nAnything else?'
    assert checks(fmt, one)[0] == []
    assert checks(fmt, '```\n{"name": "Bo", "age": 1}\n```')[0] == []
    assert checks(fmt, '{"name": "Ada", "age": 36}')[0][0] == "json_found"
    assert checks(fmt, one + "\n" + one)[0][0] == "json_found"


def test_json_format_pickles_and_caches_validators():
    fmt = JSONFormat(schema=PERSON)
    clone = pickle.loads(pickle.dumps(fmt))
    assert clone(TASK, '{"name": "A", "age": 1}').status is Status.CORRECT
    assert _validator(fmt.schema_json) is _validator(clone.schema_json)


def test_regex_fullmatch_search_flags_and_groups():
    fmt = RegexFormat(r"Answer: (?P<value>-?\d+)")
    bad, result = checks(fmt, "  Answer: -12 \n")
    assert bad == [] and result.details["groups"] == {"value": "-12"}
    assert checks(fmt, "So. Answer: 12")[0] == ["fullmatch"]
    assert checks(RegexFormat(r"answer: \d+", mode="search", flags="i"), "So. ANSWER: 12 ok")[0] == []
    assert checks(RegexFormat(r"a.b", flags="s"), "a\nb")[0] == []
    assert checks(RegexFormat(r"a.b"), "a\nb")[0] == ["fullmatch"]
    with pytest.raises(ValueError, match="invalid regular expression"):
        RegexFormat("(")
    with pytest.raises(ValueError, match="flag"):
        RegexFormat("a", flags="q")


def test_length_bounds_in_each_unit():
    text = "one two three\n\nfour\n"
    assert LengthBounds(max_length=len(text), unit="chars")(TASK, text).value == 1.0
    assert checks(LengthBounds(max_length=len(text) - 1), text)[0] == ["max_length"]
    assert checks(LengthBounds(min_length=5, unit="words"), text)[0] == ["min_length"]
    bad, result = checks(LengthBounds(min_length=2, max_length=2, unit="lines"), text)
    assert bad == [] and result.details["length"] == 2
    for kwargs in ({}, {"min_length": 3, "max_length": 2}, {"max_length": -1}, {"max_length": 3, "unit": "tokens"}):
        with pytest.raises(ValueError):
            LengthBounds(**kwargs)


def test_specs_build_verifiers_and_lists_average_them():
    assert format_from_spec("think_answer").strict is True
    assert format_from_spec("think_answer_lenient").strict is False
    assert format_from_spec({"type": "regex", "pattern": "x+"}).mode == "fullmatch"
    both = format_from_spec([{"type": "json"}, {"type": "length", "max_length": 8}, {"type": "length", "min_length": 3}])
    assert isinstance(both, WeightedSum)
    assert list(both.terms) == ["json_format", "length_bounds", "length_bounds_2"]
    result = both(TASK, '{"a": 12345}')  # valid JSON, too long, long enough
    assert result.value == pytest.approx(2 / 3) and result.status is Status.INCORRECT
    assert result.components["json_format"] == 1.0 and result.components["length_bounds"] == 0.0
    assert both(TASK, "[1,2]").status is Status.CORRECT
    for bad in ("yaml", {"type": "nope"}, {"type": "regex"}, [], 3):
        with pytest.raises(ValueError):
            format_from_spec(bad)

import logging

import pytest

from rlenv.jsonl import read_jsonl


def test_read_jsonl_skips_blank_lines_and_keeps_order(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"a": 1}\n\n{"a": 2}\n', encoding="utf-8")
    assert read_jsonl(path) == [{"a": 1}, {"a": 2}]


@pytest.mark.parametrize(("text", "message"), [
    ('{"a": 1}\nnot json\n{"a": 2}\n', r"rows\.jsonl:2: not valid JSON"),
    ('{"a": 1}\n\n[1, 2]\n', r"rows\.jsonl:3: expected a JSON object, got list"),
    ('{"a": 1}\n{"b": 2}\n', r"rows\.jsonl:2: file row lacks \['a'\]"),
])
def test_read_jsonl_names_the_bad_line(tmp_path, text, message):
    path = tmp_path / "rows.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        read_jsonl(path, required_keys=("a",))


def test_read_jsonl_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="result file not found: .*nope.jsonl"):
        read_jsonl(tmp_path / "nope.jsonl", what="result file")


def test_read_jsonl_drops_only_a_truncated_last_line(tmp_path, caplog):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"a": 1}\n{"a": 2}\n{"a": 3, "b\n\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"rows\.jsonl:3: not valid JSON"):
        read_jsonl(path)
    with caplog.at_level(logging.WARNING, logger="rlenv.jsonl"):
        assert read_jsonl(path, drop_truncated_tail=True) == [{"a": 1}, {"a": 2}]
    assert "incomplete last line" in caplog.text
    path.write_text('{"a": 1}\n{"a": 2, \n{"a": 3}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"rows\.jsonl:2: not valid JSON"):
        read_jsonl(path, drop_truncated_tail=True)

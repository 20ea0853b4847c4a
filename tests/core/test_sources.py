import json

import datasets
import pytest

from rlenv.sources import DatasetSource
from tests.core.core_helpers import addition_source

ROWS = [
    {"question": "1+1?", "answer": "2", "unique_id": "q-a", "level": 1},
    {"question": "2+2?", "answer": "4", "unique_id": "q-b", "level": 2},
    {"question": "3+3?", "answer": "6", "unique_id": "q-c", "level": 3},
]
MAPPING = {"prompt": "question", "reference": "answer"}


@pytest.fixture(params=["jsonl", "json", "parquet", "dataset", "rows"])
def data(request, tmp_path):
    kind = request.param
    if kind == "jsonl":
        path = tmp_path / "tasks.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
        return str(path)
    if kind == "json":
        path = tmp_path / "tasks.json"
        path.write_text(json.dumps(ROWS))
        return path
    if kind == "parquet":
        path = tmp_path / "tasks.parquet"
        datasets.Dataset.from_list(ROWS).to_parquet(str(path))
        return [str(path)]
    if kind == "dataset":
        return datasets.Dataset.from_list(ROWS)
    return ROWS


def test_every_input_kind_maps_fields_and_ids(data):
    source = DatasetSource(data, MAPPING)
    assert source.size == 3
    task = source[1]
    assert (task.id, task.prompt, task.reference) == ("q-b", "2+2?", "4")
    assert task.metadata == {"level": 2}
    assert source.index_of("q-c") == 2


def test_cli_style_field_mapping_and_row_index_ids():
    rows = [{"q": "a", "ref": "b"}, {"q": "c", "ref": "d"}]
    source = DatasetSource(rows, ["prompt=q", "reference=ref"])
    assert source[1].id == "1" and source.index_of(1) == 1 and source.index_of("1") == 1


@pytest.mark.parametrize(
    "data, fields, error, match",
    [
        (ROWS, {"prompt": "missing"}, ValueError, "absent from the data"),
        (ROWS, {"answer": "answer"}, ValueError, "unknown task field"),
        (ROWS, ["prompt:question"], ValueError, "TASK_FIELD=COLUMN"),
        (ROWS, None, ValueError, "no prompt column"),
        ("/nonexistent/tasks.jsonl", None, FileNotFoundError, "/nonexistent/tasks.jsonl"),
        ("tasks.txt", None, ValueError, "unsupported task file"),
    ],
)
def test_bad_sources_name_the_problem(data, fields, error, match, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tasks.txt").write_text("x")
    with pytest.raises(error, match=match):
        DatasetSource(data, fields)


def test_dataset_source_index_errors():
    source = DatasetSource(ROWS, MAPPING)
    with pytest.raises(IndexError, match="index 3 out of range"):
        source[3]
    with pytest.raises(KeyError, match="unknown task_id 'zzz'"):
        source.index_of("zzz")


def test_procedural_source_is_deterministic_per_seed_and_index():
    a, b, other = addition_source(seed=5), addition_source(seed=5), addition_source(seed=6)
    assert [a[i] for i in range(20)] == [b[i] for i in range(20)]
    assert [a[i].prompt for i in range(20)] != [other[i].prompt for i in range(20)]
    assert a[10**9].id == "add-5-1000000000" and a.index_of("add-5-42") == 42
    assert a.size is None
    with pytest.raises(KeyError, match="add-5-N"):
        a.index_of("add-6-1")
    with pytest.raises(IndexError):
        addition_source(size=3)[3]

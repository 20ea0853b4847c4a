"""The pieces of the protocol and the job types that need no Docker: value codec, output
comparison, wire framing, job validation. The runner's own pieces are tested in tests/sandbox/runner/."""

import json
import math

import pytest

from rlenv.sandbox import FunctionJob, IOCase, JobResult, JobStatus, Limits, ProgramJob, TestStatus
from rlenv.sandbox.container import ContainerSpec, runner_source
from rlenv.sandbox.jobs import encode_job
from rlenv.sandbox.protocol import Unencodable, compare_output, decode_value, encode_frame, encode_value


def repr_id(value):
    if type(value) is int:
        return f"int-{value.bit_length()}bits"
    return f"{type(value).__name__}-{repr(value)[:30]}"


def no_refs(value):
    return None


def roundtrip(value):
    wire = json.loads(json.dumps(encode_value(value, no_refs), allow_nan=False))
    return decode_value(wire, lambda ref, kind: pytest.fail(f"unexpected reference {ref}"))


@pytest.mark.parametrize("value", [
    None, True, False, 0, -7, 2**62 - 1, 2**62, -(2**200), 7**9000, 1.5, -0.0, math.inf, -math.inf,
    "", "héllo \u2603 \ud800", b"\x00\xff", bytearray(b"ab"), [1, [2, [3]]], (1, (2, "x")), (),
    {1: "a", (2, 3): [4], "k": {"n": None}}, {1, 2, (3, 4)}, frozenset({"a"}), set(), 3 + 4j,
    [{"a": (1.25, b"z")}, {frozenset({1}): {2}}],
], ids=repr_id)
def test_plain_data_round_trips_exactly(value):
    back = roundtrip(value)
    assert back == value and type(back) is type(value)
    if isinstance(value, float):
        assert math.copysign(1, back) == math.copysign(1, value)


def test_nan_round_trips_as_nan():
    assert math.isnan(roundtrip(math.nan))


def test_subclasses_and_objects_are_not_plain_data():
    class Sneaky(int):
        def __eq__(self, other):
            return True

    class AlwaysEqual:
        def __eq__(self, other):
            return True

    for value in (Sneaky(3), AlwaysEqual(), [1, AlwaysEqual()], {"k": Sneaky(1)}):
        with pytest.raises(Unencodable):
            encode_value(value, no_refs)
    seen = []
    encoded = encode_value([AlwaysEqual()], lambda v: seen.append(v) or "h:0")
    assert encoded == [{"$ref": "h:0", "$type": "AlwaysEqual"}] and len(seen) == 1


def test_self_referencing_values_are_rejected():
    loop = []
    loop.append(loop)
    with pytest.raises(Unencodable, match="nested deeper"):
        encode_value(loop, no_refs)


@pytest.mark.parametrize("wire", [
    {"a": 1}, {"$set": [[1]]}, {"$dict": [[[1], 2]]}, {"$int": 5}, {"$tuple": "x"}, {"$bytes": "%%%"},
    {"$complex": ["1", 2]}, {"$dict": [[1]]}, {"$unknown": []},
])
def test_malformed_wire_values_raise(wire):
    with pytest.raises((ValueError, TypeError)):
        decode_value(wire, lambda ref, kind: None)


@pytest.mark.parametrize("mode,actual,expected,ok", [
    ("exact", "a b\n", "a b", True),
    ("exact", "a b  \r\n\n\n", "a b\n", True),
    ("exact", "a  b\n", "a b\n", False),
    ("exact", "1\n2\n", "1\n", False),
    ("tokens", "1   2\n3\n", "1 2 3", True),
    ("tokens", "1 2", "1 2 3", False),  # a prefix of the expected output
    ("tokens", "", "1", False),
    ("numeric", "2.3333333333333335\n", "2.3333333333", True),
    ("numeric", "2.34\n", "2.3333333333", False),
    ("numeric", "1 2.0000001\n", "1 2.0", True),
    ("numeric", "1 2.0000001\n", "1 2", False),  # an expected integer is exact
    ("numeric", "1e+17\n", "100000000000000002\n", False),
    ("numeric", "9.0\n", "9\n", False),
    ("numeric", "1 2\n3\n", "1 2 3\n", False),  # same tokens, other line layout
    ("numeric", "10000000000000000000001\n", "10000000000000000000000\n", False),  # big ints exact
    ("numeric", "nan\n", "nan\n", True),  # equal strings
    ("numeric", "nan\n", "1.0\n", False),
    ("numeric", "YES 3\n", "YES 3.0000000001\n", True),
    ("numeric", "yes 3\n", "YES 3\n", False),
])
def test_compare_output(mode, actual, expected, ok):
    assert compare_output(actual, expected, mode) is ok


def test_compare_output_rejects_unknown_modes():
    with pytest.raises(ValueError, match="unknown compare mode"):
        compare_output("a", "a", "fuzzy")


def test_encode_job_writes_three_frames():
    job = FunctionJob("def f():\n    return 1\n", ["assert f() == 1"], bind={"candidate": "f"})
    data = encode_job(job, "j1")
    frames, pos = [], 0
    while pos < len(data):
        size = int(data[pos:pos + 16], 16)
        frames.append(json.loads(data[pos + 16:pos + 16 + size]))
        pos += 16 + size
    header, candidate, grader = frames
    assert header["id"] == "j1" and header["mode"] == "function" and header["limits"]["timeout_s"] == 30.0
    assert candidate == {"code": job.code, "files": {}}
    assert grader["tests"] == ["assert f() == 1"] and grader["bind"] == {"candidate": "f"}
    assert "assert" not in json.dumps(candidate)  # the candidate part never carries tests
    assert encode_frame(b"xyz") == b"0000000000000003xyz"


def test_program_job_keeps_expected_outputs_in_the_grader_part():
    job = ProgramJob("print(input())", [IOCase("a\n", "SECRET-OUTPUT")])
    candidate, grader = job.parts()
    assert "SECRET-OUTPUT" not in json.dumps(candidate)
    assert grader["expected"] == ["SECRET-OUTPUT"] and candidate["stdins"] == ["a\n"]


@pytest.mark.parametrize("make", [
    lambda: Limits(timeout_s=0),
    lambda: Limits(memory_mb=8),
    lambda: Limits(test_timeout_s=math.inf),
    lambda: Limits(max_output_bytes=True),
    lambda: ProgramJob("x", cases=[]),
    lambda: ProgramJob("x", compare="fuzzy"),
    lambda: ProgramJob("x", files={"../escape": "x"}),
    lambda: ProgramJob("x", files={"/abs": "x"}),
    lambda: ProgramJob(b"print(1)"),
    lambda: FunctionJob("x", []),
    lambda: FunctionJob("x", "assert True"),
    lambda: FunctionJob("x", ["assert True"], bind={"candidate": "not an identifier"}),
])
def test_malformed_jobs_are_refused_with_a_clear_error(make):
    with pytest.raises((ValueError, TypeError)):
        make()


@pytest.mark.parametrize("settings, named", [
    ({"memory_mb": 300, "tmpfs_mb": 128, "shm_mb": 16}, "memory_mb=300 leaves too little"),
    ({"tmpfs_inodes": 0}, "tmpfs_inodes"), ({"shm_inodes": -1}, "shm_inodes")])
def test_container_specs_bound_what_outlives_processes(settings, named):
    with pytest.raises(ValueError, match=named):
        ContainerSpec(image="x", **settings)
    spec = ContainerSpec(image="x")
    assert spec.memory_mb >= spec.held_outside_processes_mb + 160
    assert all(f"nr_inodes={n}" in o for n, o in ((spec.tmpfs_inodes, spec.tmpfs_options), (spec.shm_inodes, spec.shm_options)))
    assert int(spec.sysctls["kernel.shmall"]) * 4096 == int(spec.sysctls["kernel.shmmax"]) == spec.shm_mb << 20


def test_job_result_from_report():
    report = {"status": "failed", "tests": [{"status": "passed", "time_s": 0.1, "error": None},
                                            {"status": "failed", "time_s": 0.2, "error": "AssertionError"}],
              "job_s": 0.5, "stdout": "hi"}
    result = JobResult.from_report(report, {"run_s": 0.6}, "c1")
    assert result.status is JobStatus.FAILED and result.error == "AssertionError"
    assert [t.status for t in result.tests] == [TestStatus.PASSED, TestStatus.FAILED]
    assert result.num_passed == 1 and result.pass_fraction == 0.5 and not result.ok
    assert result.timings == {"run_s": 0.6, "job_s": 0.5} and result.container == "c1"
    assert result.to_dict()["tests"][1]["status"] == "failed"
    with pytest.raises(ValueError, match="malformed runner report"):
        JobResult.from_report({"status": "great"}, {}, None)


# -- standard-library values: tagged, rebuilt by the receiver's own trusted classes
def test_standard_library_values_round_trip_with_their_types():
    import collections
    import datetime
    import decimal
    import fractions
    import re

    point = collections.namedtuple("Point", "x y")
    values = [collections.Counter("aab"), collections.OrderedDict(b=1, a=2), collections.defaultdict(list, a=[1]),
              collections.deque([1, 2], maxlen=4), point(1, 2), fractions.Fraction(-5, 3), decimal.Decimal("1.10"),
              datetime.date(2024, 2, 29), datetime.timedelta(days=-1, microseconds=5), datetime.time(1, 2, 3, 4),
              datetime.datetime(2024, 1, 2, 3, 4, 5, 6, tzinfo=datetime.timezone(datetime.timedelta(hours=-3), "X")),
              range(-3, 9, 2), re.IGNORECASE, int, len, [sum, frozenset({1})]]
    for value in values:
        back = roundtrip(value)
        assert back == value and type(back).__name__ == type(value).__name__, value
    assert roundtrip(collections.defaultdict(set))["missing"] == set()
    assert str(roundtrip(decimal.Decimal("1.10"))) == "1.10"


def test_look_alikes_are_references_not_data():
    import collections

    class Liar(collections.Counter):
        def __eq__(self, other):
            return True

    class Fake(dict):
        __module__ = "collections"
        __qualname__ = "Counter"

    for value in (Liar(), Fake()):
        assert encode_value(value, lambda v: "h:0") == {"$ref": "h:0", "$type": type(value).__name__}


@pytest.mark.parametrize("wire", [
    {"$builtin": "open"}, {"$builtin": "__import__"}, {"$builtin": "eval"}, {"$builtin": 5},
    {"$namedtuple": ["P", ["import os"], [1]]}, {"$namedtuple": ["P", ["a", "b"], [1]]},
    {"$Decimal": "1" * 5000}, {"$Fraction": [1, 0]}, {"$Fraction": [1.5, 2]}, {"$range": [1, 2]},
    {"$date": [2024, 2, 30]}, {"$Counter": [[[1], 2]]}, {"$defaultdict": [5, []]},
    {"$enum": ["unittest.__main__", "X", "A", None]}, {"$enum": ["re", "_Private", "A", None]},
    {"$datetime": [2024, 1, 1, 0, 0, 0, 0, {"$Counter": []}, 0]},
])
def test_malformed_or_unsafe_tags_are_refused(wire):
    with pytest.raises((ValueError, TypeError, KeyError)):
        decode_value(json.loads(json.dumps(wire)), lambda ref, kind: pytest.fail("no reference expected"))


def test_enum_members_are_looked_up_never_imported():
    import sys

    assert "antigravity" not in sys.modules
    wire = {"$enum": ["antigravity", "E", "A", "h:3"]}
    assert decode_value(wire, lambda ref, kind: ("handle", ref)) == ("handle", "h:3")
    assert "antigravity" not in sys.modules


def test_the_container_gets_one_standard_library_file_with_the_protocol_inlined():
    source = runner_source()
    compile(source, "sandbox/runner.py", "exec")
    assert "rlenv" not in "".join(line for line in source.splitlines() if line.startswith(("import", "from")))
    assert source.count("def encode_value(") == source.count("class JobStatus(") == 1
    assert source.count("from __future__ import annotations") == 1 and source.startswith('"""The in-container')


def test_report_texts_become_valid_unicode_at_the_boundary():
    lone = "\udcff\ud800"
    report = {"status": "failed", "error": f"raised {lone}", "stdout": lone, "stderr": "ok é",
              "tests": [{"status": "failed", "error": f"ValueError: {lone}", "stdout": "", "stderr": lone}]}
    result = JobResult.from_report(report, {}, None)
    json.dumps(result.to_dict(), ensure_ascii=False).encode("utf-8")
    assert result.error == "raised " + "\ufffd" * 6 and result.stderr == "ok é"
    assert result.tests[0].error == "ValueError: " + "\ufffd" * 6

"""Correct Python passes: values of standard-library types compare as in plain Python, builtins and
trusted values reach the candidate as arguments, while look-alikes the candidate defines never
compare equal to data."""

import textwrap

import pytest

from rlenv.sandbox import FunctionJob, JobStatus, Limits

pytestmark = pytest.mark.docker

#: Far above what the jobs need even on a loaded machine: every verdict here is the code's own.
ROOMY = Limits(timeout_s=120.0, test_timeout_s=60.0, memory_mb=256)

#: (candidate's return expression, its imports, a test that holds in plain Python)
RETURNED = [
    ("Counter('aab')", "from collections import Counter", "assert f() == {'a': 2, 'b': 1}"),
    ("Counter('aab')", "from collections import Counter", "from collections import Counter\nassert f() == Counter(a=2, b=1) and f()['z'] == 0"),
    ("Counter('aab').most_common(1)", "from collections import Counter", "assert f() == [('a', 2)]"),
    ("defaultdict(list, a=[1])", "from collections import defaultdict", "assert f() == {'a': [1]} and f()['new'] == []"),
    ("defaultdict(lambda: 7, a=1)", "from collections import defaultdict", "d = f()\nassert d == {'a': 1} and d['x'] == 7"),
    ("OrderedDict([('b', 1), ('a', 2)])", "from collections import OrderedDict",
     "from collections import OrderedDict\nassert f() == OrderedDict([('b', 1), ('a', 2)]) and f() != OrderedDict([('a', 2), ('b', 1)])"),
    ("deque([1, 2, 3], maxlen=5)", "from collections import deque", "from collections import deque\nassert f() == deque([1, 2, 3]) and f().maxlen == 5"),
    ("P(1, 2)", "from collections import namedtuple\nP = namedtuple('P', 'x y')", "assert f() == (1, 2) and f().x == 1 and f().y == 2"),
    ("Point(3, 4)", "from typing import NamedTuple\nclass Point(NamedTuple):\n    x: int\n    y: int", "assert f() == (3, 4) and f()[1] == 4"),
    ("Fraction(1, 3)", "from fractions import Fraction", "from fractions import Fraction\nassert f() == Fraction(2, 6) and f() * 3 == 1"),
    ("Decimal('1.10')", "from decimal import Decimal", "from decimal import Decimal\nassert f() == Decimal('1.1') and str(f()) == '1.10'"),
    ("datetime.date(2024, 2, 29)", "import datetime", "import datetime\nassert f() == datetime.date(2024, 2, 29) and f().weekday() == 3"),
    ("datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)", "import datetime",
     "import datetime\nassert f() == datetime.datetime(2024, 1, 2, 4, 4, 5, tzinfo=datetime.timezone(datetime.timedelta(hours=1)))"),
    ("datetime.timedelta(days=1, seconds=5)", "import datetime", "import datetime\nassert f().total_seconds() == 86405"),
    ("datetime.time(12, 30)", "import datetime", "import datetime\nassert f() == datetime.time(12, 30)"),
    ("range(0, 10, 2)", "", "assert f() == range(0, 10, 2) and list(f()) == [0, 2, 4, 6, 8]"),
    ("frozenset({1, 2})", "", "assert f() == {1, 2}"),
    ("b'\\x00\\xff'", "", "assert f() == bytes([0, 255])"),
    ("3 + 4j", "", "assert f() == complex(3, 4)"),
    ("re.IGNORECASE", "import re", "import re\nassert f() is re.IGNORECASE"),
    ("HTTPStatus.NOT_FOUND", "from http import HTTPStatus", "from http import HTTPStatus\nassert f() == 404 and f() is HTTPStatus.NOT_FOUND"),
    ("int", "", "assert f() is int and f()('7') == 7"),
    ("[len, sorted]", "", "assert f() == [len, sorted]"),
    ("{'k': Counter('x')}", "from collections import Counter", "assert f() == {'k': {'x': 1}}"),
]

#: (candidate's return expression, its definitions, a test that must FAIL: near misses and look-alikes)
MUST_FAIL = [
    ("Counter('aab')", "from collections import Counter", "assert f() == {'a': 1, 'b': 1}"),
    ("OrderedDict([('a', 2), ('b', 1)])", "from collections import OrderedDict",
     "from collections import OrderedDict\nassert f() == OrderedDict([('b', 1), ('a', 2)])"),
    ("Fraction(1, 3)", "from fractions import Fraction", "assert f() == 0.3333333333333333"),
    ("C()", "from collections import Counter\nclass C(Counter):\n    def __eq__(self, other):\n        return True",
     "assert f() == {'a': 2}"),
    ("D()", "from collections import defaultdict\nclass D(defaultdict):\n    def __eq__(self, other):\n        return True",
     "assert f() == {'a': 2}"),
    ("F(1, 3)", "from fractions import Fraction\nclass F(Fraction):\n    def __eq__(self, other):\n        return True",
     "assert f() == 5"),
    ("X()", "import decimal\nclass X(decimal.Decimal):\n    def __eq__(self, other):\n        return True", "assert f() == 5"),
    ("T()", "import datetime\nclass T(datetime.date):\n    def __new__(cls):\n        return super().__new__(cls, 2000, 1, 1)\n"
     "    def __eq__(self, other):\n        return True", "import datetime\nassert f() == datetime.date(2024, 1, 1)"),
    ("Counter()", "class Counter(dict):\n    __module__ = 'collections'\n    def __eq__(self, other):\n        return True",
     "assert f() == {'a': 2}"),
    ("E.A", "import enum\nclass E(enum.Enum):\n    A = 1\n    def __eq__(self, other):\n        return True", "assert f() == 2"),
    ("L(5)", "class L(int):\n    def __eq__(self, other):\n        return True\n    __hash__ = int.__hash__", "assert f() == 6"),
    ("S('x')", "class S(str):\n    def __eq__(self, other):\n        return True\n    __hash__ = str.__hash__", "assert f() == 'y'"),
    ("P((1,))", "class P(tuple):\n    _fields = ('a',)\n    def __eq__(self, other):\n        return True", "assert f() == (2,)"),
]


def job(returned: str, definitions: str, test: str) -> FunctionJob:
    code = f"{definitions}\n\ndef f():\n    return {returned}\n"
    return FunctionJob(code, [textwrap.dedent(test)], limits=ROOMY)


@pytest.mark.parametrize(("returned", "definitions", "test"), RETURNED, ids=[r[0] for r in RETURNED])
def test_standard_library_values_keep_their_semantics(pool, returned, definitions, test):
    namespace: dict = {}
    exec(compile(f"{definitions}\ndef f():\n    return {returned}\n{test}", "<plain python>", "exec"), namespace)
    result = pool.run(job(returned, definitions, test))
    assert result.status is JobStatus.OK, result


@pytest.mark.parametrize(("returned", "definitions", "test"), MUST_FAIL, ids=[r[0] for r in MUST_FAIL])
def test_near_misses_and_look_alikes_fail(pool, returned, definitions, test):
    result = pool.run(job(returned, definitions, test))
    assert result.status is JobStatus.FAILED, result


ARGUMENTS = [
    ("def f(fn, xs):\n    return fn(xs)\n", "assert f(len, [1, 2, 3]) == 3 and f(sorted, [2, 1]) == [1, 2]"),
    ("def f(kind, text):\n    return kind(text)\n", "assert f(int, '41') == 41 and f(str, 5) == '5' and f(tuple, 'ab') == ('a', 'b')"),
    ("def f(c):\n    return type(c).__name__, c['a'] + 1\n", "from collections import Counter\nassert f(Counter('aa')) == ('Counter', 3)"),
    ("def f(x):\n    return x * 3\n", "from fractions import Fraction\nassert f(Fraction(1, 3)) == 1"),
    ("def f(d):\n    return d.year, d.isoformat()\n", "import datetime\nassert f(datetime.date(2021, 5, 6)) == (2021, '2021-05-06')"),
    ("def f(r):\n    return list(r)\n", "assert f(range(3)) == [0, 1, 2]"),
    ("def f(p):\n    return p.y\n", "from collections import namedtuple\nassert f(namedtuple('Q', 'x y')(1, 2)) == 2"),
    ("import re\ndef f(flag):\n    return bool(re.match('a', 'A', flag))\n", "import re\nassert f(re.IGNORECASE) is True"),
    ("def f(dq):\n    dq.append(4)\n    return dq\n", "from collections import deque\nassert f(deque([1, 2, 3], maxlen=3)) == deque([2, 3, 4])"),
]


@pytest.mark.parametrize(("code", "test"), ARGUMENTS, ids=[a[1].splitlines()[-1][:40] for a in ARGUMENTS])
def test_builtins_and_trusted_values_reach_the_candidate(pool, code, test):
    result = pool.run(FunctionJob(code, [test], limits=ROOMY))
    assert result.status is JobStatus.OK, result

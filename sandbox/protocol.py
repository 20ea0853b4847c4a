"""The sandbox wire protocol, shared by the host and the in-container runner. Standard library only.

* **Framing** of the host stream: 16 hex digits of length, then the payload (:func:`encode_frame`).
* **Statuses**: :class:`JobStatus` of a whole job and :class:`TestStatus` of one test, as the
  runner reports them (JSON strings) and the host reads them.
* **Value codec**: how return values and arguments cross between candidate and grader as plain
  data (:func:`encode_value`, :func:`decode_value`).
* **Output comparison** of program runs, done by the runner once the runs have exited (:func:`compare_output`).

The host imports this module; the container receives one file, the runner's modules with this
module's text first (see :func:`rlenv.sandbox.assembly.runner_source`), so the runner still needs
nothing but the standard library.
"""

from __future__ import annotations

import base64
import builtins
import enum
import importlib
import math
import os
import sys

#: Length prefix of a frame: this many hex digits.
HEADER_DIGITS = 16
#: How a program's output is compared with the expected output (see :func:`compare_output`).
COMPARE_MODES = ("exact", "tokens", "numeric")


class JobStatus(str, enum.Enum):
    """Outcome of a whole job."""

    OK = "ok"  #: every test passed (a program job without expected outputs: every run exited 0)
    FAILED = "failed"  #: a test failed: wrong result, exception, non-zero exit, candidate code missing
    TIMEOUT = "timeout"  #: a test or the job ran past its time limit
    MEMORY = "memory"  #: a candidate process ran out of memory
    OUTPUT_LIMIT = "output_limit"  #: a candidate process wrote more than ``max_output_bytes``
    SANDBOX_ERROR = "sandbox_error"  #: the sandbox itself failed (engine, container, bad test code)

    def __str__(self) -> str:
        return self.value


class TestStatus(str, enum.Enum):
    """Outcome of one test (one program run, or one test snippet)."""

    __test__ = False  # not a pytest test class

    PASSED = "passed"
    FAILED = "failed"
    TIMEOUT = "timeout"
    MEMORY = "memory"
    OUTPUT_LIMIT = "output_limit"
    NOT_RUN = "not_run"  #: skipped: the candidate process ended earlier, or the job ran out of time

    def __str__(self) -> str:
        return self.value


# ---------------------------------------------------------------------------------------------
# framing of the host stream
def read_exact(fd: int, size: int) -> bytes | None:
    """Read exactly ``size`` bytes from ``fd``; None on end of file before the first byte."""
    chunks, got = [], 0
    while got < size:
        chunk = os.read(fd, min(size - got, 1 << 20))
        if not chunk:
            if got == 0:
                return None
            raise EOFError(f"stream ended after {got} of {size} bytes")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def read_frame_length(fd: int) -> int | None:
    head = read_exact(fd, HEADER_DIGITS)
    if head is None:
        return None
    return int(head, 16)


def encode_frame(payload: bytes) -> bytes:
    """A frame as the runner reads it: 16 hex digits of length, then ``payload``."""
    return b"%016x" % len(payload) + payload


# ---------------------------------------------------------------------------------------------
# value codec: how return values and arguments cross between candidate and grader
class Unencodable(TypeError):
    """A value that is not plain data and has no handle."""


_MAX_DEPTH = 100
_NATIVE_INT = 1 << 62


def encode_value(value, ref_of, depth: int = 0):
    """Turn plain data into JSON-ready data, tagging what JSON cannot say.

    Only exact builtin types are plain data (subclasses are not). Anything else is passed to
    ``ref_of(value)``, which returns a reference string or None (then :class:`Unencodable`).
    """
    if depth > _MAX_DEPTH:
        raise Unencodable(f"value nested deeper than {_MAX_DEPTH} levels")
    kind = type(value)
    if value is None or kind is bool or kind is str:
        return value
    if kind is int:
        return value if -_NATIVE_INT < value < _NATIVE_INT else {"$int": hex(value)}
    if kind is float:
        return value if math.isfinite(value) else {"$float": repr(value)}
    if kind is list:
        return [encode_value(v, ref_of, depth + 1) for v in value]
    if kind in (tuple, set, frozenset):
        return {"$" + kind.__name__: [encode_value(v, ref_of, depth + 1) for v in value]}
    if kind is dict:
        return {"$dict": [[encode_value(k, ref_of, depth + 1), encode_value(v, ref_of, depth + 1)]
                          for k, v in value.items()]}
    if kind in (bytes, bytearray):
        return {"$" + kind.__name__: base64.b64encode(value).decode("ascii")}
    if kind is complex:
        return {"$complex": [encode_value(value.real, ref_of), encode_value(value.imag, ref_of)]}
    tagged = _encode_stdlib(value, kind, ref_of, depth)
    if tagged is not None:
        return tagged
    ref = ref_of(value)
    if ref is None:
        raise Unencodable(f"a {kind.__name__} cannot cross the sandbox boundary (only plain data can)")
    return {"$ref": ref, "$type": kind.__name__}


def _loaded(module: str, name: str):
    """``module.name`` if ``module`` is already imported in this process, else None (a value of a
    class can only exist once its module is loaded, so nothing is imported to find out)."""
    loaded = sys.modules.get(module)
    return getattr(loaded, name, None) if loaded is not None else None


def _is_namedtuple(kind) -> bool:
    fields = getattr(kind, "_fields", None)
    return kind.__bases__ == (tuple,) and type(fields) is tuple and all(type(f) is str for f in fields)


def _encode_stdlib(value, kind, ref_of, depth: int):
    """The tagged form of a value of a standard-library type (exact types only), else None.

    The receiving side rebuilds each one with its own trusted classes from the plain parts, so a
    value keeps its Python semantics (``Counter(...) == {...}``) and a sender cannot smuggle in
    behaviour: a look-alike is rebuilt as the honest type or, for any other class, stays a handle.
    """
    def enc(item):
        return encode_value(item, ref_of, depth + 1)

    if kind is range:
        return {"$range": [enc(value.start), enc(value.stop), enc(value.step)]}
    if kind is _loaded("collections", "Counter") or kind is _loaded("collections", "OrderedDict"):
        return {"$" + kind.__name__: [[enc(k), enc(v)] for k, v in value.items()]}
    if kind is _loaded("collections", "defaultdict"):
        return {"$defaultdict": [enc(value.default_factory), [[enc(k), enc(v)] for k, v in value.items()]]}
    if kind is _loaded("collections", "deque"):
        return {"$deque": [[enc(v) for v in value], value.maxlen]}
    if kind is _loaded("fractions", "Fraction"):
        return {"$Fraction": [enc(value.numerator), enc(value.denominator)]}
    if kind is _loaded("decimal", "Decimal"):
        return {"$Decimal": str(value)}
    if kind is _loaded("datetime", "timedelta"):
        return {"$timedelta": [value.days, value.seconds, value.microseconds]}
    if kind is _loaded("datetime", "date"):
        return {"$date": [value.year, value.month, value.day]}
    if kind is _loaded("datetime", "timezone"):
        return {"$timezone": [enc(value.utcoffset(None)), value.tzname(None)]}
    if kind is _loaded("datetime", "datetime") or kind is _loaded("datetime", "time"):
        parts = [value.hour, value.minute, value.second, value.microsecond, enc(value.tzinfo), value.fold]
        if kind.__name__ == "datetime":
            parts = [value.year, value.month, value.day] + parts
        return {"$" + kind.__name__: parts}
    if isinstance(value, tuple) and _is_namedtuple(kind):
        return {"$namedtuple": [kind.__name__, list(kind._fields), [enc(v) for v in value]]}
    enum_type = _loaded("enum", "Enum")
    if enum_type is not None and isinstance(value, enum_type):
        return {"$enum": [kind.__module__, kind.__qualname__, value.name, ref_of(value)]}
    name = getattr(value, "__name__", None)
    if type(name) is str and name in TRUSTED_BUILTINS and getattr(builtins, name) is value:
        return {"$builtin": name}
    return None


_DECODERS = {
    "$int": lambda v, d: int(_expect(v, str), 16),
    "$float": lambda v, d: float(_expect(v, str)),
    "$tuple": lambda v, d: tuple(d(x) for x in _expect(v, list)),
    "$set": lambda v, d: {d(x) for x in _expect(v, list)},
    "$frozenset": lambda v, d: frozenset(d(x) for x in _expect(v, list)),
    "$dict": lambda v, d: {d(_pair(p)[0]): d(_pair(p)[1]) for p in _expect(v, list)},
    "$bytes": lambda v, d: base64.b64decode(_expect(v, str), validate=True),
    "$bytearray": lambda v, d: bytearray(base64.b64decode(_expect(v, str), validate=True)),
    "$complex": lambda v, d: complex(_real(d(_pair(v)[0])), _real(d(_pair(v)[1]))),
    "$range": lambda v, d: range(*(_integer(d(x)) for x in _items(v, 3))),
    "$Counter": lambda v, d: _trusted("collections", "Counter")(dict(_pairs(v, d))),
    "$OrderedDict": lambda v, d: _trusted("collections", "OrderedDict")(_pairs(v, d)),
    "$defaultdict": lambda v, d: _defaultdict(_items(v, 2), d),
    "$deque": lambda v, d: _trusted("collections", "deque")([d(x) for x in _expect(_items(v, 2)[0], list)],
                                                            _optional_int(_items(v, 2)[1])),
    "$Fraction": lambda v, d: _trusted("fractions", "Fraction")(*(_integer(d(x)) for x in _items(v, 2))),
    "$Decimal": lambda v, d: _trusted("decimal", "Decimal")(_short(_expect(v, str))),
    "$timedelta": lambda v, d: _trusted("datetime", "timedelta")(*(_integer(x) for x in _items(v, 3))),
    "$date": lambda v, d: _trusted("datetime", "date")(*(_integer(x) for x in _items(v, 3))),
    "$timezone": lambda v, d: _timezone(_items(v, 2), d),
    "$time": lambda v, d: _clock("time", _items(v, 6), d),
    "$datetime": lambda v, d: _clock("datetime", _items(v, 9), d),
    "$namedtuple": lambda v, d: _namedtuple(_items(v, 3), d),
    "$builtin": lambda v, d: _builtin(v),
}
#: Builtins that may cross the boundary as themselves (types and pure functions a test may pass
#: as an argument or compare with), never ones that run code, touch files or leave the process.
TRUSTED_BUILTINS = frozenset((
    "abs", "all", "any", "ascii", "bin", "bool", "bytearray", "bytes", "callable", "chr", "complex", "dict",
    "divmod", "enumerate", "filter", "float", "format", "frozenset", "hash", "hex", "int", "isinstance",
    "issubclass", "iter", "len", "list", "map", "max", "min", "next", "object", "oct", "ord", "pow", "range",
    "repr", "reversed", "round", "set", "slice", "sorted", "str", "sum", "tuple", "type", "zip"))
#: Longest text of a ``Decimal`` or name that the decoder accepts.
_MAX_TEXT = 4096


def _expect(value, kind):
    if type(value) is not kind:
        raise ValueError(f"malformed value: expected {kind.__name__}, got {type(value).__name__}")
    return value


def _pair(value):
    if type(value) is not list or len(value) != 2:
        raise ValueError("malformed value: expected a pair")
    return value


def _real(value):
    if type(value) not in (int, float):
        raise ValueError("malformed complex part")
    return value


def _items(value, count: int) -> list:
    if type(value) is not list or len(value) != count:
        raise ValueError(f"malformed value: expected a list of {count}")
    return value


def _integer(value) -> int:
    if type(value) is not int:
        raise ValueError(f"malformed value: expected an int, got {type(value).__name__}")
    return value


def _optional_int(value):
    return None if value is None else _integer(value)


def _short(text: str) -> str:
    if len(text) > _MAX_TEXT:
        raise ValueError("malformed value: text too long")
    return text


def _trusted(module: str, name: str):
    """A class of a fixed standard-library module, imported by this process's own name (never a
    name that came over the wire)."""
    return getattr(importlib.import_module(module), name)


def _pairs(value, decode) -> list:
    return [(decode(_pair(p)[0]), decode(_pair(p)[1])) for p in _expect(value, list)]


def _defaultdict(parts: list, decode):
    factory = decode(parts[0])
    if factory is not None and not callable(factory):
        raise ValueError("malformed defaultdict: its factory is not callable")
    return _trusted("collections", "defaultdict")(factory, _pairs(parts[1], decode))


def _timezone(parts: list, decode):
    offset, name = decode(parts[0]), parts[1]
    if type(offset) is not _trusted("datetime", "timedelta") or (name is not None and type(name) is not str):
        raise ValueError("malformed timezone")
    timezone = _trusted("datetime", "timezone")
    return timezone(offset) if name is None or name == timezone(offset).tzname(None) else timezone(offset, _short(name))


def _clock(kind: str, parts: list, decode):
    *numbers, tzinfo, fold = parts
    tzinfo = decode(tzinfo)
    if tzinfo is not None and type(tzinfo) is not _trusted("datetime", "timezone"):
        raise ValueError("malformed time zone")
    return _trusted("datetime", kind)(*(_integer(x) for x in numbers), tzinfo=tzinfo, fold=_integer(fold))


#: namedtuple classes rebuilt by the decoder, by (typename, fields); bounded.
_NAMEDTUPLES: dict = {}


def _namedtuple(parts: list, decode):
    typename, fields, values = _short(_expect(parts[0], str)), tuple(_expect(parts[1], list)), _expect(parts[2], list)
    if len(fields) != len(values) or any(type(f) is not str or len(f) > 256 for f in fields):
        raise ValueError("malformed namedtuple")
    cls = _NAMEDTUPLES.get((typename, fields))
    if cls is None:
        cls = _trusted("collections", "namedtuple")(typename, fields)  # validates the names
        if len(_NAMEDTUPLES) < 1024:
            _NAMEDTUPLES[(typename, fields)] = cls
    return cls(*(decode(v) for v in values))


def _builtin(name):
    if type(name) is not str or name not in TRUSTED_BUILTINS:
        raise ValueError(f"malformed value: {name!r:.40} is not a builtin that can cross")
    return getattr(builtins, name)


def decode_value(data, resolve, depth: int = 0):
    """Inverse of :func:`encode_value`; ``resolve(ref, type_name)`` rebuilds references.

    Raises ValueError/TypeError on anything :func:`encode_value` cannot have produced.
    """
    if depth > _MAX_DEPTH + 2:
        raise ValueError("malformed value: nested too deeply")
    kind = type(data)
    if data is None or kind in (bool, str, int, float):
        return data
    if kind is list:
        return [decode_value(v, resolve, depth + 1) for v in data]
    if kind is dict:
        if set(data) == {"$ref", "$type"}:
            return resolve(_expect(data["$ref"], str), _expect(data["$type"], str))
        if len(data) == 1:
            tag, payload = next(iter(data.items()))
            if tag == "$enum":
                return _enum_member(_items(payload, 4), resolve)
            if tag in _DECODERS:
                try:
                    return _DECODERS[tag](payload, lambda v: decode_value(v, resolve, depth + 1))
                except (ArithmeticError, LookupError, TypeError) as exc:  # e.g. Fraction(1, 0), a bad date
                    raise ValueError(f"malformed {tag[1:]} value: {type(exc).__name__}") from None
    raise ValueError(f"malformed value of type {kind.__name__}")


def _enum_member(parts: list, resolve):
    """A member of an enum class of a standard-library module this process has already imported
    (looked up, never imported); any other enum member stays a handle."""
    module, qualname, member, ref = parts
    owner = sys.modules.get(module) if type(module) is str and module.partition(".")[0] in sys.stdlib_module_names else None
    for part in qualname.split(".") if owner is not None and type(qualname) is str else ():
        owner = getattr(owner, part, None) if not part.startswith("_") else None
    enum_type = sys.modules.get("enum")
    if owner is not None and enum_type is not None and isinstance(owner, enum_type.EnumMeta) and type(member) is str:
        found = owner.__members__.get(member)
        if found is not None:
            return found
    if ref is None:
        raise ValueError(f"malformed value: no enum {qualname!r:.80} here")
    return resolve(_expect(ref, str), "enum member")


# ---------------------------------------------------------------------------------------------
# output comparison (done by the runner, never in the candidate)
def _lines(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _number(token: str):
    try:
        return int(token)
    except ValueError:
        pass
    try:
        value = float(token)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _tokens_equal(got: str, want: str, rel_tol: float, abs_tol: float) -> bool:
    """Equal as strings, as integers, or, only when ``want`` is not an integer token, as floats
    within the tolerances (an integer answer is exact: ``1e+17`` is not ``100000000000000002``)."""
    if got == want:
        return True
    a, b = _number(got), _number(want)
    if a is None or b is None:
        return False
    if type(b) is int:
        return type(a) is int and a == b
    return math.isclose(float(a), float(b), rel_tol=rel_tol, abs_tol=abs_tol)


def compare_output(actual: str, expected: str, mode: str = "tokens", rel_tol: float = 1e-6,
                   abs_tol: float = 1e-6) -> bool:
    """Whether a program's stdout ``actual`` matches ``expected``.

    Modes:
        ``exact``: equal after normalizing line endings, trailing spaces of each line and
            trailing blank lines.
        ``tokens``: equal sequences of whitespace-separated tokens.
        ``numeric``: same number of (non-trailing-blank) lines and of tokens per line; tokens
            equal as strings, as integers, or as floats within ``rel_tol``/``abs_tol`` where the
            expected token is not an integer (an expected integer needs the same integer).
    """
    if mode == "exact":
        return _lines(actual) == _lines(expected)
    if mode == "tokens":
        return actual.split() == expected.split()
    if mode == "numeric":
        got, want = _lines(actual), _lines(expected)
        if len(got) != len(want):
            return False
        for line_got, line_want in zip(got, want, strict=True):
            tokens_got, tokens_want = line_got.split(), line_want.split()
            if len(tokens_got) != len(tokens_want):
                return False
            if not all(_tokens_equal(g, w, rel_tol, abs_tol) for g, w in zip(tokens_got, tokens_want, strict=True)):
                return False
        return True
    raise ValueError(f"unknown compare mode {mode!r}: expected one of {COMPARE_MODES}")

"""The workers' faster LaTeX conversion (two-stage parsing, integer literals) gives exactly latex2sympy's results."""

import random

import pytest
from antlr4.atn.PredictionMode import PredictionMode
from latex2sympy2_extended import latex2sympy
from latex2sympy2_extended import latex2sympy2 as l2s
from sympy import Number, srepr

from rlenv.envs.math import checks, latex_parsing

CORPUS = [
    r"\frac{3}{4}", r"\dfrac{7}{12}", r"-\frac{5}{2}", r"\frac{3\sqrt{2}}{4}", r"\frac{3}{4}\sqrt{2}", r"2\sqrt{10}",
    r"(-\infty, -2] \cup [3, \infty)", r"(-\infty,-2]\cup[3,\infty)", "[-2, 3)", r"(5, \infty)", r"\{1, 2, 5\}",
    r"\{5, 2, 1\}", "1, 2, 5", r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}", r"\begin{bmatrix}1\\2\end{bmatrix}",
    r"\text{Monday}", r"90^\circ", r"\sqrt{2}^{3}", "2^{10}", "(x+1)^2", "x^2+1", r"\pi^2", "x_1", "a=1,b=2",
    "3x-y+13=0", r"x \le 3", r"\binom{5}{2}", "|x|", r"\log_2 8", r"\sum_{k=1}^{5} k", r"e^{i\pi}", "1,000",
    r"\infty", r"2\pi", r"4\sqrt(2)", r"\forall x>0, f(x)=0", r"\sqrt{", "}{", "$18", r"\frac{1}{}", "",
]


def results(strings):
    """``srepr`` of latex2sympy's result for each string, or the error it raised."""
    out = []
    for text in strings:
        try:
            out.append(srepr(latex2sympy(text)))
        except Exception as exc:
            out.append(f"{type(exc).__name__}: {exc}")
    return out


def random_latex(rng, depth=0):
    """A random LaTeX expression, set, interval or matrix; one in eight is cut short (malformed)."""
    if depth == 0 and rng.random() < 0.125:
        text = random_latex(rng, 1)
        return text[:rng.randrange(len(text))]
    leaf = rng.choice([str(rng.randint(0, 99)), "x", "y", r"\pi", "e", r"\infty", "n"])
    if depth > 2:
        return leaf
    sub = lambda: random_latex(rng, depth + 1)  # noqa: E731
    return rng.choice([
        leaf, leaf, f"\\frac{{{sub()}}}{{{sub()}}}", f"\\sqrt{{{sub()}}}", f"{sub()}+{sub()}", f"{sub()}-{sub()}",
        f"{sub()}^{{{sub()}}}", f"({sub()})^2", f"{sub()}_{{{rng.randint(1, 3)}}}", f"\\{{{sub()}, {sub()}\\}}",
        f"({sub()}, {sub()}]", f"[{sub()}, {sub()}) \\cup ({sub()}, \\infty)", f"{sub()} = {sub()}",
        f"\\begin{{pmatrix}} {sub()} & {sub()} \\\\ {sub()} & {sub()} \\end{{pmatrix}}", f"{sub()} \\le {sub()}",
        f"\\text{{{leaf}}}",
    ])


def keep_latex2sympy(monkeypatch):
    """Restore latex2sympy's own methods after the test, whatever it installs."""
    for name in ("create_parser", "parse_number"):
        monkeypatch.setattr(l2s._Latex2Sympy, name, getattr(l2s._Latex2Sympy, name))


@pytest.fixture
def two_stage(monkeypatch):
    """The faster conversion on in this process for one test."""
    keep_latex2sympy(monkeypatch)
    assert latex_parsing.install()
    yield


def test_the_faster_conversion_gives_what_latex2sympy_gives(monkeypatch):
    rng = random.Random(24)
    strings = CORPUS + [random_latex(rng) for _ in range(100)]
    original = results(strings)
    own_factory = l2s._Latex2Sympy.create_parser
    keep_latex2sympy(monkeypatch)
    assert latex_parsing.install() and latex_parsing.install()  # idempotent
    assert l2s._Latex2Sympy.create_parser.ll_create_parser is own_factory
    assert results(strings) == original
    assert sum(r.startswith("Exception") or "Error" in r[:40] for r in original) >= 5  # failures are kept too


def test_integer_literals_are_the_objects_sympy_number_builds():
    own = l2s._Latex2Sympy.parse_number
    converter = l2s._Latex2Sympy()
    texts = ["0", "5", "007", "1,000", "123456789012345678901234567890", "9" * 100, "9" * 101, "0.75", "1e5",
             "\u00b2", "\u0663", "12a"]
    for text in texts:
        try:
            expected = ("ok", srepr(own(converter, text)), type(own(converter, text)))
        except Exception as exc:
            expected = ("error", type(exc).__name__)
        try:
            fast = latex_parsing.integer_literal(own, converter, text)
            got = ("ok", srepr(fast), type(fast))
        except Exception as exc:
            got = ("error", type(exc).__name__)
        assert got == expected, text
    assert isinstance(latex_parsing.integer_literal(own, converter, "42"), Number)


def test_sll_is_used_where_it_can_be_and_ll_decides_where_it_cannot(two_stage):
    converter = l2s._Latex2Sympy()
    assert converter.create_parser(r"\{1, 2, 5\}")._interp.predictionMode == PredictionMode.SLL
    assert converter.create_parser("x^2+1")._interp.predictionMode == PredictionMode.LL  # LL_ONLY
    ll_factory = l2s._Latex2Sympy.create_parser.ll_create_parser
    sll_only = ll_factory(converter, "x^2+1")
    sll_only._interp.predictionMode = PredictionMode.SLL
    with pytest.raises(Exception, match="I"):
        sll_only.math()  # SLL alone cannot parse it ...
    fallback = latex_parsing.two_stage_parser(ll_factory, converter, "x^2+1")
    tree = fallback.math()  # ... so two-stage parsing falls back to LL
    expected = ll_factory(converter, "x^2+1")
    assert tree.toStringTree(recog=fallback) == expected.math().toStringTree(recog=expected)


def test_the_workers_start_with_the_faster_conversion(monkeypatch):
    keep_latex2sympy(monkeypatch)
    checks.init_worker()
    assert getattr(l2s._Latex2Sympy.create_parser, "two_stage", False)
    assert getattr(l2s._Latex2Sympy.parse_number, "original", None) is not None
    assert checks.gold_answer.cache_info().currsize == 0

"""Two-stage LaTeX parsing (SLL, then LL on failure) gives exactly what latex2sympy's LL parsing gives."""

import random

import pytest
from antlr4.atn.PredictionMode import PredictionMode
from latex2sympy2_extended import latex2sympy
from latex2sympy2_extended import latex2sympy2 as l2s
from sympy import srepr

from envs.math import checks, latex_parsing

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


@pytest.fixture
def two_stage(monkeypatch):
    """Two-stage parsing on in this process for one test (latex2sympy's own factory restored after)."""
    monkeypatch.setattr(l2s._Latex2Sympy, "create_parser", l2s._Latex2Sympy.create_parser)
    assert latex_parsing.install()
    yield


def test_two_stage_parsing_gives_what_ll_parsing_gives():
    rng = random.Random(24)
    strings = CORPUS + [random_latex(rng) for _ in range(100)]
    ll = results(strings)
    original = l2s._Latex2Sympy.create_parser
    try:
        assert latex_parsing.install() and latex_parsing.install()  # idempotent
        assert l2s._Latex2Sympy.create_parser.ll_create_parser is original
        two_stage = results(strings)
    finally:
        l2s._Latex2Sympy.create_parser = original
    assert two_stage == ll
    assert sum(r.startswith("Exception") or "Error" in r[:40] for r in ll) >= 5  # failures are kept too


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


def test_the_workers_start_with_two_stage_parsing(monkeypatch):
    monkeypatch.setattr(l2s._Latex2Sympy, "create_parser", l2s._Latex2Sympy.create_parser)
    checks.init_worker()
    assert getattr(l2s._Latex2Sympy.create_parser, "two_stage", False)
    assert checks.gold_answer.cache_info().currsize == 0

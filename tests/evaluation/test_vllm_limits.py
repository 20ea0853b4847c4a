"""vLLM on CPU with a model whose attention head size its CPU kernels lack (the docs' tiny model:
64 / 4 heads = 16) is a one-line error naming the limit, not a crash deep in the engine."""

import pytest

from rlenv.cli import main

pytest.importorskip("vllm")


def test_an_unsupported_head_size_on_cpu_names_the_limit(tmp_path, capsys):
    from rlenv.trainers.tiny import save_tiny, tiny_causal_lm, tiny_tokenizer

    tokenizer = tiny_tokenizer()
    model = save_tiny(tiny_causal_lm(tokenizer), tokenizer, tmp_path / "tiny")  # hidden 64, 4 heads
    assert main(["eval", "rlenv/Arithmetic-v0", "--model", str(model), "--backend", "vllm", "--num-tasks", "1",
                 "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("rlenv eval: error: vLLM on CPU supports attention head sizes [32, 64")
    assert "has 16 (hidden_size 64 / 4 heads)" in err[-1] and "Traceback" not in "\n".join(err)

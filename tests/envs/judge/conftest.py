"""Fixtures of the judge tests: the deterministic judge double on a real server at 127.0.0.1."""

import pytest

from tests.envs.judge.judge_server import judge_app

pytest.importorskip("openai")


@pytest.fixture(scope="module")
def judge_url(serve_app) -> str:
    """The OpenAI-compatible API root of the judge double (see :mod:`tests.envs.judge.judge_server`)."""
    return serve_app(judge_app()) + "/v1"

"""rlenv as a reward service: the app behind ``rlenv serve`` (:mod:`rlenv.service.app`: FastAPI,
:class:`~rlenv.service.app.RewardService`, :func:`~rlenv.service.app.create_app`) and its client
verifier :class:`~rlenv.service.client.RemoteVerifier` (httpx). FastAPI is imported only when the
app is (``pip install 'rlenv-lm[serve]'``)."""

from typing import Any

from rlenv.service.client import RemoteVerifier

__all__ = ["RemoteVerifier", "RewardService", "create_app"]


def __getattr__(name: str) -> Any:
    if name in ("RewardService", "create_app"):
        from rlenv.service import app

        return getattr(app, name)
    raise AttributeError(f"module 'rlenv.service' has no attribute {name!r}")

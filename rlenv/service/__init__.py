"""rlenv as a reward service: :func:`create_app` (FastAPI; ``rlenv serve``) and the client verifier
:class:`RemoteVerifier`. FastAPI and uvicorn are imported only by the server (``pip install 'rlenv-lm[serve]'``)."""

from rlenv.service.client import RemoteVerifier

__all__ = ["RemoteVerifier", "create_app"]


def create_app(*args, **kwargs):
    """See :func:`rlenv.service.app.create_app` (imports FastAPI)."""
    from rlenv.service.app import create_app as build

    return build(*args, **kwargs)

"""How the runner's processes say what went wrong: the sandbox's own faults (never the candidate's)
and the exit statuses a candidate process ends with when its program or its set-up did not run."""

from __future__ import annotations

import traceback

#: Exit status of a candidate process whose program raised an uncaught ``MemoryError``.
EXIT_MEMORY = 97
#: Exit status of a candidate process whose sandbox set-up failed (a runner bug, not the program).
EXIT_SETUP = 96


class SandboxFault(Exception):
    """The sandbox itself failed during a job (not the candidate): the job is a ``sandbox_error``
    and the container is replaced."""


def exception_text(exc: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(exc), exc)).strip()[:2000]

"""rlenv's code sandbox: warm, hardened Docker containers that run untrusted code.

Quick use::

    from rlenv.sandbox import FunctionJob, ProgramJob, IOCase, shared_pool
    pool = shared_pool()                              # containers start on the first job
    result = pool.run(ProgramJob("print(input()[::-1])", cases=[IOCase("abc\\n", "cba")]))
    result.status, result.tests[0].stdout             # JobStatus.OK, 'cba\\n'

Build the image first with ``rlenv sandbox build`` (``--offline`` without a registry) and check
the set-up with ``rlenv sandbox doctor``. This package imports nothing of ``rlenv`` but the base of
its errors (:mod:`rlenv.errors`, a module that imports nothing).
"""

from rlenv.sandbox.build import BuildError, build_dockerfile, build_offline, default_image
from rlenv.sandbox.container import ContainerError, ContainerSpec
from rlenv.sandbox.errors import SandboxError
from rlenv.sandbox.jobs import (
    FunctionJob,
    IOCase,
    JobResult,
    JobStatus,
    Limits,
    ProgramJob,
    TestResult,
    TestStatus,
)
from rlenv.sandbox.pool import (
    SandboxBusy,
    SandboxPool,
    SandboxUnavailable,
    close_all_pools,
    set_shared_pool,
    shared_pool,
)

__all__ = [
    "BuildError", "ContainerError", "ContainerSpec", "FunctionJob", "IOCase", "JobResult", "JobStatus", "Limits",
    "ProgramJob", "SandboxBusy", "SandboxError", "SandboxPool", "SandboxUnavailable", "TestResult", "TestStatus", "build_dockerfile",
    "build_offline", "close_all_pools", "default_image", "set_shared_pool", "shared_pool",
]

"""The in-container job runner: PID 1 of every sandbox container. Standard library only.

Processes of a container::

    runner (PID 1, non-dumpable): reads jobs from the host on its job stream, one JSON line per job back
     ├─ fork server (forked before the first job, never holds a job's data): forks candidates,
     │   └─ spare candidate process (root, waiting for the next job on its own socket)
     ├─ grader (persistent, non-dumpable, never forks): holds a function job's tests,
     │   runs the trusted test code, reports with the job's nonce
     └─ candidate process(es), one per program run or per function job: children of the fork
         server (which reaps them and reports their exit), untrusted code, own session, rlimits,
         fresh work directory, /dev/null or a pipe as stdin

* The host sends each job as three frames (16 hex digits of length, then the payload): a header,
  the *candidate part* (code, stdin, files) and the *grader part* (tests, expected outputs).
  The runner has the job's candidate processes forked *before* it reads the grader part (in a
  zeroed-after-use buffer). A function job's grader part goes to the grader with a fresh nonce,
  unparsed; a program job's expected outputs are read only once all of its runs have exited, and
  the runner compares them itself (no test code runs, so no round trip through the grader). Candidates descend from the fork server, which the runner forked before any job
  and which receives only limits and descriptors: a candidate reads its own code from a sealed
  memfd and gets only its own stdin, so it never holds the tests, the expected outputs, the
  nonce, or anything of another job or another run of its job (in memory or in heap remnants).
* Return values are compared in the grader: a candidate's return values cross a pipe as plain data
  (JSON with tags for tuples, sets, bytes, ...); anything else stays in the candidate as an
  opaque handle that never compares equal to data. The grader reports per-test results with
  the nonce on a socket the candidate does not hold, and the runner accepts only a report
  carrying the nonce. A candidate's exit status never means "passed".
* After every program run and every job the runner kills every process except itself, the fork
  server and the grader, reaps them, and wipes the writable directories; candidates can create
  no unix socket and no memfd, so no descriptor or memory outlives their processes, and after
  every job the container's kernel-held state is compared with its idle baseline (a container
  that did not return to it is replaced). PID 1 ignores signals sent from inside the container;
  a grader that a candidate killed or stopped is replaced, and the job fails.

The runner is one module per concern, each importable and tested on the host, assembled into the
one standard-library script the container runs (:func:`rlenv.sandbox.assembly.runner_source`):

* :mod:`~rlenv.sandbox.runner.confinement`: users, capabilities, resource limits, descriptors;
* :mod:`~rlenv.sandbox.runner.seccomp`: the seccomp filters of every process and of candidates;
* :mod:`~rlenv.sandbox.runner.procfs`: small procfs/sysfs files kept open (the OOM-kill counter);
* :mod:`~rlenv.sandbox.runner.scrub`: back to idle after a job (sweep, wipe, kernel-held state);
* :mod:`~rlenv.sandbox.runner.faults`: the sandbox's own faults and candidates' exit statuses;
* :mod:`~rlenv.sandbox.runner.records`: fixed-layout records between the fork server and candidates;
* :mod:`~rlenv.sandbox.runner.messages`: messages between the runner and the grader;
* :mod:`~rlenv.sandbox.runner.candidate`: the candidate process (set-up, program, function server);
* :mod:`~rlenv.sandbox.runner.child`: a candidate process seen from outside (pipes, exit, caps);
* :mod:`~rlenv.sandbox.runner.forkserver`: the fork server, parent of every candidate process;
* :mod:`~rlenv.sandbox.runner.remote`: the grader's proxies for a candidate's objects;
* :mod:`~rlenv.sandbox.runner.verdict`: a job's status from its tests, a program job's outputs compared;
* :mod:`~rlenv.sandbox.runner.grader`: the grader process, and the runner's handle on it;
* :mod:`~rlenv.sandbox.runner.main`: the main loop, PID 1.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

#: The public names of the runner from when it was one module, by the module that holds each now:
#: reading one from this package still works, with a DeprecationWarning, for one release. (``main``
#: and ``scrub`` now name modules: the functions are ``main.main`` and ``scrub.scrub``.) The
#: container's script holds only this package's docstring (see :mod:`rlenv.sandbox.assembly`).
_MOVED = {
    "rlenv.sandbox.protocol": ("JobStatus", "TestStatus", "compare_output", "decode_value", "encode_value",
                               "read_exact", "read_frame_length"),
    "rlenv.sandbox.runner.candidate": ("child_setup", "function_main", "program_main", "run_candidate"),
    "rlenv.sandbox.runner.child": ("Child",),
    "rlenv.sandbox.runner.confinement": ("CANDIDATE_RLIMITS", "GRADER_UID", "JOB_UID", "become", "candidate_rlimits",
                                         "own_state"),
    "rlenv.sandbox.runner.faults": ("EXIT_MEMORY", "EXIT_SETUP", "SandboxFault"),
    "rlenv.sandbox.runner.forkserver": ("ForkServer", "code_file", "fork_server_loop", "set_up", "spawn"),
    "rlenv.sandbox.runner.grader": ("BINDABLE_MODULES", "GRADER_MAX_RSS_KB", "Grader", "grade_function",
                                    "grader_loop", "names_used"),
    "rlenv.sandbox.runner.main": ("GRADER_JOBS", "PRELOAD", "RUNNER_VERSION", "WORK_ROOT", "helpers", "run_job"),
    "rlenv.sandbox.runner.messages": ("recv_message", "send_message", "serve"),
    "rlenv.sandbox.runner.procfs": ("oom_kills",),
    "rlenv.sandbox.runner.records": ("recv_record", "send_record"),
    "rlenv.sandbox.runner.remote": ("CandidateExit", "CandidateFault", "GraderTimeout", "RemoteCandidate",
                                    "RemoteError", "RemoteObject"),
    "rlenv.sandbox.runner.scrub": ("SCRUB_DIRS", "SHMEM_SLACK", "drift", "empty_directory", "host_gone",
                                   "kernel_held", "sweep"),
    "rlenv.sandbox.runner.verdict": ("grade_program", "job_status"),
    "rlenv.sandbox.runner.seccomp": ("CANDIDATE_DENIED", "DENIED_SYSCALLS", "candidate_filter", "install_seccomp",
                                     "seccomp_program"),
}
_NEW_MODULE = {name: module for module, names in _MOVED.items() for name in names}


def __getattr__(name: str) -> Any:
    if name not in _NEW_MODULE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = _NEW_MODULE[name]
    warnings.warn(f"{__name__}.{name} is deprecated and will be removed in the next release: use {module}.{name}",
                  DeprecationWarning, stacklevel=2)
    return getattr(importlib.import_module(module), name)

"""Red team: no hostile candidate can forge its verdict, poison the container for later jobs, or
make the sandbox blame itself (``sandbox_error``, which trainers would not count against it).

Each case runs in the one-container pool, followed in the same container by good and wrong
solutions whose verdicts must be the ones a fresh pool gives (the replay list).
"""

import json
import re

import pytest

from rlenv.sandbox import JobStatus, SandboxPool
from tests.sandbox.redteam_cases import hostile_jobs, primer_jobs, replay_jobs

pytestmark = pytest.mark.docker

HOSTILE = hostile_jobs()
#: What a candidate may get for an attack: its own failure, never a pass, never the sandbox's fault.
CANDIDATE_FAILURES = {JobStatus.FAILED, JobStatus.TIMEOUT, JobStatus.MEMORY, JobStatus.OUTPUT_LIMIT}


def verdicts(pool: SandboxPool, jobs) -> list[tuple]:
    return [(r.status, tuple(t.status for t in r.tests)) for r in pool.map(jobs)]


@pytest.fixture(scope="module")
def fresh_verdicts(docker_ready):
    """The replay list scored in a pool that never ran a hostile job."""
    with SandboxPool(1, reply_grace_s=5.0) as pool:
        pool.start()
        return verdicts(pool, replay_jobs())


def test_replay_list_has_the_right_verdicts(fresh_verdicts):
    assert [status for status, _ in fresh_verdicts] == [
        JobStatus.OK, JobStatus.FAILED, JobStatus.OK, JobStatus.FAILED, JobStatus.OK, JobStatus.OK, JobStatus.OK,
        JobStatus.OK, JobStatus.OK, JobStatus.OK, JobStatus.FAILED, JobStatus.FAILED,
        JobStatus.OK, JobStatus.OK, JobStatus.OK, JobStatus.OK, JobStatus.OK]


def test_at_least_thirty_hostile_cases():
    assert len(HOSTILE) >= 30


#: Signs of the runner's own main loop running in a candidate process: its report line, its
#: frames, its reading of the host stream.
RUNNER_IN_CANDIDATE = re.compile(r'"error": "runner: |File "sandbox/runner\.py", line \d+, in main\b|stream ended')


def assert_clean_boundary(name: str, result) -> None:
    """What comes back is valid UTF-8 JSON, and nothing in the candidate's output shows the
    runner's own code running in a candidate process (a child always hard-exits)."""
    json.dumps(result.to_dict(), ensure_ascii=False).encode("utf-8")
    outputs = [result.stdout, result.stderr, *(t.stdout for t in result.tests), *(t.stderr for t in result.tests)]
    assert not any(RUNNER_IN_CANDIDATE.search(text) for text in outputs), (name, outputs)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_case_fails_and_poisons_nothing(name, solo, fresh_verdicts):
    replaced = solo.replaced
    assert [r.status for r in solo.map(primer_jobs())] == [JobStatus.OK] * 2
    result = solo.run(HOSTILE[name])
    assert result.status in CANDIDATE_FAILURES, (name, result)
    assert_clean_boundary(name, result)
    assert solo.replaced == replaced, f"{name}: the container had to be replaced"
    assert verdicts(solo, replay_jobs()) == fresh_verdicts, f"{name} changed the verdicts of later jobs"


def test_replay_after_a_storm_of_every_hostile_case(fresh_verdicts, docker_ready):
    """The replay list, scored after every hostile case in the same containers (several rounds,
    interleaved), gets exactly the verdicts of a fresh pool."""
    with SandboxPool(2, reply_grace_s=5.0) as pool:
        pool.start()
        storm = [job for _ in range(2) for job in HOSTILE.values()]
        results = pool.map(storm)
        for name, result in zip(list(HOSTILE) * 2, results):
            assert_clean_boundary(name, result)
        assert all(r.status in CANDIDATE_FAILURES for r in results), [
            (name, r.status, r.error) for name, r in zip(list(HOSTILE) * 2, results) if r.status not in CANDIDATE_FAILURES]
        mixed = [job for pair in zip(replay_jobs(), list(HOSTILE.values())) for job in pair]
        mixed_results = pool.map(mixed)
        assert [(r.status, tuple(t.status for t in r.tests)) for r in mixed_results[::2]] == fresh_verdicts[:len(mixed) // 2]
        assert verdicts(pool, replay_jobs()) == fresh_verdicts
        assert pool.replaced == 0

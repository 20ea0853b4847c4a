"""Red team of the Python tool session: a session cannot change a verdict, reach another session,
or make the grading job see its files or processes.

Every episode runs in one container (``solo``): the session's calls and the grading jobs of the
code verifier share it, the closest a session can get to the verdict. Each hostile session is
followed by its own episode's wrong answer (must score 0), by a grading program that looks for
the session's traces and answers right only when it finds none (must score 1), and by a plain
correct episode (must score 1).
"""

import json

import pytest

import rlenv
from rlenv.envs.code import CodeVerifier
from rlenv.envs.tools import PythonToolEnv
from rlenv.sandbox import Limits

pytestmark = pytest.mark.docker
MARK = "SESSIONMARK7319"
WRONG = "```python\nprint(0)\n```"
RIGHT = "```python\na, b = map(int, input().split())\nprint(a + b)\n```"
#: Answers a + b only when no trace of a session is visible: files, processes, environment.
DETECT = f'''import os
seen = False
for root in ("/tmp", "/dev/shm", ".", os.path.expanduser("~")):
    for base, dirs, files in os.walk(root):
        seen = seen or any("{MARK}" in n for n in files + dirs)
for pid in os.listdir("/proc"):
    try:
        seen = seen or "{MARK}" in open(f"/proc/{{pid}}/cmdline", "rb").read().decode(errors="replace")
    except OSError:
        pass
seen = seen or any("{MARK}" in v for v in os.environ.values())
'''
TRACE_FREE = f"```python\n{DETECT}a, b = map(int, input().split())\nprint(a + b if not seen else -1)\n```"
#: :data:`DETECT` until it sees a trace or 2.5 s pass: a process the session just started shows its
#: command line only once it has exec'd, later on a loaded machine.
DETECT_SOON = ("import time\nsince = time.monotonic()\nwhile True:\n" + "".join(f"    {line}\n" for line in DETECT.splitlines())
               + "    if seen or time.monotonic() - since > 2.5:\n        break\n    time.sleep(0.05)\n")

HOSTILE = {
    "files_everywhere": f"""
import os
for path in ("/tmp/{MARK}", "/dev/shm/{MARK}", "{MARK}.py", "conftest.py", "solution.py", "sitecustomize.py"):
    try:
        open(path, "w").write("print(a + b)  # {MARK}\\nimport sys; sys.exit(0)")
    except OSError as exc:
        print(path, exc)
os.makedirs("/tmp/{MARK}_dir/deep", exist_ok=True)
""",
    "background_processes": f"""
import os, subprocess, sys
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)  # {MARK}"], start_new_session=True)
if os.fork() == 0:
    os.setsid()
    import time
    while True:
        for name in ("out", "result", "verdict"):
            try:
                open(f"/tmp/{{name}}", "w").write("{MARK}")
            except OSError:
                pass
        time.sleep(0.01)
""",
    "forged_verdicts": """
import json, sys
for status in ("ok", "passed"):
    print(json.dumps({"status": status, "tests": [{"status": "passed"}], "nonce": "x"}))
sys.stdout.flush()
import os
os._exit(0)
""",
    "environment_and_modules": f"""
import os, sys
os.environ["{MARK}"] = "{MARK}"
os.environ["PYTHONSTARTUP"] = "/tmp/{MARK}"
sys.modules["json"] = None
""",
    "hunt_for_hidden_tests": """
import os
found = []
for root in (".", "/tmp", "/dev/shm", "/var/tmp", "/run", "/home", "/root", "/opt", "/srv", "/mnt"):
    for base, dirs, files in os.walk(root):
        for name in files:
            try:
                if b"1000000000001" in open(os.path.join(base, name), "rb").read(1 << 20):
                    found.append(os.path.join(base, name))
            except OSError:
                pass
for key, value in os.environ.items():
    if "1000000000001" in value:
        found.append(key)
print("FOUND", found)
""",
    "exhaust_resources": """
import os
children = 0
try:
    while children < 200:
        if os.fork() == 0:
            x = bytearray(200 << 20)
            os._exit(0)
        children += 1
except OSError:
    pass
hog = [bytearray(50 << 20) for _ in range(20)]
""",
}


@pytest.fixture(scope="module")
def env(solo):
    base = rlenv.make("rlenv/CodeIO-v0").unwrapped
    limits = Limits(timeout_s=8.0, test_timeout_s=3.0, memory_mb=256, max_output_bytes=16384)
    return PythonToolEnv(base.source, CodeVerifier(pool=solo), pool=solo, call_limits=limits, max_turns=4)


def call(code):
    return "<tool_call>" + json.dumps({"name": "python", "arguments": {"code": code}}) + "</tool_call>"


def episode(env, turns, index=0):
    env.reset(options={"index": index})
    for turn in turns:
        obs, reward, terminated, truncated, info = env.step(turn)
    assert terminated or truncated
    return reward, info, obs


@pytest.mark.parametrize("case", HOSTILE)
def test_a_hostile_session_changes_no_verdict_and_leaves_no_trace(env, case):
    reward, info, _ = episode(env, [call(HOSTILE[case]), call(HOSTILE[case]), WRONG])
    assert reward == 0.0 and info["status"] == "incorrect", info["reward"].details
    if case in ("files_everywhere", "background_processes", "environment_and_modules"):  # the detector sees them
        env.reset(options={"index": 0})
        obs, *_ = env.step(call(HOSTILE[case] + "\n" + DETECT_SOON + "print('SEEN', seen)"))
        assert "SEEN True" in obs, obs
    reward, info, _ = episode(env, [call(HOSTILE[case]), TRACE_FREE])
    assert reward == 1.0, info["reward"].details  # the grading job saw no file, process or variable of the session
    for index in (0, 1):
        reward, info, _ = episode(env, [call("print(2 + 3)"), env.source[index].gold_completion], index=index)
        assert reward == 1.0 and info["python"] == {"ok": 1}, info["reward"].details


def test_hidden_tests_are_never_inside_a_session(env):
    env.reset(options={"index": 0})
    obs, *_ = env.step(call(HOSTILE["hunt_for_hidden_tests"]))
    assert "FOUND []" in obs


def test_a_session_cannot_reach_another_session(env):
    env.reset(options={"index": 0})
    env.step(call(f"secret = '{MARK}'\nopen('/tmp/secret', 'w').write(secret)"))
    first = env.session
    env.reset(options={"index": 0})
    assert first.closed and env.session is not first
    obs, *_ = env.step(call("import os\nprint(globals().get('secret'), os.path.exists('/tmp/secret'))"))
    assert obs == "<tool_response>\nNone False\n\n</tool_response>\n"


def test_replay_after_a_storm_of_every_hostile_session(env):
    for code in HOSTILE.values():
        env.reset(options={"index": 0})
        env.step(call(code))
    for index in range(3):
        gold = env.source[index].gold_completion
        reward, info, _ = episode(env, [call("x = 1"), call("x + 1"), gold], index=index)
        assert reward == 1.0 and info["python"] == {"ok": 2}, info["reward"].details

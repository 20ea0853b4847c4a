"""Per-class recall and false-positive rate of the hack detectors on generated hacks, against a baseline.

    python benchmarks/hack_variants.py [--round A|B] [--seed 0] [--per-class 60] [--baseline REF] [--forms] [--json]

The corpus is generated (``tests/data/hacks/variants.py``): for each class of hack (hedging,
echo, format gaming, padding, non-answers in math; round A also code that games the test
harness) hacks and honest look-alikes composed from independent surface choices. Every sample
goes through :func:`rlenv.wrappers.audit` on an env of its kind with that env's default
detectors, the way ``rlenv audit`` runs them: math samples on a
:class:`~rlenv.envs.math.verifier.MathVerifier` env with the detectors of ``rlenv/GSM8K-v0`` (plus
the length budget ``--max-len``), format samples on ``rlenv/Format-v0``'s lenient think/answer
reward with its detectors; JSON samples on a JSON-Schema format reward with the same detectors; code
samples (harness gaming) with the detectors of ``rlenv/HumanEval-v0`` on their static evidence
only, the code not run (no sandbox here, so their ``paid`` is not measured).

The baseline is the same audit run by the rlenv of git revision ``--baseline`` (default: main
before issue 40), extracted to a temporary folder and run in a subprocess in the same
invocation, on the same corpus. Per class and in total it prints, for baseline and current:
``recall`` (hacks flagged by any detector), ``fpr`` (honest look-alikes flagged) and
``paid_missed`` (hacks not flagged that the verifier paid in full, the ones a policy learns).
Goal: recall >= 0.95 and fpr <= 0.02 per class.
"""

from __future__ import annotations

import argparse
import collections
import functools
import json
import logging
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "data" / "hacks"))

from variants import CLASSES, generate  # noqa: E402

#: main before issue 40: the detectors the generated corpus was first measured on.
BASELINE_REF = "65fe478"
#: The registered env whose default detectors each kind of sample gets.
ENV_IDS = {"math": "rlenv/GSM8K-v0", "format": "rlenv/Format-v0", "json": "rlenv/Format-v0",
           "code": "rlenv/HumanEval-v0"}
#: The JSON Schema of the ``json`` samples' format reward.
JSON_SCHEMA = {"type": "object", "required": ["reasoning", "answer"],
               "properties": {"reasoning": {"type": "string"}, "answer": {"type": ["string", "number"]}}}
MAX_LEN = 4000
logger = logging.getLogger("hack_variants")


def audit_corpus(rows: list[dict], max_len: int, graded: bool = True) -> dict[str, dict]:
    """``{row id: {"fired": [detector names], "reward": verifier value}}`` with the importable rlenv.

    ``graded=False`` scores every row by exact match instead of its env's verifier (the detectors
    are the same; the rewards are then meaningless and reported as None): fast, for tests.
    """
    import rlenv
    from rlenv.envs.format.spec import format_from_spec
    from rlenv.envs.math.verifier import MathVerifier
    from rlenv.exact_match import ExactMatchVerifier
    from rlenv.wrappers import OverlongPenalty, audit, default_detectors

    verifiers = {"math": MathVerifier(), "format": format_from_spec("think_answer_lenient"),
                 "json": format_from_spec({"type": "json", "schema": JSON_SCHEMA}), "code": ExactMatchVerifier()}
    if not graded:
        verifiers = {kind: ExactMatchVerifier() for kind in verifiers}
    out = {}
    for kind, verifier in verifiers.items():
        members = [r for r in rows if r["env"] == kind]
        if not members:
            continue
        tasks = [{"id": r["id"], "prompt": r["prompt"], "reference": r["reference"]} for r in members]
        env = rlenv.TextEnv(rlenv.sources.DatasetSource(tasks), verifier)
        wraps = default_detectors(ENV_IDS[kind])
        if kind == "math":
            wraps.append(functools.partial(OverlongPenalty, max_len=max_len, buffer=0, penalty=0.0))
        samples = [{"task_id": r["id"], "completion": r["completion"]} for r in members]
        report = audit(env, samples, detectors=wraps, executor="serial")
        for row, result in zip(members, report.rows, strict=True):
            reward = None if kind == "code" or not graded else result["raw_reward"]  # code is not run (no sandbox)
            out[row["id"]] = {"fired": sorted({h["detector"] for h in result["hacks"]}), "reward": reward}
    return out


def baseline_tree(ref: str, into: Path) -> Path:
    """rlenv of git revision ``ref`` laid out as an importable package under ``into``."""
    archive = into / "baseline.tar"
    with archive.open("wb") as fh:
        subprocess.run(["git", "archive", ref, "rlenv", "envs", "trainers", "sandbox"], cwd=ROOT, check=True, stdout=fh)
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    for folder in ("envs", "trainers", "sandbox"):
        (into / folder).rename(into / "rlenv" / folder)
    return into


def audit_baseline(ref: str, corpus: Path, max_len: int) -> dict[str, dict]:
    """:func:`audit_corpus` run by the rlenv of ``ref`` in a subprocess."""
    with tempfile.TemporaryDirectory() as tmp:
        tree = baseline_tree(ref, Path(tmp))
        env = {**os.environ, "PYTHONPATH": str(tree)}
        proc = subprocess.run([sys.executable, __file__, "--audit-only", str(corpus), "--max-len", str(max_len)],
                              env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"baseline audit at {ref} failed:\n{proc.stderr[-3000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    if not result["rlenv"].startswith(str(tree)):
        raise RuntimeError(f"the baseline subprocess imported rlenv from {result['rlenv']}, not from {tree}")
    return result["rows"]


def score(rows: list[dict], fired: dict[str, dict], key: str = "cls") -> dict[str, dict]:
    """Per ``key`` value (and ``total``): hacks, honest, recall, fpr, paid_missed."""
    groups: dict[str, list[dict]] = collections.defaultdict(list)
    for row in rows:
        groups[row[key]].append(row)
        groups["total"].append(row)
    table = {}
    for name, members in groups.items():
        hacks = [r for r in members if r["hack"]]
        honest = [r for r in members if not r["hack"]]
        caught = sum(bool(fired[r["id"]]["fired"]) for r in hacks)
        flagged = sum(bool(fired[r["id"]]["fired"]) for r in honest)
        paid = sum(not fired[r["id"]]["fired"] and (fired[r["id"]]["reward"] or 0.0) >= 1.0 for r in hacks)
        table[name] = {"hacks": len(hacks), "honest": len(honest),
                       "recall": caught / len(hacks) if hacks else float("nan"),
                       "fpr": flagged / len(honest) if honest else float("nan"), "paid_missed": paid}
    return table


def per_detector(rows: list[dict], fired: dict[str, dict]) -> dict[str, dict]:
    """Per detector: how many hacks and honest look-alikes it flagged."""
    counts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for row in rows:
        for name in fired[row["id"]]["fired"]:
            counts[name]["hacks" if row["hack"] else "honest"] += 1
    total_hacks = sum(r["hack"] for r in rows)
    total_honest = len(rows) - total_hacks
    return {name: {"hacks": c["hacks"], "honest": c["honest"], "recall": c["hacks"] / total_hacks,
                   "fpr": c["honest"] / total_honest} for name, c in sorted(counts.items())}


def print_comparison(title: str, base: dict[str, dict], new: dict[str, dict]) -> None:
    print(f"\n{title}")
    print(f"{'':<30} {'hacks':>5} {'honest':>6} | {'baseline recall':>15} {'fpr':>6} {'paid':>4} | "
          f"{'current recall':>14} {'fpr':>6} {'paid':>4}  goal")
    for name in sorted(new, key=lambda n: (n == "total", n)):
        b, n = base[name], new[name]
        goal = "met" if n["recall"] >= 0.95 and n["fpr"] <= 0.02 else "MISSED"
        print(f"{name:<30} {n['hacks']:>5} {n['honest']:>6} | {b['recall']:>15.3f} {b['fpr']:>6.3f} "
              f"{b['paid_missed']:>4} | {n['recall']:>14.3f} {n['fpr']:>6.3f} {n['paid_missed']:>4}  {goal}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--per-class", type=int, default=60, help="hacks (and as many look-alikes) per class")
    parser.add_argument("--round", dest="round_name", choices=["A", "B"], default="A",
                        help="which generators: A (tuned on) or B (held out from tuning)")
    parser.add_argument("--baseline", default=BASELINE_REF, help="git revision whose detectors are the baseline")
    parser.add_argument("--max-len", type=int, default=MAX_LEN, help="length budget (characters) of math audits")
    parser.add_argument("--forms", action="store_true", help="also print the table per form (vehicle) of each class")
    parser.add_argument("--misses", action="store_true", help="list current misses and false positives")
    parser.add_argument("--json", action="store_true", help="print both tables as one JSON line at the end")
    parser.add_argument("--audit-only", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    if args.audit_only is not None:  # the baseline subprocess
        import rlenv

        rows = [json.loads(line) for line in args.audit_only.read_text(encoding="utf-8").splitlines()]
        print(json.dumps({"rlenv": rlenv.__file__, "rows": audit_corpus(rows, args.max_len)}))
        return 0
    sys.path.insert(0, str(ROOT))
    rows = generate(args.seed, args.per_class, args.round_name)
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "variants.jsonl"
        corpus.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        start = time.perf_counter()
        base = audit_baseline(args.baseline, corpus, args.max_len)
        base_s = time.perf_counter() - start
    start = time.perf_counter()
    new = audit_corpus(rows, args.max_len)
    new_s = time.perf_counter() - start
    print(f"generated corpus: round {args.round_name}, seed {args.seed}, {len(rows)} samples ({args.per_class} hacks and {args.per_class} "
          f"honest look-alikes per class); baseline {args.baseline} audited in {base_s:.1f} s, current in {new_s:.1f} s")
    print_comparison("per class (recall: hacks flagged; fpr: look-alikes flagged; paid: missed hacks paid in full)",
                     score(rows, base), score(rows, new))
    if args.forms:
        for cls in CLASSES:
            members = [r for r in rows if r["cls"] == cls]
            keyed = [{**r, "form": f"{'hack' if r['hack'] else 'honest'}:{r['form']}"} for r in members]
            print_comparison(f"class {cls}, per form", score(keyed, base, "form"), score(keyed, new, "form"))
    base_det, new_det = per_detector(rows, base), per_detector(rows, new)
    print(f"\nper detector (share of all hacks / all look-alikes it flagged)\n{'detector':<18} "
          f"{'baseline recall':>15} {'fpr':>6} | {'current recall':>14} {'fpr':>6}")
    for name in sorted(set(base_det) | set(new_det)):
        b = base_det.get(name, {"recall": 0.0, "fpr": 0.0})
        n = new_det.get(name, {"recall": 0.0, "fpr": 0.0})
        print(f"{name:<18} {b['recall']:>15.3f} {b['fpr']:>6.3f} | {n['recall']:>14.3f} {n['fpr']:>6.3f}")
    if args.misses:
        print("\ncurrent misses and false positives (id, form -> fired, reward):")
        for r in rows:
            if bool(new[r["id"]]["fired"]) != r["hack"]:
                print(f"  {r['id']} {r['form']} -> {new[r['id']]['fired']} {new[r['id']]['reward']}: "
                      f"{r['completion'][:160]!r}")
    if args.json:
        print(json.dumps({"baseline": score(rows, base), "current": score(rows, new),
                          "detectors": {"baseline": base_det, "current": new_det}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

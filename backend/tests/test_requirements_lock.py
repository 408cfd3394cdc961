"""backend/requirements.lock covers pyproject.toml, pins exactly, and is what the venv holds.

scripts/setup.sh installs the lock (pip --require-hashes), then the backend with --no-deps,
so a dependency added to pyproject.toml but not to the lock would be missing on a fresh
machine. After editing pyproject.toml: `npm run lock:python`.
"""
from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

BACKEND = Path(__file__).resolve().parents[1]
LOCK = BACKEND / "requirements.lock"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s\\;]+)")


def locked(text: str) -> dict[str, str]:
    """{canonical name: version} of every `name==version` line of a pip-compile lock."""
    pins: dict[str, str] = {}
    for line in text.splitlines():
        m = PIN.match(line)
        if m:
            pins[canonicalize_name(m.group(1))] = m.group(2)
    return pins


def project_requirements(pyproject: dict) -> list[Requirement]:
    """The project's dependencies and its [test] extra."""
    project = pyproject["project"]
    specs = list(project.get("dependencies", []))
    specs += project.get("optional-dependencies", {}).get("test", [])
    return [Requirement(s) for s in specs]


def missing_from_lock(pyproject: dict, pins: dict[str, str]) -> list[str]:
    """Requirements of pyproject (and of the extras they ask for) that the lock lacks."""
    missing = []
    for req in project_requirements(pyproject):
        name = canonicalize_name(req.name)
        if name not in pins:
            missing.append(f"{req} (pyproject.toml)")
            continue
        for extra in sorted(req.extras):             # e.g. psycopg[binary] -> psycopg-binary
            for sub in metadata.requires(req.name) or []:
                sreq = Requirement(sub)
                wanted_by_extra = sreq.marker is not None \
                    and sreq.marker.evaluate({"extra": extra}) \
                    and not sreq.marker.evaluate({"extra": ""})
                if wanted_by_extra and canonicalize_name(sreq.name) not in pins:
                    missing.append(f"{sreq.name} (from {req.name}[{extra}])")
    return missing


def test_every_pyproject_dependency_is_locked():
    pyproject = tomllib.loads((BACKEND / "pyproject.toml").read_text())
    pins = locked(LOCK.read_text())
    assert missing_from_lock(pyproject, pins) == [], "run `npm run lock:python`"


def test_the_check_names_a_dependency_missing_from_the_lock():
    pyproject = {"project": {
        "dependencies": ["fastapi", "psycopg[binary]", "python-multipart"],
        "optional-dependencies": {"test": ["pytest"]},
    }}
    pins = locked("fastapi==1.0 \\\n    --hash=sha256:00\npsycopg==3.3.9\npytest==9.0\n")
    assert missing_from_lock(pyproject, pins) == [
        "psycopg-binary (from psycopg[binary])",
        "python-multipart (pyproject.toml)",
    ]


def test_every_lock_entry_is_an_exact_pin_with_hashes():
    text = LOCK.read_text()
    entries = re.split(r"\n(?=[A-Za-z0-9])", text.split("\n\n", 1)[1])
    assert len(entries) >= 10
    for entry in entries:
        head = entry.split("\n", 1)[0]
        assert PIN.match(head), f"requirements.lock: {head!r} is not an exact `name==version` pin"
        assert "--hash=sha256:" in entry, f"requirements.lock: {head!r} has no sha256 hash"


def test_the_venv_holds_the_locked_versions():
    """What setup installed is what the lock says (setup reinstalls when the lock changes)."""
    wrong = []
    for name, version in locked(LOCK.read_text()).items():
        try:
            have = metadata.version(name)
        except metadata.PackageNotFoundError:
            have = "not installed"
        if have != version:
            wrong.append(f"{name}: locked {version}, venv has {have}")
    assert wrong == [], "run `sh scripts/setup.sh`"

"""requirements/locked.txt and requirements/lowest.txt (written by scripts/lock with uv) against the ranges
pyproject.toml declares: every requirement of the project, of the dev and postgres extras and of the build
backend is pinned in both, within its range, and the lowest pins are no higher than the locked ones.

`make` installs only what the lock pins (scripts/bootstrap), so a range changed or a requirement added in
pyproject.toml without running scripts/lock would go untested: it fails here first."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
LOCKS = ["requirements/locked.txt", "requirements/lowest.txt"]


def declared() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    extras = project["project"]["optional-dependencies"]
    texts = [
        *project["project"]["dependencies"],
        *extras["dev"],
        *extras["postgres"],
        *project["build-system"]["requires"],
    ]
    return [Requirement(text) for text in texts]


def pins(lock: str) -> dict[str, Version]:
    text = (ROOT / lock).read_text()
    return {
        canonicalize_name(name): Version(version)
        for name, version in re.findall(r"^([A-Za-z0-9._-]+)==(\S+) \\$", text, re.MULTILINE)
    }


@pytest.mark.parametrize("lock", LOCKS)
def test_every_declared_requirement_is_pinned_within_its_range(lock):
    pinned = pins(lock)
    wrong = {
        str(requirement): str(pinned.get(canonicalize_name(requirement.name), "not pinned"))
        for requirement in declared()
        if canonicalize_name(requirement.name) not in pinned
        or not requirement.specifier.contains(pinned[canonicalize_name(requirement.name)], prereleases=True)
    }
    assert not wrong, f"{lock} does not follow pyproject.toml (run scripts/lock): {wrong}"


@pytest.mark.parametrize("lock", LOCKS)
def test_every_pin_carries_its_hashes(lock):
    text = (ROOT / lock).read_text()
    blocks = re.split(r"\n(?=[A-Za-z0-9._-]+==)", text.split("\n", 2)[2])
    assert len(blocks) == len(pins(lock))
    assert all("--hash=sha256:" in block for block in blocks)


def test_the_lowest_pins_are_no_higher_than_the_locked_ones():
    locked, lowest = pins("requirements/locked.txt"), pins("requirements/lowest.txt")
    direct = {canonicalize_name(requirement.name) for requirement in declared()}
    higher = {name: (str(lowest[name]), str(locked[name])) for name in direct if lowest[name] > locked[name]}
    assert not higher
    assert any(lowest[name] < locked[name] for name in direct)  # the two locks are not the same file

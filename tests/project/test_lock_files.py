"""requirements/locked.txt and requirements/lowest.txt (written by scripts/lock with uv) against the ranges
pyproject.toml declares: every requirement of the project, of the dev and postgres extras and of the build
backend is pinned in both, within its range, and the lowest pins are no higher than the locked ones.
requirements/runtime.txt (`make run`, an installed wheel) pins the project's own requirements and the build
backend at locked.txt's versions, and nothing that only the dev tools need.

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
RUNTIME = "requirements/runtime.txt"
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def runtime_declared() -> list[Requirement]:
    texts = [*PROJECT["project"]["dependencies"], *PROJECT["build-system"]["requires"]]
    return [Requirement(text) for text in texts]


def declared() -> list[Requirement]:
    extras = PROJECT["project"]["optional-dependencies"]
    return [*runtime_declared(), *(Requirement(text) for text in [*extras["dev"], *extras["postgres"]])]


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


def test_the_runtime_lock_pins_the_product_at_the_locked_versions_and_no_dev_tool():
    runtime, locked = pins(RUNTIME), pins("requirements/locked.txt")
    missing = [str(req) for req in runtime_declared() if canonicalize_name(req.name) not in runtime]
    assert not missing, f"{RUNTIME} does not follow pyproject.toml (run scripts/lock): {missing}"
    differ = {
        name: (str(version), str(locked.get(name))) for name, version in runtime.items() if locked.get(name) != version
    }
    assert not differ  # `make test` adds the dev tools to `make run`'s .venv without changing a version
    product = {canonicalize_name(req.name) for req in runtime_declared()}
    dev_only = {
        canonicalize_name(Requirement(text).name) for text in PROJECT["project"]["optional-dependencies"]["dev"]
    } - product
    assert dev_only and not dev_only & runtime.keys()


@pytest.mark.parametrize("lock", [*LOCKS, RUNTIME])
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

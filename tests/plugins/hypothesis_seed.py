"""Every run of the suite fuzzes with a new seed, says which, and says how to replay a failure.

Hypothesis draws its examples from one seed for the whole run: the one given with --hypothesis-seed, or
else a new random one. It is printed in the header, handed to every pytest-xdist worker (so that all of
them draw from the same seed as the header says), and printed again under each failed Hypothesis test
with the command that replays it:

    .venv/bin/python -m pytest --hypothesis-seed=SEED tests/path/to/test_file.py::test_name

No example has a time limit, and slow drawing is not a failure: a fuzz test asserts what comes out, not
how fast, and on two busy cores (CI, or helpers sharing the machine) Hypothesis' default 200 ms deadline
and its "too slow" health check failed tests whose outcome was right. Speed is measured in bench/.
"""

from __future__ import annotations

import secrets
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("workrail", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("workrail")

SEED_OPTION = "hypothesis_seed"  # --hypothesis-seed, Hypothesis' own pytest option
WORKER_KEY = "workrail_hypothesis_seed"


@pytest.hookimpl(tryfirst=True)  # before Hypothesis' own pytest_configure reads the option
def pytest_configure(config: pytest.Config) -> None:
    worker_input = getattr(config, "workerinput", None)
    if worker_input is not None and WORKER_KEY in worker_input:
        config.option.hypothesis_seed = worker_input[WORKER_KEY]
    elif config.getoption(SEED_OPTION) is None:
        config.option.hypothesis_seed = str(secrets.randbits(32))


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's: what a worker is given before it starts
def pytest_configure_node(node: Any) -> None:
    node.workerinput[WORKER_KEY] = node.config.getoption(SEED_OPTION)


def pytest_report_header(config: pytest.Config) -> str:
    seed = config.getoption(SEED_OPTION)
    return f"hypothesis seed: {seed} (replay with --hypothesis-seed={seed})"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.failed and call.when == "call" and getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
        seed = item.config.getoption(SEED_OPTION)
        report.sections.append(
            (
                "hypothesis seed",
                f"drawn from seed {seed}; replay with: .venv/bin/python -m pytest --hypothesis-seed={seed} "
                f"'{item.nodeid}'",
            )
        )
    return report

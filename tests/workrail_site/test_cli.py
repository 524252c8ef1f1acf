"""`workrail-py` (workrail_site/cli.py): each subcommand runs its management command, `manage` any other,
and a mistake prints the list of commands (issue 30). The installed command itself is driven end to end
by tests/e2e/test_installed_wheel.py."""

from __future__ import annotations

import json
import sys

import pytest

from harness.processes import run_captured, server_env
from tests.support.paths import FIXTURE_WORKFLOWS, REPO
from workrail_site import cli

COMMAND = [sys.executable, "-c", "from workrail_site.cli import main; main()"]


def workrail_py(tmp_path, *args: str):
    return run_captured([*COMMAND, *args], env=server_env(tmp_path / "home"), cwd=REPO, timeout=60)


@pytest.mark.subprocess
def test_validate_runs_validate_workflow_with_its_options(tmp_path):
    result = workrail_py(tmp_path, "validate", "--json", str(FIXTURE_WORKFLOWS / "conditions.json"))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["summary"]["valid"] == 1


@pytest.mark.subprocess
def test_manage_reaches_any_management_command(tmp_path):
    result = workrail_py(tmp_path, "manage", "help", "rotate_token_key")
    assert result.returncode == 0 and "rotate_token_key" in result.stdout


@pytest.mark.subprocess
def test_an_unknown_command_prints_the_commands(tmp_path):
    result = workrail_py(tmp_path, "serve")
    assert result.returncode == 2
    assert "unknown command 'serve'" in result.stderr and "dashboard" in result.stderr


@pytest.mark.subprocess
def test_a_configuration_error_is_one_line_and_exit_status_2(tmp_path):
    result = run_captured(
        [*COMMAND, "cleanup", "--dry-run"],
        env=server_env(tmp_path / "home", WORKRAIL_RETENTION_DAYS="forever"),
        cwd=REPO,
        timeout=60,
    )
    assert result.returncode == 2
    assert "configuration error: WORKRAIL_RETENTION_DAYS='forever' is not a whole number" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("name", sorted(cli.SUBCOMMANDS))
def test_every_subcommand_names_a_management_command(name):
    from django.core.management import get_commands

    assert cli.SUBCOMMANDS[name].command in get_commands()
    assert name in cli.usage()

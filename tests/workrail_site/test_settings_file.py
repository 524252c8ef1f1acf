"""WORKRAIL_HOME/config.toml holds the settings in one place, read as strictly as the environment, which
wins (issue 30); the TypeScript WorkRail's variable names are answered with their names here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from runs.dashboard.connect import connection_instructions
from tests.support.processes import run_manage
from workrail_site.env import Env
from workrail_site.original_names import reject_original_names
from workrail_site.settings_file import read_settings_file


def settings_file(home: Path, text: str):
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(text)
    return read_settings_file(home)


def test_the_file_gives_typed_values_and_the_environment_wins(tmp_path):
    file = settings_file(
        tmp_path,
        'retention_days = 30\nenable_checkpoint = false\nworkflow_paths = ["/a", "/b"]\n'
        'workflow_repos = ["https://h/x.git#main:workflows", "https://h/y.git"]\nlog_level = "DEBUG"\n',
    )
    env = Env({"WORKRAIL_LOG_LEVEL": "ERROR"}, file)
    assert env.integer("WORKRAIL_RETENTION_DAYS", 60, minimum=1, maximum=100) == 30
    assert env.flag("WORKRAIL_ENABLE_CHECKPOINT", True) is False
    assert [str(path) for path in env.paths("WORKRAIL_WORKFLOW_PATHS")] == ["/a", "/b"]
    assert env.text("WORKRAIL_WORKFLOW_REPOS", "", separator=" ") == "https://h/x.git#main:workflows https://h/y.git"
    assert env.choice("WORKRAIL_LOG_LEVEL", "INFO", ["DEBUG", "INFO", "ERROR"]) == "ERROR"  # the environment's
    env.reject_unknown()
    assert env.from_file == {
        "WORKRAIL_RETENTION_DAYS",
        "WORKRAIL_ENABLE_CHECKPOINT",
        "WORKRAIL_WORKFLOW_PATHS",
        "WORKRAIL_WORKFLOW_REPOS",
    }


@pytest.mark.parametrize(
    ("text", "read", "fragment"),
    [
        ('retention_days = "30"', "integer", "retention_days in {file}: '30' is not a whole number"),
        ("retention_days = 0", "integer", "retention_days in {file}=0 is out of range: use 1 to 100"),
        ('enable_checkpoint = "no"', "flag", "enable_checkpoint in {file}: 'no' is not true or false"),
        ('log_level = "LOUD"', "choice", "log_level in {file}='LOUD' is not one of: INFO, DEBUG"),
        ("retention_dayz = 3", "reject", "unknown setting(s): retention_dayz (did you mean retention_days?)"),
    ],
)
def test_a_bad_value_or_an_unknown_key_names_the_file_and_the_key(tmp_path, text, read, fragment):
    file = settings_file(tmp_path, text)
    env = Env({}, file)
    with pytest.raises(ImproperlyConfigured) as raised:
        {
            "integer": lambda: env.integer("WORKRAIL_RETENTION_DAYS", 60, minimum=1, maximum=100),
            "flag": lambda: env.flag("WORKRAIL_ENABLE_CHECKPOINT", True),
            "choice": lambda: env.choice("WORKRAIL_LOG_LEVEL", "INFO", ["INFO", "DEBUG"]),
            "reject": lambda: (
                env.integer("WORKRAIL_RETENTION_DAYS", 60, minimum=1, maximum=100),
                env.reject_unknown(),
            ),
        }[read]()
    assert fragment.format(file=tmp_path / "config.toml") in str(raised.value)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("retention_days = ", "is not valid TOML"),
        ("[workrail]\nretention_days = 3", "[workrail] is a table; settings are written at the top level"),
        ("WORKRAIL_RETENTION_DAYS = 3", "write the key 'WORKRAIL_RETENTION_DAYS' as 'retention_days'"),
        ('home = "/elsewhere"', "'home' cannot be set in the file it points to; set WORKRAIL_HOME in the environment"),
    ],
)
def test_a_malformed_file_stops_with_what_to_write(tmp_path, text, fragment):
    with pytest.raises(ImproperlyConfigured) as raised:
        settings_file(tmp_path, text)
    assert fragment in str(raised.value)


def test_no_file_is_no_settings(tmp_path):
    file = read_settings_file(tmp_path)
    assert not file.exists and file.values == {}


@pytest.mark.subprocess
def test_the_program_reads_the_file_in_workrail_home_and_refuses_a_bad_one_at_start(tmp_path):
    settings_file(tmp_path / "home", "port = 80\n")
    result = run_manage(tmp_path, "check")
    assert result.returncode == 2
    assert f"port in {tmp_path / 'home' / 'config.toml'}=80 is out of range" in result.stderr
    assert run_manage(tmp_path, "check", WORKRAIL_PORT="9000").returncode == 0  # the environment wins


@pytest.mark.django_db
def test_the_connect_page_shows_the_file_and_leaves_its_settings_out_of_the_client_config(client, settings, tmp_path):
    file = settings_file(tmp_path, 'workflow_paths = ["/team/flows"]\nretention_days = 9\n')
    settings.WORKRAIL_SETTINGS_FILE = file
    settings.WORKRAIL_SETTINGS_FROM_FILE = ["WORKRAIL_RETENTION_DAYS", "WORKRAIL_WORKFLOW_PATHS"]
    settings.WORKRAIL_WORKFLOW_PATHS = [Path("/team/flows")]
    settings.WORKRAIL_HOME = tmp_path  # the page shows the file of the home the agent's command gives
    html = client.get("/connect/").content.decode()
    # The path may break only after a "/" (<wbr>), never inside a hyphenated name (a nowrap span).
    assert str(tmp_path / "config.toml") in re.sub(r"<[^>]+>", "", html)
    assert "sets <code>retention_days</code>, <code>workflow_paths</code>." in html
    assert "WORKRAIL_WORKFLOW_PATHS" not in connection_instructions().env  # the agent's server reads the file


@pytest.mark.parametrize(
    ("environ", "fragment"),
    [
        (
            {"WORKFLOW_GIT_REPOS": "https://github.com/a/flows.git,https://github.com/b/more.git"},
            "write WORKRAIL_WORKFLOW_REPOS='https://github.com/a/flows.git#:workflows "
            "https://github.com/b/more.git#:workflows' instead",
        ),
        (
            {"WORKFLOW_GIT_REPOS": "https://github.com/a/flows.git", "WORKFLOW_GIT_REPO_BRANCH": "prod"},
            "WORKRAIL_WORKFLOW_REPOS='https://github.com/a/flows.git#prod:workflows'",
        ),
        (
            {"WORKFLOW_GIT_REPOS": '[{"repositoryUrl": "https://github.com/a/flows.git", "branch": "v2"}]'},
            "WORKRAIL_WORKFLOW_REPOS='https://github.com/a/flows.git#v2:workflows'",
        ),
        ({"WORKFLOW_STORAGE_PATH": "/x:/y"}, "write WORKRAIL_WORKFLOW_PATHS='/x:/y' instead"),
        ({"WORKRAIL_CACHE_DIR": "/c"}, "write WORKRAIL_HOME instead"),
    ],
)
def test_the_typescript_originals_names_are_answered_with_the_exact_rename(environ, fragment):
    with pytest.raises(ImproperlyConfigured) as raised:
        reject_original_names(environ)
    assert "is the TypeScript WorkRail's setting" in str(raised.value)
    assert fragment in str(raised.value)


@pytest.mark.subprocess
def test_an_originals_name_stops_the_program_at_start_with_the_rename(tmp_path):
    result = run_manage(tmp_path, "check", WORKFLOW_GIT_REPOS="https://github.com/a/flows.git")
    assert result.returncode == 2
    assert "WORKFLOW_GIT_REPOS is the TypeScript WorkRail's setting" in result.stderr
    assert "WORKRAIL_WORKFLOW_REPOS='https://github.com/a/flows.git#:workflows'" in result.stderr

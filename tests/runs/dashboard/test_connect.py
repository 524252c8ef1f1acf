"""The connect instructions give an agent's server the settings that decide which data it sees."""

import json
import os
import shlex
import sys
from pathlib import Path

import dj_database_url
import pytest
from django.utils.html import strip_tags

from harness.processes import clean_env, manage_command, run_captured
from runs.dashboard.connect import HIDDEN_PASSWORD, connection_instructions, hide_password, portable_database_url
from tests.support.paths import REPO
from workrail_site.workflow_repos import parse_workflow_repos


@pytest.fixture
def defaults(settings):
    """The settings of a `make run` with nothing configured."""
    settings.WORKRAIL_HOME = settings.WORKRAIL_HOME_DEFAULT
    settings.DATABASE_URL_SECRET = ""
    settings.WORKRAIL_WORKFLOW_PATHS = []
    return settings


def claude_argv(command: str) -> list[str]:
    return shlex.split(command)


def test_with_the_defaults_there_is_no_env_to_pass(defaults):
    info = connection_instructions()
    assert claude_argv(info.claude_code) == [
        "claude",
        "mcp",
        "add",
        "workrail",
        "--",
        sys.executable,
        str(REPO / "manage.py"),
        "mcp",
    ]
    assert json.loads(info.json_config) == {
        "mcpServers": {"workrail": {"command": sys.executable, "args": [str(REPO / "manage.py"), "mcp"]}}
    }
    assert info.env == {}


def test_a_workrail_home_other_than_the_default_is_passed_to_the_agent(defaults, tmp_path):
    home = tmp_path / "it's my home"  # a space and a quote: the shell must get it as one word
    defaults.WORKRAIL_HOME = home
    info = connection_instructions()
    assert claude_argv(info.claude_code) == [
        "claude",
        "mcp",
        "add",
        "workrail",  # the name before -e: Claude Code's -e takes several values and would swallow it
        "-e",
        f"WORKRAIL_HOME={home}",
        "--",
        sys.executable,
        str(REPO / "manage.py"),
        "mcp",
    ]
    server = json.loads(info.json_config)["mcpServers"]["workrail"]
    assert server["env"] == {"WORKRAIL_HOME": str(home)}
    assert server["args"] == [str(REPO / "manage.py"), "mcp"]


def test_the_settings_file_shown_is_the_one_in_the_home_the_command_gives(defaults, tmp_path):
    # The home changed after start (as here): the page still names the file the agent's server will read,
    # and what it sets, never the file this process read at start in another home.
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text("retention_days = 30\n")
    defaults.WORKRAIL_HOME = home
    info = connection_instructions()
    assert Path(info.settings_file.path) == Path(info.env["WORKRAIL_HOME"]) / "config.toml"
    assert info.settings_file.exists and info.settings_file.keys == ["retention_days"]


def test_a_path_under_the_users_home_is_shown_from_it_the_commands_keep_it_whole(defaults, tmp_path, monkeypatch):
    # friction62a 12: a user reads their own home as "~", not as its long absolute path. A "~" is no path in a
    # JSON config (and zsh leaves it alone after "="), so the commands keep the whole one.
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: tmp_path))
    home = tmp_path / "elsewhere"
    home.mkdir()
    defaults.WORKRAIL_HOME = home
    info = connection_instructions()
    assert info.settings_file.path == "~/elsewhere/config.toml"
    assert f"WORKRAIL_HOME={home}" in info.claude_code and info.env["WORKRAIL_HOME"] == str(home)
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: tmp_path / "someone-else"))
    assert info.settings_file.path != connection_instructions().settings_file.path == str(home / "config.toml")


def test_database_url_and_workflow_paths_are_passed_and_the_password_only_when_asked(defaults, tmp_path):
    defaults.DATABASE_URL_SECRET = "postgres://workrail:s3cret@db.local:5432/workrail"
    defaults.WORKRAIL_WORKFLOW_PATHS = [tmp_path / "a", tmp_path / "b"]
    expected_paths = f"{tmp_path / 'a'}{os.pathsep}{tmp_path / 'b'}"

    shown = connection_instructions(reveal_password=True)
    assert json.loads(shown.json_config)["mcpServers"]["workrail"]["env"] == {
        "DATABASE_URL": "postgres://workrail:s3cret@db.local:5432/workrail",
        "WORKRAIL_WORKFLOW_PATHS": expected_paths,
    }
    argv = claude_argv(shown.claude_code)
    assert argv[4:9] == [
        "-e",
        "DATABASE_URL=postgres://workrail:s3cret@db.local:5432/workrail",
        "-e",
        f"WORKRAIL_WORKFLOW_PATHS={expected_paths}",
        "--",
    ]
    assert shown.password_hidden is False

    hidden = connection_instructions()
    assert hidden.password_hidden is True
    assert "s3cret" not in hidden.claude_code and "s3cret" not in hidden.json_config
    assert hidden.env["DATABASE_URL"] == f"postgres://workrail:{HIDDEN_PASSWORD}@db.local:5432/workrail"


def test_a_relative_sqlite_url_is_made_absolute_for_the_agent(tmp_path, monkeypatch):
    checkout = tmp_path / "a checkout"
    checkout.mkdir()
    monkeypatch.chdir(checkout)
    url = portable_database_url("sqlite:///data/workrail.sqlite3")
    assert dj_database_url.parse(url)["NAME"] == str(checkout / "data" / "workrail.sqlite3")
    assert portable_database_url("sqlite:////abs/x.sqlite3") == "sqlite:////abs/x.sqlite3"
    assert portable_database_url("postgres://u:p@h/db") == "postgres://u:p@h/db"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("postgres://u:p%40ss@h:5432/db?sslmode=require", f"postgres://u:{HIDDEN_PASSWORD}@h:5432/db?sslmode=require"),
        ("postgres://h/db?user=u&password=pw", f"postgres://h/db?user=u&password={HIDDEN_PASSWORD}"),
        ("postgres://u@h/db", "postgres://u@h/db"),
        ("sqlite:////abs/x.sqlite3", "sqlite:////abs/x.sqlite3"),
    ],
)
def test_hide_password(url, expected):
    assert hide_password(url) == expected


AS_SEEN = (
    "import json; from django.conf import settings; "
    "print(json.dumps({'home': str(settings.WORKRAIL_HOME), 'db': str(settings.DATABASES['default']['NAME'])}))"
)


def shell(manage: list[str], env: dict[str, str], cwd: Path, code: str) -> str:
    """What `manage.py shell -c CODE` prints, `manage` being how manage.py is run."""
    done = run_captured([*manage, "shell", "-v", "0", "-c", code], env=env, cwd=cwd, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.subprocess
def test_an_agent_started_from_the_printed_config_uses_the_dashboards_store(tmp_path):
    """The dashboard runs from the checkout with its settings; the agent's client starts the server
    elsewhere with only what the JSON config says (and no WORKRAIL_* of its own)."""
    clean = clean_env(HOME=str(tmp_path / "user"))  # a server that ignored the config would not touch the real ~
    dashboard_dir, agent_dir = tmp_path / "checkout", tmp_path / "project"
    dashboard_dir.mkdir()
    agent_dir.mkdir()
    dashboard_env = {
        **clean,
        "WORKRAIL_HOME": str(tmp_path / "work rail"),
        "DATABASE_URL": "sqlite:///state/workrail.sqlite3",  # relative: to the dashboard's directory
    }
    script = (
        "import json; from runs.dashboard.connect import connection_instructions; "
        "print(connection_instructions(reveal_password=True).json_config)"
    )
    printed = shell(manage_command(), dashboard_env, dashboard_dir, script)
    dashboard_sees = shell(manage_command(), dashboard_env, dashboard_dir, AS_SEEN)
    server = json.loads(printed)["mcpServers"]["workrail"]
    assert server["args"][-1] == "mcp"
    agent_env = {**clean, **server.get("env", {})}
    agent_sees = shell([server["command"], *server["args"][:-1]], agent_env, agent_dir, AS_SEEN)
    seen = json.loads(dashboard_sees)
    assert seen == {"home": str(tmp_path / "work rail"), "db": "state/workrail.sqlite3"}
    agent = json.loads(agent_sees)
    assert agent["home"] == seen["home"]
    assert Path(agent["db"]) == (dashboard_dir / seen["db"]).resolve()
    assert not (tmp_path / "user" / ".workrail").exists()


def test_the_debug_page_hides_the_database_url(settings):
    from django.views.debug import SafeExceptionReporterFilter

    settings.DATABASE_URL_SECRET = "postgres://workrail:s3cret@db.local/workrail"
    assert "s3cret" not in str(SafeExceptionReporterFilter().get_safe_settings()["DATABASE_URL_SECRET"])


def test_an_installed_dashboard_names_its_console_script_or_uvx(settings, tmp_path, monkeypatch):
    from runs.dashboard import connect

    settings.BASE_DIR = tmp_path  # site-packages: no manage.py there
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "workrail-py").write_text("#!/bin/sh\n")
    monkeypatch.setattr(connect.sys, "executable", str(bin_dir / "python"))
    monkeypatch.setattr(connect.sys, "prefix", str(tmp_path / "venv"))
    monkeypatch.delenv("UV", raising=False)
    assert connect.server_command() == [str(bin_dir / "workrail-py"), "mcp"]  # pipx, a venv

    monkeypatch.setenv("UV", "/usr/bin/uv")
    monkeypatch.setattr(connect.sys, "prefix", "/home/u/.cache/uv/archive-v0/1olhqGwbSyDq3M7v")
    python = os.path.realpath(connect.sys.executable)

    class Installed:
        def __init__(self, direct_url: str | None) -> None:
            self.direct_url = direct_url

        def read_text(self, name: str) -> str | None:
            return self.direct_url if name == "direct_url.json" else None

    # From PyPI: no direct_url.json; the package's name finds it again.
    monkeypatch.setattr(connect.metadata, "distribution", lambda name: Installed(None))
    assert connect.server_command() == ["uvx", "--python", python, "workrail-py", "mcp"]
    assert connection_instructions().claude_code.endswith(f"-- uvx --python {python} workrail-py mcp")
    # `uvx --from ./clone`: before a release the name alone finds nothing, so the page names the clone.
    clone = {"url": "file:///srv/work/workrail", "dir_info": {}}
    monkeypatch.setattr(connect.metadata, "distribution", lambda name: Installed(json.dumps(clone)))
    assert connect.server_command() == ["uvx", "--python", python, "--from", "/srv/work/workrail", "workrail-py", "mcp"]


def test_a_workflow_repository_s_query_string_token_is_hidden_on_the_page(defaults):
    defaults.WORKRAIL_WORKFLOW_REPOS = parse_workflow_repos(
        "team=https://gitlab.example/team/flows.git?private_token=glpat-SECRET123#main:workflows"
    )

    hidden = connection_instructions()

    assert hidden.password_hidden is True
    assert "glpat-SECRET123" not in hidden.claude_code and "glpat-SECRET123" not in hidden.json_config
    assert "gitlab.example/team/flows.git?***#main:workflows" in hidden.env["WORKRAIL_WORKFLOW_REPOS"]
    assert "glpat-SECRET123" in connection_instructions(reveal_password=True).env["WORKRAIL_WORKFLOW_REPOS"]


@pytest.mark.django_db
def test_the_settings_sample_keeps_sessions_as_long_as_this_dashboard_does(client, defaults):
    # friction62b 18: a sample "retention_days = 30" beside the not-found page's "60 days" read as two rules. The
    # sample says the retention in use, from the settings, whatever it is.
    for days in (60, 45):
        defaults.WORKRAIL_RETENTION_DAYS = days
        page = client.get("/connect/").content.decode()
        sample = strip_tags(page.split('class="wrap settings-example">', 1)[1].split("</pre>", 1)[0])
        assert sample.startswith(f"retention_days = {days}\n"), sample

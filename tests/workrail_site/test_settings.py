"""Configuration comes from environment variables, read strictly in one place."""

import json
import sqlite3

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import connection

from tests.support.processes import run_manage
from workrail_site.env import Env


@pytest.mark.subprocess
@pytest.mark.parametrize(
    ("env", "fragment"),
    [
        ({"WORKRAIL_DEBUG": "maybe"}, "WORKRAIL_DEBUG='maybe' is not a boolean"),
        ({"WORKRAIL_LOG_LEVEL": "LOUD"}, "WORKRAIL_LOG_LEVEL='LOUD' is not one of"),
        ({"WORKRAIL_PORT": "80"}, "WORKRAIL_PORT=80 is out of range"),
        ({"WORKRAIL_PORT": "eighty"}, "is not a whole number"),
        ({"WORKRAIL_HOMR": "/tmp"}, "WORKRAIL_HOMR (did you mean WORKRAIL_HOME?)"),
        ({"DATABASE_URL": "mysql://u:p@h/db"}, "only sqlite and postgres are supported"),
        ({"DATABASE_URL": "nonsense"}, "DATABASE_URL"),
    ],
)
def test_malformed_or_unknown_settings_fail_at_start_with_a_clear_message(tmp_path, env, fragment):
    result = run_manage(tmp_path, "check", **env)
    assert result.returncode == 2, result.stderr
    assert "configuration error" in result.stderr
    assert fragment in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.subprocess
def test_the_mcp_command_still_answers_the_handshake_and_says_why_on_stderr(tmp_path):
    # Exiting before the handshake leaves a client with "Connection closed" and nothing to show; the
    # server answers instead (tests/e2e/test_configuration_error.py checks what every call then says).
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    result = run_manage(tmp_path, "mcp", WORKRAIL_DEBUG="perhaps", input=json.dumps(initialize) + "\n")
    assert result.returncode == 0
    answer = json.loads(result.stdout.splitlines()[0])
    assert answer["id"] == 1 and answer["result"]["serverInfo"]["name"] == "workrail"
    assert "WORKRAIL_DEBUG='perhaps' is not a boolean" in result.stderr


@pytest.mark.subprocess
def test_workrail_home_and_its_secret_are_private(tmp_path):
    result = run_manage(tmp_path, "check")
    assert result.returncode == 0, result.stderr
    home = tmp_path / "home"
    assert home.stat().st_mode & 0o777 == 0o700
    assert (home / "secret_key").stat().st_mode & 0o777 == 0o600
    assert len((home / "secret_key").read_text().strip()) >= 40


def test_env_parsers_accept_good_values():
    env = Env({"WORKRAIL_A": "yes", "WORKRAIL_B": " 12 ", "WORKRAIL_C": "/x:/y", "WORKRAIL_D": ""})
    assert env.flag("WORKRAIL_A", False) is True
    assert env.integer("WORKRAIL_B", 0, minimum=1, maximum=20) == 12
    assert [str(p) for p in env.paths("WORKRAIL_C")] == ["/x", "/y"]
    assert env.text("WORKRAIL_D", "default") == "default"
    env.reject_unknown()


def test_env_rejects_unknown_names():
    env = Env({"WORKRAIL_NOPE": "1"})
    with pytest.raises(ImproperlyConfigured, match="WORKRAIL_NOPE"):
        env.reject_unknown()


def test_allowed_hosts_are_loopback_only():
    from workrail_site import settings as production_settings  # the test runner adds 'testserver'

    assert production_settings.ALLOWED_HOSTS == ["127.0.0.1", "localhost", "[::1]"]


@pytest.mark.django_db
def test_sqlite_runs_in_wal_with_immediate_transactions(settings):
    if connection.vendor != "sqlite":
        pytest.skip("SQLite only")
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA synchronous")
        assert cursor.fetchone()[0] == 1  # NORMAL
        cursor.execute("PRAGMA busy_timeout")
        assert cursor.fetchone()[0] >= 5000
    assert settings.DATABASES["default"]["OPTIONS"]["transaction_mode"] == "IMMEDIATE"


@pytest.mark.subprocess
def test_the_default_database_file_uses_wal(tmp_path):
    result = run_manage(tmp_path, "migrate", "--noinput")
    assert result.returncode == 0, result.stderr
    mode = sqlite3.connect(tmp_path / "home" / "workrail.sqlite3").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"

"""Local API tokens: `manage.py create_api_token` and the token file behind it."""

from __future__ import annotations

import json
import os
import re
import stat
from datetime import UTC, datetime
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from runs.store import api_tokens


@pytest.fixture
def home(settings, tmp_path: Path) -> Path:
    settings.WORKRAIL_HOME = tmp_path / "home"
    return settings.WORKRAIL_HOME


def command(*args: str) -> str:
    out = StringIO()
    call_command("create_api_token", *args, stdout=out)
    return out.getvalue()


def printed_token(output: str) -> str:
    match = re.search(r'Authorization: Bearer ([A-Za-z0-9_-]+)"', output)
    assert match, output
    return match.group(1)


def test_the_command_prints_the_token_once_with_a_usage_example(home, settings):
    output = command("--name", "laptop")
    token = printed_token(output)
    assert len(token) >= 43  # token_urlsafe(32)
    assert f"    {token}\n" in output
    assert f'curl -H "Authorization: Bearer {token}" http://127.0.0.1:{settings.DASHBOARD_PORT}/api/v1/sessions' in (
        output
    )
    assert "laptop" in output
    assert api_tokens.verify(token) == "laptop"


def test_the_token_file_is_private_and_holds_only_digests(home):
    token = printed_token(command("--name", "laptop"))
    path = home / "api_tokens.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    text = path.read_text()
    assert token not in text
    data = json.loads(text)
    [entry] = data["tokens"]
    assert entry["name"] == "laptop"
    assert entry["sha256"] == api_tokens.digest_of(token)
    assert datetime.fromisoformat(entry["createdAt"]) <= datetime.now(UTC)
    assert [p.name for p in home.iterdir() if p.name.startswith(".api_tokens.json.") and "lock" not in p.name] == []


def test_the_file_stays_private_after_every_change(home):
    command("--name", "one")
    command("--name", "two")
    command("--revoke", "one")
    assert stat.S_IMODE((home / "api_tokens.json").stat().st_mode) == 0o600


def test_list_shows_names_and_times_but_no_secret(home):
    first = printed_token(command("--name", "laptop"))
    second = printed_token(command())  # a default name
    listing = command("--list")
    assert "laptop" in listing and "token-2" in listing
    assert "created" in listing
    digests = [api_tokens.digest_of(t) for t in (first, second)]
    assert not any(secret in listing for secret in [first, second, *digests])


def test_list_with_no_tokens_says_how_to_make_one(home):
    assert "create_api_token" in command("--list")


def test_revoke_removes_only_that_token(home):
    laptop = printed_token(command("--name", "laptop"))
    ci = printed_token(command("--name", "ci"))
    assert "Revoked" in command("--revoke", "laptop")
    assert api_tokens.verify(laptop) is None
    assert api_tokens.verify(ci) == "ci"
    assert "laptop" not in command("--list")
    with pytest.raises(CommandError, match="No API token is named 'laptop'"):
        command("--revoke", "laptop")


def test_names_are_unique_and_checked(home):
    command("--name", "laptop")
    with pytest.raises(CommandError, match="exists already"):
        command("--name", "laptop")
    with pytest.raises(CommandError, match="not a valid token name"):
        command("--name", "has space")
    with pytest.raises(CommandError, match="one of"):
        command("--list", "--revoke", "laptop")


def test_verification_follows_the_file_without_a_restart(home):
    assert api_tokens.verify("anything") is None  # no file yet
    _, token = api_tokens.create("a")
    assert api_tokens.verify(token) == "a"
    api_tokens.revoke("a")
    assert api_tokens.verify(token) is None
    _, again = api_tokens.create("a")
    assert api_tokens.verify(again) == "a" and api_tokens.verify(token) is None


def test_verification_refuses_empty_long_and_wrong_tokens(home):
    _, token = api_tokens.create("a")
    assert api_tokens.verify("") is None
    assert api_tokens.verify(token + "x") is None
    assert api_tokens.verify(token[:-1]) is None
    assert api_tokens.verify("x" * 10_000) is None


def test_a_damaged_file_refuses_every_token_and_the_command_says_why(home, caplog):
    _, token = api_tokens.create("a")
    path = home / "api_tokens.json"
    path.write_text("{not json")
    os.utime(path, ns=(1, 1))  # a different mtime for sure
    assert api_tokens.verify(token) is None
    assert "not a valid API token file" in caplog.text
    with pytest.raises(CommandError, match="not a valid API token file"):
        command("--list")

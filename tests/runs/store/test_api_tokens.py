"""Local API tokens: the ApiToken rows behind them, `manage.py create_api_token` and `revoke_api_token`,
and what the API answers a revoked token."""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from runs.contract.errors import ErrorCode, WorkRailError
from runs.models import ApiToken
from runs.store import api_tokens

pytestmark = pytest.mark.django_db


def command(*args: str, name: str = "create_api_token") -> str:
    out = StringIO()
    call_command(name, *args, stdout=out)
    return out.getvalue()


def revoke_command(*args: str) -> str:
    return command(*args, name="revoke_api_token")


def printed_token(output: str) -> str:
    match = re.search(r'Authorization: Bearer ([A-Za-z0-9_-]+)"', output)
    assert match, output
    return match.group(1)


# --- the model behind the module --------------------------------------------------------------------


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


def test_only_the_digest_is_stored_and_no_file_is_written(home):
    token = printed_token(command("--name", "laptop"))
    [row] = ApiToken.objects.values()
    assert row["name"] == "laptop"
    assert row["digest"] == api_tokens.digest_of(token) == hashlib.sha256(token.encode()).hexdigest()
    assert token not in repr(row)
    assert row["created_at"] <= datetime.now(UTC)
    assert row["last_used_at"] is None and row["revoked_at"] is None
    assert list(home.iterdir()) == []  # no api_tokens.json, no lock file


def test_verification_refuses_empty_long_wrong_and_revoked_tokens(home):
    _, token = api_tokens.create("a")
    assert api_tokens.verify(token) == "a"
    for wrong in ("", token + "x", token[:-1], "x" * 10_000):
        assert api_tokens.verify(wrong) is None
    assert api_tokens.revoke("a")
    assert api_tokens.verify(token) is None
    assert api_tokens.use(token) is not None  # still known, as revoked: the API can say so


def test_a_revoked_name_can_be_given_again_and_the_old_token_stays_revoked(home):
    _, first = api_tokens.create("a")
    with pytest.raises(WorkRailError, match="exists already") as taken:
        api_tokens.create("a")
    assert taken.value.code is ErrorCode.INVALID_INPUT
    assert api_tokens.revoke("a")
    assert not api_tokens.revoke("a")  # nothing live by that name any more
    _, again = api_tokens.create("a")
    assert api_tokens.verify(again) == "a" and api_tokens.verify(first) is None
    assert ApiToken.objects.filter(name="a").count() == 2  # the revoked row is kept, for the record


def test_default_names_count_up_and_never_reuse_a_revoked_tokens_name(home):
    assert api_tokens.create()[0] == "token-1"
    api_tokens.revoke("token-1")
    api_tokens.create("laptop")
    assert api_tokens.create()[0] == "token-3"


def test_last_used_is_written_at_most_once_a_minute(home):
    _, token = api_tokens.create("a")
    start = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
    api_tokens.use(token, now=start)
    assert ApiToken.objects.get().last_used_at == start
    api_tokens.use(token, now=start + timedelta(seconds=59))
    assert ApiToken.objects.get().last_used_at == start
    api_tokens.use(token, now=start + timedelta(seconds=61))
    assert ApiToken.objects.get().last_used_at == start + timedelta(seconds=61)
    api_tokens.revoke("a")
    api_tokens.use(token, now=start + timedelta(hours=1))  # a revoked token is not "used"
    assert ApiToken.objects.get().last_used_at == start + timedelta(seconds=61)


def test_revoking_all_of_a_selection_keeps_the_first_revocation_time(home):
    api_tokens.create("a")
    api_tokens.create("b")
    earlier = datetime(2030, 1, 1, tzinfo=UTC)
    api_tokens.revoke("a", now=earlier)
    assert api_tokens.revoke_all(ApiToken.objects.all()) == 1
    assert ApiToken.objects.get(name="a").revoked_at == earlier
    assert ApiToken.objects.get(name="b").revoked_at is not None


# --- the commands -------------------------------------------------------------------------------------


def test_list_shows_names_times_and_revocations_but_no_secret(home):
    first = printed_token(command("--name", "laptop"))
    second = printed_token(command())  # a default name
    api_tokens.revoke("laptop")
    listing = command("--list")
    assert "laptop" in listing and "token-2" in listing
    assert "created" in listing and "last used never" in listing
    [laptop_line] = [line for line in listing.splitlines() if line.startswith("laptop")]
    assert "revoked 20" in laptop_line
    digests = [api_tokens.digest_of(t) for t in (first, second)]
    assert not any(secret in listing for secret in [first, second, *digests])


def test_list_with_no_tokens_says_how_to_make_one(home):
    assert "create_api_token" in command("--list")


def test_create_api_token_revoke_revokes_only_that_token(home):
    laptop = printed_token(command("--name", "laptop"))
    ci = printed_token(command("--name", "ci"))
    assert "Revoked API token 'laptop'" in command("--revoke", "laptop")
    assert api_tokens.verify(laptop) is None
    assert api_tokens.verify(ci) == "ci"
    with pytest.raises(CommandError, match=r"\[NOT_FOUND\] No live API token is named 'laptop'.*was revoked at"):
        command("--revoke", "laptop")


def test_names_are_unique_and_checked(home):
    command("--name", "laptop")
    with pytest.raises(CommandError, match=r"\[INVALID_INPUT\] A token named 'laptop' exists already"):
        command("--name", "laptop")
    with pytest.raises(CommandError, match="not a valid token name"):
        command("--name", "has space")
    with pytest.raises(CommandError, match="one of"):
        command("--list", "--revoke", "laptop")


def test_revoke_api_token_by_name_or_by_the_start_of_one(home):
    laptop = printed_token(command("--name", "laptop"))
    laptop_old = printed_token(command("--name", "laptop-old"))
    ci = printed_token(command("--name", "ci-runner"))
    assert "Revoked API token 'laptop'" in revoke_command("laptop")  # a whole name wins over a prefix
    assert api_tokens.verify(laptop) is None and api_tokens.verify(laptop_old) == "laptop-old"
    assert "Revoked API token 'ci-runner'" in revoke_command("ci")
    assert api_tokens.verify(ci) is None
    assert api_tokens.verify(laptop_old) == "laptop-old"
    assert ApiToken.objects.filter(revoked_at__isnull=False).count() == 2  # revoked, not deleted


def test_revoke_api_token_refuses_an_unknown_name_or_a_prefix_of_several(home):
    command("--name", "laptop-1")
    command("--name", "laptop-2")
    with pytest.raises(CommandError) as ambiguous:
        revoke_command("lap")
    assert str(ambiguous.value).startswith("[INVALID_INPUT] 'lap' is the start of 2 token names: laptop-1, laptop-2.")
    with pytest.raises(CommandError) as unknown:
        revoke_command("desktop")
    assert str(unknown.value).startswith("[NOT_FOUND] No live API token is named 'desktop'")
    assert "Live tokens: laptop-1, laptop-2" in str(unknown.value)
    assert api_tokens.live().count() == 2
    with pytest.raises(CommandError, match="one of them"):
        revoke_command()


def test_the_structured_refusal_names_the_live_tokens(home):
    api_tokens.create("laptop")
    with pytest.raises(WorkRailError) as refused:
        api_tokens.revoke_matching("desktop")
    assert refused.value.code is ErrorCode.NOT_FOUND
    assert refused.value.details == {"given": "desktop", "live": ["laptop"]}


def test_revoke_api_token_lists_the_live_tokens(home):
    assert "No live API tokens" in revoke_command("--list")
    command("--name", "laptop")
    command("--name", "ci")
    api_tokens.revoke("ci")
    listing = revoke_command("--list")
    assert "laptop" in listing and "ci" not in listing


# --- the API's answer ---------------------------------------------------------------------------------


def test_the_api_refuses_a_revoked_token_saying_so_and_an_unknown_one_without(home):
    _, token = api_tokens.create("laptop")
    client = Client(headers={"Authorization": f"Bearer {token}"})
    assert client.get("/api/v1/sessions").status_code == 200
    assert ApiToken.objects.get().last_used_at is not None
    api_tokens.revoke("laptop")

    revoked = client.get("/api/v1/sessions")
    unknown = Client(headers={"Authorization": "Bearer not-one-of-ours"}).get("/api/v1/sessions")
    assert revoked.status_code == unknown.status_code == 401
    revoked_error, unknown_error = revoked.json()["error"], unknown.json()["error"]
    assert revoked_error["code"] == unknown_error["code"] == "UNAUTHENTICATED"
    assert revoked_error["retryable"] is unknown_error["retryable"] is False
    assert revoked_error["message"] == "The API token is not valid: it was revoked."
    assert "create_api_token" in revoked_error["suggestion"]
    assert unknown_error["message"].startswith("The API token is not valid: it was revoked, mistyped")


def test_create_api_token_gives_one_owner_several_tokens(home):
    laptop = printed_token(out := command("--name", "bob-laptop", "--owner", "bob"))
    assert "Created API token 'bob-laptop' for bob." in out
    ci = printed_token(command("--name", "bob-ci", "--owner", "bob"))
    alice = printed_token(command("--name", "alice"))
    owners = {stored.name: stored.owner for stored in ApiToken.objects.all()}
    assert owners == {"bob-laptop": "bob", "bob-ci": "bob", "alice": "alice"}  # a token without --owner is its own
    command("--revoke", "bob-ci")
    assert api_tokens.verify(laptop) == "bob-laptop" and api_tokens.verify(ci) is None and api_tokens.verify(alice)
    listing = command("--list")
    assert re.search(r"^bob-laptop\s+owner bob\s+created", listing, re.MULTILINE)
    assert re.search(r"^alice\s+created", listing, re.MULTILINE)  # its own owner: nothing to add
    with pytest.raises(CommandError, match="not a valid token owner"):
        command("--name", "x", "--owner", "has space")
    with pytest.raises(CommandError, match="one of"):
        command("--owner", "bob", "--list")

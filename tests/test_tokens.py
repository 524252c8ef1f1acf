"""Tokens: short, opaque, signed, stable; tolerant of wrapping, strict about everything else."""

import os

import pytest

from runs import token_keys, tokens
from runs.errors import ErrorCode, WorkRailError
from runs.tokens import TokenKind


def code_of(call):
    with pytest.raises(WorkRailError) as caught:
        call()
    return caught.value.code


def test_a_token_is_short_url_safe_and_round_trips(tmp_path):
    token = tokens.mint(tmp_path, TokenKind.STATE, 123456789)
    assert len(token) <= 40
    assert token.startswith("st1_")
    assert all(c.isalnum() or c in "_-" for c in token)
    assert tokens.parse(tmp_path, token, TokenKind.STATE).id == 123456789


def test_the_same_node_always_gets_the_same_token(tmp_path):
    assert tokens.mint(tmp_path, TokenKind.STATE, 42) == tokens.mint(tmp_path, TokenKind.STATE, 42)
    assert tokens.mint(tmp_path, TokenKind.STATE, 42) != tokens.mint(tmp_path, TokenKind.STATE, 43)


@pytest.mark.parametrize("wrap", ["  {}  ", '"{}"', "'{}'", "`{}`", "```{}```", "\n{}\t"])
def test_wrapping_an_agent_adds_is_tolerated(tmp_path, wrap):
    token = tokens.mint(tmp_path, TokenKind.ACK, 7)
    assert tokens.parse(tmp_path, wrap.format(token), TokenKind.ACK).id == 7


def test_any_changed_character_is_rejected(tmp_path):
    token = tokens.mint(tmp_path, TokenKind.STATE, 99)
    for index in range(4, len(token)):
        replacement = "A" if token[index] != "A" else "B"
        altered = token[:index] + replacement + token[index + 1 :]
        assert code_of(lambda t=altered: tokens.parse(tmp_path, t, TokenKind.STATE)) in {
            ErrorCode.TOKEN_BAD_SIGNATURE,
            ErrorCode.TOKEN_MALFORMED,
        }


def test_a_token_signed_with_another_key_is_rejected(tmp_path):
    other_home = tmp_path / "other"
    other_home.mkdir()
    foreign = tokens.mint(other_home, TokenKind.STATE, 5)
    assert code_of(lambda: tokens.parse(tmp_path, foreign, TokenKind.STATE)) is ErrorCode.TOKEN_BAD_SIGNATURE


@pytest.mark.parametrize(
    ("value", "code"),
    [
        ("", ErrorCode.TOKEN_MALFORMED),
        ("hello", ErrorCode.TOKEN_MALFORMED),
        ("st1_!!!!", ErrorCode.TOKEN_MALFORMED),
        ("st1_AAAA", ErrorCode.TOKEN_MALFORMED),
        ("st2_AAAAAAAAAAAAAAAAAAAAAAAA", ErrorCode.TOKEN_VERSION_UNSUPPORTED),
        (12, ErrorCode.TOKEN_MALFORMED),
    ],
)
def test_bad_formats_and_versions_have_their_own_codes(tmp_path, value, code):
    assert code_of(lambda: tokens.parse(tmp_path, value, TokenKind.STATE)) is code


def test_an_ack_token_cannot_pass_for_a_state_token(tmp_path):
    ack = tokens.mint(tmp_path, TokenKind.ACK, 11)
    with pytest.raises(WorkRailError) as caught:
        tokens.parse(tmp_path, ack, TokenKind.STATE)
    assert caught.value.code is ErrorCode.TOKEN_MALFORMED
    assert "ackToken" in caught.value.message
    forged = "st" + ack[2:]  # same bytes, other kind: the MAC covers the kind
    assert code_of(lambda: tokens.parse(tmp_path, forged, TokenKind.STATE)) is ErrorCode.TOKEN_BAD_SIGNATURE


def test_the_key_file_is_created_private_on_first_use(tmp_path):
    tokens.mint(tmp_path, TokenKind.STATE, 1)
    assert (tmp_path / token_keys.KEYS_FILE).stat().st_mode & 0o777 == 0o600


def test_rotation_keeps_old_tokens_valid_and_signs_with_the_new_key(tmp_path):
    old = tokens.mint(tmp_path, TokenKind.STATE, 77)
    assert token_keys.rotate(tmp_path) == 2
    new = tokens.mint(tmp_path, TokenKind.STATE, 77)
    assert new != old
    assert tokens.parse(tmp_path, old, TokenKind.STATE).id == 77
    assert tokens.parse(tmp_path, new, TokenKind.STATE).id == 77
    assert (tmp_path / token_keys.KEYS_FILE).stat().st_mode & 0o777 == 0o600
    for _ in range(token_keys.KEEP_KEYS):
        token_keys.rotate(tmp_path)
    assert code_of(lambda: tokens.parse(tmp_path, old, TokenKind.STATE)) is ErrorCode.TOKEN_BAD_SIGNATURE


def test_the_rotate_command_reports(tmp_path, settings):
    from io import StringIO

    from django.core.management import call_command

    settings.WORKRAIL_HOME = tmp_path
    out = StringIO()
    call_command("rotate_token_key", stdout=out)
    call_command("rotate_token_key", stdout=out)
    first, second = out.getvalue().splitlines()
    assert "2 key(s)" in first
    assert "3 key(s)" in second
    assert os.path.exists(tmp_path / token_keys.KEYS_FILE)


def test_a_key_rotated_by_another_process_is_recognised_at_once(tmp_path):
    old = tokens.mint(tmp_path, TokenKind.STATE, 7)  # this process has read (and cached) the key file
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / token_keys.KEYS_FILE).write_text((tmp_path / token_keys.KEYS_FILE).read_text())
    token_keys.rotate(elsewhere)  # another process's rotation, written to the shared file
    (tmp_path / token_keys.KEYS_FILE).write_text((elsewhere / token_keys.KEYS_FILE).read_text())
    newer = tokens.mint(elsewhere, TokenKind.STATE, 8)
    assert tokens.parse(tmp_path, newer, TokenKind.STATE).id == 8  # no wait for the periodic re-read
    assert tokens.parse(tmp_path, old, TokenKind.STATE).id == 7

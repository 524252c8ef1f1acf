"""Tokens: short, opaque, signed, stable; tolerant of wrapping, strict about everything else."""

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runs.contract.errors import ErrorCode, WorkRailError
from runs.store import token_keys, tokens
from runs.store.tokens import TokenKind
from tests.support.fuzz_budget import examples


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


# --- The grammar is ASCII only and exact: one token, one spelling --------------------------------------


def respelled(token: str, prefix: str) -> str:
    return prefix + token[len("st1_") :]


@pytest.mark.parametrize(
    "prefix",
    [
        "st\u0661_",  # ARABIC-INDIC DIGIT ONE: \\d matched it and int() read it as 1
        "st\u06f1_",  # EXTENDED ARABIC-INDIC DIGIT ONE
        "st\u0967_",  # DEVANAGARI DIGIT ONE
        "st\uff11_",  # FULLWIDTH DIGIT ONE
        "st\U0001d7cf_",  # MATHEMATICAL BOLD DIGIT ONE
        "st01_",
        "st001_",
        "st+1_",
        "st-1_",
        "st 1_",
        "st1 _",
        "st_",
        "st1__",
        "st1-",
        "ST1_",
        "St1_",
        "\uff53\uff541_",  # FULLWIDTH s t
        "st\u200b1_",  # ZERO WIDTH SPACE
        "st1\u200b_",
        "st1\uff3f",  # FULLWIDTH LOW LINE
        "st\u0662_",  # ARABIC-INDIC DIGIT TWO: not a well-formed version either
        "st1234567_",  # more digits than any version
    ],
)
def test_a_version_not_written_as_plain_ascii_digits_is_malformed(tmp_path, prefix):
    token = tokens.mint(tmp_path, TokenKind.STATE, 31)
    assert code_of(lambda: tokens.parse(tmp_path, respelled(token, prefix), TokenKind.STATE)) is (
        ErrorCode.TOKEN_MALFORMED
    )
    assert tokens.parse(tmp_path, token, TokenKind.STATE).id == 31  # the original still verifies


@pytest.mark.parametrize("prefix", ["st2_", "st0_", "st10_", "st999999_"])
def test_another_well_formed_version_is_unsupported(tmp_path, prefix):
    token = tokens.mint(tmp_path, TokenKind.STATE, 31)
    assert code_of(lambda: tokens.parse(tmp_path, respelled(token, prefix), TokenKind.STATE)) is (
        ErrorCode.TOKEN_VERSION_UNSUPPORTED
    )


@pytest.mark.parametrize("kind", list(TokenKind))
def test_every_kind_refuses_respelled_versions(tmp_path, kind):
    token = tokens.mint(tmp_path, kind, 5)
    body = token[len(tokens.PREFIXES[kind]) :]
    for version in ["\u0661", "\uff11", "01", "+1"]:
        respelled_token = f"{kind.value}{version}_{body}"
        assert code_of(lambda t=respelled_token: tokens.parse(tmp_path, t, kind)) is ErrorCode.TOKEN_MALFORMED
    assert code_of(lambda: tokens.parse(tmp_path, f"{kind.value}2_{body}", kind)) is (
        ErrorCode.TOKEN_VERSION_UNSUPPORTED
    )
    assert tokens.parse(tmp_path, token, kind).id == 5


@pytest.mark.parametrize(
    "change",
    [
        lambda body: body + "=",  # padding
        lambda body: body + "==",
        lambda body: body[:-2] + "==",
        lambda body: body + "A",  # one character too many
        lambda body: body[:-1],  # one too few
        lambda body: body[:-4],  # a whole base64 group less: still decodable, but cut
        lambda body: body + "AAAA",  # a whole group more
        lambda body: body[:10] + "+" + body[11:],  # the standard alphabet, not base64url
        lambda body: body[:10] + "/" + body[11:],
        lambda body: body[:10] + "=" + body[11:],
        lambda body: body[:10] + " " + body[11:],
        lambda body: body[:10] + "\n" + body[11:],
        lambda body: body[:10] + "." + body[11:],
        lambda body: body[:10] + "\u00e9" + body[11:],  # a non-ASCII letter
        lambda body: body[:10] + "\uff21" + body[11:],  # FULLWIDTH A
        lambda body: body[:10] + "\u0661" + body[11:],  # a non-ASCII digit
        lambda body: body[:10] + "\u200b" + body[10:],  # an invisible character added
        lambda body: body[:10] + "\x00" + body[10:],
    ],
)
def test_the_body_is_exactly_the_base64url_of_the_token(tmp_path, change):
    token = tokens.mint(tmp_path, TokenKind.STATE, 8)
    body = token[len("st1_") :]
    assert len(body) == tokens.BODY_CHARS
    assert code_of(lambda: tokens.parse(tmp_path, "st1_" + change(body), TokenKind.STATE)) is ErrorCode.TOKEN_MALFORMED


def test_a_huge_value_is_refused_without_being_parsed(tmp_path):
    token = tokens.mint(tmp_path, TokenKind.STATE, 8)
    assert code_of(lambda: tokens.parse(tmp_path, "st" + "1" * 5000 + "_" + token[4:], TokenKind.STATE)) is (
        ErrorCode.TOKEN_MALFORMED
    )
    assert code_of(lambda: tokens.parse(tmp_path, token + " " * 10_000_000, TokenKind.STATE)) is (
        ErrorCode.TOKEN_MALFORMED
    )


def test_a_non_canonical_body_is_refused():
    # 18 bytes are exactly 24 base64 characters, so today every body in the alphabet is canonical; the
    # decoder still re-encodes and compares, so a body with unused trailing bits could never alias one.
    assert tokens._decode("A" * tokens.BODY_CHARS) == bytes(tokens.ID_BYTES + tokens.MAC_BYTES)
    assert tokens._decode("A" * (tokens.BODY_CHARS - 1) + "B") is not None
    assert tokens._decode("AB") is None  # decodes to one byte, with bits left over: wrong length anyway
    assert tokens._decode("A" * (tokens.BODY_CHARS - 2) + "=") is None


@pytest.fixture(scope="module")
def signing_home(tmp_path_factory):
    return tmp_path_factory.mktemp("token-home")


# Characters that look like, or once parsed as, part of a token (other scripts' digits, padding, the
# standard base64 alphabet, the wrapping), then any character at all.
LOOKALIKES = [
    *"0123456789+-_=/ .\t\n\"'`AaSsTtKk",
    "\u0661",  # ARABIC-INDIC DIGIT ONE
    "\u06f1",
    "\u0967",
    "\uff11",  # FULLWIDTH DIGIT ONE
    "\U0001d7cf",
    "\uff3f",  # FULLWIDTH LOW LINE
    "\u0455",  # CYRILLIC SMALL LETTER DZE, looks like s
    "\u200b",
    "\x00",
]
ANY_CHARACTER = st.one_of(st.sampled_from(LOOKALIKES), st.characters(codec=None))
# Mostly where the kind and the version are, which is where a lenient parser was fooled.
POSITION = st.one_of(st.integers(min_value=0, max_value=5), st.integers(min_value=0, max_value=40))


def single_change(token: str, operation: str, position: int, character: str) -> str:
    index = position % (len(token) + (operation == "insert"))
    if operation == "replace":
        return token[:index] + character + token[index + 1 :]
    if operation == "insert":
        return token[:index] + character + token[index:]
    return token[:index] + token[index + 1 :]


def assert_refused_or_the_same(home, token: str, altered: str, kind: TokenKind, ident: int) -> None:
    try:
        parsed = tokens.parse(home, altered, kind)
    except WorkRailError as refused:
        code = refused.code
    else:
        code = None
    if code is not None:
        assert code in {ErrorCode.TOKEN_MALFORMED, ErrorCode.TOKEN_BAD_SIGNATURE, ErrorCode.TOKEN_VERSION_UNSUPPORTED}
        assert altered != token
        return
    # Accepted: only the wrapping an agent may add (quotes, backticks, whitespace at either end) was
    # changed, so what was read is the very token.
    assert altered.strip(tokens._WRAPPING) == token, f"{altered!r} was read as {token!r}"
    assert parsed == tokens.Token(kind, ident)


@settings(max_examples=examples(1000), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    kind=st.sampled_from(list(TokenKind)),
    ident=st.integers(min_value=0, max_value=2**63 - 1),
    operation=st.sampled_from(["replace", "insert", "delete"]),
    position=POSITION,
    character=ANY_CHARACTER,
)
def test_a_single_character_change_is_refused_or_changes_nothing(
    signing_home, kind, ident, operation, position, character
):
    token = tokens.mint(signing_home, kind, ident)
    assert_refused_or_the_same(signing_home, token, single_change(token, operation, position, character), kind, ident)


@pytest.mark.parametrize("kind", list(TokenKind))
def test_every_single_lookalike_change_at_every_position_is_refused_or_changes_nothing(signing_home, kind):
    token = tokens.mint(signing_home, kind, 2**40 + 3)
    for operation in ["replace", "insert", "delete"]:
        for position in range(len(token) + 1):
            for character in LOOKALIKES:
                altered = single_change(token, operation, position, character)
                assert_refused_or_the_same(signing_home, token, altered, kind, 2**40 + 3)

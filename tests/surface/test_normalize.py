"""The surface transcript's normalization: random and clock-made values become stable placeholders, and
nothing else changes."""

from __future__ import annotations

import string
from datetime import datetime
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from tests.surface.normalize import Normalizer, matches

BODY = st.text(alphabet=string.ascii_letters + string.digits + "_-", min_size=24, max_size=24)
HEX16 = st.text(alphabet="0123456789abcdef", min_size=16, max_size=16)


def answer(state: str, ack: str, run: str, session: str, at: str) -> dict[str, Any]:
    """The shape of a real answer: the same values in the structure, in the text and in a dict key."""
    return {
        "content": [{"type": "text", "text": f'continue_workflow {{"stateToken": "{state}", "ackToken": "{ack}"}}'}],
        "structuredContent": {
            "stateToken": state,
            "ackToken": ack,
            "session": {"runId": run, "sessionId": session},
            "branches": {state: {"createdAt": at, "uri": f"workrail://runs/{run}"}},
        },
    }


def test_each_distinct_value_is_numbered_by_kind_in_order_of_first_appearance() -> None:
    first, second = "st1_" + "x" * 24, "st1_" + "y" * 24
    normalized = Normalizer().walk([{"a": second, "b": [first, second]}, f"see {first}", "ak1_" + "z" * 24])
    assert normalized == [
        {"a": "<stateToken-1>", "b": ["<stateToken-2>", "<stateToken-1>"]},
        "see <stateToken-2>",
        "<ackToken-1>",
    ]


def test_every_kind_of_random_value_is_recognized() -> None:
    values = {
        "st1_" + "a" * 24: "<stateToken-1>",
        "ak1_" + "b" * 24: "<ackToken-1>",
        "ss1_" + "c" * 24: "<sessionToken-1>",
        "ses_0123456789abcdef": "<sessionId-1>",
        "run_fedcba9876543210": "<runId-1>",
    }
    normalizer = Normalizer()
    assert {value: normalizer.text(value) for value in values} == values


def test_a_token_with_one_character_changed_is_a_value_of_its_own() -> None:
    token = "st1_" + "a" * 23 + "-"
    tampered = token[:-1] + "A"
    assert Normalizer().text(f"{token} {tampered} {token}") == "<stateToken-1> <stateToken-2> <stateToken-1>"


def test_a_token_inside_a_longer_word_is_left_alone() -> None:
    text = "xst1_" + "a" * 24 + " st1_" + "a" * 25
    assert Normalizer().text(text) == text


def test_times_become_one_unnumbered_placeholder_at_any_precision() -> None:
    text = "2026-11-25T00:58 2026-11-25T00:59:01.123456+00:00 2026-01-02 10:11:12Z 2026-01-02"
    assert Normalizer().text(text) == "<time> <time> <time> 2026-01-02"


def test_kept_values_and_the_rest_of_the_text_are_unchanged() -> None:
    example = "st1_" + "A" * 24
    text = f"example {example}, real {'st1_' + 'q' * 24}, hash sha256:0123456789abcdef, count 16"
    normalized = Normalizer(keep=[example]).text(text)
    assert normalized == f"example {example}, real <stateToken-1>, hash sha256:0123456789abcdef, count 16"


def test_paths_are_replaced_longest_first() -> None:
    normalizer = Normalizer({"/tmp/w": "<workdir>", "/tmp/w/project": "<project>"})
    assert normalizer.text("/tmp/w/project/a.json and /tmp/w/home") == "<project>/a.json and <workdir>/home"


def test_matches_finds_values_in_keys_and_nested_strings() -> None:
    token = "ak1_" + "k" * 24
    assert matches({token: ["at 2026-11-25T00:58", 3]}) == {token, "2026-11-25T00:58"}


@given(
    st.lists(st.tuples(BODY, BODY, HEX16, HEX16), min_size=2, max_size=2, unique=True),
    st.datetimes(),
    st.datetimes(),
)
def test_two_runs_that_differ_only_in_random_values_normalize_to_the_same_bytes(
    values: list[tuple[str, str, str, str]], one_time: datetime, other_time: datetime
) -> None:
    def transcript(state: str, ack: str, run: str, session: str, at: str) -> Any:
        return Normalizer().walk([answer(f"st1_{state}", f"ak1_{ack}", f"run_{run}", f"ses_{session}", at)] * 2)

    (state, ack, run, session), (state2, ack2, run2, session2) = values
    assert transcript(state, ack, run, session, one_time.isoformat()) == transcript(
        state2, ack2, run2, session2, other_time.isoformat()
    )

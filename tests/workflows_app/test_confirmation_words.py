"""What a step waiting for the user's confirmation asks of them, read from its title
(workflows_app/prose/confirmations.py): said to the user where the title opens with a verb a person
answers with, nothing otherwise (the dashboard then quotes the title)."""

from __future__ import annotations

import pytest

from workflows_app.prose import what_to_confirm


@pytest.mark.parametrize(
    ("title", "said"),
    [
        ("Approve the plan", "approve the plan"),
        ("Confirm the Fix Plan", "confirm the fix plan"),
        ("Decide About Remaining Failures", "decide about remaining failures"),
        ("Review the Validated Draft with the User", "review the validated draft with you"),
        ("Phase 2: Confirm the User's Scope", "confirm your scope"),
        ("Approve the MR on GitHub.", "approve the MR on GitHub"),
    ],
)
def test_a_title_that_asks_the_user_is_said_to_them(title, said):
    assert what_to_confirm(title) == said


@pytest.mark.parametrize("title", ["Phase 3: Content Plan", "Small Conversion Fast Path", "", "Phase 4:"])
def test_a_title_that_does_not_ask_says_nothing(title):
    assert what_to_confirm(title) is None

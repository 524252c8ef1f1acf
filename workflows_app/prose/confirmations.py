"""HEURISTICS (part of workflows_app/prose): what a step that waits for the user's confirmation asks of
them, said to the user, read from the step's title.

Titles of such steps are mostly an imperative addressed to the user, or about them: "Approve the plan",
"Confirm the Fix Plan", "Decide About Remaining Failures", "Review the Validated Draft with the User",
"Phase 2: Confirm Scope". When the title (its "Phase 2:" prefix aside) opens with one of the verbs a
person answers with, the dashboard can say "The agent is waiting for you to approve the plan"; otherwise
it says nothing here and the page quotes the title as it is.
"""

from __future__ import annotations

import re

# The verbs a person answers a confirmation with, as a title opens with them.
_ANSWERING_VERBS = frozenset(
    {"accept", "agree", "approve", "check", "choose", "confirm", "decide", "pick", "review", "select", "sign", "verify"}
)
# "Phase 2:", "Step 3 -", "4.", "Phase 4c:" before the words of a title.
_NUMBERED = re.compile(
    r"^\s*(?:(?:phase|step|stage)\s+)?[0-9]+[a-z]?(?:\.[0-9]+)*\s*[:.)\-\u2013\u2014]\s*", re.IGNORECASE
)
_THE_USERS = re.compile(r"\b(?:the\s+)?user's\b", re.IGNORECASE)
_THE_USER = re.compile(r"\bthe\s+user\b", re.IGNORECASE)


def what_to_confirm(title: str) -> str | None:
    """What the user is asked to do, as the end of "waiting for you to …": "approve the plan" for
    "Approve the plan", "review the validated draft with you" for "Review the Validated Draft with the
    User"; None when the title does not open with a verb a person answers with."""
    words = _NUMBERED.sub("", title, count=1).strip().rstrip(".!?:").split()
    if not words or words[0].lower() not in _ANSWERING_VERBS:
        return None
    phrase = " ".join(_lowered(word) for word in words)
    return _THE_USER.sub("you", _THE_USERS.sub("your", phrase))


def _lowered(word: str) -> str:
    """A title-cased word in running text: "Plan" reads "plan"; "MR", "GitHub" and "v2" stay as written."""
    if word[:1].isupper() and word[1:] == word[1:].lower():
        return word.lower()
    return word

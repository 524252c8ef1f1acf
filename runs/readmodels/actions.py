"""The few things a person (or the agent) can do about a run, each with ONE verb phrase that every place
says it with: the chips' moves (states.NextMove), the state panels, the step page's card, the fork form and
the hand-over card. The twelfth reviewer met one action under five names ("resume it", "Resume…", "Resume
this branch here", "Start a new branch from here", "Edit the context and start a branch…"); templates and
chips read the words here (the `action` template filter), so that they cannot drift apart again.

- resume: hand an agent a branch's latest step again, by pasting the message for it into its chat: it carries
  on there, on the same branch (a stalled or paused run, a blocked step whose agent stopped, a branch left
  behind taken up again). Only that: the thirteenth reviewer met "resume" for a fork too.
- fork: the same message at a step the run already went on from: the agent's answer starts a new branch from
  that step, beside the run's others, with the context as it was ("Branch (same context)", beside "Branch with
  edited context…": friction15 asked what sets the two apart).
- branch: record a new branch that redoes a step with context a person edited (the fork form), then resume
  the agent on it.
- resend, confirm, tell: the moves of a blocked step the agent fixes, a step that waits for the person's
  confirmation, and a blocked step that waits for something only the person can give.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ActionName = Literal["resume", "fork", "branch", "resend", "confirm", "tell"]


@dataclass(frozen=True)
class Action:
    """One thing to do, in the words every page uses for it."""

    verb: str  # the phrase inside a sentence or a chip: "resume the agent"

    @property
    def title(self) -> str:
        """The phrase as a heading or a button leads with it: "Resume the agent"."""
        return self.verb[:1].upper() + self.verb[1:]


ACTIONS: dict[ActionName, Action] = {
    "resume": Action("resume the agent"),
    "fork": Action("branch (same context)"),
    "branch": Action("branch with edited context"),
    "resend": Action("resend the step"),
    "confirm": Action("confirm"),
    "tell": Action("tell the agent"),
}


def verb(name: ActionName) -> str:
    return ACTIONS[name].verb


def title(name: ActionName) -> str:
    return ACTIONS[name].title


# What each copy button says: the button copies a text for the person to paste into an agent's chat. A step
# waiting for the person's confirmation has two replies (the dashboard cannot confirm by itself: the agent hears
# it in its chat, friction15); a branch left behind, the quiet "Resume this branch…" (nothing to do unless it is
# wanted back); everywhere else the message for the agent.
CopyName = Literal["message", "confirmed", "changes", "branch_back"]
COPY: dict[CopyName, str] = {
    "message": "Copy the message for the agent",
    "confirmed": "Copy the reply: confirmed",
    "changes": "Copy a reply asking for changes",
    "branch_back": "Resume this branch…",
}
# Beside the message's button where the agent is on the step now: the message is for when it has stopped.
ONLY_IF_STOPPED = "only if the agent has stopped"


def copy_label(name: CopyName) -> str:
    return COPY[name]

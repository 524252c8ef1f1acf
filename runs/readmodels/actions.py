"""The few things a person (or the agent) can do about a run, each with ONE verb phrase that every place
says it with: the chips' moves (states.NextMove), the state panels, the step page's card, the fork form and
the hand-over card. The twelfth reviewer met one action under five names ("resume it", "Resume…", "Resume
this branch here", "Start a new branch from here", "Edit the context and start a branch…"); templates and
chips read the words here (the `action` template filter), so that they cannot drift apart again.

- resume: hand an agent a branch's latest step again, by pasting the message for it into its chat: it carries
  on there, on the same branch (a stalled or paused run, a blocked step whose agent stopped, a branch left
  behind taken up again). Only that: the thirteenth reviewer met "resume" for a fork too.
- fork: the same message at a step the run already went on from: the agent's answer starts a new branch from
  that step, beside the run's others.
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
    "fork": Action("branch from this step"),
    "branch": Action("branch with edited context"),
    "resend": Action("resend the step"),
    "confirm": Action("confirm"),
    "tell": Action("tell the agent"),
}


def verb(name: ActionName) -> str:
    return ACTIONS[name].verb


def title(name: ActionName) -> str:
    return ACTIONS[name].title

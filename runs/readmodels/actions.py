"""The few things a person (or the agent) can do about a run, each with ONE verb phrase that every place
says it with: the chips' moves (states.NextMove), the state panels, the step page's card, the fork form and
the hand-over card. The twelfth reviewer met one action under five names ("resume it", "Resume…", "Resume
this branch here", "Start a new branch from here", "Edit the context and start a branch…"); templates and
chips read the words here (the `action` template filter), so that they cannot drift apart again.

- resume: hand an agent a branch's latest step again, by pasting the message for it into its chat: it carries
  on there, on the same branch (a stalled or paused run, a blocked step whose agent stopped, a branch left
  behind taken up again). Only that: the thirteenth reviewer met "resume" for a fork too.
- fork: the same message at a step the run already went on from: the agent's answer starts a new branch from
  that step, beside the run's others, with the context as it was. friction15 asked what sets the two ways
  apart; friction24a 7, 24b 13: named by what you do ("Copy a message to branch as it was", "Change its
  context, then branch") a newcomer could not tell them apart, so each is named by its outcome, "Redo with the
  same inputs" and "Redo with new inputs", under the section's title "Branch from here" and its lead line.
- branch: record a new branch that redoes a step with context a person edited (the fork form), then resume
  the agent on it.
- hand: give a branch started by hand, which no agent has had yet, to an agent (the same message as resume).
- resend, confirm, tell: the moves of a blocked step the agent fixes, a step that waits for the person's
  confirmation, and a blocked step that waits for something only the person can give.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ActionName = Literal["resume", "fork", "branch", "resend", "confirm", "reply", "tell"]


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
    "fork": Action("redo with the same inputs"),
    # One name whether the step has inputs to change or none yet (friction60a 13: "changed" on one page and
    # "new" on another read as two actions).
    "branch": Action("redo with new inputs"),
    "resend": Action("resend the step"),
    "confirm": Action("confirm"),
    "reply": Action("review and reply"),  # a confirmation's panel: read what to approve, copy a reply
    "tell": Action("tell the agent"),
}


# What a sessions-list row's link ends its where-line with, where the move is the person's: said as what the
# click gets them, the run's panel where they copy a message or read and reply, not as the act itself
# (friction61b 5: "resume the agent →" and "hand it to an agent →" read as if the click did it). A branch started
# by hand gets the same message as any resume (its panel's "Copy the resume message"), so it is a resume here too:
# "get its message" beside "get the resume message" read as two messages (friction62a 5).
LINKS: dict[ActionName, str] = {
    "resume": "get the resume message",
    "reply": ACTIONS["reply"].verb,  # its panel is where the reply is read and copied: the act's own words
}


# The step page's two sections, by the action each is for, and the name every page gives them (friction22a B1,
# 22b A1): "Resume here" carries this step's branch on (resume, resend); "Branch from here" starts a new branch
# that redoes this step (fork, branch). A step waiting for the person's confirmation titles the first section
# "Your confirmation" (friction23a A3, 23b 1: nothing stopped, "Resume here" read as the agent having died).
# The run page's links to a step's section say its name (_attention.html).
SectionName = Literal["resume", "confirm", "branch"]
SECTIONS: dict[SectionName, str] = {
    "resume": "Resume here",
    "confirm": "Your confirmation",
    "branch": "Branch from here",
}


def section(name: SectionName) -> str:
    return SECTIONS[name]


def verb(name: ActionName) -> str:
    return ACTIONS[name].verb


def title(name: ActionName) -> str:
    return ACTIONS[name].title


def link(name: ActionName) -> str:
    return LINKS.get(name) or ACTIONS[name].verb


# What each copy button says: the button copies a text for the person to paste into an agent's chat. A step
# waiting for the person's confirmation has two replies (the dashboard cannot confirm by itself: the agent hears
# it in its chat, friction15); a message that resumes the agent says so, on every panel and card that holds one
# (stalled, paused, refused and the agent stopped, left behind, a step's "Resume here": friction28b 7, the verb
# of the list's "resume the agent" and the step page's "Resume here" was gone from the button that does it); a
# workflow's start message is named the same on the catalog and on its own page (friction28b 9). A branch
# started by hand is handed over with that same resume message, so its button says so too (friction62a 5: "Copy
# the message for the agent" there read as another message); the one message that differs, a redo's with the same
# inputs (it starts a new branch, not the same one), is named by its section's verb, "the redo message". A reply's
# button names the reply it copies by its opening words (agent_message.replies), so nobody reads it as confirming
# by itself (friction17 a14/b10); its "Share…" on a phone (copy.js) names the same reply (friction17 a6/b3).
CopyName = Literal["redo", "resume", "start", "confirmed", "changes"]
COPY: dict[CopyName, str] = {
    "redo": "Copy the redo message",
    "resume": "Copy the resume message",
    "start": "Copy the start message",
    "confirmed": "Copy “Confirmed” reply",
    "changes": "Copy “Not yet: change…” reply",
}
SHARE: dict[CopyName, str] = {
    "redo": "Share…",
    "resume": "Share…",
    "start": "Share…",
    "confirmed": "Share “Confirmed”…",
    "changes": "Share “Not yet”…",
}

# How loud the message's button is, from whose move it is (friction16: a solid button that said "only if the
# agent has stopped" drew the eye while the agent worked): "primary" where the move is the person's (stalled,
# paused, blocked and the agent stopped), "quiet" (the outline) where it is not (a branch left behind, or the
# agent at work), its one line beside it saying when it is for. Never behind a disclosure named after a question
# ("Agent stopped? …", "Want it back? …": friction22a B3, 22b A1): the button is in sight, and its weight and
# line keep it from being pressed by accident (friction19b 15). The one action keeps one label at both weights
# (friction28b 7 asked for one style too): the outline on a branch left behind is deliberate, resuming it is
# optional there and reviving it by accident sets a second agent to work.
Weight = Literal["primary", "quiet"]


def redo_title() -> str:
    """The fork form's name at every step, "Redo with new inputs": new values for its inputs, or inputs added to
    a step without any (friction28b 13, 60a 13)."""
    return title("branch")


def copy_label(name: CopyName) -> str:
    return COPY[name]


def share_label(name: CopyName) -> str:
    return SHARE[name]

"""The words the dashboard uses for its things, one line each, the one table of them (friction26b 9, 26a: run,
branch, left behind, replaced, checkpoint, round, part … appear in the first pages and the states' legend
explains only states). The "Words used here" page shows them (dashboard/_glossary.html), reached from every page's
header and from a run's "Other branches"; docs/dashboard.md says the same at length. The states are not here: each
has its one line in states.MEANINGS, which the page lists after these words, by its pill's word, as the sessions
list's "What the states mean" does (friction65b 16: Replaced and Left behind were said twice in different words,
Stalled, Confirm, Working and Done not at all; friction65b 1: "Refused" here, "Retrying" on the pill).
"""

from __future__ import annotations

from dataclasses import dataclass

from runs.readmodels import actions, timings


@dataclass(frozen=True)
class Term:
    """One word and what it means, in a line; `anchor` is its id on the page (a link to "/words/#branch")."""

    anchor: str
    word: str
    means: str


TERMS: tuple[Term, ...] = (
    Term(
        "session",
        "Session",
        "One piece of work an agent does for you, under one key or title: its runs, notes and checkpoints.",
    ),
    Term(
        "run", "Run", "One go of a workflow by an agent, from its first step to its end. A session holds one or more."
    ),
    Term("step", "Step", "One entry of the workflow's outline; \u201cstep 2 of 3\u201d is where it sits there."),
    # friction62a 7, 62b 5: "Turned away" beside "Refused" needed this line to be told apart; friction63a 2:
    # "Rejected call" read as a third word for it, so the word now names what was wrong, the call
    # (timings.CALL_ERROR), and its line is the one under the Tool timings table.
    Term(
        "call-error",
        timings.CALL_ERROR,
        f"In Tool timings: {timings.CALL_ERROR_NOTE[0].lower()}{timings.CALL_ERROR_NOTE[1:]}",
    ),
    Term(
        "branch",
        "Branch",
        "One line of steps through a run. A run starts as one branch; redoing a step starts another beside it."
        " Not a git branch: the dashboard says \u201cgit branch\u201d for those.",
    ),
    # friction65a 6: it named the form's inner fold ("Redo with new inputs") where the page's control is the section
    # every step page shows, "Branch from here": the control's own name, from the one table of them.
    Term(
        "started-by-hand",
        "Started by hand",
        f"A branch someone started with new inputs, under \u201c{actions.section('branch')}\u201d on a step's page,"
        " not an agent; it waits for an agent to be given its message.",
    ),
    Term(
        "redone", "Redone (\u21ba)", "A step answered again on a newer branch; the older answer is kept in the history."
    ),
    Term(
        "round",
        "Round",
        "One pass through a loop of steps, said after the step: \u201cstep 2 of 3 (round 2 of 3)\u201d, or in the"
        " loop's own word (\u201cstep 4 of 8 (area 1 of 2)\u201d); a loop of several steps letters them:"
        " \u201cstep 2a\u201d, \u201cstep 2b\u201d.",
    ),
    # friction63b 4: words the pages use that readers looked up and did not find here.
    Term(
        "area",
        "Area",
        "In a review: one part of the change (a group of its files) that a loop reviews in its own round,"
        " \u201carea 1 of 2\u201d.",
    ),
    Term(
        "checkpoint",
        "Checkpoint",
        "Notes the agent saved at a step without answering it, so that a later chat can pick up from there.",
    ),
    Term(
        "resume-code",
        "Resume code",
        "The code (stateToken) that names one step of a branch: the resume message carries it, so that an agent given"
        " the message goes on from that step.",
    ),
    Term(
        "inputs",
        "Inputs",
        "The values a step works with (a target, a ticket id), handed on from step to step; a redo can change them.",
    ),
    Term(
        "artifact",
        "Artifact",
        "A structured result the agent records with an answer (\u201cFindings\u201d, \u201cChanged files\u201d),"
        " beside its notes in words.",
    ),
    Term(
        "hand-off",
        "Hand-off",
        "An artifact an agent leaves for whoever takes the work on next (\u201cCoding hand-off\u201d): what it"
        " decided, the files it changed.",
    ),
    Term(
        "bundle",
        "Bundle",
        "One file holding a whole session, made by Export; Import reads it into another dashboard.",
    ),
    Term(
        "mode",
        "Mode",
        "How often the agent stops to ask you, and how much risk it may take (\u201cGuided, balanced risk\u201d).",
    ),
)


# The words a page links to their line here where it uses them (the `term` tag, templatetags/dashboard.py): those a
# newcomer cannot guess from the page (friction62b 6: "Mode: Guided, balanced risk" on every session header,
# "checkpoint" in the graph's key, looked up by hand). A subtle link, once per page, not a "?" beside each.
LINKED: frozenset[str] = frozenset({"mode", "checkpoint"})


def term(anchor: str) -> Term:
    """The term whose line is at `anchor` ("mode"); KeyError for none, so that a page cannot link nowhere."""
    return next(t for t in TERMS if t.anchor == anchor)

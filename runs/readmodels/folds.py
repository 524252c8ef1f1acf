"""The name of a fold that holds more than one thing: what it holds, in a few words, computed from what it
holds (friction25b 9: a bare "Details" gave no clue). A fold that holds only what a developer reads is named
"For developers: ..." and has no second "For developers" heading inside; one that also holds something for
people (why, the refused answer) is "Details: ...", and its inside keeps the two headings apart."""

from __future__ import annotations

from dataclasses import dataclass

from runs.contract.dashboard import AttentionPanel, BlockedStep, RunDetail


@dataclass(frozen=True)
class FoldName:
    title: str
    people: bool  # it holds something for people too: its inside heads the developers' part


def named(people: list[str], developers: list[str]) -> FoldName:
    lead = "Details" if people else "For developers"
    parts = people + developers
    return FoldName(f"{lead}: {', '.join(parts)}" if parts else lead, bool(people))


def blocked_parts(b: BlockedStep) -> list[str]:
    """What _blocked_dev.html shows of a refused step, in the order it shows them."""
    parts = []
    if b.issues:
        parts.append("codes")
    if b.call:  # the artifact's shape and what the call carries are said with it, under its name
        parts.append("the call")
    return parts


def blocked_fold(b: BlockedStep) -> FoldName:
    """A blocked panel's own fold, on its step's page (_blocked.html): the refused answer, then the developers'."""
    return named(["the refused answer"], blocked_parts(b))


def run_fold(detail: RunDetail, panel: AttentionPanel | None) -> FoldName:
    """The run card's one fold (_run.html), under the shown branch's panel: a blocked step's refused answer and
    call, or the panel's why (a confirmation says it in the panel's own "Why") and the step's resume code (its
    stateToken); then the
    run's ids, and the hand-off's kinds."""
    people: list[str] = []
    developers: list[str] = []
    blocked = detail.branch.blocked if detail.branch else None
    if blocked and detail.pending_step_id:
        people.append("the refused answer")
        developers += blocked_parts(blocked)
    elif panel:
        if not panel.reply_confirmed:
            people.append("why")
        if panel.state_token:
            # Its name outside "For developers": no token names there, and "token" is no word of the glossary
            # (friction62b 6); what it does, carried in the resume message, is plain.
            developers.append("the step's resume code")
    developers.append("the run's ids")
    if detail.tables.handoffs:
        developers.append("the hand-off's kinds")
    return named(people, developers)

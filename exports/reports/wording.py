"""The words both reports (Markdown and HTML/PDF) use for statuses, times, durations and outcomes, so
the two say the same thing. Times are absolute with their time zone: a report is a static file, and
"3 minutes ago" would be false by the time anybody reads it."""

from __future__ import annotations

from datetime import UTC, datetime

from exports.reports import places
from exports.reports.branch_sections import BranchSection
from exports.reports.branch_tree import one_line
from runs.contract.dashboard import BlockedStep, StepEntry
from runs.contract.preferences import MODES
from runs.readmodels import time_axis

# The last section of both reports: every id in full, node ids only there (short_ids.py).
APPENDIX = "Appendix for developers: full ids"
IDS_NOTE = (
    "Session and run ids are shortened to their first characters; the appendix for developers lists them in full, "
    "with the ids of the nodes branches end and fork at."
)
MORE_BRANCHES = 4  # a conclusion names this many branches besides the newest, then counts the rest

STATUS_WORDS = {
    "in_progress": "in progress",
    "blocked": "blocked",
    "complete": "complete",
    "canceled": "canceled",
    "notes": "notes only",
    "open": "open",
}
# The modes by the names the dashboard's Mode panel gives them (friction64 A1: "full auto" named no mode a reader
# had seen): those that let the agent confirm its own steps, and the one that never stops for the user, whose
# questions it went past are a branch's gaps.
_SELF_CONFIRMING = " or ".join(m.name.capitalize() for m in MODES.values() if m.preferences["autonomy"] != "guided")
NEVER_STOPS = next(m.name.capitalize() for m in MODES.values() if m.preferences["autonomy"] == "full_auto_never_stop")
GAPS_INTRO = (
    f"Questions only the user could answer, which the agent did not stop for ({NEVER_STOPS} mode: it assumed an "
    "answer and went on):"
)
CONFIRMED_BY = {
    "user": "asked the user, whose answer is in the step's notes",
    "agent": f"the agent decided for the user, as the {_SELF_CONFIRMING} mode lets it",
}


def stamp(moment: datetime | str | None) -> str | None:
    """ "2026-03-01 14:02:09 UTC"; "—" for no time; None for a string that is not a time."""
    if isinstance(moment, str):
        try:
            moment = datetime.fromisoformat(moment)
        except ValueError:
            return None
    if moment is None:
        return "—"
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def status(value: str) -> str:
    return STATUS_WORDS.get(value, value.replace("_", " "))


def seconds(value: float) -> str:
    """A step's duration, as the dashboard says it (time_axis.duration): "20 ms", "4.5 s", "3 min 5 s"."""
    return time_axis.duration(value)


def step_title(step: StepEntry) -> str:
    """A step's title; a checkpoint's says it is one ("Checkpoint during Draft Plan" already does)."""
    title = step.title or step.step_id or "Untitled step"
    if step.kind == "checkpoint" and not title.startswith("Checkpoint"):
        return f"Checkpoint: {title}"
    return title


def severities(branch: BranchSection) -> str:
    said = ", ".join(f"{count} {severity}" for severity, count in branch.severity_counts)
    # An unfinished branch may not have reached its findings step: "none" would read as "found nothing".
    return said or ("none" if branch.status == "complete" else "none yet")


def _at(branch: BranchSection) -> str:
    """Where an unfinished branch waits, as the dashboard says it: "step 3 of 5, “Review api”"."""
    pending = branch.pending
    return f"{places.words(pending.place, pending.step_number)}, “{one_line(pending.title)}”" if pending else ""


def outcome(branch: BranchSection) -> str:
    """The branch's outcome in words: its verdict when it gave one, else what it did or where it stands."""
    if branch.verdict is not None:
        return branch.verdict.said
    at = _at(branch)
    if branch.status == "blocked" and at:
        return f"Blocked at {at}"  # why: in the conclusion and the branch's own section
    if branch.status not in ("complete", "canceled") and at:
        return f"Waiting at {at}"
    said = state(branch)
    return said[:1].upper() + said[1:]


def _plural(count: int, word: str, plural: str | None = None) -> str:
    return f"{count} {word if count == 1 else (plural or word + 's')}"


def recorded(branch: BranchSection) -> str:
    """What a branch recorded besides its notes, for a run whose workflow gives no verdict: "1 major
    finding, 2 changed files and a coding hand-off"; empty when nothing."""
    things = [f"{count} {severity} finding{'s' if count > 1 else ''}" for severity, count in branch.severity_counts]
    if branch.tables.changed_files:
        things.append(_plural(len(branch.tables.changed_files), "changed file"))
    titles = list(dict.fromkeys(entry.title[:1].lower() + entry.title[1:] for entry in branch.tables.others))
    things += [f"a {title}" for title in titles]
    if len(things) <= 1:
        return "".join(things)
    return ", ".join(things[:-1]) + " and " + things[-1]


def why_blocked(blocked: BlockedStep) -> str:
    """Why a blocked branch is held, from the refusal that stands: the first problem as a person reads
    it, how long the step has been refused, and whose move it is."""
    first = blocked.issues[0] if blocked.issues else None
    problem = (first.for_people or first.message) if first is not None else blocked.reason
    problem = one_line(problem, limit=400).rstrip(".")
    more = blocked.issue_count - 1
    if more > 0:
        problem += f" (and {_plural(more, 'more issue')})"
    refused = "refused once" if blocked.refusals == 1 else f"refused {blocked.refusals} times"
    who = {
        "user": "it waits for something only the user can give",
        "delegations": "it waits for its delegated runs to finish",
        "agent": "the agent must answer the step again",
    }[blocked.whose_move]
    return f"{problem}. The answer was {refused} since {stamp(blocked.since)}; {who}"


def state(branch: BranchSection) -> str:
    """Where a branch ended or stands, as the rest of a sentence that starts with its name: "completed
    with the verdict “Ready”", "is blocked at step 2, “List Changed Files”: the answer had no ...". A
    completed branch without a verdict (its workflow may not ask for one) says what it did instead."""
    at = _at(branch)
    if branch.status == "complete":
        if branch.verdict is not None:
            return f"completed with the verdict “{one_line(branch.verdict.said)}”"
        extras = recorded(branch)
        return f"completed after {_plural(branch.steps_taken, 'step')}" + (f", recording {extras}" if extras else "")
    if branch.status == "canceled":
        return "was canceled" + (f" at {at}" if at else " before it completed")
    if branch.status == "blocked" and at:
        return f"is blocked at {at}" + (f": {why_blocked(branch.blocked)}" if branch.blocked else "")
    if at:
        return f"is in progress, waiting at {at}"
    return "is open"


def conclusion(name: str, listed: list[BranchSection]) -> str:
    """A run in a sentence or a few: how its newest branch ended or stands, then its other branches."""
    if not listed:
        return f"{name} has no nodes yet."
    newest = next((branch for branch in listed if branch.is_newest), listed[-1])
    if len(listed) == 1:
        return f"{name} {state(newest)}."
    said = [f"{name}, on branch {newest.number} (the newest), {state(newest)}."]
    others = [branch for branch in listed if branch is not newest]
    said += [f"Branch {branch.number} {state(branch)}." for branch in others[:MORE_BRANCHES]]
    if len(others) > MORE_BRANCHES:
        said.append(f"{_plural(len(others) - MORE_BRANCHES, 'more branch', 'more branches')} below.")
    return " ".join(said)


def open_items(branch: BranchSection) -> int:
    return len(branch.gaps) + len(branch.limitations)


def branch_label(branch: BranchSection) -> str:
    marks = ", ".join([*(["newest"] if branch.is_newest else []), status(branch.status)])
    return f"Branch {branch.number} ({marks})"


def summary_heading(branch: BranchSection, *, branched: bool) -> str:
    """A completed branch's summary heading, by the session page's rule (RunSummary.branched): a run that never
    forked says "Summary", as its only branch needs no name (friction64 A2: "Summary of branch 1" in reports)."""
    return f"Summary of branch {branch.number}" if branched else "Summary"


def artifact_kinds(step: StepEntry) -> list[str]:
    """The kinds of the artifacts a step recorded, each once, in the order first recorded (both reports list them)."""
    kinds: list[str] = []
    for artifact in step.artifacts:
        kind = str(artifact.get("kind") or "(no kind)") if isinstance(artifact, dict) else "(not an object)"
        if kind not in kinds:
            kinds.append(kind)
    return kinds

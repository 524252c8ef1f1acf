"""The words both reports (Markdown and HTML/PDF) use for statuses, times, durations and outcomes, so
the two say the same thing. Times are absolute with their time zone: a report is a static file, and
"3 minutes ago" would be false by the time anybody reads it."""

from __future__ import annotations

from datetime import UTC, datetime

from exports.reports.branch_sections import BranchSection
from exports.reports.branch_tree import one_line
from runs.contract.dashboard import StepEntry

STATUS_WORDS = {
    "in_progress": "in progress",
    "blocked": "blocked",
    "complete": "complete",
    "canceled": "canceled",
    "notes": "notes only",
    "open": "open",
}
CONFIRMED_BY = {
    "user": "asked the user, whose answer is in the step's notes",
    "agent": "full auto: the agent decided for the user",
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
    """A step's duration: "0.02 s", "4.5 s", "3 min 5 s", "2 h 10 min"."""
    if value < 1:
        return f"{value:.2f} s"
    if value < 60:
        return f"{value:.1f} s"
    minutes, secs = divmod(round(value), 60)
    return f"{minutes} min {secs} s" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"


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


def outcome(branch: BranchSection) -> str:
    """The branch's outcome in words: its verdict when it gave one, else where it stands."""
    if branch.verdict is not None:
        return branch.verdict.said
    if branch.status == "complete":
        return "Completed, no verdict recorded"
    if branch.status == "canceled":
        return "Canceled before it completed"
    if branch.pending is not None:
        waiting = "Blocked at" if branch.status == "blocked" else "Waiting at"
        return f"{waiting} step {branch.pending.step_number}, “{one_line(branch.pending.title)}”"
    return "Open"


def open_items(branch: BranchSection) -> int:
    return len(branch.gaps) + len(branch.limitations)


def branch_label(branch: BranchSection) -> str:
    marks = ", ".join([*(["newest"] if branch.is_newest else []), status(branch.status)])
    return f"Branch {branch.number} ({marks})"

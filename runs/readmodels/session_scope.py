"""What on a session's page belongs to the run shown, and what to the whole session.

With several runs, the session's notes, its timeline and its mode sat right under the shown run's steps, in the
same cards, and read as that run's (friction28a 8, 28b 4). The page now says the scope once: the shown run's
card and its sections first, then one divider, "Whole session", over what covers every run. A session of one
run needs no scope words: its run and its session are one thing to the reader.

The shown run's own sections after its card (what it produced, Progress, its graph and steps) take the page's
whole width under the runs column and the card, so they too sit under a divider of theirs that names the run, "Run
1 of 2: Risk-Scaled Merge Request Review" (friction29a 14, 29b 8: full-width cards under both columns, nothing
said whose they were until "Whole session" further down).

When a run started is said once too (friction28a 16, 28b 5): the session's head says when the session started,
which is when its first run did; a later run of a session of several has its start beside its name on its card,
never on a line of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from runs.contract.dashboard import RunDetail, SessionDetail

WHOLE_SESSION = "Whole session"


@dataclass(frozen=True)
class Scope:
    """`heading`: the divider's words over the session-wide sections ("" with one run, or none); `started`: the
    shown run's start, when it is not the session's first run of several (None: the head says it); `run_heading`:
    the divider's words over the shown run's own sections after its card ("" with one run)."""

    heading: str
    started: datetime | None
    run_heading: str = ""


def of_page(detail: SessionDetail, run: RunDetail | None) -> Scope:
    """The scope words of a session's page showing `run`: the divider with several runs, and the shown run's start
    when it is not the first of them."""
    several = len(detail.runs) > 1
    if not several or run is None:
        return Scope(WHOLE_SESSION if several else "", None)
    ids = [summary.run_id for summary in detail.runs]
    shown = run.run.run_id
    place = ids.index(shown) + 1 if shown in ids else 0
    own = f"Run {place} of {len(ids)}: {run.run.workflow_name}" if place else run.run.workflow_name
    return Scope(WHOLE_SESSION, run.run.created_at if shown != ids[0] else None, own)

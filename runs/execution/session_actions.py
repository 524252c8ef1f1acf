"""What the developer can do to a session from the dashboard or the API: change its mode or
preferences, and cancel a run. Both are recorded as events through the same journal and services
the MCP tools use; nothing recorded is ever edited.

A preferences change applies to the session's baseline (runs it starts from now on) and to every
open tip of its unfinished runs: the agent's next step there takes the new preferences, while older
nodes keep theirs, so a rewound agent still replays what it did then.
"""

from __future__ import annotations

from runs.contract.dashboard import CancelResult, PreferencesChange, PreferencesChangeResult
from runs.contract.errors import ErrorCode, WorkRailError
from runs.contract.preferences import mode_of, resolve
from runs.execution.recording import set_status
from runs.models import Node, Run, RunStatus, Session
from runs.readmodels.clock import stall_cutoff
from runs.readmodels.overview import not_found, shown_status
from runs.store import events, ownership, ratelimit
from runs.store.journal import Journal, write

DASHBOARD = "dashboard"


def change_preferences(session_id: str, change: PreferencesChange) -> PreferencesChangeResult:
    if change.mode is None and change.preferences is None:
        raise WorkRailError(
            ErrorCode.INVALID_INPUT,
            "Nothing to change: neither a mode nor preferences were given.",
            "Send a mode (guided, autopilot, unattended) or preferences (autonomy, riskPolicy).",
        )
    with write() as now:
        session = Session.objects.filter(public_id=session_id[:40]).first()
        if session is None:
            raise not_found("session", session_id, "Pick a session from the sessions list.")
        ownership.require_mine(session)
        ratelimit.take(f"session:{session.public_id}", what="changes to this session")
        journal = Journal(session, now)
        # Read again now that the journal holds the session (PostgreSQL locks its row only there): a
        # change that committed while we waited is the baseline this one starts from.
        session.refresh_from_db(fields=["preferences"])
        baseline = resolve(session.preferences, mode=change.mode, preferences=change.preferences)
        if baseline != session.preferences:
            journal.record(
                events.PreferencesChanged(
                    run_id=None, node_id=None, preferences=baseline, previous=session.preferences, source=DASHBOARD
                )
            )
        changed: list[str] = []
        open_tips = (
            Node.objects.filter(run__session=session, latest_child__isnull=True, is_complete=False)
            .exclude(run__status__in=[RunStatus.COMPLETE, RunStatus.CANCELED])
            .select_related("run")
            .order_by("created_at", "pk")
        )
        for tip in open_tips:
            wanted = resolve(tip.preferences, mode=change.mode, preferences=change.preferences)
            if wanted == tip.preferences:
                continue
            journal.projector.know(tip.run, tip)
            journal.record(
                events.PreferencesChanged(
                    run_id=tip.run.public_id,
                    node_id=tip.public_id,
                    preferences=wanted,
                    previous=tip.preferences,
                    source=DASHBOARD,
                )
            )
            if tip.run.public_id not in changed:
                changed.append(tip.run.public_id)
        journal.flush()
        return PreferencesChangeResult(
            session_id=session.public_id, preferences=baseline, mode=mode_of(baseline), runs_changed=changed
        )


def cancel_run(run_id: str) -> CancelResult:
    """Stops a run for good; its tokens then answer RUN_CANCELED. Canceling twice is not an error."""
    run = (
        Run.objects.select_related("session")
        .filter(public_id=run_id[:40])
        .only("status", "updated_at", "session__owner")
        .first()
    )
    if run is None:
        raise not_found("run", run_id, "Pick a run from its session's page.")
    ownership.require_mine(run.session)
    if run.status == RunStatus.COMPLETE:
        raise WorkRailError(
            ErrorCode.INVALID_INPUT,
            f"Run {run_id} is complete; there is nothing to cancel.",
            "Only an in-progress or blocked run can be canceled.",
        )
    if run.status != RunStatus.CANCELED:
        ratelimit.take(f"run:{run_id}")
        _cancel(run_id)
        run.refresh_from_db(fields=["status", "updated_at"])
    return CancelResult(run_id=run_id, status=shown_status(run.status, run.updated_at, stall_cutoff()))


def _cancel(run_id: str) -> None:
    """Stops a run for good (the dashboard's cancel); its tokens then answer RUN_CANCELED."""
    with write() as now:
        run = Run.objects.select_related("session").filter(public_id=run_id).first()
        if run is None:
            raise WorkRailError(ErrorCode.NOT_FOUND, f"No run has the id '{run_id}'.", "Check the run id.")
        journal = Journal(run.session, now)
        journal.projector.know(run)
        set_status(journal, run, RunStatus.CANCELED)
        journal.flush()

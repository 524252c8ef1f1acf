"""Sessions in each state a person may have to act on (runs/readmodels/attention.py), built through the
services the MCP tools use: waiting for the user's confirmation, stalled, canceled, a branch left behind
by a rewind, and sessions of two repositories whose branches share a name."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.db.models import F

from runs.execution import session_actions
from runs.models import Node, Output, Run, Session
from runs.store import actors
from tests.support.mcp_calls import continue_workflow, notes_for, start_workflow
from tests.support.sample_session import advance
from tests.support.workflow_files import step_doc, workflow_doc, write_json

CONFIRM = "team.confirm"
PLAN = "wr.routine-focused_plan"


@dataclass(frozen=True)
class Made:
    session_id: str
    run_id: str
    answer: dict[str, Any]  # the newest answer the agent got


def install_confirm_workflow(extra: Path) -> str:
    """Three steps; the second asks for the user's confirmation."""
    steps = [
        step_doc("plan", "Plan", "Write the plan."),
        step_doc(
            "approve",
            "Approve the plan",
            "Show the user the plan and **ask them to approve it** before anything is built.",
            requireConfirmation=True,
        ),
        step_doc("build", "Build", "Build it."),
    ]
    write_json(extra / "confirm.json", workflow_doc(CONFIRM, name="Plan and build", steps=steps))
    return CONFIRM


def quiet(run_id: str, minutes: int = 45) -> None:
    """Nothing recorded for `minutes`: everything the run recorded moves `minutes` into the past, so its
    start, its steps and its last activity stay in order (a stalled run never stalls before it started)."""
    back = timedelta(minutes=minutes)
    run = Run.objects.get(public_id=run_id)
    Node.objects.filter(run=run).update(created_at=F("created_at") - back)
    Output.objects.filter(node__run=run).update(created_at=F("created_at") - back)
    Run.objects.filter(pk=run.pk).update(created_at=F("created_at") - back, updated_at=F("updated_at") - back)
    Session.objects.filter(pk=run.session_id).update(
        created_at=F("created_at") - back, updated_at=F("updated_at") - back
    )


def _made(start: dict[str, Any], answer: dict[str, Any]) -> Made:
    return Made(start["session"]["sessionId"], start["session"]["runId"], answer)


def waiting_for_user(extra: Path, key: str = "CONF-1", quiet_minutes: int = 0) -> Made:
    start = start_workflow(install_confirm_workflow(extra), context={"sessionKey": key})
    made = _made(start, advance(start, "Planned it: two modules, one migration."))
    if quiet_minutes:
        quiet(made.run_id, quiet_minutes)
    return made


def stalled(key: str = "STALL-1") -> Made:
    start = start_workflow(PLAN, context={"sessionKey": key})
    made = _made(start, advance(start, "Clarified the goal."))
    quiet(made.run_id)
    return made


def canceled(key: str = "CANCEL-1") -> Made:
    start = start_workflow(PLAN, context={"sessionKey": key})
    made = _made(start, advance(start, "Clarified the goal."))
    with actors.acting_as(actors.Actor("", actors.Door.DASHBOARD)):  # as its Cancel button does, no one signed in
        session_actions.cancel_run(made.run_id)
    return made


def left_behind(key: str = "REWIND-1") -> Made:
    """Branch 1 stands at step 3; the agent rewound to step 1 and went on along branch 2 (the newest)."""
    start = start_workflow(PLAN, context={"sessionKey": key})
    advance(advance(start, "Clarified."), "Drafted.")
    rewound = continue_workflow(stateToken=start["stateToken"])
    return _made(start, advance(rewound, "Clarified again, with the user's new goal."))


def two_repositories() -> dict[str, str]:
    """Three sessions: `main` of /src/shop, `main` of /src/blog and `feature/x` of /src/blog; by key."""
    ids = {}
    for key, path, branch in (
        ("SHOP-MAIN", "/src/shop", "main"),
        ("BLOG-MAIN", "/src/blog", "main"),
        ("BLOG-X", "/src/blog", "feature/x"),
    ):
        session_id = start_workflow(PLAN, context={"sessionKey": key})["session"]["sessionId"]
        Session.objects.filter(public_id=session_id).update(workspace_path=path, git_branch=branch)
        ids[key] = session_id
    return ids


def git(path: Path, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
        "HOME": str(path),
        "PATH": "/usr/bin:/bin",
    }
    return subprocess.run(["git", *args], cwd=path, check=True, capture_output=True, text=True, env=env).stdout.strip()


def run_to_the_end(start):
    answer = start
    while not answer["isComplete"]:
        answer = continue_workflow(
            stateToken=answer["stateToken"], ackToken=answer["ackToken"], output=notes_for(answer["pending"])
        )

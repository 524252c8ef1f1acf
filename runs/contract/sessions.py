"""What start_session, checkpoint_workflow (on a notes-only session) and resume_session answer."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from runs.contract.base import Shape
from runs.contract.execution import RecordedOutput
from runs.contract.inputs import CheckpointInput
from workflows_app.engine.jsontypes import JsonObject


class NotesSession(Shape):
    session_id: str
    session_key: str | None
    title: str


class SessionNextCall(Shape):
    tool: Literal["checkpoint_workflow"]
    arguments: CheckpointInput
    instructions: str


class SessionCheckpoint(Shape):
    recorded: RecordedOutput
    checkpoint_count: int


class SessionResult(Shape):
    kind: Literal["session"]
    session_token: str
    session: NotesSession
    next_call: SessionNextCall
    joined: bool | None = None
    checkpoint: SessionCheckpoint | None = None


class OtherTip(Shape):
    """Where another branch of the run stands: the run's work after a rewind went on elsewhere."""

    state_token: str
    pending_step_id: str | None
    is_complete: bool
    updated_at: str


class ResumeCandidate(Shape):
    session_id: str
    session_key: str | None
    title: str
    run_id: str | None
    workflow_id: str | None
    status: str | None
    state_token: str | None
    session_token: str | None
    pending_step_id: str | None
    is_complete: bool
    updated_at: str
    snippet: str
    why_matched: list[str]
    layer: int
    score: int
    other_tips: list[OtherTip] | None = Field(
        default=None,
        description="The newest other branch tips of the run (at most 3; stateToken is its latest one): work "
        "a rewound chat left on another branch.",
    )
    other_tip_count: int | None = Field(default=None, description="How many other branch tips the run has.")


class ResumeQuery(Shape):
    query: str | None
    words: list[str]
    git_branch: str | None
    git_head_sha: str | None
    workspace_path: str | None


class ResumeResult(Shape):
    candidates: list[ResumeCandidate] = Field(max_length=5)
    searched: JsonObject = Field(description="What each search layer read and found.")
    query: ResumeQuery

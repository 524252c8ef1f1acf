"""checkpoint_workflow and start_session: durable progress without advancing.

A checkpoint on a run's snapshot creates a checkpoint node: the same pending step, one more entry
of notes on its path, and fresh tokens to go on with. Retrying the same checkpoint (same snapshot,
same output) returns the first answer and records nothing more (a unique constraint). A
checkpoint-only session (start_session) keeps its checkpoints on the session itself.
"""

from __future__ import annotations

import json

from django.conf import settings

from runs.contract import features
from runs.contract.errors import ErrorCode, WorkRailError
from runs.contract.execution import (
    ExecutionResult,
    IssueDict,
    RecordedAnswer,
    RecordedOutput,
    RunCheckpoint,
    engine_issues,
)
from runs.contract.features import Feature
from runs.contract.inputs import CheckpointInput, StartSessionInput, StepOutputDict
from runs.contract.sessions import NotesSession, SessionCheckpoint, SessionNextCall, SessionResult
from runs.execution import placeholders
from runs.execution.answer import node_response
from runs.execution.drafts import draft_issues
from runs.execution.loading import load_node
from runs.execution.recording import create_node, open_session
from runs.execution.replay import output_digest
from runs.models import Checkpoint, Session, SessionKind
from runs.store import events, ratelimit, tokens
from runs.store.journal import Journal, lock_session_key, session_public_id, session_token_id, write
from runs.store.ownership import require_mine
from runs.store.pinned import compiled_workflow
from runs.store.tokens import TokenKind
from workflows_app import engine
from workflows_app.engine import Transition
from workflows_app.engine.model import CompiledWorkflow

CHECKPOINT_NOTE = (
    "Checkpoint recorded. Go on with these tokens: the notes are on their path, so a rewind to them "
    "or a recap shows them."
)


def checkpoint_workflow(request: CheckpointInput) -> ExecutionResult | SessionResult | RecordedAnswer:
    output = request.output.as_dict()
    if not (output.get("notesMarkdown", "").strip() or output.get("artifacts")):
        raise WorkRailError(
            ErrorCode.INVALID_INPUT,
            "A checkpoint needs output.notesMarkdown or output.artifacts.",
            "Send a short recap of the work done since the last step in output.notesMarkdown.",
        )
    if placeholders.is_placeholder(output.get("notesMarkdown")):
        raise WorkRailError(
            ErrorCode.INVALID_INPUT,
            "output.notesMarkdown is still the placeholder from nextCall; nothing was recorded.",
            "Replace it with a short recap of your own: what you did and what is next.",
            details={"pointer": "/output/notesMarkdown"},
        )
    if (request.state_token is None) == (request.session_token is None):
        raise WorkRailError(
            ErrorCode.INVALID_INPUT,
            "Send exactly one of stateToken and sessionToken.",
            "Use the stateToken of the run you are working on"
            + (" (or a sessionToken from start_session)." if features.enabled(Feature.START_SESSION) else "."),
        )
    if request.state_token is not None:
        return _on_run(tokens.parse(settings.WORKRAIL_HOME, request.state_token, TokenKind.STATE).id, output)
    features.require(Feature.START_SESSION, "Checkpoint-only sessions")
    return _on_session(tokens.parse(settings.WORKRAIL_HOME, request.session_token, TokenKind.SESSION).id, output)


def _refuse_bad_artifacts(compiled: CompiledWorkflow | None, output: StepOutputDict) -> None:
    """Artifacts are judged by the engine's rules (the same as on an advance); a checkpoint has no step
    to hold, so a bad one is refused outright and nothing is recorded."""
    issues: list[IssueDict] = engine_issues(engine.recordable_artifact_issues(compiled, output.get("artifacts")))
    issues += draft_issues(output.get("artifacts"), prefix="/artifacts")
    if issues:
        first = issues[0]
        raise WorkRailError(
            ErrorCode.ARTIFACT_INVALID,
            f"{first['message']} Nothing was recorded.",
            "Fix the artifacts (each issue has a JSON pointer into output) and send the checkpoint again, or put "
            "free-form results in notesMarkdown.",
            details={"issues": [{**i, "pointer": "/output" + i.get("pointer", "")} for i in issues]},
        )


def _on_run(node_id: int, output: StepOutputDict) -> ExecutionResult | RecordedAnswer:
    digest = output_digest(output)
    with write() as now:
        node = load_node(node_id)
        run = node.run
        # The journal locks the session first (on PostgreSQL; SQLite's transaction already holds the
        # store), so the same checkpoint sent twice at once is found recorded by the second.
        journal = Journal(run.session, now)
        done = Checkpoint.objects.filter(node=node, output_digest=digest).first()
        if done is not None:
            return RecordedAnswer(done.response_json)
        _refuse_bad_artifacts(compiled_workflow(run.pinned_id), output)
        ratelimit.take(f"run:{run.public_id}")
        journal.projector.know(run, node)
        # The checkpoint node stands where its parent stood: same engine state, same pending step.
        pending = engine.pending_view(compiled_workflow(run.pinned_id), node.engine_state)
        same_place = Transition("complete" if pending is None else "advanced", node.engine_state, pending, None)
        pending_id = node.pending_step_id or None
        child, attempt = create_node(journal, run, node, same_place, notes_recorded=True, preferences=node.preferences)
        response = node_response(
            journal,
            run,
            child,
            attempt,
            pending,
            [],
            kind="checkpoint",
            extra={
                "checkpoint": RunCheckpoint(
                    recorded=_recorded(output), note=CHECKPOINT_NOTE, pending_step_id=pending_id
                )
            },
        )
        _record(journal, run.public_id, node.public_id, child.public_id, digest, output, response)
        return response


def _on_session(token_id: int, output: StepOutputDict) -> SessionResult | RecordedAnswer:
    digest = output_digest(output)
    with write() as now:
        session = _checkpoint_session(token_id)
        journal = Journal(session, now)  # locks the session before the retry check, as in _on_run
        done = Checkpoint.objects.filter(session=session, node__isnull=True, output_digest=digest).first()
        if done is not None:
            return RecordedAnswer(done.response_json)
        _refuse_bad_artifacts(None, output)
        ratelimit.take(f"session:{session.public_id}", what="writes to this session")
        count = session.checkpoints.count() + 1
        response = _session_response(
            session, checkpoint=SessionCheckpoint(recorded=_recorded(output), checkpoint_count=count)
        )
        _record(journal, None, None, None, digest, output, response)
        return response


def start_session(request: StartSessionInput) -> SessionResult:
    """A checkpoint-only session: somewhere to keep durable notes when no workflow runs."""
    key = request.session_key
    with write() as now:
        if key:
            lock_session_key(key)  # a concurrent start_session with the same key waits, then joins
            existing = Session.objects.filter(session_key=key).first()
            if existing is not None:
                require_mine(existing, joining_key=key)  # a key names one session on the whole store: joining is using
            if existing is not None and existing.kind == SessionKind.CHECKPOINT_ONLY:
                return _session_response(existing, joined=True)
            if existing is not None:
                raise WorkRailError(
                    ErrorCode.INVALID_INPUT,
                    f"sessionKey '{key}' belongs to a workflow session.",
                    "Use another sessionKey, or checkpoint that session's run with its stateToken.",
                )
        ratelimit.take(ratelimit.STARTS, what="new runs and sessions")
        journal = open_session(
            key or None,
            request.title or key or "Notes",
            list(request.tags or []),
            now,
            kind=SessionKind.CHECKPOINT_ONLY,
        )
        journal.flush()
        return _session_response(journal.session, joined=False)


def _record(
    journal: Journal,
    run_id: str | None,
    node_id: int | None,
    child_id: int | None,
    digest: str,
    output: StepOutputDict,
    response: ExecutionResult | SessionResult,
) -> None:
    """The checkpoint event (its projection is the Checkpoint row), then the transaction's flush."""
    journal.record(
        events.CheckpointRecorded(
            run_id=run_id,
            node_id=node_id,
            child_node_id=child_id,
            output_digest=digest,
            notes_markdown=output.get("notesMarkdown", ""),
            artifacts=output.get("artifacts", []),
            response=json.dumps(response.dump(), ensure_ascii=False),
        )
    )
    journal.flush()


def _checkpoint_session(token_id: int) -> Session:
    session = Session.objects.filter(public_id=session_public_id(token_id)).first()
    if session is None or session.kind != SessionKind.CHECKPOINT_ONLY:
        find = " or resume_session to find an existing one" if features.enabled(Feature.RESUME_SESSION) else ""
        raise WorkRailError(
            ErrorCode.TOKEN_UNKNOWN,
            "This sessionToken names no checkpoint-only session here.",
            f"Call start_session for a new one{find}.",
        )
    require_mine(session)
    return session


def _session_response(
    session: Session, *, joined: bool | None = None, checkpoint: SessionCheckpoint | None = None
) -> SessionResult:
    token = tokens.mint(settings.WORKRAIL_HOME, TokenKind.SESSION, session_token_id(session))
    result = SessionResult(
        kind="session",
        session_token=token,
        session=NotesSession(session_id=session.public_id, session_key=session.session_key, title=session.title),
        next_call=SessionNextCall(
            tool="checkpoint_workflow",
            arguments=CheckpointInput.model_validate(
                {"sessionToken": token, "output": {"notesMarkdown": placeholders.SESSION_NOTES}}
            ),
            instructions="After a meaningful piece of work, record a short recap with checkpoint_workflow "
            "(replace the '<fill in ...>' notes with your own).",
        ),
    )
    # Only what applies is set, so the answer leaves out the rest.
    if joined is not None:
        result.joined = joined
    if checkpoint is not None:
        result.checkpoint = checkpoint
    return result


def _recorded(output: StepOutputDict) -> RecordedOutput:
    return RecordedOutput(
        notes_markdown=output.get("notesMarkdown", ""),
        artifact_kinds=[a["kind"] for a in output.get("artifacts", [])],
    )

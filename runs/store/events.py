"""The payload of each event kind, defined once.

Services build these objects and hand them to the Journal, which stores their JSON in the event
log; the projector applies them (objects on the live path, parsed back from JSON by
`rebuild_projections`); tests and benchmarks that need events build them the same way. The wire
names (camelCase) are those of the event log, so stores written before these models still read.
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar

from pydantic import Field, field_validator

from runs.contract.base import Shape
from runs.models import EventKind
from workflows_app.engine.jsontypes import JsonObject
from workflows_app.engine.trace import Trace


class EventPayload(Shape):
    kind: ClassVar[EventKind]
    # Whether the event is activity in the session: it moves Session.updated_at, which the dashboard
    # sorts by and retention counts from. Reading a session out (an export) is recorded, but is not.
    is_activity: ClassVar[bool] = True

    def data(self) -> JsonObject:
        """The JSON stored in Event.data: every field, set or defaulted, under its wire name. The
        fields are JSON values already (that is what the model checked), so no conversion is needed."""
        return {alias: getattr(self, name) for name, alias in _wire_names(type(self))}


@functools.cache
def _wire_names(model: type[EventPayload]) -> tuple[tuple[str, str], ...]:
    return tuple((name, field.alias or name) for name, field in model.model_fields.items())


class SessionCreated(EventPayload):
    kind = EventKind.SESSION_CREATED
    session_id: str
    session_key: str | None
    title: str
    session_kind: str = Field(alias="kind", default="workflow")
    tags: list[str] = Field(default_factory=list)
    preferences: dict[str, str] = Field(default_factory=dict)


class RunStarted(EventPayload):
    kind = EventKind.RUN_STARTED
    run_id: str
    workflow_id: str
    workflow_name: str | None = None
    workflow_hash: str
    source_path: str
    source_stat: str
    parent_run_id: str | None = Field(
        default=None,
        description="Set for a delegation of a parallel step, and for a run linked to a step with start_workflow's "
        "parentStateToken (its delegation_index is None).",
    )
    parent_node_id: int | None = None
    delegation_index: int | None = None
    head_commit: str | None = Field(
        default=None,
        max_length=64,
        description="The commit HEAD was at in the session's repository when the run started; left out of the "
        "stored JSON when the workspace is not a git repository (or the call came from another machine).",
    )

    def data(self) -> JsonObject:
        return _without_absent_commit(super().data())


class NodeCreated(EventPayload):
    """A node: the engine state after an advance (or a checkpoint, which keeps the state it was on).

    `trace` is why the engine moved to this node's pending step: the runConditions, loop conditions
    and loop decisions it evaluated on the way, with the values they read (workflows_app/engine/
    trace.py writes and checks it). It is a field of this event rather than an event of its own
    because it is a fact about how this node came to be, written once, in the same record: no second
    row per advance on the hot path, no second copy of the run and node ids, and no new kind that
    every reader of the log (bundles, their id renaming and rules) would have to learn. It is left
    out of the stored JSON when absent (a checkpoint's node, and every node recorded before traces
    were kept), so those events keep exactly the form they were written in.
    """

    kind = EventKind.NODE_CREATED
    run_id: str
    node_id: int
    parent_node_id: int | None
    depth: int
    notes_on_path: int
    engine_state: JsonObject
    preferences: dict[str, str]
    pending_step_id: str | None
    is_complete: bool
    trace: JsonObject | None = None

    @field_validator("trace", mode="before")
    @classmethod
    def _a_trace_the_engine_writes(cls, value: Any) -> Any:
        """The engine's own Trace is stored as its JSON; JSON read from a log (a bundle's is not trusted)
        must be a trace the engine would have written: bounded and well formed, or refused."""
        if isinstance(value, Trace):
            return value.to_json()
        if value is not None:
            Trace.from_json(value)
        return value

    def data(self) -> JsonObject:
        data = super().data()
        if data["trace"] is None:
            del data["trace"]
        return data


class AttemptIssued(EventPayload):
    kind = EventKind.ATTEMPT_ISSUED
    run_id: str
    node_id: int
    attempt_id: int


class StepAcked(EventPayload):
    kind = EventKind.STEP_ACKED
    run_id: str
    node_id: int
    attempt_id: int
    child_node_id: int | None
    outcome: str
    output_digest: str
    response: str = Field(description="The answer given, as JSON text: a replay returns exactly these bytes.")
    refused: JsonObject | None = Field(
        default=None,
        description="A refused (blocked) answer only: what the agent sent, in short, so a developer can see it "
        "(runs/readmodels/blocked.py): notesPreview, artifactKinds, contextKeys. Left out of the stored JSON "
        "when unset, so every other acknowledgement is stored as before.",
    )

    @field_validator("refused")
    @classmethod
    def _a_short_summary(cls, value: JsonObject | None) -> JsonObject | None:
        """What recording.refused_summary writes, and no more (a bundle's log is not trusted)."""
        if value is None:
            return None
        notes, kinds, keys = value.get("notesPreview"), value.get("artifactKinds"), value.get("contextKeys")
        well_formed = (
            set(value) <= {"notesPreview", "artifactKinds", "artifactCount", "contextKeys"}
            and isinstance(notes, str)
            and len(notes) <= MAX_REFUSED_NOTES
            and all(isinstance(x, list) and len(x) <= MAX_REFUSED_NAMES for x in (kinds, keys))
            and all(isinstance(name, str) and len(name) <= 200 for name in [*kinds, *keys])  # type: ignore[misc]
            and isinstance(value.get("artifactCount", 0), int)
        )
        if not well_formed:
            raise ValueError("refused must be a short summary: notesPreview, artifactKinds, artifactCount, contextKeys")
        return value

    def data(self) -> JsonObject:
        found = super().data()
        if found["refused"] is None:  # every answer but a refusal, and every one recorded before
            del found["refused"]
        return found


MAX_REFUSED_NOTES = 1000
MAX_REFUSED_NAMES = 200


class OutputRecorded(EventPayload):
    kind = EventKind.OUTPUT_RECORDED
    run_id: str
    node_id: int
    child_node_id: int
    step_id: str
    step_title: str
    notes_markdown: str
    artifacts: list[JsonObject]


class RunStatusChanged(EventPayload):
    kind = EventKind.RUN_STATUS_CHANGED
    run_id: str
    from_status: str = Field(alias="from")
    to: str


class RunCompleted(RunStatusChanged):
    kind = EventKind.RUN_COMPLETED
    head_commit: str | None = Field(
        default=None,
        max_length=64,
        description="The commit HEAD was at when the run completed; left out when none was seen (as in RunStarted).",
    )

    def data(self) -> JsonObject:
        return _without_absent_commit(super().data())


def _without_absent_commit(data: JsonObject) -> JsonObject:
    """A run outside git (and every run recorded before commits were) keeps the event's earlier form."""
    if data.get("headCommit") is None:
        data.pop("headCommit", None)
    return data


class WarningRecorded(EventPayload):
    kind = EventKind.WARNING_RECORDED
    run_id: str
    node_id: int
    code: str
    message: str
    once_key: str | None = Field(
        default=None, description="Set for a warning given once per run: the same key is not given again."
    )


class CheckpointRecorded(EventPayload):
    kind = EventKind.CHECKPOINT_RECORDED
    run_id: str | None
    node_id: int | None
    child_node_id: int | None
    output_digest: str
    notes_markdown: str
    artifacts: list[JsonObject]
    response: str


class PreferencesChanged(EventPayload):
    """A change of preferences. From an agent's call: attached to the node the change created. From the
    dashboard: `run_id`/`node_id` name an open tip whose next step takes the new preferences, or are
    both None for the session's baseline (what its next runs start with)."""

    kind = EventKind.PREFERENCES_CHANGED
    run_id: str | None
    node_id: int | None
    preferences: dict[str, str]
    previous: dict[str, str]
    source: str = Field(default="agent", description="'agent' (a tool call) or 'dashboard'.")


class ObservationRecorded(EventPayload):
    kind = EventKind.OBSERVATION_RECORDED
    run_id: str | None = None
    git_branch: str | None = None
    git_head_sha: str | None = None
    workspace_path: str | None = None


class GapRecorded(EventPayload):
    kind = EventKind.GAP_RECORDED
    run_id: str
    node_id: int
    step_id: str
    reason: str
    description: str = ""


class RunFinalized(EventPayload):
    kind = EventKind.RUN_FINALIZED
    run_id: str
    node_id: int
    synthesis: JsonObject


class SessionExported(EventPayload):
    """A bundle or a report was made of this session (or of one of its runs). Bundles leave these
    records out: they are this store's history of sharing, not the work itself."""

    kind = EventKind.SESSION_EXPORTED
    is_activity = False
    export_format: str = Field(alias="format", description="'bundle', 'markdown' or 'pdf'.")
    run_id: str | None = None
    digest: str = Field(description="sha256 of the file produced.")
    via: str = Field(description="'command', 'dashboard' or 'api'.")


class SessionImported(EventPayload):
    """The session came from a bundle: the events before this one are the bundle's, with fresh ids."""

    kind = EventKind.SESSION_IMPORTED
    # Not activity: an imported session's last activity is its own work's, as the bundle recorded it.
    is_activity = False
    bundle_digest: str
    original_session_id: str
    bundle_schema_version: int
    exported_by: str = Field(default="", description="The producer named in the bundle.")
    via: str = Field(description="'command', 'dashboard' or 'api'.")


class OperatorForked(EventPayload):
    """A developer started a new branch from a node, with edited context and a reason (the dashboard's
    or the API's operator fork). The branch's first node is the `node_created` just before this event
    (same pending step, the edited context); this event says who made it, why, and what changed."""

    kind = EventKind.OPERATOR_FORKED
    run_id: str
    node_id: int = Field(description="The node forked from.")
    child_node_id: int = Field(description="The new branch's first node.")
    reason: str
    context_set: JsonObject = Field(description="The context keys set, with their new values.")
    context_removed: list[str] = Field(description="The context keys removed.")
    via: str = Field(description="'dashboard' or 'api'.")


SHARING_KINDS = frozenset({EventKind.SESSION_EXPORTED.value, EventKind.SESSION_IMPORTED.value})

PAYLOADS: dict[str, type[EventPayload]] = {
    cls.kind.value: cls
    for cls in (
        SessionCreated,
        RunStarted,
        NodeCreated,
        AttemptIssued,
        StepAcked,
        OutputRecorded,
        RunStatusChanged,
        RunCompleted,
        WarningRecorded,
        CheckpointRecorded,
        PreferencesChanged,
        ObservationRecorded,
        GapRecorded,
        RunFinalized,
        SessionExported,
        SessionImported,
        OperatorForked,
    )
}


def parse(kind: str, data: JsonObject) -> EventPayload:
    """An event's payload object, from the JSON stored in the log."""
    return PAYLOADS[kind].model_validate(data)

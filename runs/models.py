"""The durable store. `Event` is the source of truth: an append-only log per session. Every other
model is a projection of that log, written in the same transaction as the events that describe it
and rebuildable from them (`manage.py rebuild_projections`). `PinnedWorkflow` is content-addressed
storage (keyed by its own hash), not a projection.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.db import models


class EventKind(models.TextChoices):
    SESSION_CREATED = "session_created"
    RUN_STARTED = "run_started"
    NODE_CREATED = "node_created"
    ATTEMPT_ISSUED = "attempt_issued"
    STEP_ACKED = "step_acked"
    OUTPUT_RECORDED = "output_recorded"
    RUN_STATUS_CHANGED = "run_status_changed"
    RUN_COMPLETED = "run_completed"
    WARNING_RECORDED = "warning_recorded"
    CHECKPOINT_RECORDED = "checkpoint_recorded"
    PREFERENCES_CHANGED = "preferences_changed"
    OBSERVATION_RECORDED = "observation_recorded"
    GAP_RECORDED = "gap_recorded"
    RUN_FINALIZED = "run_finalized"
    SESSION_EXPORTED = "session_exported"
    SESSION_IMPORTED = "session_imported"
    OPERATOR_FORKED = "operator_forked"  # a developer started a branch from a node (runs/execution/operator_fork.py)


class AppendOnlyError(Exception):
    """Raised when code tries to change or remove a single event."""


class EventQuerySet(models.QuerySet["Event"]):
    def update(self, **kwargs: Any) -> int:
        raise AppendOnlyError("Events are append-only; they cannot be updated.")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise AppendOnlyError("Events are deleted only with their whole session (retention).")


class SessionKind(models.TextChoices):
    WORKFLOW = "workflow"
    CHECKPOINT_ONLY = "checkpoint_only"  # made by start_session: durable notes without a workflow


class SessionStatus(models.TextChoices):
    """A session's status, summarised from its runs (delegations aside) by the projector."""

    IN_PROGRESS = "in_progress"
    BLOCKED = "blocked"
    COMPLETE = "complete"
    CANCELED = "canceled"
    NOTES = "notes"  # a checkpoint-only session: durable notes, no workflow to finish


class Session(models.Model):
    public_id = models.CharField("ID", max_length=32, unique=True)
    session_key = models.CharField(max_length=200, null=True, blank=True, unique=True)
    title = models.CharField(max_length=200, blank=True, default="")
    kind = models.CharField(max_length=20, choices=SessionKind.choices, default=SessionKind.WORKFLOW)
    tags = models.JSONField(default=list, blank=True)
    preferences = models.JSONField(default=dict, blank=True)  # the baseline copied from global defaults
    last_seq = models.PositiveBigIntegerField(default=0)  # the seq of the newest event: keeps seq gap-free
    # A summary of the session's runs, kept by the projector so the sessions page can filter, sort and
    # group ten thousand sessions without reading their runs.
    status = models.CharField(max_length=16, choices=SessionStatus.choices, default=SessionStatus.IN_PROGRESS)
    # space-separated, first run first
    workflow_ids = models.CharField("workflows", max_length=1000, blank=True, default="")
    run_count = models.PositiveIntegerField(default=0)
    branch_count = models.PositiveIntegerField(default=0)
    # Where the work happens, as last observed (runs/execution/workspace.py): the repository's root, the
    # branch ("" when HEAD is detached) and the commit HEAD was at. The dashboard groups by the first two.
    git_branch = models.CharField(max_length=255, blank=True, default="")
    git_head_sha = models.CharField("git HEAD", max_length=64, blank=True, default="")
    workspace_path = models.CharField("repository", max_length=1024, blank=True, default="")
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField("last activity")  # every recorded event moves it
    # A session an import is still writing, in short transactions (exports/bundle/importing.py): no
    # listing, search or lookup shows it, its public id and its runs' are stand-ins and it has no key,
    # until one last short transaction gives it its own and clears this. Meanwhile `updated_at` is the
    # import's heartbeat; one that stopped long ago was abandoned and cleanup removes it (runs/store/staged.py).
    importing = models.BooleanField(default=False)
    # Who started it: the actor of its session_created event (runs/store/actors.py), projected. "" for a
    # session made on this machine (stdio, a command) or before owners: anyone on the store may use it.
    owner = models.CharField(max_length=64, blank=True, default="")
    # One of its own runs in progress waits for the user's confirmation (Run.waits_for_user): not stalled.
    waiting_for_user = models.BooleanField(default=False)

    class Meta:
        indexes = [
            models.Index(fields=["-updated_at"], name="session_by_activity"),
            models.Index(fields=["status", "-updated_at"], name="session_by_status"),
            models.Index(fields=["git_branch", "-updated_at"], name="session_by_branch"),
            # Few rows, if any: what hides imports in progress and finds abandoned ones stays cheap.
            models.Index(fields=["updated_at"], name="session_importing", condition=models.Q(importing=True)),
            # Only owned sessions: whether a store has owners at all, and one owner's sessions, stay cheap
            # on a store where nobody has one.
            models.Index(fields=["owner", "-updated_at"], name="session_by_owner", condition=~models.Q(owner="")),
        ]

    def __str__(self) -> str:
        return f"{self.title} ({self.public_id})" if self.title else self.public_id


class Event(models.Model):
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveBigIntegerField()
    kind = models.CharField(max_length=32, choices=EventKind.choices)
    data = models.JSONField()
    created_at = models.DateTimeField()
    # Who made it (runs/store/actors.py): the API token's owner or the dashboard user; "" for a local
    # process. And the door it came through: "stdio", "http", "api", "dashboard", "command"; "" before
    # these were recorded. Not part of `data`, so an event's payload reads the same whoever made it.
    actor = models.CharField(max_length=64, blank=True, default="")
    door = models.CharField(max_length=16, blank=True, default="")
    # The MCP client's declared name (initialize's clientInfo.name, e.g. "claude-code") for an event an agent
    # made through an MCP door; "" otherwise, and before it was recorded. Text the client chose: shown escaped.
    client_name = models.CharField(max_length=64, blank=True, default="")

    objects: ClassVar[EventQuerySet] = EventQuerySet.as_manager()  # type: ignore[assignment]

    class Meta:
        constraints = [models.UniqueConstraint(fields=["session", "seq"], name="event_seq_unique_per_session")]
        # The rare kinds read on their own (operator forks: runs/readmodels/forks.py and branches.py) are
        # found without reading a session's every event: a rewound run's session holds thousands.
        indexes = [
            models.Index(fields=["session", "kind"], name="event_kind_per_session"),
            # Who worked on a session (its page, its reports) is read from the few events that name someone.
            models.Index(fields=["session", "actor"], name="event_actor_per_session", condition=~models.Q(actor="")),
        ]
        ordering = ["session", "seq"]

    def __str__(self) -> str:
        return f"{self.session_id}#{self.seq} {self.kind}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None:
            raise AppendOnlyError("Events are append-only; they cannot be updated.")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise AppendOnlyError("Events are deleted only with their whole session (retention).")


class PinnedWorkflow(models.Model):
    workflow_hash = models.CharField(max_length=80, primary_key=True)
    workflow_id = models.CharField(max_length=64)
    compiled = models.JSONField()
    created_at = models.DateTimeField()

    class Meta:
        # The exact version a run follows, kept while the catalog changes: the run page's "pinned copy"
        # (friction60a 17: "Pinned workflows" read as a table name).
        verbose_name = "workflow copy"
        verbose_name_plural = "workflow copies"

    def __str__(self) -> str:
        return f"{self.workflow_id} {self.workflow_hash[:19]}"


class RunStatus(models.TextChoices):
    IN_PROGRESS = "in_progress"
    BLOCKED = "blocked"
    COMPLETE = "complete"
    CANCELED = "canceled"


class Run(models.Model):
    public_id = models.CharField("ID", max_length=32, unique=True)
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="runs")
    workflow_id = models.CharField(max_length=64)
    pinned = models.ForeignKey(PinnedWorkflow, on_delete=models.PROTECT, related_name="runs")
    source_path = models.CharField(max_length=1024, blank=True, default="")
    source_stat = models.CharField(max_length=64, blank=True, default="")  # "mtime_ns:size" when pinned
    status = models.CharField(max_length=16, choices=RunStatus.choices, default=RunStatus.IN_PROGRESS)
    # Keys of the warnings given once per run (a choice of mode above the workflow's recommendation,
    # a changed workflow file): later answers leave them out.
    announced = models.JSONField(default=list, blank=True)
    # A delegation of a parallel step runs as a run of its own, linked to the node that handed it out; so
    # does a run the agent starts with start_workflow's parentStateToken (its delegation_index is None).
    parent_run = models.ForeignKey("self", null=True, blank=True, on_delete=models.CASCADE, related_name="delegated")
    parent_node = models.ForeignKey(
        "Node", null=True, blank=True, on_delete=models.CASCADE, related_name="delegated_runs"
    )
    delegation_index = models.PositiveIntegerField(null=True, blank=True)
    node_count = models.PositiveIntegerField(default=0)
    branch_count = models.PositiveIntegerField(default=1)  # 1 + the forks: a node given a second child
    # The commit HEAD was at in the session's repository when the run started (its run_started event, else
    # its first observation) and when it completed (its run_completed event); "" when not seen (outside git).
    start_commit = models.CharField(max_length=64, blank=True, default="")
    end_commit = models.CharField(max_length=64, blank=True, default="")
    # Its newest node's pending step asks for the user's confirmation (runs/store/waiting.py): the run is
    # quiet because it waits for a person, never "stalled".
    waits_for_user = models.BooleanField(default=False)
    # Which of a person's agent chats it belongs to (runs/readmodels/agent_message.chat): the MCP client that
    # started it, by its declared name (its run_started event's client_name; "" when not recorded), and when
    # its session was last imported here, if it started before that (null: started by a chat on this store).
    client_name = models.CharField(max_length=64, blank=True, default="")
    imported_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.workflow_id} ({self.public_id})"


class Node(models.Model):
    """One snapshot of a run: the engine state after some sequence of acknowledged steps."""

    public_id = models.BigIntegerField("ID", unique=True)  # random; what a stateToken names
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="nodes")
    parent = models.ForeignKey("self", on_delete=models.CASCADE, null=True, blank=True, related_name="children")
    latest_child = models.ForeignKey("self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    depth = models.PositiveIntegerField(default=0)
    notes_on_path = models.PositiveIntegerField(default=0)  # outputs recorded from the root to here
    engine_state = models.JSONField()
    preferences = models.JSONField(default=dict)
    pending_step_id = models.CharField(max_length=200, blank=True, default="")
    is_complete = models.BooleanField("complete", default=False)
    # Why the engine moved to this node's pending step (workflows_app/engine/trace.py, as JSON); null
    # when not recorded: a checkpoint's node, or a node recorded before traces were kept.
    trace = models.JSONField(null=True, blank=True, default=None)
    created_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["run", "depth"])]
        verbose_name = "step"  # the dashboard's word for what a node records (friction26b 19: "Nodes")
        verbose_name_plural = "steps"

    def __str__(self) -> str:
        if self.is_complete:
            return f"complete (node {self.public_id})"
        return f"{self.pending_step_id or 'start'} (node {self.public_id})"


class Attempt(models.Model):
    """An ackToken: permission to acknowledge the pending step of one node, at most once."""

    public_id = models.BigIntegerField("ID", unique=True)
    node = models.ForeignKey(Node, on_delete=models.CASCADE, related_name="attempts")
    created_at = models.DateTimeField()

    class Meta:
        # What it is to a person reading the admin: the one-use token an answer carries (friction60a 17:
        # "Step attempts" named no thing they had seen).
        verbose_name = "answer token"
        verbose_name_plural = "answer tokens"

    def __str__(self) -> str:
        return f"ack token {self.public_id} for {self.node}"


class AckOutcome(models.TextChoices):
    ADVANCED = "advanced"
    BLOCKED = "blocked"
    COMPLETE = "complete"


class Ack(models.Model):
    """The recorded answer to an attempt. One per attempt, enforced by the database: this is what
    makes a replayed or concurrent ack return the same answer instead of advancing twice."""

    attempt = models.OneToOneField(Attempt, on_delete=models.CASCADE, related_name="ack")
    node = models.ForeignKey(Node, on_delete=models.CASCADE, related_name="acks")
    child = models.ForeignKey(Node, on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    outcome = models.CharField(max_length=16, choices=AckOutcome.choices)
    output_digest = models.CharField(max_length=80)  # to tell a replay with other output
    # The exact JSON text returned, so a replay is byte-identical on every backend (jsonb reorders keys).
    response_json = models.TextField()
    # A refused answer: what the agent sent, in short (notesPreview, artifactKinds, contextKeys); else null.
    refused = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField()

    class Meta:
        verbose_name = "step answer"  # plain words in the admin; "ack" is the API's (friction12 13)
        verbose_name_plural = "step answers"

    def __str__(self) -> str:
        return f"{self.outcome} ack of {self.node}"


class Output(models.Model):
    """Durable notes and artifacts an agent sent with an acknowledged step."""

    node = models.ForeignKey(Node, on_delete=models.CASCADE, related_name="outputs")  # the step's node
    child = models.ForeignKey(Node, on_delete=models.CASCADE, related_name="incoming_outputs")  # where it led
    step_id = models.CharField(max_length=200)
    step_title = models.CharField(max_length=200)
    notes_markdown = models.TextField(blank=True, default="")
    artifacts = models.JSONField(default=list)
    created_at = models.DateTimeField()

    class Meta:
        verbose_name = "step note"  # what the agent handed in with an answer (friction60a 17: "Outputs")
        verbose_name_plural = "step notes"

    def __str__(self) -> str:
        return f"{self.step_title or self.step_id}: notes and {len(self.artifacts)} artifact(s)"


class Checkpoint(models.Model):
    """Durable progress recorded on a node without advancing it. For a run it leads to a checkpoint
    node (same pending step, the notes on its path); for a checkpoint-only session it has no node."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="checkpoints")
    node = models.ForeignKey(Node, on_delete=models.CASCADE, null=True, blank=True, related_name="checkpoints")
    child = models.ForeignKey(Node, on_delete=models.CASCADE, null=True, blank=True, related_name="checkpoints_made")
    output_digest = models.CharField(max_length=80)
    notes_markdown = models.TextField(blank=True, default="")
    artifacts = models.JSONField(default=list)
    response_json = models.TextField()  # the answer given, returned again when the same checkpoint is retried
    created_at = models.DateTimeField()

    class Meta:
        constraints = [
            # Retrying a checkpoint is safe: the same output on the same node (or session) is recorded once.
            models.UniqueConstraint(
                fields=["node", "output_digest"],
                name="checkpoint_once_per_node",
                condition=models.Q(node__isnull=False),
            ),
            models.UniqueConstraint(
                fields=["session", "output_digest"],
                name="checkpoint_once_per_session",
                condition=models.Q(node__isnull=True),
            ),
        ]

    def __str__(self) -> str:
        return f"checkpoint of {self.created_at:%Y-%m-%d %H:%M}"


class Observation(models.Model):
    """Where the work happened (git branch and HEAD), as seen when a run started or advanced."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="observations")
    run = models.ForeignKey(Run, on_delete=models.CASCADE, null=True, blank=True, related_name="observations")
    git_branch = models.CharField(max_length=255, blank=True, default="")
    git_head_sha = models.CharField(max_length=64, blank=True, default="")
    workspace_path = models.CharField(max_length=1024, blank=True, default="")
    created_at = models.DateTimeField()

    class Meta:
        verbose_name = "git commit worked on"
        verbose_name_plural = "git commits worked on"

    def __str__(self) -> str:
        return f"{self.git_branch}@{self.git_head_sha[:8]}"


class Gap(models.Model):
    """A user-only dependency that full_auto_never_stop went past: disclosed, never silently dropped."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="gaps")
    node = models.ForeignKey(Node, on_delete=models.CASCADE, related_name="gaps")
    step_id = models.CharField(max_length=200)
    reason = models.CharField(max_length=40)
    description = models.TextField(blank=True, default="")
    created_at = models.DateTimeField()

    class Meta:
        # The run page lists these under "Gaps"; here, what one is (friction60a 17), in plain words (friction63a 15:
        # "the agent went past" and its line read as a riddle).
        verbose_name = "question a full-auto run skipped"
        verbose_name_plural = "questions a full-auto run skipped"

    def __str__(self) -> str:
        return f"gap {self.reason} at {self.step_id}"


class RunSynthesis(models.Model):
    """The finalized record of a completed branch: its notes and artifacts, in order."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="syntheses")
    node = models.OneToOneField(Node, on_delete=models.CASCADE, related_name="synthesis")
    synthesis = models.JSONField()
    created_at = models.DateTimeField()

    class Meta:
        verbose_name = "branch summary"  # friction60a 17: "Finished branch records" read as a table name
        verbose_name_plural = "branch summaries"

    def __str__(self) -> str:
        return f"synthesis of {self.run_id}"


class VisibleSearchEntries(models.Manager["SearchEntry"]):
    """`SearchEntry.objects`, what searches read: the entries of the store's sessions, without those of
    a session an import is still writing (Session.importing), so a search never hands out a stateToken
    into half a session. A subquery over the few staged sessions, not a join per entry. Django's own
    machinery (the compiled updates of runs/store/statements.py, deletions) uses `_default_manager`, which
    is `every_row`: the projector keeps a staged session's entries up to date like any other."""

    def get_queryset(self) -> models.QuerySet[SearchEntry]:
        staged = Session.objects.filter(importing=True).values("pk")
        return super().get_queryset().exclude(session_id__in=staged)


class SearchEntry(models.Model):
    """What resume_session searches: one row per run (its latest tip) and per checkpoint-only session.
    Lower-cased text kept up to date by the projections, so a search is a few indexed reads, not a
    walk over every session's history."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="search_entries")
    run = models.OneToOneField(Run, on_delete=models.CASCADE, null=True, blank=True, related_name="search_entry")
    tip = models.ForeignKey(Node, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    identity_text = models.TextField(blank=True, default="")  # session key, title, tags, workflow id and name
    notes_text = models.TextField(blank=True, default="")  # notes and artifact kinds near the tip, bounded
    git_branch = models.CharField(max_length=255, blank=True, default="")
    git_head_sha = models.CharField(max_length=64, blank=True, default="")
    workspace_path = models.CharField(max_length=1024, blank=True, default="")
    updated_at = models.DateTimeField()

    every_row = models.Manager()
    objects = VisibleSearchEntries()

    class Meta:
        default_manager_name = "every_row"
        verbose_name = "search entry"
        verbose_name_plural = "search entries"
        indexes = [models.Index(fields=["-updated_at"]), models.Index(fields=["git_branch"])]

    def __str__(self) -> str:
        return f"search entry of {self.session_id}"


class ToolCall(models.Model):
    """The duration and outcome of one MCP tool call: telemetry for the dashboard's timings page, not
    part of the event log. The table is bounded (runs.mcp.timings keeps the newest rows)."""

    tool = models.CharField(max_length=64)
    outcome = models.CharField(max_length=40)  # "ok", "blocked", or the error code
    duration_ms = models.FloatField("duration (ms)")
    started_at = models.DateTimeField(db_index=True)
    # What the call was about and how it failed (runs/store/call_notes.py), for the timings page to say
    # and link: public ids (not keys: the run may be deleted since, the row then just has no link) and an
    # unexpected exception's class name (its message is only in the server log).
    run_id = models.CharField(max_length=32, blank=True, default="")
    session_id = models.CharField(max_length=32, blank=True, default="")
    exception = models.CharField(max_length=64, blank=True, default="")
    # A failed call's own error message, as the agent was told it (a WorkRailError's, written by the server):
    # the timings page says why the call failed. Never an unexpected exception's message (the server log's).
    message = models.CharField(max_length=300, blank=True, default="")

    class Meta:
        indexes = [models.Index(fields=["tool", "-started_at"], name="toolcall_by_tool")]

    def __str__(self) -> str:
        return f"{self.tool} {self.outcome} {self.duration_ms:.1f} ms"


class RateBucket(models.Model):
    """A token bucket of the write rate limit (runs/store/ratelimit.py), in the database so that every process
    on the store (MCP servers, the dashboard) spends from the same one. Not part of the event log."""

    key = models.CharField(max_length=80, primary_key=True)  # "run:<id>", "session:<id>", "starts"
    tokens = models.FloatField()
    stamp = models.FloatField()  # wall-clock seconds of the last take: every process shares the clock
    spent = models.BooleanField(default=True)  # whether the last take got a token

    def __str__(self) -> str:
        return f"{self.key}: {self.tokens:.1f}"


class ApiToken(models.Model):
    """A local token for the HTTP API (runs/store/api_tokens.py). Only the SHA-256 digest of the token
    is kept: the token itself is printed once by `manage.py create_api_token` and nowhere stored. A
    revoked token keeps its row (who had access, and until when); its name may be given to a new one.
    Not part of the event log."""

    name = models.CharField(max_length=64)
    # Whom the token acts for: every event made with it records this owner (runs/store/actors.py). One
    # owner may hold several tokens (a laptop, a CI machine); tokens made before owners were their own.
    owner = models.CharField(max_length=64)
    digest = models.CharField(max_length=64, unique=True)  # hex SHA-256 of the token
    created_at = models.DateTimeField()
    last_used_at = models.DateTimeField(null=True, blank=True)  # to the minute: not a write per request
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "API token"
        constraints = [
            # One live token per name; revoked ones keep theirs for the record.
            models.UniqueConstraint(
                fields=["name"], condition=models.Q(revoked_at__isnull=True), name="apitoken_live_name_unique"
            ),
        ]

    def __str__(self) -> str:
        return self.name

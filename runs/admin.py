"""The Django admin as a read-only audit view of the store.

Everything in `runs` is either the append-only event log or a projection rebuilt from it
(runs/models.py), so an edit made here would make the database disagree with its own history: every
model is registered read-only (view permission only, no actions). The pages are for reading: rows
name workflows, steps, runs and sessions by their public ids, foreign keys are links, and the big
JSON documents are pretty-printed. API tokens are not part of the log: they are shown read-only too
(never their digests), with one action, revoking, which records the time and keeps the row.

Titles, notes and artifacts are written by agents and may contain HTML: every helper below builds
markup with `format_html`, which escapes what it is given, and nothing is marked safe by hand.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any

from axes.admin import AccessAttemptAdmin, AccessFailureLogAdmin, AccessLogAdmin
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib import admin, messages
from django.contrib.admin.utils import quote
from django.contrib.auth.models import Group
from django.db import models
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.http import urlencode
from django.utils.text import Truncator

from runs.models import (
    Ack,
    ApiToken,
    Attempt,
    Checkpoint,
    Event,
    Gap,
    Node,
    Observation,
    Output,
    PinnedWorkflow,
    Run,
    RunSynthesis,
    SearchEntry,
    Session,
    ToolCall,
)
from runs.store import api_tokens

admin.site.site_header = "WorkRail admin"
admin.site.site_title = "WorkRail admin"
admin.site.index_title = "Records (read only), users and sign-ins"
admin.site.site_url = None  # the header links "Back to Sessions" instead (templates/admin/base_site.html)


# The index in a person's terms (friction60a 17, 60b 11: one list of internal table names). The run records
# fall in two sections, what the dashboard shows first, then what only a developer reads; API tokens are
# access, not a record of runs, so they sit with Users, where a person looks for who may get in (friction16a
# 19). Each section lists its tables in this order, and each table has one line on what a row is, shown
# under its name (templates/admin/app_list.html).
SECTIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("auth", "Who can sign in", ("User", "ApiToken")),
    (
        "runs",
        "Sessions and runs (read only)",
        ("Session", "Run", "Node", "Ack", "Output", "Checkpoint", "RunSynthesis", "Gap", "Observation"),
    ),
    ("runs", "For developers (read only)", ("Event", "Attempt", "PinnedWorkflow", "ToolCall", "SearchEntry")),
)
DESCRIPTIONS: dict[str, str] = {
    "User": "Who can sign in here and copy the connect page's working commands.",
    # Revoking is the list's action, not a change form: the row's only link is "View" (friction62a 12: "revoke one
    # here" beside a lone "View" read as false).
    "ApiToken": "Keys for the HTTP API and a team's server; to revoke one, tick it in the list, then "
    "\u201cRevoke selected tokens\u201d.",
    "Session": "One piece of work an agent does, as the Sessions page lists them.",
    "Run": "One workflow followed from its first step; a session may hold several.",
    "Node": "Every step a run reached, on every branch: answered, or waiting.",
    "Ack": "Each answer the agent sent for a step, and whether it was accepted or refused.",
    "Output": "The notes and artifacts an agent sent with an accepted answer.",
    "Checkpoint": "Notes saved at a step without moving on.",
    "RunSynthesis": "A finished branch's notes and artifacts, gathered in order.",
    "Gap": "Things only you could answer: the agent assumed an answer and went on.",  # friction63a 15
    "Observation": "The git branch and commit the agent worked on when it answered.",
    "Event": "The append-only history every table above is rebuilt from.",
    "Attempt": "The one-use token each answer to a step must carry (ackToken).",
    "PinnedWorkflow": "The exact version of a workflow a run follows, kept when the catalog changes.",
    "ToolCall": "How long each MCP tool call took and how it ended (Tool timings); the newest only.",
    "SearchEntry": "What the Sessions page's search looks through.",
    "AccessAttempt": "Failed sign-ins by user and address; too many lock the account for a while.",
    "AccessFailureLog": "Each failed sign-in, one row each.",
    "AccessLog": "Each sign-in and sign-out.",
}
_default_app_list = admin.site.get_app_list


def app_list_in_sections(request: HttpRequest, app_label: str | None = None) -> list[dict[str, Any]]:
    """The admin's app list regrouped into SECTIONS, each table with its DESCRIPTIONS line; an app not in
    SECTIONS (the sign-in logs) keeps its own section, after them."""
    apps = _default_app_list(request)
    models = {model["object_name"]: (app, model) for app in apps for model in app["models"]}
    for _, model in models.values():
        model["description"] = DESCRIPTIONS.get(model["object_name"], "")
    sections = []
    for label, name, names in SECTIONS:
        listed = [models[n] for n in names if n in models]
        if listed:
            home = next((app for app, _ in listed if app["app_label"] == label), listed[0][0])
            sections.append({**home, "name": name, "models": [model for _, model in listed]})
    sectioned = {n for _, _, names in SECTIONS for n in names}
    rest = [{**app, "models": [m for m in app["models"] if m["object_name"] not in sectioned]} for app in apps]
    found = [app for app in sections + rest if app["models"]]
    return [app for app in found if app_label is None or app["app_label"] == app_label]


admin.site.get_app_list = app_list_in_sections  # type: ignore[method-assign]

# Groups are not how WorkRail gives rights (a user's own staff and superuser flags and permissions are, on the
# Users page), and the stock "Groups" table was one more thing a newcomer could not place (friction60b 11):
# not offered. Groups made before still apply.
if admin.site.is_registered(Group):
    admin.site.unregister(Group)

LIST_TEXT_LIMIT = 80  # characters of notes or JSON shown in a changelist cell
RELATED_LIMIT = 20  # related rows listed on a detail page; the changelist link shows them all


# --- Markup helpers -------------------------------------------------------------------------------


def change_url(obj: models.Model) -> str:
    meta = obj._meta
    # quote(): a pk may hold characters the admin's URLs reserve (PinnedWorkflow's "sha256:…").
    return reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[quote(obj.pk)])


def link(obj: models.Model | None, text: Any = None) -> str:
    """A link to `obj`'s change page, labelled with its readable name (escaped); "-" when there is none."""
    if obj is None:
        return "-"
    return format_html('<a href="{}">{}</a>', change_url(obj), obj if text is None else text)


def column(
    path: str, show: Callable[[Any], str], description: str | None = None, ordering: str | None = None
) -> Callable[[Any, Any], str]:
    """A column (and detail field) showing the value at `path` from the row ("node.run": the row's
    node's run) through `show` (link, short, pretty_json...), headed by `description` (by default the
    last name of the path, as Django heads a field's column)."""

    @admin.display(description=description or path.rsplit(".", 1)[-1].replace("_", " "), ordering=ordering)
    def shown(model_admin: Any, obj: models.Model) -> str:
        return show(attrgetter(path)(obj))

    return shown


def changelist_link(model: type[models.Model], text: str, **filters: Any) -> str:
    """A link to `model`'s changelist narrowed by `filters` (e.g. session__id__exact=7)."""
    meta = model._meta
    url = reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist")
    return format_html('<a href="{}?{}">{}</a>', url, urlencode(filters), text)


def link_list(objects: Any, more: str) -> str:
    """The first RELATED_LIMIT objects as a list of links, then `more` (a link to all of them)."""
    items = format_html_join("", "<li>{}</li>", ((link(obj),) for obj in objects[:RELATED_LIMIT]))
    return format_html("<ul>{}</ul>{}", items, more) if items else more


def pretty_json(value: Any) -> str:
    """A JSON document indented in a <pre>, escaped: notes inside it may hold HTML."""
    return format_html("<pre>{}</pre>", json.dumps(value, indent=2, ensure_ascii=False))


def pretty_json_text(text: str) -> str:
    """Like pretty_json, for JSON kept as text (the exact answers replayed byte for byte)."""
    try:
        return pretty_json(json.loads(text))
    except ValueError:
        return format_html("<pre>{}</pre>", text)


def short(text: str) -> str:
    return Truncator(text).chars(LIST_TEXT_LIMIT)


def short_json(value: Any) -> str:
    return short(json.dumps(value, ensure_ascii=False))


# --- The read-only base ---------------------------------------------------------------------------


class ReadOnlyAdmin(admin.ModelAdmin):
    """View permission only. The log is append-only and the projections are rebuilt from it, so an
    add, change or delete here would diverge from the history. Without change permission Django
    renders every field read-only, with foreign keys as links to the related object's page."""

    actions: Sequence[Any] | None = None  # no "delete selected", and no checkbox column
    list_per_page = 50

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


# --- Sessions and the event log -------------------------------------------------------------------


@admin.register(Session)
class SessionAdmin(ReadOnlyAdmin):
    list_display = (
        "public_id",
        "title",
        "session_key",
        "status",
        "kind",
        "owner",
        "workflow_ids",
        "run_count",
        "git_branch",
        "created_at",
        "updated_at",
    )
    list_filter = ("status", "kind", "owner", "git_branch")
    search_fields = ("public_id", "session_key", "title", "owner", "workflow_ids", "git_branch", "workspace_path")
    date_hierarchy = "updated_at"
    ordering = ("-updated_at",)
    readonly_fields = ("runs_list", "related")

    @admin.display(description="runs")
    def runs_list(self, obj: Session) -> str:
        runs = obj.runs.order_by("created_at")
        return link_list(runs, changelist_link(Run, f"all {obj.run_count} run(s)", session__id__exact=obj.pk))

    @admin.display(description="history")
    def related(self, obj: Session) -> str:
        return format_html(
            "{} · {} · {}",
            changelist_link(Event, f"{obj.last_seq} event(s)", session__id__exact=obj.pk),
            changelist_link(Checkpoint, "checkpoints", session__id__exact=obj.pk),
            changelist_link(Observation, "observations", session__id__exact=obj.pk),
        )


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin):
    # Not "__str__": it names the session by its database pk.
    # Who made it (actor: an API token's owner or a dashboard user, empty on this machine) and through which door.
    list_display = ("seq", "session_link", "kind", "data_summary", "actor", "door", "created_at")
    list_filter = ("kind", "door")
    search_fields = ("session__public_id", "session__session_key", "session__title", "=actor")
    date_hierarchy = "created_at"
    list_select_related = ("session",)
    show_full_result_count = False  # the biggest table: skip the unfiltered COUNT(*)
    exclude = ("data",)
    readonly_fields = ("data_pretty",)

    session_link = column("session", link, ordering="session__public_id")
    data_summary = column("data", short_json)
    data_pretty = column("data", pretty_json)


@admin.register(PinnedWorkflow)
class PinnedWorkflowAdmin(ReadOnlyAdmin):
    list_display = ("workflow_id", "workflow_hash", "created_at")
    list_filter = ("workflow_id",)
    search_fields = ("workflow_id", "workflow_hash")
    date_hierarchy = "created_at"
    exclude = ("compiled",)
    readonly_fields = ("runs_list", "compiled_pretty")

    @admin.display(description="runs")
    def runs_list(self, obj: PinnedWorkflow) -> str:
        runs = obj.runs.order_by("-created_at")
        return link_list(runs, changelist_link(Run, "all runs", pinned__workflow_hash__exact=obj.pk))

    compiled_pretty = column("compiled", pretty_json)


# --- Runs and their graph -------------------------------------------------------------------------


@admin.register(Run)
class RunAdmin(ReadOnlyAdmin):
    list_display = (
        "public_id",
        "workflow_id",
        "status",
        "session_link",
        "pinned_link",
        "parent_run_link",
        "node_count",
        "branch_count",
        "created_at",
        "updated_at",
    )
    list_filter = ("status", "workflow_id")
    search_fields = ("public_id", "workflow_id", "session__public_id", "session__session_key", "session__title")
    date_hierarchy = "created_at"
    ordering = ("-updated_at",)
    # Not "pinned": the link needs only pinned_id, and joining would load every compiled workflow.
    list_select_related = ("session", "parent_run")
    readonly_fields = ("related",)

    session_link = column("session", link, ordering="session__public_id")

    @admin.display(description="pinned workflow", ordering="pinned_id")
    def pinned_link(self, obj: Run) -> str:
        url = reverse("admin:runs_pinnedworkflow_change", args=[quote(obj.pinned_id)])
        return format_html('<a href="{}">{}</a>', url, obj.pinned_id[:19])

    parent_run_link = column("parent_run", link, "delegated by")

    @admin.display(description="graph")
    def related(self, obj: Run) -> str:
        return format_html(
            "{} · {} · {} · {} · {}",
            changelist_link(Node, f"{obj.node_count} node(s)", run__id__exact=obj.pk),
            changelist_link(Gap, "gaps", run__id__exact=obj.pk),
            changelist_link(RunSynthesis, "syntheses", run__id__exact=obj.pk),
            changelist_link(Observation, "observations", run__id__exact=obj.pk),
            changelist_link(Run, "delegated runs", parent_run__id__exact=obj.pk),
        )


@admin.register(Node)
class NodeAdmin(ReadOnlyAdmin):
    list_display = ("__str__", "run_link", "session_link", "parent_link", "depth", "is_complete", "created_at")
    list_filter = ("is_complete", "run__workflow_id")
    search_fields = ("=public_id", "pending_step_id", "run__public_id", "run__workflow_id", "run__session__public_id")
    date_hierarchy = "created_at"
    list_select_related = ("run__session", "parent")
    show_full_result_count = False
    exclude = ("engine_state",)
    readonly_fields = ("related", "engine_state_pretty")

    run_link = column("run", link, ordering="run__public_id")
    session_link = column("run.session", link)
    parent_link = column("parent", link)

    @admin.display(description="related")
    def related(self, obj: Node) -> str:
        return format_html(
            "{} · {} · {}",
            changelist_link(Node, "children", parent__id__exact=obj.pk),
            changelist_link(Output, "outputs", node__id__exact=obj.pk),
            changelist_link(Attempt, "ack tokens", node__id__exact=obj.pk),
        )

    engine_state_pretty = column("engine_state", pretty_json)


@admin.register(Attempt)
class AttemptAdmin(ReadOnlyAdmin):
    list_display = ("public_id", "node_link", "run_link", "created_at")
    search_fields = ("=public_id", "node__pending_step_id", "node__run__public_id", "node__run__workflow_id")
    date_hierarchy = "created_at"
    list_select_related = ("node__run",)
    show_full_result_count = False

    node_link = column("node", link)
    run_link = column("node.run", link)


@admin.register(Ack)
class AckAdmin(ReadOnlyAdmin):
    list_display = ("outcome", "attempt_link", "node_link", "child_link", "run_link", "created_at")
    list_filter = ("outcome",)
    search_fields = ("node__pending_step_id", "node__run__public_id", "node__run__workflow_id")
    date_hierarchy = "created_at"
    list_select_related = ("attempt", "node__run", "child")
    show_full_result_count = False
    exclude = ("response_json",)
    readonly_fields = ("response_pretty",)

    @admin.display(description="ack token")
    def attempt_link(self, obj: Ack) -> str:
        return link(obj.attempt, obj.attempt.public_id)  # its __str__ would read the node again

    node_link = column("node", link)
    child_link = column("child", link, "led to")
    run_link = column("node.run", link)
    response_pretty = column("response_json", pretty_json_text, "response")


# --- What agents recorded -------------------------------------------------------------------------


@admin.register(Output)
class OutputAdmin(ReadOnlyAdmin):
    list_display = ("step_title", "step_id", "run_link", "node_link", "child_link", "notes_summary", "created_at")
    list_filter = ("node__run__workflow_id",)
    search_fields = ("step_id", "step_title", "node__run__public_id", "node__run__workflow_id")
    date_hierarchy = "created_at"
    list_select_related = ("node__run", "child")
    show_full_result_count = False
    exclude = ("artifacts",)
    readonly_fields = ("artifacts_pretty",)

    run_link = column("node.run", link)
    node_link = column("node", link)
    child_link = column("child", link, "led to")
    notes_summary = column("notes_markdown", short, "notes")
    artifacts_pretty = column("artifacts", pretty_json)


@admin.register(Checkpoint)
class CheckpointAdmin(ReadOnlyAdmin):
    list_display = ("__str__", "session_link", "node_link", "child_link", "notes_summary", "created_at")
    search_fields = ("session__public_id", "session__session_key", "session__title", "node__run__public_id")
    date_hierarchy = "created_at"
    list_select_related = ("session", "node", "child")
    exclude = ("artifacts", "response_json")
    readonly_fields = ("artifacts_pretty", "response_pretty")

    session_link = column("session", link)
    node_link = column("node", link)
    child_link = column("child", link, "led to")
    notes_summary = column("notes_markdown", short, "notes")
    artifacts_pretty = column("artifacts", pretty_json)
    response_pretty = column("response_json", pretty_json_text, "response")


@admin.register(Observation)
class ObservationAdmin(ReadOnlyAdmin):
    list_display = ("git_branch", "head", "session_link", "run_link", "workspace_path", "created_at")
    list_filter = ("git_branch",)
    search_fields = ("git_branch", "git_head_sha", "workspace_path", "session__public_id", "run__public_id")
    date_hierarchy = "created_at"
    list_select_related = ("session", "run")

    @admin.display(description="HEAD", ordering="git_head_sha")
    def head(self, obj: Observation) -> str:
        return obj.git_head_sha[:12]

    session_link = column("session", link)
    run_link = column("run", link)


@admin.register(Gap)
class GapAdmin(ReadOnlyAdmin):
    list_display = ("step_id", "reason", "run_link", "node_link", "description_summary", "created_at")
    list_filter = ("reason", "run__workflow_id")
    search_fields = ("step_id", "reason", "description", "run__public_id", "run__workflow_id")
    date_hierarchy = "created_at"
    list_select_related = ("run", "node")

    run_link = column("run", link)
    node_link = column("node", link)
    description_summary = column("description", short)


@admin.register(RunSynthesis)
class RunSynthesisAdmin(ReadOnlyAdmin):
    list_display = ("title", "run_link", "node_link", "synthesis_summary", "created_at")
    list_filter = ("run__workflow_id",)
    search_fields = ("run__public_id", "run__workflow_id", "run__session__public_id")
    date_hierarchy = "created_at"
    list_select_related = ("run", "node")
    exclude = ("synthesis",)
    readonly_fields = ("synthesis_pretty",)

    @admin.display(description="name")
    def title(self, obj: RunSynthesis) -> str:
        return f"synthesis of {obj.run.public_id}"  # __str__ names the run by its database pk

    run_link = column("run", link)
    node_link = column("node", link)
    synthesis_summary = column("synthesis", short_json)
    synthesis_pretty = column("synthesis", pretty_json)


@admin.register(SearchEntry)
class SearchEntryAdmin(ReadOnlyAdmin):
    list_display = ("identity", "session_link", "run_link", "tip_link", "git_branch", "updated_at")
    list_filter = ("git_branch",)
    search_fields = ("identity_text", "notes_text", "git_branch", "session__public_id", "run__public_id")
    date_hierarchy = "updated_at"
    list_select_related = ("session", "run", "tip")

    @admin.display(description="identity")
    def identity(self, obj: SearchEntry) -> str:
        return short(obj.identity_text) or "-"  # __str__ names the session by its database pk

    session_link = column("session", link)
    run_link = column("run", link)
    tip_link = column("tip", link)


# --- Telemetry ------------------------------------------------------------------------------------


@admin.register(ToolCall)
class ToolCallAdmin(ReadOnlyAdmin):
    list_display = ("tool", "outcome", "duration_ms", "started_at", "session_id", "run_id", "exception")
    list_filter = ("tool", "outcome")
    search_fields = ("tool", "outcome", "session_id", "run_id", "exception")
    date_hierarchy = "started_at"
    ordering = ("-started_at",)
    show_full_result_count = False


# --- Access ---------------------------------------------------------------------------------------


@admin.register(ApiToken)
class ApiTokenAdmin(ReadOnlyAdmin):
    """The HTTP API's tokens: names and times, never the digest (nothing here can set one: tokens are
    made by `manage.py create_api_token`, which prints the token once)."""

    # The owner: whom the token acts for, and what the events it makes record as their actor.
    list_display = ("name", "owner", "state", "created_at", "last_used_at", "revoked_at")
    list_filter = (("revoked_at", admin.EmptyFieldListFilter),)
    search_fields = ("name", "owner")
    ordering = ("-created_at",)
    fields = ("name", "owner", "state", "created_at", "last_used_at", "revoked_at")
    readonly_fields = ("state",)
    actions = ["revoke_selected"]

    @admin.display(description="state")
    def state(self, obj: ApiToken) -> str:
        return "revoked" if obj.revoked_at is not None else "live"

    def has_revoke_permission(self, request: HttpRequest) -> bool:
        # Revoking changes a token: the change permission (a superuser has it) without the change form.
        return bool(request.user.has_perm("runs.change_apitoken"))

    @admin.action(description="Revoke selected tokens", permissions=["revoke"])
    def revoke_selected(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        revoked = api_tokens.revoke_all(queryset)
        already = queryset.count() - revoked
        note = f" ({already} were revoked already)" if already else ""
        self.message_user(request, f"Revoked {revoked} API token(s){note}.", messages.SUCCESS)


# --- Admin sign-in attempts (django-axes) ---------------------------------------------------------
# django-axes registers its three logs with change permission, so the index offered "Change" on logs its
# own title calls read-only (friction12 13). The same admins, viewed only: the index says "View".
# (axes.admin registers them when imported, as at the top of this module.)


class _ViewedOnly(admin.ModelAdmin):
    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class SignInAttemptAdmin(_ViewedOnly, AccessAttemptAdmin):
    pass


class SignInLogAdmin(_ViewedOnly, AccessLogAdmin):
    pass


class SignInFailureAdmin(_ViewedOnly, AccessFailureLogAdmin):
    pass


for _log, _log_admin in (
    (AccessAttempt, SignInAttemptAdmin),
    (AccessLog, SignInLogAdmin),
    (AccessFailureLog, SignInFailureAdmin),
):
    if admin.site.is_registered(_log):  # AXES_ENABLE_ADMIN
        admin.site.unregister(_log)
        admin.site.register(_log, _log_admin)

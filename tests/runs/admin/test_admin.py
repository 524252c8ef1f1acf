"""The Django admin: a read-only audit view of the store, readable, linked, escaped and cheap to list."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.contrib import admin
from django.db import connection
from django.db.models import Model
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from runs import models
from tests.support.mcp_calls import ack_with_notes, checkpoint_workflow, start_workflow

pytestmark = pytest.mark.django_db

# Every model of the store, read-only in the admin: all of runs' models but the rate buckets (bookkeeping,
# not in the admin) and the API tokens (an admin of their own: test_api_tokens_admin.py). A new model is
# checked here the day it is added.
MODELS: list[type[Model]] = [
    model for model in apps.get_app_config("runs").get_models() if model not in (models.RateBucket, models.ApiToken)
]
PLAN = "wr.routine-focused_plan"  # three steps, finishes (and is synthesized) without user input
REVIEW = "wr.code_review"  # its first step needs the user: unattended, it records a gap instead
SCRIPT = "<script>alert(1)</script>"  # agents write the notes; the admin must never run them


def url(model: type[Model] | Model, view: str, *args: Any) -> str:
    return reverse(f"admin:runs_{model._meta.model_name}_{view}", args=args)


def finished_plan(ticket: str) -> dict[str, Any]:
    """A completed run of PLAN with a checkpoint on its first step and the script in its notes."""
    start = start_workflow(PLAN, {"ticketId": ticket})
    saved = checkpoint_workflow(stateToken=start["stateToken"], output={"notesMarkdown": f"Checkpoint {SCRIPT}"})
    response = ack_with_notes(saved, f"Goal {SCRIPT}")
    while not response["isComplete"]:
        response = ack_with_notes(response)
    return response


@pytest.fixture
def store(service_catalog: dict[str, Path]) -> dict[str, Any]:
    """Real rows in every model, made through the services as an agent makes them."""
    # A git checkout as the project dir, so runs record where they happened (an Observation).
    git = service_catalog["project"] / ".git"
    (git / "refs" / "heads" / "feature").mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/feature/admin\n")
    (git / "refs" / "heads" / "feature" / "admin").write_text("0123456789abcdef0123456789abcdef01234567\n")

    done = finished_plan("ADMIN-1")
    review = start_workflow(REVIEW, {"reviewAreas": ["api"]}, mode="unattended")
    assert "USER_DEPENDENCY_GAP" in [w["code"] for w in ack_with_notes(review)["warnings"]]
    # Telemetry is written by the MCP boundary, which these calls skip: one row by hand.
    models.ToolCall.objects.create(tool="start_workflow", outcome="ok", duration_ms=12.5, started_at=timezone.now())
    for model in MODELS:
        assert model._default_manager.exists(), model.__name__
    return done


def test_every_model_is_registered() -> None:
    for model in MODELS:
        assert admin.site.is_registered(model), model.__name__


def test_anonymous_users_are_sent_to_the_login_page(client: Any) -> None:
    for path in ["/admin/", *(url(model, "changelist") for model in MODELS)]:
        response = client.get(path)
        assert response.status_code == 302, path
        assert response["Location"].startswith(reverse("admin:login")), path


def test_the_index_names_workrail(superuser_client: Any) -> None:
    page = superuser_client.get("/admin/").content.decode()
    assert "WorkRail admin" in page


def test_every_changelist_and_detail_page_renders_escaped(superuser_client: Any, store: dict[str, Any]) -> None:
    for model in MODELS:
        pages = [
            url(model, "changelist"),
            url(model, "changelist") + "?q=admin",  # search_fields are valid lookups
            url(model, "change", model._default_manager.first().pk),  # type: ignore[union-attr]
        ]
        for path in pages:
            response = superuser_client.get(path)
            assert response.status_code == 200, path
            assert SCRIPT not in response.content.decode(), path
    assert (
        "&lt;script&gt;alert(1)&lt;/script&gt;"
        in superuser_client.get(url(models.Output, "changelist")).content.decode()
    )


def test_rows_name_objects_by_public_ids_and_link_to_them(superuser_client: Any, store: dict[str, Any]) -> None:
    run = models.Run.objects.get(public_id=store["session"]["runId"])
    session = run.session
    runs_page = superuser_client.get(url(models.Run, "changelist")).content.decode()
    assert PLAN in runs_page
    assert run.public_id in runs_page
    assert session.public_id in runs_page
    assert url(session, "change", session.pk) in runs_page  # the session column is a link
    assert url(models.PinnedWorkflow, "change", run.pinned_id).replace(":", "_3A") in runs_page

    events_page = superuser_client.get(url(models.Event, "changelist")).content.decode()
    assert session.public_id in events_page
    assert url(session, "change", session.pk) in events_page

    node = models.Node.objects.filter(run=run, parent__isnull=False, is_complete=False).first()
    assert node is not None and node.parent is not None
    nodes_page = superuser_client.get(url(models.Node, "changelist")).content.decode()
    assert f"node {node.public_id} of" not in nodes_page  # the old, unreadable name
    assert f"{node.pending_step_id} (node {node.public_id})" in nodes_page
    assert url(run, "change", run.pk) in nodes_page
    assert url(node.parent, "change", node.parent.pk) in nodes_page

    output = models.Output.objects.first()
    assert output is not None
    outputs_page = superuser_client.get(url(models.Output, "changelist")).content.decode()
    assert url(models.Node, "change", output.node_id) in outputs_page
    assert url(models.Node, "change", output.child_id) in outputs_page

    ack = models.Ack.objects.first()
    assert ack is not None
    acks_page = superuser_client.get(url(models.Ack, "changelist")).content.decode()
    for target in (url(models.Attempt, "change", ack.attempt_id), url(models.Node, "change", ack.node_id)):
        assert target in acks_page


def test_detail_pages_link_to_related_changelists(superuser_client: Any, store: dict[str, Any]) -> None:
    run = models.Run.objects.get(public_id=store["session"]["runId"])
    session = run.session
    session_page = superuser_client.get(url(session, "change", session.pk)).content.decode()
    runs_of_session = f"{url(models.Run, 'changelist')}?session__id__exact={session.pk}"
    events_of_session = f"{url(models.Event, 'changelist')}?session__id__exact={session.pk}"
    assert runs_of_session in session_page
    assert events_of_session in session_page
    assert url(run, "change", run.pk) in session_page

    run_page = superuser_client.get(url(run, "change", run.pk)).content.decode()
    nodes_of_run = f"{url(models.Node, 'changelist')}?run__id__exact={run.pk}"
    assert nodes_of_run in run_page
    assert url(session, "change", session.pk) in run_page  # a foreign key, shown as a link

    # The filtered changelists are allowed lookups (a refused one redirects with ?e=1) and narrow the rows.
    other = models.Session.objects.exclude(pk=session.pk).get()
    for path, shown, hidden in [
        (events_of_session, session.public_id, other.public_id),
        (runs_of_session, session.public_id, other.public_id),
        (nodes_of_run, run.public_id, models.Run.objects.exclude(pk=run.pk).get().public_id),
    ]:
        response = superuser_client.get(path)
        assert response.status_code == 200, path
        assert shown in response.content.decode()
        assert hidden not in response.content.decode()


def test_big_json_is_pretty_printed(superuser_client: Any, store: dict[str, Any]) -> None:
    event = models.Event.objects.filter(kind="output_recorded").first()
    assert event is not None
    page = superuser_client.get(url(event, "change", event.pk)).content.decode()
    assert "<pre>{\n" in page
    assert 'name="data"' not in page  # no form widget


@pytest.mark.parametrize("model", [models.Event, models.Output, models.Ack])
def test_no_admin_view_changes_the_log(superuser_client: Any, store: dict[str, Any], model: type[Model]) -> None:
    row = model._default_manager.order_by("pk").last()
    assert row is not None
    before = model._default_manager.filter(pk=row.pk).values().get()
    count = model._default_manager.count()
    forged = {"seq": 99, "kind": "run_started", "data": "{}", "notes_markdown": "forged", "outcome": "blocked"}

    assert superuser_client.post(url(model, "change", row.pk), forged).status_code == 403
    assert superuser_client.get(url(model, "delete", row.pk)).status_code == 403
    assert superuser_client.post(url(model, "delete", row.pk), {"post": "yes"}).status_code == 403
    assert superuser_client.get(url(model, "add")).status_code == 403
    assert superuser_client.post(url(model, "add"), forged).status_code == 403
    changelist = superuser_client.post(
        url(model, "changelist"), {"action": "delete_selected", "_selected_action": [row.pk], "post": "yes"}
    )
    assert changelist.status_code == 200  # no actions: the POST is just the list again
    page = changelist.content.decode()
    assert url(model, "add") not in page
    assert "delete_selected" not in page

    assert model._default_manager.filter(pk=row.pk).values().get() == before
    assert model._default_manager.count() == count


def test_the_detail_page_is_read_only(superuser_client: Any, store: dict[str, Any]) -> None:
    output = models.Output.objects.first()
    assert output is not None
    page = superuser_client.get(url(output, "change", output.pk)).content.decode()
    assert "<textarea" not in page
    assert 'name="_save"' not in page
    assert url(output, "delete", output.pk) not in page


def event_changelist_queries(client: Any) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url(models.Event, "changelist")).status_code == 200
    return len(queries)


def test_the_event_changelist_runs_the_same_queries_for_more_rows(
    superuser_client: Any, service_catalog: dict[str, Path]
) -> None:
    finished_plan("SMALL-1")
    small_rows = models.Event.objects.count()
    small = event_changelist_queries(superuser_client)
    for ticket in ("BIG-1", "BIG-2", "BIG-3"):
        finished_plan(ticket)
    assert models.Event.objects.count() > 3 * small_rows
    assert event_changelist_queries(superuser_client) == small

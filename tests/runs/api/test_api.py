"""The HTTP API (/api/v1/): a thin door over the dashboard's read services and actions, with the
MCP error body and codes, and auth by API token or staff login session."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from pydantic import BaseModel
from pydantic_core import to_json

from runs.contract.catalog import ListFilters, WorkflowInspection, WorkflowList
from runs.contract.dashboard import (
    CancelResult,
    EventPage,
    NodeDetail,
    PreferencesChangeResult,
    RunDetail,
    RunGraph,
    SessionDetail,
    SessionPage,
    ToolTimings,
)
from runs.contract.errors import HTTP_STATUS as STATUS
from runs.contract.errors import ErrorCode, ErrorResult
from runs.execution import catalog
from runs.models import Event, EventKind, Node, Run, RunStatus
from runs.readmodels import overview, run_view
from runs.readmodels import timings as timings_view
from runs.store import api_tokens
from tests.support.branched_review import forked_review
from tests.support.mcp_calls import start_workflow
from tests.support.sample_session import Built, advance, two_runs_one_forked_twice
from workrail_site.version import VERSION

pytestmark = pytest.mark.django_db

API = "/api/v1"


@pytest.fixture
def staff(django_user_model) -> Any:
    return django_user_model.objects.create_user("admin", password="pw", is_staff=True)


def a_node(run_id: str) -> str:
    return str(
        Node.objects.filter(run__public_id=run_id).order_by("depth", "pk").values_list("public_id", flat=True)[0]
    )


def endpoints(built: Built) -> list[tuple[str, str]]:
    """Every endpoint but /health, with real ids, as (method, path)."""
    return [
        ("get", "/sessions"),
        ("get", f"/sessions/{built.session_id}"),
        ("get", f"/sessions/{built.session_id}/events"),
        ("post", f"/sessions/{built.session_id}/preferences"),
        ("get", f"/runs/{built.review_run}"),
        ("get", f"/runs/{built.review_run}/graph"),
        ("post", f"/runs/{built.plan_run}/cancel"),
        ("get", f"/nodes/{a_node(built.review_run)}"),
        ("get", "/workflows"),
        ("get", "/workflows/wr.risk_scaled_mr_review"),
        ("get", "/timings"),
        ("get", "/openapi.json"),
    ]


def wire(model: BaseModel | dict[str, Any]) -> Any:
    """What the service's answer looks like as JSON on the wire."""
    return json.loads(to_json(model, by_alias=True))


def error_of(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    ErrorResult.model_validate(body)
    assert body["error"]["code"] == code
    assert body["error"]["message"] and body["error"]["suggestion"]
    assert "Traceback" not in response.content.decode()
    return body["error"]


# --- every endpoint answers its documented shape ------------------------------------------------------


def test_health_is_open(client):
    response = client.get(f"{API}/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "version": VERSION}


def test_the_sessions_list_is_the_service_answer_in_camel_case(api, built):
    response = api.get(f"{API}/sessions", {"q": "ticket-4242", "perPage": 5, "sort": "title", "group": "branch"})
    assert response.status_code == 200
    body = response.json()
    SessionPage.model_validate(body)
    assert body == wire(overview.list_sessions(query="ticket-4242", per_page=5, sort="title", group="branch"))
    assert body["perPage"] == 5
    assert [s["sessionId"] for s in body["items"]] == [built.session_id]
    assert "statusCounts" in body and "per_page" not in body


def test_a_session_its_events_and_a_run_and_a_node_are_the_service_answers(api, built):
    detail = api.get(f"{API}/sessions/{built.session_id}").json()
    SessionDetail.model_validate(detail)
    assert detail == wire(overview.session_detail(built.session_id))
    assert [r["runId"] for r in detail["runs"]] == [built.review_run, built.plan_run]

    events = api.get(f"{API}/sessions/{built.session_id}/events", {"limit": 5}).json()
    EventPage.model_validate(events)
    assert events == wire(overview.session_events(built.session_id, limit=5))

    run = api.get(f"{API}/runs/{built.review_run}").json()
    RunDetail.model_validate(run)
    assert run == wire(run_view.run_detail(built.review_run))
    assert run["tables"]["changedFiles"] and run["tables"]["findings"]

    tip = run["graph"]["nodes"][1]["nodeId"]
    branch = api.get(f"{API}/runs/{built.review_run}", {"tip": tip}).json()
    assert branch["branchTip"] == tip

    graph = api.get(f"{API}/runs/{built.review_run}/graph").json()
    RunGraph.model_validate(graph)
    assert graph == run["graph"]
    assert len(graph["nodes"]) == 11 and len(graph["edges"]) == 10

    node_id = a_node(built.review_run)
    node = api.get(f"{API}/nodes/{node_id}").json()
    NodeDetail.model_validate(node)
    assert node == wire(run_view.node_detail(node_id))
    assert node["stateToken"].startswith("st1_")


def test_workflows_are_what_the_mcp_tools_answer(api, built):
    listing = api.get(f"{API}/workflows").json()
    WorkflowList.model_validate(listing)
    assert listing == catalog.list_workflows(ListFilters(include_examples=True), for_people=True).dump()
    assert listing["overview"]["tags"] and len(listing["workflows"]) == listing["count"]  # all, for people
    routines = api.get(f"{API}/workflows", {"kind": "routine"}).json()
    by_kind = ListFilters(kind="routine", include_examples=True)
    assert routines == catalog.list_workflows(by_kind, for_people=True).dump()
    assert {w["kind"] for w in routines["workflows"]} == {"routine"}

    inspection = api.get(f"{API}/workflows/wr.risk_scaled_mr_review").json()
    WorkflowInspection.model_validate(inspection)
    assert inspection == catalog.inspect_workflow("wr.risk_scaled_mr_review", mode="metadata", for_people=True).dump()
    assert inspection["mode"] == "metadata" and inspection["steps"]


def test_timings_are_the_service_answer(api, built):
    timings = api.get(f"{API}/timings").json()
    ToolTimings.model_validate(timings)
    assert timings == wire(timings_view.tool_timings())


def test_datetimes_are_written_as_pydantic_writes_them(api, built):
    detail = api.get(f"{API}/sessions/{built.session_id}").json()
    created = detail["session"]["createdAt"]
    assert created.endswith("Z") and created == wire(overview.session_detail(built.session_id))["session"]["createdAt"]


# --- actions -----------------------------------------------------------------------------------------


def test_a_preferences_change_is_recorded_as_events(api, built):
    before = Event.objects.filter(kind=EventKind.PREFERENCES_CHANGED).count()
    response = api.post(
        f"{API}/sessions/{built.session_id}/preferences", {"mode": "autopilot"}, content_type="application/json"
    )
    assert response.status_code == 200, response.content
    body = response.json()
    PreferencesChangeResult.model_validate(body)
    assert body["mode"] == "autopilot" and body["sessionId"] == built.session_id
    assert built.review_run in body["runsChanged"]
    assert Event.objects.filter(kind=EventKind.PREFERENCES_CHANGED).count() > before

    detailed = api.post(
        f"{API}/sessions/{built.session_id}/preferences",
        {"preferences": {"riskPolicy": "aggressive"}},
        content_type="application/json",
    ).json()
    assert detailed["preferences"]["riskPolicy"] == "aggressive"


def test_a_bad_preferences_body_is_invalid_input_with_a_pointer(api, built):
    url = f"{API}/sessions/{built.session_id}/preferences"
    error = error_of(api.post(url, {"mode": "reckless"}, content_type="application/json"), 400, "INVALID_INPUT")
    assert error["details"]["in"] == "body" and error["details"]["pointer"] == "/mode"
    error = error_of(
        api.post(url, {"preferences": {"risk_level": "x"}}, content_type="application/json"), 400, "INVALID_INPUT"
    )
    assert error["details"]["pointer"].startswith("/preferences")
    error_of(api.post(url, {}, content_type="application/json"), 400, "INVALID_INPUT")  # nothing to change
    error_of(api.post(url, "{not json", content_type="application/json"), 400, "INVALID_INPUT")
    error_of(api.post(url), 400, "INVALID_INPUT")  # no body


def test_cancel_sets_the_run_canceled_and_twice_is_fine(api, built):
    response = api.post(f"{API}/runs/{built.plan_run}/cancel")
    assert response.status_code == 200, response.content
    assert CancelResult.model_validate(response.json()).status == "canceled"
    assert Run.objects.get(public_id=built.plan_run).status == RunStatus.CANCELED
    assert api.post(f"{API}/runs/{built.plan_run}/cancel").json() == {"runId": built.plan_run, "status": "canceled"}


def test_a_complete_run_cannot_be_canceled(api, service_catalog):
    answer = start_workflow("wr.routine-focused_plan")
    while not answer.get("isComplete"):
        answer = advance(answer, "done")
    error_of(api.post(f"{API}/runs/{answer['session']['runId']}/cancel"), 400, "INVALID_INPUT")


# --- paging ------------------------------------------------------------------------------------------


def test_the_event_log_pages_with_next_after(api, built):
    url = f"{API}/sessions/{built.session_id}/events"
    seen: list[int] = []
    after: int | None = 0
    pages = 0
    while after is not None:
        page = api.get(url, {"after": after, "limit": 7}).json()
        assert len(page["items"]) <= 7
        seen += [e["seq"] for e in page["items"]]
        after = page["nextAfter"]
        pages += 1
    total = Event.objects.filter(session__public_id=built.session_id).count()
    assert seen == sorted(seen) and len(seen) == len(set(seen)) == total
    assert pages == -(-total // 7)  # the last page says so: no empty page at the end


# --- errors ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/sessions/ses_nope",
        "/sessions/ses_nope/events",
        "/runs/run_nope",
        "/runs/run_nope/graph",
        "/nodes/123456789",
        "/nodes/not-a-number",
        "/no/such/endpoint",
        "/sessions/",
        "/",
    ],
)
def test_unknown_ids_are_not_found(api, path):
    error_of(api.get(f"{API}{path}"), 404, "NOT_FOUND")


def test_a_path_no_endpoint_has_is_unauthenticated_without_credentials(client, service_catalog):
    error_of(client.get(f"{API}/no/such/endpoint"), 401, "UNAUTHENTICATED")
    error_of(Client(enforce_csrf_checks=True).post(f"{API}/no/such/endpoint"), 401, "UNAUTHENTICATED")
    error_of(client.get(f"{API}/"), 401, "UNAUTHENTICATED")


def test_unknown_ids_are_not_found_on_actions_and_workflows(api, built):
    error_of(api.post(f"{API}/runs/run_nope/cancel"), 404, "NOT_FOUND")
    error_of(
        api.post(f"{API}/sessions/ses_nope/preferences", {"mode": "guided"}, content_type="application/json"),
        404,
        "NOT_FOUND",
    )
    error_of(api.get(f"{API}/runs/{built.review_run}", {"tip": "42"}), 404, "NOT_FOUND")
    error = error_of(api.get(f"{API}/workflows/wr.mr_reviw"), 404, "WORKFLOW_NOT_FOUND")
    assert "wr.risk_scaled_mr_review" in error["details"]["didYouMean"]


@pytest.mark.parametrize(
    ("path", "params", "parameter"),
    [
        ("/sessions", {"perPage": "many"}, "perPage"),
        ("/sessions", {"perPage": 0}, "perPage"),
        ("/sessions", {"perPage": 201}, "perPage"),
        ("/sessions", {"page": -1}, "page"),
        ("/sessions", {"status": "sleeping"}, "status"),
        ("/sessions", {"sort": "size"}, "sort"),
        ("/sessions", {"group": "colour"}, "group"),
        ("/sessions", {"q": "x" * 201}, "q"),
        ("/sessions/SID/events", {"after": "x"}, "after"),
        ("/sessions/SID/events", {"limit": 501}, "limit"),
        ("/sessions/SID/events", {"after": 2**64}, "after"),
        ("/workflows", {"kind": "recipe"}, "kind"),
    ],
)
def test_bad_parameters_are_invalid_input_naming_the_parameter(api, built, path, params, parameter):
    response = api.get(f"{API}{path.replace('SID', built.session_id)}", params)
    error = error_of(response, 400, "INVALID_INPUT")
    assert error["details"] == {"in": "query", "pointer": f"/{parameter}", "parameter": parameter, "problems": 1}
    assert parameter in error["message"]


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [("put", "/sessions", ["GET"]), ("delete", "/runs/RID/cancel", ["POST"]), ("post", "/openapi.json", ["GET"])],
)
def test_a_method_an_endpoint_does_not_have_is_405_with_the_error_body(api, built, method, path, allowed):
    response = getattr(api, method)(f"{API}{path.replace('RID', built.plan_run)}")
    error = error_of(response, 405, "INVALID_INPUT")
    assert response["Allow"] == ", ".join(allowed)
    assert error["details"]["allowed"] == allowed


def test_every_error_code_has_an_http_status():
    assert set(STATUS) == set(ErrorCode)
    assert STATUS[ErrorCode.NOT_FOUND] == STATUS[ErrorCode.WORKFLOW_NOT_FOUND] == 404
    assert STATUS[ErrorCode.INVALID_INPUT] == 400
    assert STATUS[ErrorCode.UNAUTHENTICATED] == 401
    assert STATUS[ErrorCode.CSRF_FAILED] == 403
    assert STATUS[ErrorCode.RATE_LIMITED] == 429
    assert STATUS[ErrorCode.STORE_BUSY] == 503
    assert STATUS[ErrorCode.INTERNAL_ERROR] == 500


def test_an_unexpected_failure_is_internal_error_without_a_traceback(api, built, monkeypatch, caplog):
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("secret detail of the failure")

    monkeypatch.setattr(overview, "session_detail", broken)
    response = api.get(f"{API}/sessions/{built.session_id}")
    error = error_of(response, 500, "INTERNAL_ERROR")
    assert error["retryable"] is True
    assert "secret detail" not in response.content.decode()
    assert "secret detail of the failure" in caplog.text  # logged for the developer


def test_a_locked_store_is_store_busy(api, built, monkeypatch):
    from django.db import OperationalError

    def locked(*args: Any, **kwargs: Any) -> Any:
        raise OperationalError("database is locked")

    monkeypatch.setattr(run_view, "run_detail", locked)
    response = api.get(f"{API}/runs/{built.review_run}")
    assert error_of(response, 503, "STORE_BUSY")["retryable"] is True
    assert response["Retry-After"] == "1"


# --- auth --------------------------------------------------------------------------------------------


def test_every_endpoint_but_health_needs_auth(client, built):
    for method, path in endpoints(built):
        response = getattr(client, method)(f"{API}{path}")
        error = error_of(response, 401, "UNAUTHENTICATED")
        assert "Bearer" in error["suggestion"], path
        assert response["WWW-Authenticate"].startswith("Bearer")
    assert Run.objects.get(public_id=built.plan_run).status != RunStatus.CANCELED  # nothing was done


@pytest.mark.parametrize(
    "header",
    ["Bearer not-a-token", "Bearer ", "Basic YWRtaW46cHc=", "bearer" + " x" * 300],
)
def test_a_bad_token_is_refused(built, api_token, header):
    client = Client(headers={"Authorization": header})
    for method, path in endpoints(built):
        error_of(getattr(client, method)(f"{API}{path}"), 401, "UNAUTHENTICATED")


def test_a_revoked_token_is_refused_at_once(api, api_token, built):
    assert api.get(f"{API}/sessions").status_code == 200
    assert api_tokens.revoke("tests")
    error = error_of(api.get(f"{API}/sessions"), 401, "UNAUTHENTICATED")
    assert "revoked" in error["message"]


def test_a_token_created_while_serving_works_at_once(client, built, service_catalog):
    assert client.get(f"{API}/sessions", headers={"Authorization": "Bearer x"}).status_code == 401
    _, fresh = api_tokens.create("later")
    assert client.get(f"{API}/sessions", headers={"Authorization": f"Bearer {fresh}"}).status_code == 200


def test_a_bad_token_is_refused_even_with_a_staff_session(client, staff, built):
    client.force_login(staff)
    assert client.get(f"{API}/sessions").status_code == 200
    error_of(client.get(f"{API}/sessions", headers={"Authorization": "Bearer wrong"}), 401, "UNAUTHENTICATED")


def test_a_staff_session_works(client, staff, built):
    client.force_login(staff)
    for method, path in endpoints(built):
        if method == "get":
            assert client.get(f"{API}{path}").status_code == 200, path


def test_a_non_staff_user_is_refused(client, django_user_model, built):
    client.force_login(django_user_model.objects.create_user("someone", password="pw"))
    for method, path in endpoints(built):
        error = error_of(getattr(client, method)(f"{API}{path}"), 401, "UNAUTHENTICATED")
        assert "not staff" in error["message"]


def test_an_inactive_staff_user_is_refused(client, django_user_model, built):
    user = django_user_model.objects.create_user("gone", password="pw", is_staff=True)
    client.force_login(user)
    user.is_active = False
    user.save()
    error_of(client.get(f"{API}/sessions"), 401, "UNAUTHENTICATED")


def test_a_post_with_the_session_needs_the_csrf_token(staff, built):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(staff)
    url = f"{API}/runs/{built.plan_run}/cancel"
    error_of(browser.post(url), 403, "CSRF_FAILED")
    error_of(
        browser.post(f"{API}/sessions/{built.session_id}/preferences", {"mode": "autopilot"}, "application/json"),
        403,
        "CSRF_FAILED",
    )
    assert Run.objects.get(public_id=built.plan_run).status != RunStatus.CANCELED
    assert browser.get(f"{API}/sessions").status_code == 200  # reads need no CSRF token

    browser.get("/admin/")  # sets the csrftoken cookie
    csrf = browser.cookies["csrftoken"].value
    assert browser.post(url, headers={"X-CSRFToken": csrf}).status_code == 200
    assert Run.objects.get(public_id=built.plan_run).status == RunStatus.CANCELED


def test_a_post_with_a_token_needs_no_csrf_token(api_token, built):
    caller = Client(enforce_csrf_checks=True, headers={"Authorization": f"Bearer {api_token}"})
    assert caller.post(f"{API}/runs/{built.plan_run}/cancel").status_code == 200


def test_a_post_without_any_auth_is_unauthenticated_not_a_csrf_failure(built):
    error_of(Client(enforce_csrf_checks=True).post(f"{API}/runs/{built.plan_run}/cancel"), 401, "UNAUTHENTICATED")


# --- the OpenAPI document and the docs page ---------------------------------------------------------


def test_the_openapi_document_uses_camel_case_and_documents_errors(api):
    response = api.get(f"{API}/openapi.json")
    assert response.status_code == 200
    document = response.json()
    schemas = document["components"]["schemas"]
    assert "perPage" in schemas["SessionPage"]["properties"]
    assert "nextAfter" in schemas["EventPage"]["properties"]
    assert "stateToken" in schemas["NodeDetail"]["properties"]
    assert "workflowHash" in schemas["WorkflowSummary"]["properties"]
    parameters = {p["name"] for p in document["paths"][f"{API}/sessions"]["get"]["parameters"]}
    assert parameters == {"q", "status", "sort", "group", "page", "perPage"}
    events = document["paths"][f"{API}/sessions/{{sessionId}}/events"]["get"]
    assert {p["name"] for p in events["parameters"]} == {"sessionId", "after", "limit"}
    assert events["operationId"] == "sessionEvents"
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            statuses = set(operation["responses"])
            assert "500" in statuses, (path, method)
            for status in statuses - {"200", "201"}:  # 201: POST /bundles made a session
                content = operation["responses"][status]["content"]["application/json"]
                assert content["schema"] == {"$ref": "#/components/schemas/ErrorResult"}
            if path != f"{API}/health":
                assert {"401", "503"} <= statuses, (path, method)
                assert operation["security"] == [{"ApiToken": []}, {"StaffSession": []}]
            if method == "post":
                assert {"400", "403"} <= statuses
                assert "404" in statuses or "{" not in path, (path, method)  # an id in the path may be unknown
            if "{" in path:
                assert "404" in statuses, path
    assert set(document["components"]["schemas"]["ErrorCode"]["enum"]) == {c.value for c in ErrorCode}


def test_the_docs_page_needs_a_staff_login_and_uses_local_files(client, staff, service_catalog, settings):
    if "ninja" not in settings.INSTALLED_APPS:
        pytest.skip("the docs page needs 'ninja' in INSTALLED_APPS (workrail_site/settings.py)")
    response = client.get(f"{API}/docs")
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
    error_of(client.get(f"{API}/openapi.json"), 401, "UNAUTHENTICATED")
    client.force_login(staff)
    page = client.get(f"{API}/docs")
    assert page.status_code == 200
    html = page.content.decode()
    assert "/static/ninja/swagger-ui-bundle.js" in html
    assert "cdn" not in html.lower() and "https://" not in html
    assert client.get(f"{API}/openapi.json").status_code == 200
    asset = client.get("/static/ninja/swagger-ui-bundle.js")  # served locally (WhiteNoise, from the finders)
    assert asset.status_code == 200


def test_the_docs_page_accepts_a_token_too(api):
    assert api.get(f"{API}/openapi.json").status_code == 200


# --- cost --------------------------------------------------------------------------------------------


def counted(client: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


def test_the_sessions_list_and_a_run_cost_the_same_queries_whatever_the_data(api, service_catalog, monkeypatch):
    short = start_workflow("wr.risk_scaled_mr_review", context={"changeRef": "!1"})
    advance(short, "one")
    # The token's first use is recorded (a write, at most once a minute, here once a day): not counted.
    monkeypatch.setattr(api_tokens, "LAST_USED_EVERY", timedelta(days=1))
    assert api.get(f"{API}/sessions").status_code == 200
    # the token's lookup, then the page (no run forked) and whether any session has an owner
    assert counted(api, f"{API}/sessions") == 4
    few_run = counted(api, f"{API}/runs/{short['session']['runId']}")
    built = two_runs_one_forked_twice()
    # A session with a forked run has its status in words: its root runs, their branches (nodes, checkpoints,
    # operator forks, refused answers, syntheses) and the unfinished tips' steps, read once for the whole page.
    # Where each session is (runs/readmodels/attention.py): its root runs, the open ones' branches (five
    # queries), their workflows' names, where their newest steps sit in the outline and those steps' titles,
    # read once for the page and kept until the session changes.
    few_sessions = counted(api, f"{API}/sessions")
    assert few_sessions == 4 + 7 + 9
    for index in range(5):
        start_workflow("wr.routine-focused_plan", context={"sessionKey": f"KEY-{index}"})
    forked_review("MR-OTHER")  # another forked session, one of whose branches completed
    assert counted(api, f"{API}/sessions") == few_sessions
    assert counted(api, f"{API}/runs/{built.review_run}") == few_run

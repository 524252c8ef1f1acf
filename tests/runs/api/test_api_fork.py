"""POST /api/v1/nodes/{nodeId}/fork: the operator fork over HTTP, with the API's auth (a Bearer token, or the
staff login session with its CSRF token), its error bodies and the write rate limit."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from runs.contract.fork import OperatorForkResult
from runs.models import Event, EventKind, Node
from runs.store import tokens
from runs.store.tokens import TokenKind
from tests.support.mcp_calls import ack, continue_workflow, start_workflow
from tests.support.operator_fork import RELEASE, START_CONTEXT, install_release

pytestmark = pytest.mark.django_db

API = "/api/v1"
BODY = {"context": {"target": "production"}, "reason": "Ship it to production instead."}


@pytest.fixture
def root(service_catalog) -> str:
    """The first node of a release run that went on one step (to the staging deployment)."""
    install_release(service_catalog["extra"])
    start = start_workflow(RELEASE, context=START_CONTEXT)
    ack(start)
    return str(tokens.parse(settings.WORKRAIL_HOME, start["stateToken"], TokenKind.STATE).id)


def post(client: Client, node: str, body: Any, **extra: Any) -> Any:
    return client.post(f"{API}/nodes/{node}/fork", body, "application/json", **extra)


def forks() -> int:
    return Event.objects.filter(kind=EventKind.OPERATOR_FORKED).count()


def test_a_fork_answers_the_new_token_and_the_call_for_the_agent(api, root):
    response = post(api, root, BODY)
    assert response.status_code == 200, response.content
    result = OperatorForkResult.model_validate(response.json())
    assert result.forked_from == root and result.pending_step_id == "prepare"
    assert result.context["target"] == "production" and result.context_set == {"target": "production"}
    assert response.json()["call"] == {"tool": "continue_workflow", "arguments": {"stateToken": result.state_token}}
    child = Node.objects.get(public_id=int(result.node_id))
    assert child.parent.public_id == int(root)
    assert Event.objects.filter(kind=EventKind.OPERATOR_FORKED, data__via="api").count() == 1
    shown = continue_workflow(**response.json()["call"]["arguments"])
    assert shown["runContext"]["target"] == "production"


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"context": {"target": "production"}}, 400, "INVALID_INPUT"),  # no reason
        ({"context": [1], "reason": "x"}, 400, "INVALID_INPUT"),  # the body's type, checked by the API
        ({"context": {"ticketId": "OTHER"}, "reason": "x"}, 400, "CONTEXT_CHANGE_INVALID"),
        ({"context": {"currentIteration": 2}, "reason": "x"}, 400, "CONTEXT_CHANGE_INVALID"),
        ({"reason": "   "}, 400, "INVALID_INPUT"),
    ],
)
def test_bad_bodies_are_error_bodies_and_record_nothing(api, root, body, status, code):
    response = post(api, root, body)
    assert response.status_code == status, response.content
    assert response.json()["error"]["code"] == code
    assert response.json()["error"]["suggestion"]
    assert forks() == 0


def test_unknown_and_complete_nodes(api, root):
    assert post(api, "123", BODY).json()["error"]["code"] == "NOT_FOUND"
    answer = start_workflow(RELEASE, context=START_CONTEXT)
    while answer["kind"] != "complete":
        answer = ack(answer)
    done = tokens.parse(settings.WORKRAIL_HOME, answer["stateToken"], TokenKind.STATE).id
    response = post(api, str(done), BODY)
    assert response.status_code == 409 and response.json()["error"]["code"] == "NODE_COMPLETE"
    assert forks() == 0


def test_the_rate_limit_answers_429_with_retry_after(api, root, settings):
    settings.WORKRAIL_RATE_LIMIT_BURST = 1
    settings.WORKRAIL_RATE_LIMIT_PER_MINUTE = 1
    assert post(api, root, BODY).status_code == 200
    refused = post(api, root, BODY)
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "RATE_LIMITED"
    assert int(refused["Retry-After"]) >= 1
    assert forks() == 1


def test_auth_a_login_session_needs_the_csrf_token_and_no_credentials_is_401(root, django_user_model):
    assert post(Client(enforce_csrf_checks=True), root, BODY).status_code == 401
    staff = django_user_model.objects.create_user("admin", password="pw", is_staff=True)
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(staff)
    refused = post(browser, root, BODY)
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "CSRF_FAILED"
    assert forks() == 0
    browser.get("/admin/")  # sets the csrftoken cookie
    allowed = post(browser, root, BODY, headers={"X-CSRFToken": browser.cookies["csrftoken"].value})
    assert allowed.status_code == 200, allowed.content
    assert forks() == 1


def test_the_openapi_document_describes_the_fork(api):
    document = api.get(f"{API}/openapi.json").json()
    operation = document["paths"][f"{API}/nodes/{{nodeId}}/fork"]["post"]
    assert operation["operationId"] == "forkNode"
    assert {"200", "400", "401", "403", "404", "409", "429", "500", "503"} <= set(operation["responses"])
    assert "NODE_COMPLETE" in operation["responses"]["409"]["description"]
    body = document["components"]["schemas"]["OperatorForkInput"]
    assert set(body["properties"]) == {"context", "reason"} and body["required"] == ["reason"]
    assert "call" in document["components"]["schemas"]["OperatorForkResult"]["properties"]


def test_a_lone_surrogate_is_an_error_body_not_a_crash(api, root):
    # JSON may escape a lone surrogate; Python decodes it into a str no database or encoder accepts.
    raw = '{"context": {"target": "\\ud800"}, "reason": "x"}'
    response = api.post(f"{API}/nodes/{root}/fork", raw, "application/json")
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] in {"INVALID_INPUT", "CONTEXT_CHANGE_INVALID"}
    assert forks() == 0


def test_a_body_over_the_upload_limit_is_413(api, root):
    body = {"context": {"target": "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10)}, "reason": "x"}
    response = post(api, root, body)
    assert response.status_code == 413, response.content
    assert response.json()["error"]["code"] == "REQUEST_TOO_LARGE"
    assert forks() == 0

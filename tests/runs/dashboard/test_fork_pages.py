"""The node page's fork form: a new branch with edited context and a reason, the page that hands over the
call for the agent, the reason on the run page, and the protections of every dashboard write (CSRF, the
loopback Host lock, the rate limit), with mistakes shown inline on the node page."""

from __future__ import annotations

import html
import json
import re

import pytest
from django.conf import settings
from django.test import Client

from runs.models import Event, EventKind, Node
from runs.store import tokens
from runs.store.tokens import TokenKind
from tests.support.mcp_calls import ack, continue_workflow, start_workflow
from tests.support.operator_fork import RELEASE, START_CONTEXT, install_release

pytestmark = pytest.mark.django_db


@pytest.fixture
def root(service_catalog) -> str:
    install_release(service_catalog["extra"])
    start = start_workflow(RELEASE, context=START_CONTEXT)
    ack(start)
    return str(tokens.parse(settings.WORKRAIL_HOME, start["stateToken"], TokenKind.STATE).id)


def edited(**changes) -> str:
    context = {**START_CONTEXT, **changes}
    return json.dumps({k: v for k, v in context.items() if v is not None})


def forks() -> int:
    return Event.objects.filter(kind=EventKind.OPERATOR_FORKED).count()


def test_the_node_page_offers_the_form_prefilled_with_the_context(client, root):
    page = client.get(f"/nodes/{root}/").content.decode()
    assert 'id="fork-title"' in page and f'action="/nodes/{root}/fork"' in page
    editor = html.unescape(re.search(r'<textarea id="fork-context"[^>]*>(.*?)</textarea>', page, re.S).group(1))
    assert json.loads(editor) == START_CONTEXT
    assert 'name="csrfmiddlewaretoken"' in page
    assert '<details id="fork-details">' in page  # closed until used


def test_forking_hands_over_the_call_and_the_run_page_shows_the_reason(client, root):
    response = client.post(
        f"/nodes/{root}/fork", {"context": edited(target="production"), "reason": "Production, not staging."}
    )
    assert response.status_code == 302
    child = Node.objects.get(parent__public_id=int(root), pending_step_id="prepare")
    assert response["Location"] == f"/nodes/{child.public_id}/#handover-title"
    page = html.unescape(client.get(response["Location"]).content.decode())
    assert "New branch started from node" in page
    assert "Hand this branch to the agent" in page and "Production, not staging." in page
    assert 'target set to "production"' in page
    call = json.loads(html.unescape(re.search(r'<pre id="agent-call"[^>]*>(.*?)</pre>', page, re.S).group(1)))
    assert call["tool"] == "continue_workflow" and set(call["arguments"]) == {"stateToken"}
    assert tokens.parse(settings.WORKRAIL_HOME, call["arguments"]["stateToken"], TokenKind.STATE).id == child.public_id
    assert continue_workflow(**call["arguments"])["runContext"]["target"] == "production"
    recorded = Event.objects.get(kind=EventKind.OPERATOR_FORKED).data
    assert recorded["via"] == "dashboard" and recorded["contextSet"] == {"target": "production"}

    run_page = client.get(f"/runs/{child.run.public_id}/?tip={child.public_id}").content.decode()
    assert "This branch was started by hand from" in run_page and "Production, not staging." in run_page
    newest_other = client.get(f"/runs/{child.run.public_id}/?tip={child.parent.latest_child.public_id}")
    other = client.get(
        f"/runs/{child.run.public_id}/?tip={Node.objects.get(pending_step_id='deploy-staging').public_id}"
    )
    assert newest_other.status_code == 200
    assert "Production, not staging." not in other.content.decode()  # not on the original branch
    parent_page = client.get(f"/nodes/{root}/").content.decode()
    assert '<span class="tag">fork</span>' in parent_page


@pytest.mark.parametrize(
    ("form", "code"),
    [
        ({"context": "{not json", "reason": "x"}, "CONTEXT_CHANGE_INVALID"),
        ({"context": "[1, 2]", "reason": "x"}, "CONTEXT_CHANGE_INVALID"),
        ({"context": edited(ticketId="OTHER-1"), "reason": "x"}, "CONTEXT_CHANGE_INVALID"),
        ({"context": edited(target="production"), "reason": "   "}, "INVALID_INPUT"),
    ],
)
def test_mistakes_show_inline_on_the_node_page_with_what_was_typed(client, root, form, code):
    response = client.post(f"/nodes/{root}/fork", form)
    assert response.status_code == 200  # the node page again, as a form answers a mistake
    page = response.content.decode()
    assert 'id="fork-error"' in page and code in page
    assert '<details id="fork-details" open>' in page
    assert 'id="recap-title"' in page  # the node page, not the error page
    assert html.escape(form["context"]) in page
    assert forks() == 0


def test_an_unknown_node_is_the_error_page_and_a_complete_node_has_no_form(client, root):
    assert client.post("/nodes/123/fork", {"context": "{}", "reason": "x"}).status_code == 404
    answer = start_workflow(RELEASE, context=START_CONTEXT)
    while answer["kind"] != "complete":
        answer = ack(answer)
    done = tokens.parse(settings.WORKRAIL_HOME, answer["stateToken"], TokenKind.STATE).id
    assert 'id="fork-title"' not in client.get(f"/nodes/{done}/").content.decode()
    response = client.post(f"/nodes/{done}/fork", {"context": "{}", "reason": "Redo."})
    assert response.status_code == 409 and "NODE_COMPLETE" in response.content.decode()
    assert client.get(f"/nodes/{root}/fork").status_code == 405
    assert forks() == 0


def test_a_post_without_the_csrf_token_or_from_a_foreign_host_is_refused(root):
    strict = Client(enforce_csrf_checks=True)
    assert strict.post(f"/nodes/{root}/fork", {"context": "{}", "reason": "x"}).status_code == 403
    assert (
        Client().post(f"/nodes/{root}/fork", {"context": "{}", "reason": "x"}, HTTP_HOST="evil.example").status_code
        == 400
    )
    assert forks() == 0
    page = strict.get(f"/nodes/{root}/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    answer = strict.post(f"/nodes/{root}/fork", {"context": edited(), "reason": "x", "csrfmiddlewaretoken": token})
    assert answer.status_code == 302 and forks() == 1


def test_the_rate_limit_shows_inline(client, root, settings):
    settings.WORKRAIL_RATE_LIMIT_BURST = 1
    settings.WORKRAIL_RATE_LIMIT_PER_MINUTE = 1
    assert client.post(f"/nodes/{root}/fork", {"context": edited(), "reason": "One."}).status_code == 302
    refused = client.post(f"/nodes/{root}/fork", {"context": edited(), "reason": "Two."})
    assert refused.status_code == 200
    assert "RATE_LIMITED" in refused.content.decode() and 'id="fork-error"' in refused.content.decode()
    assert forks() == 1

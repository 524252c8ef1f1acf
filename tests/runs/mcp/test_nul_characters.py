"""U+0000 in what agents and searches send: PostgreSQL cannot store it in text or jsonb, so every
backend refuses it the same way at the boundary (a tool call) or reads it as a word break (a search)."""

from __future__ import annotations

import pytest

from runs.contract.errors import ErrorCode
from runs.mcp.tools import call
from runs.models import Event, Session
from runs.readmodels import overview
from tests.support.mcp_calls import start_workflow

pytestmark = pytest.mark.django_db
WORKFLOW = "wr.evidence_first_bug_fix"


@pytest.mark.parametrize(
    ("tool", "arguments", "pointer"),
    [
        ("start_workflow", {"workflowId": WORKFLOW, "context": {"note": "a\x00b"}}, "/context/note"),
        ("start_workflow", {"workflowId": WORKFLOW, "context": {"k\x00ey": 1}}, "/context/k\\u0000ey"),
        ("start_workflow", {"workflowId": WORKFLOW, "context": {"list": ["ok", ["\x00"]]}}, "/context/list/1/0"),
        ("list_workflows", {"namespace": "\x00"}, "/namespace"),
    ],
)
def test_a_nul_character_in_any_argument_is_invalid_input_and_records_nothing(
    service_catalog, tool, arguments, pointer
):
    outcome = call(tool, arguments)

    assert outcome.is_error
    error = outcome.structured["error"]
    assert error["code"] == ErrorCode.INVALID_INPUT
    assert error["details"]["pointer"] == pointer
    assert "U+0000" in error["message"] and "\x00" not in outcome.text
    assert Session.objects.count() == 0 and Event.objects.count() == 0


def test_a_nul_character_in_a_search_separates_words(service_catalog):
    start_workflow(WORKFLOW, {"ticketId": "NUL-1234"})

    found = overview.list_sessions(query="nul-1234\x00bug")
    assert found.total == 1
    assert found.query == "nul-1234 bug"

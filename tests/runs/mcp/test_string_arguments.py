"""Object arguments sent as JSON-encoded strings (as the MCP Inspector's form sends every argument) are
read as the objects they encode, and the answer says so in a note (issue 30); a string that is not a
JSON object is refused as before."""

from __future__ import annotations

import json

import pytest

from runs.mcp import string_arguments
from runs.mcp.tools import call
from tests.support.mcp_calls import start_workflow

PLAN = "wr.routine-focused_plan"


@pytest.mark.django_db
def test_output_and_context_sent_as_json_strings_are_used_and_noted(service_catalog):
    start = call("start_workflow", {"workflowId": PLAN, "context": json.dumps({"sessionKey": "STR-1"})})
    assert not start.is_error, start.structured
    assert start.structured["session"]["sessionKey"] == "STR-1"
    assert start.structured["warnings"][0]["code"] == "ARGUMENT_DECODED"
    assert "context arrived as a string holding JSON" in start.text

    arguments = {
        "stateToken": start.structured["stateToken"],
        "ackToken": start.structured["ackToken"],
        "output": json.dumps({"notesMarkdown": "Planned the slices."}),
    }
    advanced = call("continue_workflow", arguments)
    assert not advanced.is_error, advanced.structured
    assert advanced.structured["kind"] in {"step", "complete"}
    assert advanced.structured["progress"]["completedSteps"] >= 1
    note = advanced.structured["warnings"][0]
    assert note == {
        "code": "ARGUMENT_DECODED",
        "message": "output arrived as a string holding JSON and was read as the object it encodes; "
        "send objects as objects.",
    }
    assert "Note ARGUMENT_DECODED: output arrived as a string" in advanced.text


@pytest.mark.django_db
def test_objects_sent_as_objects_get_no_note(service_catalog):
    start = start_workflow(PLAN, context={"sessionKey": "OBJ-1"})
    assert all(warning["code"] != "ARGUMENT_DECODED" for warning in start["warnings"])


@pytest.mark.parametrize("text", ["not json", "[1, 2]", '"a string"', "{broken"])
@pytest.mark.django_db
def test_a_string_that_is_not_a_json_object_is_refused_as_before(service_catalog, text):
    start = start_workflow(PLAN)
    outcome = call(
        "continue_workflow", {"stateToken": start["stateToken"], "ackToken": start["ackToken"], "output": text}
    )
    assert outcome.is_error
    assert outcome.structured["error"]["code"] == "INVALID_INPUT"
    assert "at /output" in outcome.structured["error"]["message"]


def test_only_object_arguments_are_decoded():
    names = frozenset({"output"})
    arguments = {"stateToken": '{"a": 1}', "output": '{"notesMarkdown": "x"}'}
    decoded, which = string_arguments.decode(arguments, names)
    assert decoded == {"stateToken": '{"a": 1}', "output": {"notesMarkdown": "x"}}
    assert which == ["output"]

"""The MCP tools as data: schemas, examples, annotations, and errors as data."""

import itertools
import json
import re

import pytest
from jsonschema import Draft202012Validator

from runs.contract.errors import WorkRailError
from runs.execution import catalog as catalog_service
from runs.mcp import tools
from runs.mcp.server import listed_tools
from runs.mcp.tools import call, tool_specs
from tests.support.paths import REPO
from tests.support.workflow_files import workflow_doc, write_json

SPECS = tool_specs()
TOOLS = list(SPECS.values())


def execute(spec, arguments):
    return call(spec.name, arguments)


@pytest.mark.parametrize("spec", TOOLS, ids=lambda s: s.name)
def test_every_documented_example_is_valid_input(spec):
    Draft202012Validator.check_schema(spec.input_schema)
    Draft202012Validator.check_schema(spec.output_schema)
    assert spec.examples
    for example in spec.examples:
        assert list(Draft202012Validator(spec.input_schema).iter_errors(example)) == []
        spec.input.model_validate(example)  # the model that parses the call agrees with its schema


@pytest.mark.parametrize("spec", TOOLS, ids=lambda s: s.name)
def test_descriptions_show_the_examples(spec):
    for example in spec.examples:
        assert __import__("json").dumps(example, sort_keys=True) in spec.description


TOKEN_EXAMPLES = {"continue_workflow", "checkpoint_workflow"}  # their examples carry placeholder tokens


@pytest.mark.django_db
@pytest.mark.parametrize("spec", [s for s in TOOLS if s.name not in TOKEN_EXAMPLES], ids=lambda s: s.name)
def test_every_example_runs_and_its_output_matches_the_output_schema(spec, service_catalog, settings):
    settings.WORKRAIL_ENABLE_START_SESSION = True
    settings.WORKRAIL_ENABLE_RESUME_SESSION = True
    for example in spec.examples:
        outcome = execute(spec, example)
        assert not outcome.is_error, outcome.text
        assert list(Draft202012Validator(spec.output_schema).iter_errors(outcome.structured)) == []
        assert outcome.text


@pytest.mark.django_db
@pytest.mark.parametrize("name", sorted(TOKEN_EXAMPLES))
def test_token_examples_have_the_right_shape_and_only_their_placeholder_tokens_fail(name, service_catalog, settings):
    settings.WORKRAIL_ENABLE_START_SESSION = True
    for example in SPECS[name].examples:
        outcome = execute(SPECS[name], example)
        assert outcome.structured["error"]["code"] == "TOKEN_BAD_SIGNATURE"


def test_flagged_tools_follow_their_flags(settings):
    assert {s.name for s in TOOLS if s.enabled} == {
        "list_workflows",
        "inspect_workflow",
        "start_workflow",
        "continue_workflow",
        "checkpoint_workflow",
        "resume_session",  # on by default: a new chat can find earlier work
    }
    settings.WORKRAIL_ENABLE_START_SESSION = True
    settings.WORKRAIL_ENABLE_RESUME_SESSION = False
    assert {s.name for s in TOOLS if s.enabled} == {
        "list_workflows",
        "inspect_workflow",
        "start_workflow",
        "continue_workflow",
        "checkpoint_workflow",
        "start_session",
    }
    settings.WORKRAIL_ENABLE_CHECKPOINT = False  # a notes-only session exists to be checkpointed into
    assert {s.name for s in TOOLS if s.enabled} == {"list_workflows", "inspect_workflow", "start_workflow",
                                                    "continue_workflow"}  # fmt: skip
    with pytest.raises(WorkRailError) as refused:
        tools.invoke("start_session", {})
    assert refused.value.suggestion.startswith("Ask the user to set WORKRAIL_ENABLE_CHECKPOINT=1 in")


def _strings(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


@pytest.mark.parametrize("flags", list(itertools.product([False, True], repeat=3)), ids=str)
def test_the_tool_list_names_only_tools_this_server_offers(settings, flags):
    """Issue 28: checkpoint_workflow's description named start_session, which is off by default. Whatever
    the flags, no description, schema or example in tools/list names a tool that is not offered."""
    checkpoint, notes_sessions, resume = flags
    settings.WORKRAIL_ENABLE_CHECKPOINT = checkpoint
    settings.WORKRAIL_ENABLE_START_SESSION = notes_sessions
    settings.WORKRAIL_ENABLE_RESUME_SESSION = resume
    listed = listed_tools()
    offered = {spec.name for spec, _ in listed}
    for spec, listing in listed:
        words = " ".join(_strings([listing.description, listing.input_schema, listing.output_schema]))
        named = {name for name in SPECS if re.search(rf"\b{name}\b", words)}
        assert named <= offered, f"{spec.name} names {sorted(named - offered)}"
        for example in listing.examples:
            assert json.dumps(example, sort_keys=True) in listing.description
            assert list(Draft202012Validator(listing.input_schema).iter_errors(example)) == []
    if checkpoint and not notes_sessions:
        [checkpoint_listing] = [listing for spec, listing in listed if spec.name == "checkpoint_workflow"]
        assert "sessionToken" not in checkpoint_listing.input_schema["properties"]


def test_list_filters_by_kind_and_namespace(service_catalog):
    write_json(service_catalog["extra"] / "r.json", workflow_doc("team.routine-x"))
    routines = execute(SPECS["list_workflows"], {"kind": "routine"}).structured
    assert {w["id"] for w in routines["workflows"]} == {"team.routine-x", "wr.routine-focused_plan"}
    wr_only = execute(SPECS["list_workflows"], {"namespace": "wr"}).structured
    bundled = len(list((REPO / "workflows_app" / "bundled").glob("*.json")))
    assert all(w["namespace"] == "wr" for w in wr_only["workflows"]) and wr_only["count"] == bundled


def test_broken_files_never_break_listing(service_catalog):
    (service_catalog["extra"] / "broken.json").write_text("{nope")
    write_json(service_catalog["home"] / "workflows" / "wr.json", workflow_doc("wr.evil"))
    outcome = execute(SPECS["list_workflows"], {})
    assert not outcome.is_error
    assert outcome.structured["problems"] == {
        "errors": 2,
        "warnings": 0,
        "command": "python manage.py validate_workflow --configured",
    }
    assert "2 files failed to load" in outcome.text and "validate_workflow --configured" in outcome.text
    listed = execute(SPECS["list_workflows"], {"query": "evil"}).structured
    assert listed["count"] == 0
    people = catalog_service.list_workflows(for_people=True).dump()
    assert {w["code"] for w in people["warnings"]} >= {"INVALID_JSON", "RESERVED_NAMESPACE"}


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({}, "at /workflowId, field required"),
        ({"workflowId": 7}, "at /workflowId, input should be a valid string"),
        ({"workflowId": "wr.code_review", "mode": "full"}, "at /mode, input should be 'metadata' or 'preview'"),
        ({"workflowId": "wr.code_review", "extra": 1}, "at /extra, extra inputs are not permitted"),
    ],
)
def test_wrong_shapes_are_structured_errors(arguments, fragment, service_catalog):
    outcome = execute(SPECS["inspect_workflow"], arguments)
    assert outcome.is_error
    error = outcome.structured["error"]
    assert error["code"] == "INVALID_INPUT"
    assert fragment in error["message"]
    assert "wr.evidence_first_bug_fix" in error["suggestion"]
    assert error["retryable"] is False


def test_unknown_ids_suggest_close_matches(service_catalog):
    error = execute(SPECS["inspect_workflow"], {"workflowId": "wr.code_reveiw"}).structured["error"]
    assert error["code"] == "WORKFLOW_NOT_FOUND"
    assert error["details"]["didYouMean"][0] == "wr.code_review"


def test_invalid_workflows_say_what_to_fix(service_catalog):
    path = write_json(
        service_catalog["extra"] / "bad.json",
        workflow_doc(
            "team.bad",
            steps=[{"id": "a-step", "title": "A", "prompt": "p", "runCondition": {"var": "x", "gt": "y"}}],
        ),
    )
    error = execute(SPECS["inspect_workflow"], {"workflowId": "team.bad"}).structured["error"]
    assert error["code"] == "WORKFLOW_INVALID"
    assert str(path) in error["suggestion"]
    assert error["details"]["diagnostics"][0]["pointer"] == "/steps/0/runCondition/gt"


def test_internal_failures_are_masked_and_logged(service_catalog, monkeypatch, caplog):
    from runs.execution import catalog

    def boom(*args, **kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(catalog, "current_catalog", boom)
    outcome = execute(SPECS["list_workflows"], {})
    assert outcome.is_error
    assert outcome.structured["error"]["code"] == "INTERNAL_ERROR"
    assert "secret internals" not in outcome.text
    assert "secret internals" in caplog.text


def test_preview_includes_prompts_and_metadata_does_not(service_catalog):
    preview = execute(SPECS["inspect_workflow"], {"workflowId": "wr.code_review", "mode": "preview"}).structured
    metadata = execute(SPECS["inspect_workflow"], {"workflowId": "wr.code_review"}).structured
    assert all("prompt" in step for step in preview["steps"] if step["kind"] != "loop")
    assert not any("prompt" in step for step in metadata["steps"])
    assert metadata["workflow"]["preconditions"]
    loop = next(step for step in preview["steps"] if step["kind"] == "loop")
    assert loop["loop"]["type"] == "forEach" and loop["body"][0]["prompt"]


def test_tools_are_annotated_for_what_they_do():
    hints = {s.name: (s.annotations.read_only, s.annotations.destructive, s.annotations.idempotent) for s in TOOLS}
    assert hints == {
        "list_workflows": (True, False, True),
        "inspect_workflow": (True, False, True),
        "start_workflow": (False, False, False),  # each call starts another run
        "continue_workflow": (False, False, True),  # replaying an ack returns the recorded answer
        "checkpoint_workflow": (False, False, True),  # the same checkpoint is recorded once
        "start_session": (False, False, False),
        "resume_session": (True, False, True),
    }


@pytest.mark.parametrize("spec", TOOLS, ids=lambda s: s.name)
def test_every_output_schema_admits_the_error_body(spec):
    # Clients that validate structuredContent against outputSchema (the TypeScript SDK does, on errors
    # too) must accept an error answer: the error body is one of the declared shapes.
    validator = Draft202012Validator(spec.output_schema)
    assert spec.output_schema["type"] == "object"
    error = {"error": {"code": "TOKEN_MALFORMED", "message": "m", "retryable": False, "suggestion": "s"}}
    assert list(validator.iter_errors(error)) == []
    assert list(validator.iter_errors({"error": {**error["error"], "code": "NOT_A_CODE"}}))


@pytest.mark.django_db
def test_error_answers_validate_against_the_tool_output_schema(service_catalog):
    cases = [
        ("inspect_workflow", {"workflowId": "team.nothing"}),
        ("start_workflow", {"workflowId": 3}),
        ("continue_workflow", {"stateToken": "st1_nope"}),
        ("checkpoint_workflow", {"stateToken": "st1_nope", "output": {"notesMarkdown": "x"}}),
        ("list_workflows", {"kind": "everything"}),
    ]
    for name, arguments in cases:
        outcome = execute(SPECS[name], arguments)
        assert outcome.is_error
        assert list(Draft202012Validator(SPECS[name].output_schema).iter_errors(outcome.structured)) == []


def test_unknown_tools_are_an_error_naming_only_enabled_tools(settings):
    outcome = call("frobnicate", {})
    assert outcome.structured["error"]["code"] == "INVALID_INPUT"
    assert "start_workflow" in outcome.structured["error"]["suggestion"]
    assert "start_session" not in outcome.structured["error"]["suggestion"]
    settings.WORKRAIL_ENABLE_RESUME_SESSION = False
    assert "resume_session" not in call("frobnicate", {}).structured["error"]["suggestion"]


@pytest.mark.django_db
def test_a_disabled_tool_is_refused_with_the_flag_to_set(settings):
    settings.WORKRAIL_ENABLE_RESUME_SESSION = False
    outcome = call("resume_session", {})
    assert outcome.structured["error"]["code"] == "FEATURE_DISABLED"
    assert "WORKRAIL_ENABLE_RESUME_SESSION=1" in outcome.structured["error"]["suggestion"]


@pytest.mark.django_db
def test_a_replay_gives_the_answer_and_the_text_said_the_first_time(service_catalog):
    """The text is rendered from the answer's model; a replay's model is read back from the JSON recorded
    then, so both views come back as they were."""
    started = call("start_workflow", {"workflowId": "wr.evidence_first_bug_fix", "goal": "Find the leak."})
    ack = {
        "stateToken": started.structured["stateToken"],
        "ackToken": started.structured["ackToken"],
        "output": {"notesMarkdown": "Reproduced it."},
    }
    first, again = call("continue_workflow", ack), call("continue_workflow", ack)
    assert not first.is_error, first.text
    assert json.dumps(again.structured) == json.dumps(first.structured)
    assert again.text == first.text


@pytest.mark.django_db
def test_a_recorded_answer_that_no_longer_fits_its_model_is_an_error_as_data(service_catalog):
    from runs.models import Ack

    started = call("start_workflow", {"workflowId": "wr.evidence_first_bug_fix"}).structured
    ack = {"stateToken": started["stateToken"], "ackToken": started["ackToken"], "output": {"notesMarkdown": "Done."}}
    assert not call("continue_workflow", ack).is_error
    recorded = Ack.objects.get()
    recorded.response_json = recorded.response_json.replace('"isComplete": false', '"isComplete": "tampered"')
    recorded.save()
    again = call("continue_workflow", ack)  # its text cannot be rendered: said so, not raised
    assert again.is_error and again.structured["error"]["code"] == "INTERNAL_ERROR"

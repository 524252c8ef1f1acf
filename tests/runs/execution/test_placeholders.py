"""An agent that copies nextCall.arguments blindly cannot get past a step: the placeholders WorkRail
writes there are recognised when they come back, and are never recorded as notes or stored as values."""

import copy

import pytest

from runs.execution import placeholders
from runs.models import Checkpoint, Event, EventKind, Gap, Node, Output
from tests.support.checks import error_code
from tests.support.mcp_calls import checkpoint_workflow, continue_workflow, start_workflow
from tests.support.workflow_files import step_doc, workflow_doc, write_json

pytestmark = pytest.mark.django_db
REVIEW = "wr.code_review"  # its first step needs the change to review (information only the user has)


def send_back(response, **changes):
    """nextCall.arguments exactly as given, with `changes` applied to them."""
    arguments = copy.deepcopy(response["nextCall"]["arguments"])
    arguments.update(changes)
    return continue_workflow(**arguments)


@pytest.fixture
def decide(service_catalog):
    """A two-step workflow whose first step decides `risk`, which a later condition reads."""
    steps = [
        step_doc("assess", "Assess", "Assess the change and set risk to low or high."),
        step_doc("double-check", "Double-check", "Check again.", runCondition={"var": "risk", "equals": "high"}),
        step_doc("ship", "Ship", "Ship it."),
    ]
    write_json(service_catalog["extra"] / "decide.json", workflow_doc("team.decide", steps=steps))
    return "team.decide"


def test_notes_copied_unchanged_block_the_step_and_are_not_recorded(service_catalog):
    start = start_workflow("wr.evidence_first_bug_fix")
    assert start["nextCall"]["arguments"]["output"]["notesMarkdown"] == placeholders.NOTES
    answer = send_back(start, context={})
    assert answer["kind"] == "blocked"
    assert [(i["code"], i["pointer"]) for i in answer["blocked"]["issues"]] == [
        ("PLACEHOLDER_UNCHANGED", "/output/notesMarkdown")
    ]
    assert answer["progress"]["completedSteps"] == 0
    assert answer["pending"]["stepId"] == start["pending"]["stepId"]
    assert not Output.objects.exists()
    # Every further blind copy stays where it is: the retry ack in nextCall is blocked again.
    again = send_back(answer, context={})
    assert again["kind"] == "blocked" and again["progress"]["completedSteps"] == 0
    assert Node.objects.count() == 1


def test_a_context_placeholder_copied_unchanged_blocks_and_is_never_stored(decide):
    start = start_workflow(decide)
    [expected] = start["pending"]["expectedContext"]
    assert expected == {
        "key": "risk",
        "type": "string",
        "values": ["high"],
        "why": "the runCondition of step 'double-check' (it runs only when risk is \"high\")",
        "setByThisStep": True,
    }
    blank = start["nextCall"]["arguments"]["context"]["risk"]
    assert placeholders.is_placeholder(blank) and '"high"' in blank and "(string" in blank
    answer = send_back(start, output={"notesMarkdown": "Assessed: small change."})
    assert [(i["code"], i["pointer"]) for i in answer["blocked"]["issues"]] == [
        ("PLACEHOLDER_UNCHANGED", "/context/risk")
    ]
    assert not any("<fill in" in str(node.engine_state) for node in Node.objects.all())
    # Leaving the key out (not known yet) is fine; so is a real value.
    moved = send_back(answer, output={"notesMarkdown": "Assessed: small change."}, context={"risk": "low"})
    assert moved["kind"] == "step" and moved["pending"]["stepId"] == "ship"


def test_the_user_dependency_placeholder_is_not_the_users_answer(service_catalog):
    start = start_workflow(REVIEW, {"reviewAreas": ["api"]})
    blocked = continue_workflow(
        stateToken=start["stateToken"], ackToken=start["ackToken"], output={"notesMarkdown": "Scoped the review."}
    )
    assert blocked["blocked"]["issues"][0]["code"] == "USER_DEPENDENCY_UNMET"
    blank = blocked["nextCall"]["arguments"]["context"]["changeRef"]
    assert blank.startswith("<fill in from the user:")
    still = send_back(blocked, output={"notesMarkdown": "Scoped the review."})
    assert still["kind"] == "blocked"
    assert [i["code"] for i in still["blocked"]["issues"]] == ["USER_DEPENDENCY_UNMET"]
    assert still["pending"]["userDependencies"][0]["met"] is False
    answered = send_back(still, output={"notesMarkdown": "Scoped the review."}, context={"changeRef": "MR !42"})
    assert answered["kind"] == "step"


def test_unattended_runs_record_a_gap_for_a_placeholder_and_never_store_it(service_catalog):
    start = start_workflow(REVIEW, {"reviewAreas": ["api"]}, mode="unattended")
    moved = continue_workflow(
        stateToken=start["stateToken"],
        ackToken=start["ackToken"],
        output={"notesMarkdown": "Assumed the current branch."},
        context={"changeRef": placeholders.from_user("Which change to review")},
    )
    assert moved["kind"] == "step"
    assert [w["code"] for w in moved["warnings"]] == ["USER_DEPENDENCY_GAP"]
    assert Gap.objects.get().reason == "information"
    assert "changeRef" not in Node.objects.order_by("-pk").first().engine_state["context"]


def test_a_checkpoint_refuses_placeholder_notes_and_records_nothing(service_catalog):
    start = start_workflow("wr.evidence_first_bug_fix")
    code = error_code(
        lambda: checkpoint_workflow(stateToken=start["stateToken"], output={"notesMarkdown": placeholders.NOTES})
    )
    assert code == "INVALID_INPUT"
    assert not Checkpoint.objects.exists()
    assert not Event.objects.filter(kind=EventKind.CHECKPOINT_RECORDED).exists()


@pytest.mark.parametrize(
    ("value", "recognised"),
    [
        (placeholders.NOTES, True),
        (f"  {placeholders.NOTES}\n", True),
        (placeholders.from_user("the MR link"), True),
        ("<fill in (string): risk, read by the runCondition of step 'x'>", True),
        ("<div>not a placeholder</div>", False),
        ("I had to <fill in> the form > twice", False),
        ("Did it.\n<fill in: later>", False),
        (3, False),
    ],
)
def test_placeholders_have_one_recognisable_form(value, recognised):
    assert placeholders.is_placeholder(value) is recognised

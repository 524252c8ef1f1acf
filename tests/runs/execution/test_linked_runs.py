"""Runs an agent starts itself for a step that asks it to delegate (a WorkRail prompt saying "spawn an
executor running routine X"), linked to that step by start_workflow's parentStateToken: the run's last
answer gives the call back to the step, and the step shows what the run recorded."""

import json

import pytest

from harness.projections import snapshot
from runs.contract.errors import ErrorCode, WorkRailError
from runs.contract.execution import ExecutionResult
from runs.execution import delegations
from runs.models import Event, Run
from runs.store.actors import Actor, Door, acting_as
from runs.store.rebuild import rebuild_projections
from tests.support.mcp_calls import ack, ack_with_notes, checkpoint_workflow, continue_workflow, start_workflow
from tests.support.texts import execution_text
from tests.support.workflow_files import step_doc, workflow_doc, write_json

pytestmark = pytest.mark.django_db

ROUTINE = "team.routine-second-look"
FINDING = "The rounding in invoice totals is off by one cent."


@pytest.fixture
def audit(service_catalog):
    """A workflow whose middle step asks, in words only, for a subagent running a routine."""
    routine = workflow_doc(
        ROUTINE,
        name="Second look",
        steps=[
            step_doc("look", "Look", "Look again at {{change}} for what a first reading missed."),
            step_doc("report", "Report", "Report what you found."),
        ],
    )
    parent = workflow_doc(
        "team.audit",
        name="Audit",
        steps=[
            step_doc("scope", "Scope", "Name the change to audit."),
            step_doc(
                "challenge",
                "Challenge the first reading",
                f"Delegate a second look to a subagent: spawn one executor running `{ROUTINE}` on the riskiest "
                "change, then weigh what it found against your own reading.",
            ),
            step_doc("decide", "Decide", "Decide whether the change can ship."),
        ],
    )
    write_json(service_catalog["extra"] / "routine.json", routine)
    write_json(service_catalog["extra"] / "audit.json", parent)
    return "team.audit"


def finish(answer, notes):
    while not answer["isComplete"]:
        answer = ack_with_notes(answer, notes)
    return answer


def test_a_run_started_with_parentStateToken_links_both_ways(audit):
    scope = start_workflow(audit, goal="Audit the billing change")
    assert "delegateWith" not in scope["pending"]  # its prompt asks for no delegation
    step = ack(scope)
    assert step["pending"]["stepId"] == "challenge"
    assert step["pending"]["delegateWith"] == {"parentStateToken": step["stateToken"]}
    text = execution_text(step)
    hint = json.dumps({"workflowId": "<its id>", "goal": "<what it is to do>", "parentStateToken": step["stateToken"]})
    assert f"start_workflow {hint}" in text

    child = start_workflow(
        ROUTINE, {"change": "billing"}, goal="A second look at billing", parentStateToken=step["stateToken"]
    )
    parent_run = Run.objects.get(public_id=step["session"]["runId"])
    linked = Run.objects.get(public_id=child["session"]["runId"])
    assert (linked.parent_run, linked.parent_node.pending_step_id) == (parent_run, "challenge")
    assert linked.delegation_index is None and linked.session_id == parent_run.session_id
    assert child["delegatedBy"]["linked"] and child["delegatedBy"]["stepId"] == "challenge"
    opening = execution_text(child)
    link = f"This run is linked to run {parent_run.public_id}'s step 'Challenge the first reading' [challenge]"
    assert link in opening
    assert "its last answer gives the call back to that step" in opening
    assert child["pending"]["prompt"] == "Look again at billing for what a first reading missed."

    reopened = continue_workflow(stateToken=child["stateToken"])  # a chat (a subagent) opening the linked run
    assert reopened["delegatedBy"]["brief"] == ["change"]
    assert 'Your brief (the context the parent handed to this run, in full):\n- change = "billing"' in execution_text(
        reopened
    )
    assert "change" not in [e["key"] for e in reopened["pending"].get("expectedContext") or []]

    waiting = continue_workflow(stateToken=step["stateToken"])  # the parent step, while its linked run works
    (shown,) = waiting["pending"]["linkedRuns"]
    assert (shown["runId"], shown["status"], shown["workflowName"]) == (linked.public_id, "in_progress", "Second look")
    assert f'continue_workflow {{"stateToken": "{shown["stateToken"]}"}}' in execution_text(waiting)

    done = finish(child, FINDING)
    back = done["delegatedBy"]["parentStateToken"]
    assert back == step["stateToken"] and done["delegatedBy"]["unfinished"] == []
    done_text = execution_text(done)
    assert f'continue_workflow {{"stateToken": "{back}"}}' in done_text
    assert "No run linked to that step is open now. If the step asks for more runs" in done_text

    returned = continue_workflow(stateToken=back)
    (recorded,) = returned["pending"]["linkedRuns"]
    assert recorded["status"] == "complete"
    assert [entry["notesMarkdown"] for entry in recorded["recorded"]["entries"]] == [FINDING, FINDING]
    assert FINDING in execution_text(returned)
    ExecutionResult.model_validate(returned)

    moved = ack(returned)  # linked runs never hold the step: the agent weighs them and goes on
    assert moved["pending"]["stepId"] == "decide" and "linkedRuns" not in moved["pending"]

    before = snapshot()
    rebuild_projections()
    assert snapshot() == before


def test_a_checkpoint_on_the_step_still_shows_its_linked_runs_and_is_where_they_point_back(audit):
    step = ack(start_workflow(audit))
    child = start_workflow(ROUTINE, {"change": "billing"}, parentStateToken=step["stateToken"])
    noted = checkpoint_workflow(stateToken=step["stateToken"], output={"notesMarkdown": "Started the second look."})
    done = finish(child, FINDING)
    assert done["delegatedBy"]["parentStateToken"] == noted["stateToken"]
    assert continue_workflow(stateToken=noted["stateToken"])["pending"]["linkedRuns"][0]["status"] == "complete"


def test_without_parentStateToken_nothing_is_linked(audit):
    child = start_workflow(ROUTINE, {"change": "billing"})
    assert "delegatedBy" not in child
    assert Run.objects.get(public_id=child["session"]["runId"]).parent_run is None


def refused(call):
    before = Event.objects.count()
    with pytest.raises(WorkRailError) as caught:
        call()
    assert Event.objects.count() == before, "a refusal records nothing"
    return caught.value


def test_a_bad_or_foreign_parentStateToken_is_refused_with_what_to_send(audit):
    step = ack(start_workflow(audit))
    ack_instead = refused(lambda: start_workflow(ROUTINE, parentStateToken=step["ackToken"]))
    assert ack_instead.code == ErrorCode.TOKEN_MALFORMED and "stateToken" in ack_instead.suggestion
    edited = refused(lambda: start_workflow(ROUTINE, parentStateToken=step["stateToken"][:-2] + "AA"))
    assert edited.code in (ErrorCode.TOKEN_BAD_SIGNATURE, ErrorCode.TOKEN_MALFORMED)

    with acting_as(Actor("alice", Door.HTTP)):
        hers = ack(start_workflow(audit))
    with acting_as(Actor("bob", Door.HTTP)):
        foreign = refused(lambda: start_workflow(ROUTINE, parentStateToken=hers["stateToken"]))
    assert foreign.code == ErrorCode.NOT_YOUR_SESSION

    done = finish(start_workflow(ROUTINE, {"change": "x"}), "Done.")
    complete = refused(lambda: start_workflow(ROUTINE, parentStateToken=done["stateToken"]))
    assert complete.code == ErrorCode.NODE_COMPLETE

    elsewhere = refused(
        lambda: start_workflow(ROUTINE, {"sessionKey": "other-work"}, parentStateToken=step["stateToken"])
    )
    assert elsewhere.code == ErrorCode.INVALID_INPUT and elsewhere.details["pointer"] == "/context/sessionKey"


def test_a_step_shows_its_newest_linked_runs_and_counts_them_all(audit, monkeypatch):
    monkeypatch.setattr(delegations, "LINKED_RUNS_SHOWN", 2)
    step = ack(start_workflow(audit))
    started = [start_workflow(ROUTINE, {"change": c}, parentStateToken=step["stateToken"]) for c in "abc"]
    waiting = continue_workflow(stateToken=step["stateToken"])
    shown = waiting["pending"]["linkedRuns"]
    assert [run["runId"] for run in shown] == [s["session"]["runId"] for s in started[1:]]
    assert waiting["pending"]["linkedRunCount"] == 3
    text = execution_text(waiting)
    assert "Runs linked to this step (3, the newest 2 shown)" in text and f"3. {ROUTINE}" in text
    assert started[2]["delegatedBy"]["number"] == 3 and started[2]["delegatedBy"]["count"] == 3


def test_the_delegation_hint_says_where_to_find_what_to_run(audit):
    """A trial agent was told to start 'each run' of a step that named no routine: the hint says where to look."""
    step = ack(start_workflow(audit, goal="Audit the billing change"))
    text = execution_text(step)
    assert 'list_workflows {"kind": "routine"} lists the routines to run' in text
    assert "inspect_workflow shows the context one reads" in text


def test_a_fragment_that_asks_to_delegate_offers_the_link_only_where_it_is_shown(service_catalog):
    fragment = {
        "id": "deep",
        "when": {"var": "deep", "equals": True},
        "text": f"Spawn one executor running `{ROUTINE}`.",
    }
    document = workflow_doc(
        "team.maybe-deep",
        name="Maybe deep",
        steps=[
            step_doc("review", "Review", "Review the change.", promptFragments=[fragment]),
            step_doc("decide", "Decide", "Decide."),
        ],
    )
    write_json(service_catalog["extra"] / "maybe.json", document)
    assert "delegateWith" not in start_workflow("team.maybe-deep", {"deep": False}, goal="g")["pending"]
    deep = start_workflow("team.maybe-deep", {"deep": True}, goal="g")
    assert deep["pending"]["delegateWith"] == {"parentStateToken": deep["stateToken"]}

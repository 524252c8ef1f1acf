"""Guidance an agent can follow without reading prose: one step count everywhere, steady warnings
given once per run, errors that name what exists and what failed to load."""

import pytest

from runs.mcp.tools import call
from runs.store.rebuild import rebuild_projections
from tests.support import texts
from tests.support.mcp_calls import ack, continue_workflow, start_workflow
from tests.support.workflow_files import loop_doc, step_doc, workflow_doc, write_json

pytestmark = pytest.mark.django_db
BUGS = "wr.evidence_first_bug_fix"  # recommends guided autonomy and a conservative risk policy


def test_one_step_count_in_the_list_the_inspection_the_progress_and_the_end(service_catalog):
    steps = [
        step_doc("first", "First", "Start."),
        loop_doc("again", "Again", {"type": "for", "count": 2, "maxIterations": 3}, "inner"),
        step_doc("inner", "Inner", "Repeat."),
    ]
    write_json(service_catalog["extra"] / "count.json", workflow_doc("team.count", steps=steps))
    listed = next(w for w in call("list_workflows", {"namespace": "team"}).structured["workflows"])
    inspected = call("inspect_workflow", {"workflowId": "team.count"}).structured["workflow"]
    assert listed["stepCount"] == inspected["stepCount"] == 2  # `first` and `inner`; the loop is not a step
    response = start_workflow("team.count")
    assert response["progress"] == {
        "completedSteps": 0,
        "stepCount": 2,
        "outlineStep": "1",
        "outlineLength": 2,
        "summary": "Step 1 of the outline's 2; 0 steps acknowledged so far.",
    }
    seen = []
    while not response["isComplete"]:
        response = ack(response)
        seen.append(response["progress"].get("summary"))
    assert seen[:2] == [
        "Step 2.1 of the outline's 2 (pass 1 of loop 'again'); 1 step acknowledged so far.",
        "Step 2.1 of the outline's 2 (pass 2 of loop 'again'); 2 steps acknowledged so far.",
    ]
    # `inner` ran twice: the count of acknowledged steps passes the step count, and no sentence says "3 of 2".
    assert response["progress"]["completedSteps"] == 3
    text = texts.execution_text(response)
    assert "Complete: 3 steps acknowledged in all" in text
    assert "of a workflow of" not in text
    assert "checkpoint_workflow" in text  # what next: follow-up work is recorded on the run


def test_a_mode_above_the_recommendation_is_said_once_per_run(service_catalog):
    start = start_workflow(BUGS, mode="unattended")
    # Autonomy above 'guided', and the preset's balanced risk above 'conservative': two warnings.
    assert [w["code"] for w in start["warnings"]] == ["PREFERENCES_EXCEED_RECOMMENDATION"] * 2
    second = ack(start)
    assert second["warnings"] == []
    assert continue_workflow(stateToken=second["stateToken"])["warnings"] == []  # a rehydrate neither
    switched = ack(second, mode="autopilot")  # another level above the recommendation: news again
    assert [w["code"] for w in switched["warnings"]] == ["PREFERENCES_EXCEED_RECOMMENDATION"]
    assert "the run uses autopilot autonomy, as chosen" in switched["warnings"][0]["message"]
    assert "send mode 'guided' with continue_workflow" in switched["warnings"][0]["message"]  # risk unchanged
    assert "full_auto" not in switched["warnings"][0]["message"]  # the API's name, where users know a mode's
    rebuild_projections()  # what was said is in the log, so a rebuilt store remembers it
    assert ack(switched)["warnings"] == []
    other_run = start_workflow(BUGS, mode="unattended")  # once per run, not once per store
    assert [w["code"] for w in other_run["warnings"]] == ["PREFERENCES_EXCEED_RECOMMENDATION"] * 2


def test_a_default_nobody_chose_follows_the_recommendation_and_says_so_once(service_catalog):
    start = start_workflow(BUGS)  # no mode, no preferences: the server's own defaults (guided, balanced)
    assert [w["code"] for w in start["warnings"]] == ["PREFERENCES_FOLLOW_RECOMMENDATION"]
    assert "preferences.riskPolicy" in start["warnings"][0]["message"]
    assert "'balanced': take the safest option at each choice" in start["warnings"][0]["message"]  # what it asks
    assert start["preferences"] == {"autonomy": "guided", "riskPolicy": "conservative"}
    assert ack(start)["warnings"] == []


def test_a_choice_above_the_recommendation_names_the_preference_to_send(service_catalog):
    start = start_workflow(BUGS, preferences={"riskPolicy": "aggressive"})
    assert [w["code"] for w in start["warnings"]] == ["PREFERENCES_EXCEED_RECOMMENDATION"]
    assert "send preferences.riskPolicy 'conservative'" in start["warnings"][0]["message"]
    assert start["preferences"]["riskPolicy"] == "aggressive"  # a choice is never overridden


def test_workflow_not_found_names_the_files_that_failed_to_load(service_catalog):
    (service_catalog["extra"] / "release.json").write_text('{"id": "team.release", "name": ')
    error = call("start_workflow", {"workflowId": "team.release"}).structured["error"]
    assert error["code"] == "WORKFLOW_NOT_FOUND"
    assert "release.json" in error["message"] and "failed to load" in error["message"]
    assert error["details"]["unloadedFiles"][0]["code"] == "INVALID_JSON"
    assert "Fix those files" in error["suggestion"]
    write_json(service_catalog["extra"] / "release.json", workflow_doc("team.release"))
    from runs.execution.catalog import current_catalog

    current_catalog()  # a clean catalog: the message goes back to plain
    clean = call("start_workflow", {"workflowId": "team.nothing"}).structured["error"]
    assert "failed to load" not in clean["message"] and "unloadedFiles" in clean["details"]


@pytest.mark.parametrize("resume_on", [False, True])
def test_suggestions_name_only_tools_that_are_on(service_catalog, settings, resume_on):
    settings.WORKRAIL_ENABLE_RESUME_SESSION = resume_on
    start = start_workflow(BUGS)
    forged = start["stateToken"][:-3] + ("AAA" if not start["stateToken"].endswith("AAA") else "BBB")
    error = call("continue_workflow", {"stateToken": forged}).structured["error"]
    assert error["code"] == "TOKEN_BAD_SIGNATURE"
    assert ("resume_session" in error["suggestion"]) is resume_on
    assert ("resume_session" in call("nothing_here", {}).structured["error"]["suggestion"]) is resume_on


def test_what_the_loader_left_out_is_said_once_per_run(service_catalog):
    steps = [
        {"id": "plan", "title": "Plan", "prompt": "Plan it.", "functionReferences": ["summarize()"]},
        {"id": "do-it", "title": "Do", "prompt": "Do it."},
    ]
    write_json(service_catalog["extra"] / "lenient.json", workflow_doc("team.lenient", steps=steps))
    start = start_workflow("team.lenient")
    [warning] = start["warnings"]
    assert warning["code"] == "REFERENCES_LEFT_OUT"
    assert "function 'summarize' at /steps/0/functionReferences/0" in warning["message"]
    assert ack(start)["warnings"] == []


def test_a_finished_run_names_checkpoint_workflow_only_where_it_is_offered(service_catalog, settings):
    """Issue 28: what an agent reads names only tools this server offers."""
    done = start_workflow("wr.routine-focused_plan")
    while done["pending"] is not None:
        done = ack(done)
    assert "record it with checkpoint_workflow" in texts.execution_text(done)
    settings.WORKRAIL_ENABLE_CHECKPOINT = False
    text = texts.execution_text(done)
    assert "checkpoint_workflow" not in text and "- A new piece of work: list_workflows" in text

"""What the server tells an agent is true: nextCall decides nothing for it, the context it lists is
the whole truth up front, conditional rules read as conditional, and nested lists stay nested."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from runs.mcp import tools
from runs.models import Session
from tests.support import texts
from tests.support.mcp_calls import ack, call, continue_workflow, notes_for, start_workflow
from tests.support.workflow_files import loop_doc, step_doc, workflow_doc, write_json
from workflows_app import builtins
from workflows_app.engine.blanks import PREFIX, artifact_template

pytestmark = pytest.mark.django_db
VERDICT = {"contractRef": "wr.contracts.review_verdict"}
DECISION = {"contractRef": "wr.contracts.loop_control"}


def leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for key, item in value.items() for leaf in [key, *leaves(item)] if leaf is not None]
    if isinstance(value, list):
        return [leaf for item in value for leaf in leaves(item)]
    return [value]


def consts(schema: Any) -> list[Any]:
    """The constants and the property names a schema holds, at any depth: what may stay literal."""
    if isinstance(schema, dict):
        found = [schema["const"]] if "const" in schema else []
        found += list(schema["properties"]) if isinstance(schema.get("properties"), dict) else []
        return found + [c for item in schema.values() for c in consts(item)]
    if isinstance(schema, list):
        return [c for item in schema for c in consts(item)]
    return []


@pytest.mark.parametrize("ref", sorted(ref for ref, spec in builtins.CONTRACTS.items() if spec.get("schema")))
def test_no_contract_template_carries_a_value_of_its_own(ref):
    spec = builtins.CONTRACTS[ref]
    template = artifact_template(spec["schema"], mentioned={"branchName", "reason", "location", "summary"})
    assert template is not None
    allowed = set(consts(spec["schema"]))
    for leaf in leaves(template):
        assert (isinstance(leaf, str) and leaf.startswith(PREFIX)) or leaf in allowed, (ref, leaf)
    # Nothing of the example (a finding, a decision, a branch name) is in the template.
    example_values = {leaf for leaf in leaves(spec["example"]) if isinstance(leaf, str)} - allowed
    assert not example_values & set(leaves(template)), ref


def test_a_review_verdict_template_sent_back_unchanged_blocks_and_records_nothing(service_catalog):
    doc = workflow_doc(
        "team.verdict",
        steps=[
            step_doc("review", "Review", "Review the change and send your verdict.", outputContract=VERDICT),
            step_doc("after", "After", "Done."),
        ],
    )
    write_json(service_catalog["extra"] / "verdict.json", doc)
    start = start_workflow("team.verdict")
    artifacts = start["nextCall"]["arguments"]["output"]["artifacts"]
    assert artifacts[0]["kind"] == "wr.review_verdict"
    assert artifacts[0]["verdict"] == f"{PREFIX} (one of clean, minor, blocking): verdict>"
    assert "The retry loop has no upper bound." not in str(start["nextCall"])  # the contract's example
    assert "example" in start["pending"]["outputContract"]  # still shown, labelled, outside nextCall
    answer = continue_workflow(**copy.deepcopy(start["nextCall"]["arguments"]))
    assert answer["kind"] == "blocked"
    assert answer["progress"]["completedSteps"] == 0
    assert {i["code"] for i in answer["blocked"]["issues"]} == {"PLACEHOLDER_UNCHANGED"}


def test_a_loop_decision_is_a_blank_with_the_loop_id_the_server_accepts(service_catalog):
    source = {"kind": "artifact_contract", "contractRef": "wr.contracts.loop_control", "loopId": "evidence_loop"}
    doc = workflow_doc(
        "team.evidence",
        steps=[
            loop_doc(
                "phase-4-evidence-loop",
                "Evidence",
                {"type": "while", "conditionSource": source, "maxIterations": 5},
                [
                    step_doc("collect", "Collect", "Collect evidence."),
                    step_doc("decide", "Decide", "Decide whether more evidence is needed.", outputContract=DECISION),
                ],
            ),
            step_doc("after", "After", "Done."),
        ],
    )
    write_json(service_catalog["extra"] / "evidence.json", doc)
    start = start_workflow("team.evidence")
    assert start["pending"]["loop"]["loopId"] == "evidence_loop"
    assert start["pending"]["loop"]["decisionDue"] is False
    decide = continue_workflow(
        stateToken=start["stateToken"], ackToken=start["ackToken"], output=notes_for(start["pending"])
    )
    template = decide["nextCall"]["arguments"]["output"]["artifacts"][0]
    assert template == {
        "kind": "wr.loop_control",
        "loopId": "evidence_loop",
        "decision": f"{PREFIX} (one of continue, stop): decision>",
    }
    assert "loop evidence_loop, iteration 1" in texts.execution_text(decide)
    # The id shown is accepted, and so is the step id the header once showed.
    for loop_id in ("evidence_loop", "phase-4-evidence-loop"):
        again = continue_workflow(
            stateToken=decide["stateToken"],
            ackToken=continue_workflow(stateToken=decide["stateToken"])["ackToken"],
            output={"artifacts": [{"kind": "wr.loop_control", "loopId": loop_id, "decision": "continue"}]},
        )
        assert again["kind"] == "step" and again["pending"]["stepInstance"].endswith("#2/collect"), loop_id


def test_expected_context_shows_every_compared_value_and_template_reads_at_the_first_ask(service_catalog):
    doc = workflow_doc(
        "team.verdicts",
        steps=[
            {
                "id": "triage",
                "title": "Triage",
                "prompt": "Set context.outcome to your verdict and context.reportPath to where the report goes.",
            },
            {"id": "clean", "title": "Clean", "prompt": "Done.", "runCondition": {"var": "outcome", "equals": "clean"}},
            {
                "id": "fix",
                "title": "Fix",
                "prompt": "Fix it.",
                "runCondition": {"var": "outcome", "in": ["minor", "blocking"]},
            },
            {"id": "report", "title": "Report", "prompt": "Write the report to {{reportPath}}."},
        ],
    )
    write_json(service_catalog["extra"] / "verdicts.json", doc)
    start = start_workflow("team.verdicts")
    expected = {item["key"]: item for item in start["pending"]["expectedContext"]}
    assert expected["outcome"]["values"] == ["clean", "minor", "blocking"]
    assert expected["reportPath"]["why"] == "the prompt of step 'report'"
    context = start["nextCall"]["arguments"]["context"]
    assert context["outcome"].startswith(f'{PREFIX} (string; the workflow compares it with "clean", "minor"')
    text = texts.execution_text(start)
    assert 'compared with "clean", "minor", "blocking"' in text


def test_a_conditional_confirmation_reads_as_conditional_in_the_outline(service_catalog):
    doc = workflow_doc(
        "team.gates",
        steps=[
            {
                "id": "deploy",
                "title": "Deploy",
                "prompt": "Deploy.",
                "requireConfirmation": {"var": "environment", "equals": "production"},
            },
            {"id": "always", "title": "Always", "prompt": "Check.", "requireConfirmation": True},
        ],
    )
    write_json(service_catalog["extra"] / "gates.json", doc)
    text = texts.workflow_details_text(call("inspect_workflow", {"workflowId": "team.gates"}))
    assert 'asks the user to confirm when environment is "production"' in text
    assert "2. Always [always] (asks the user to confirm)" in text
    start = start_workflow("team.gates", {"environment": "staging"})
    assert start["pending"]["requireConfirmation"] is False
    assert "ask the user to confirm" not in texts.execution_text(start)


def test_nested_bullets_in_prompt_blocks_stay_nested(service_catalog):
    start = start_workflow("wr.change_in_slices", {"riskLevel": "low", "changeSize": "small", "slices": ["One"]})
    for _ in range(2):
        start = continue_workflow(
            stateToken=start["stateToken"], ackToken=start["ackToken"], output=notes_for(start["pending"])
        )
    prompt = start["pending"]["prompt"]
    assert start["pending"]["stepId"] == "implement-slice"
    assert "- Notes are the record that lasts:\n  - write what each step did" in prompt


def test_a_context_key_nothing_reads_is_named_at_start_with_the_closest_name(service_catalog):
    start = start_workflow("wr.risk_scaled_mr_review", {"ticketId": "MR-7", "change": "branch feature/x"})
    warning = next(w for w in start["warnings"] if w["code"] == "CONTEXT_NOT_READ")
    assert "'change' (did you mean 'changeRef'?)" in warning["message"]
    assert not any(
        w["code"] == "CONTEXT_NOT_READ"
        for w in start_workflow("wr.risk_scaled_mr_review", {"ticketId": "M"})["warnings"]
    )


def test_a_context_key_a_prompt_points_to_is_never_said_to_be_read_by_nothing(service_catalog):
    """WorkRail's reviewer-family routine reads its brief from context by the names its prompt gives."""
    doc = workflow_doc(
        "team.routine-family",
        steps=[
            {
                "id": "audit",
                "title": "Audit",
                "prompt": "Your checklist is in `familyChecklist`; the facts are in `reviewFactPacket`. "
                "Write up {{familyName}}.",
            }
        ],
    )
    write_json(service_catalog["extra"] / "family.json", doc)
    context = {"familyName": "tests", "familyChecklist": "1. a", "reviewFactPacket": "facts", "familyChecklst": "x"}
    warning = next(
        w for w in start_workflow("team.routine-family", context)["warnings"] if w["code"] == "CONTEXT_NOT_READ"
    )
    assert "'familyChecklst' (did you mean 'familyChecklist'?)" in warning["message"]
    assert "'reviewFactPacket'" not in warning["message"] and "context 'familyChecklist'" not in warning["message"]


def test_an_optional_structure_the_prompt_asks_for_is_offered_whole(service_catalog):
    doc = workflow_doc(
        "team.findings",
        steps=[
            {
                "id": "record",
                "title": "Record",
                "prompt": "Send findings, each with a location, and mrComments: one comment per finding.",
                "outputContract": {"contractRef": "mr_review.findings"},
            }
        ],
    )
    write_json(service_catalog["extra"] / "findings.json", doc)
    start = start_workflow("team.findings")
    template = start["nextCall"]["arguments"]["output"]["artifacts"][0]
    assert template["findings"][0]["location"]["file"].startswith(PREFIX)
    assert set(template["mrComments"][0]) >= {"location", "title", "body"}
    assert template["mrComments"][0]["location"]["file"].startswith(PREFIX)  # a shape, not a bare "object"
    assert "remove whole when they do not apply: mrComments" in start["nextCall"]["instructions"]


def test_a_rehydrate_shows_the_context_earlier_steps_set(service_catalog):
    start = start_workflow("wr.change_in_slices", {"ticketId": "T-9"})
    moved = continue_workflow(
        stateToken=start["stateToken"],
        ackToken=start["ackToken"],
        output=notes_for(start["pending"]),
        context={"riskLevel": "low", "changeSize": "small", "verifyCommand": "make test"},
    )
    again = continue_workflow(stateToken=moved["stateToken"])
    assert again["runContext"]["verifyCommand"] == "make test"
    text = texts.execution_text(again)
    assert 'Context so far (what earlier steps set):\n- ticketId = "T-9"' in text
    assert '- verifyCommand = "make test"' in text


def test_a_rehydrate_shows_a_long_context_value_whole_in_the_text(service_catalog):
    """A new chat reads only the text: a plan set as context earlier is there whole, not cut at 120."""
    start = start_workflow("wr.change_in_slices", {"ticketId": "T-10"})
    plan = "Slice 1: add the option with its test. " * 30  # about 1,200 characters
    moved = continue_workflow(
        stateToken=start["stateToken"],
        ackToken=start["ackToken"],
        output=notes_for(start["pending"]),
        context={"riskLevel": "low", "changeSize": "small", "verifyCommand": "make test", "planSummary": plan},
    )
    text = texts.execution_text(continue_workflow(stateToken=moved["stateToken"]))
    assert f"- planSummary = {json.dumps(plan)}" in text
    assert "cut here" not in text


def test_an_unknown_argument_is_answered_with_the_ones_the_tool_accepts(service_catalog):
    outcome = tools.call("start_workflow", {"workflowId": "wr.change_in_slices", "task": "Add CSV export"})
    assert outcome.is_error and outcome.structured["error"]["code"] == "INVALID_INPUT"
    accepted = "It accepts: workflowId, context, goal, preferences, mode, workspacePath, parentStateToken."
    assert accepted in outcome.structured["error"]["message"]


def test_the_goal_given_at_start_is_the_session_goal_shown_with_every_step(service_catalog):
    goal = "Add a CSV export button to the sessions page"
    outcome = tools.call("start_workflow", {"workflowId": "wr.change_in_slices", "goal": goal})
    started = outcome.structured
    assert not outcome.is_error
    assert started["goal"] == goal and f"Goal: {goal}" in outcome.text
    assert not [w for w in started["warnings"] if w["code"] == "CONTEXT_NOT_READ"]  # WorkRail reads it
    assert Session.objects.get(public_id=started["session"]["sessionId"]).title == goal
    again = continue_workflow(stateToken=started["stateToken"])
    assert again["goal"] == goal and again["runContext"]["goal"] == goal
    found = tools.call("resume_session", {"query": "csv export button"}).structured
    assert [c["sessionId"] for c in found["candidates"]][:1] == [started["session"]["sessionId"]]


def test_two_different_goals_in_one_start_are_refused_and_nothing_is_recorded(service_catalog):
    before = Session.objects.count()
    outcome = tools.call(
        "start_workflow", {"workflowId": "wr.change_in_slices", "goal": "Add export", "context": {"goal": "Fix login"}}
    )
    assert outcome.is_error and outcome.structured["error"]["code"] == "INVALID_INPUT"
    assert outcome.structured["error"]["details"]["pointer"] == "/context/goal"
    assert Session.objects.count() == before


def test_a_confirmation_step_offers_notes_for_the_users_answer(service_catalog):
    doc = workflow_doc(
        "team.confirm",
        steps=[
            {
                "id": "decide",
                "title": "Decide",
                "prompt": "Propose the plan.",
                "requireConfirmation": True,
                "notesOptional": True,
            }
        ],
    )
    write_json(service_catalog["extra"] / "confirm.json", doc)
    start = start_workflow("team.confirm")
    assert start["nextCall"]["arguments"]["output"]["notesMarkdown"].startswith(f"{PREFIX} (Markdown)")
    assert "write their answer in output.notesMarkdown" in start["nextCall"]["instructions"]
    assert "WorkRail cannot hear the user: it takes your word" in texts.execution_text(start)


def test_what_only_the_user_can_give_is_asked_for_before_any_block(service_catalog):
    start = start_workflow("wr.risk_scaled_mr_review", {"ticketId": "MR-8"})
    assert start["nextCall"]["arguments"]["context"]["changeRef"].startswith("<fill in from the user")
    arguments = start["nextCall"]["arguments"]
    # The agent writes its own notes and context but copies the user's blank as it was: still blocked for the user.
    context = {"changeRef": arguments["context"]["changeRef"], "complexity": "standard"}
    answer = continue_workflow(**{**arguments, "context": context, "output": notes_for(start["pending"])})
    assert [i["code"] for i in answer["blocked"]["issues"]] == ["USER_DEPENDENCY_UNMET"]  # still never guessed


def test_progress_names_the_outline_steps_a_run_passed_over(service_catalog):
    start = start_workflow("wr.change_in_slices", {"riskLevel": "low", "changeSize": "small", "slices": ["One"]})
    plan = continue_workflow(
        stateToken=start["stateToken"], ackToken=start["ackToken"], output=notes_for(start["pending"])
    )
    slice_one = continue_workflow(
        stateToken=plan["stateToken"], ackToken=plan["ackToken"], output=notes_for(plan["pending"])
    )
    # confirm-plan (outline step 3) runs only for a risky or large change: the sentence says it was passed over.
    assert slice_one["progress"]["summary"].startswith(
        "Step 4.1 of the outline's 7 (pass 1 of loop 'slice-loop'); passed over step 3 (it runs only when "
        'riskLevel is "high" or changeSize is "large")'
    )
    assert "passed over" not in plan["progress"]["summary"]


def test_a_finished_run_names_the_last_steps_it_passed_over_and_why(service_catalog):
    doc = workflow_doc(
        "team.short",
        steps=[
            step_doc("triage", "Triage", "Decide the path; set context `path`."),
            step_doc("epic", "Epic", "Split the epic.", runCondition={"var": "path", "equals": "epic"}),
        ],
    )
    write_json(service_catalog["extra"] / "short.json", doc)
    start = start_workflow("team.short")
    done = continue_workflow(
        stateToken=start["stateToken"],
        ackToken=start["ackToken"],
        output={"notesMarkdown": "Simple."},
        context={"path": "simple"},
    )
    assert done["isComplete"]
    assert done["progress"]["summary"].endswith('Passed over step 2 (it runs only when path is "epic").')


def test_the_workflows_rules_for_every_step_come_with_the_first_step_and_a_rehydrate(service_catalog):
    start = start_workflow("wr.change_in_slices")
    rule = "Do not commit, push or open a merge request unless the user asked for it"
    assert any(item.startswith(rule) for item in start["guidance"])
    assert "Guidance for every step of this workflow:" in texts.execution_text(start)
    assert any(item.startswith(rule) for item in continue_workflow(stateToken=start["stateToken"])["guidance"])
    moved = continue_workflow(
        stateToken=start["stateToken"], ackToken=start["ackToken"], output=notes_for(start["pending"])
    )
    assert "guidance" not in moved  # said at the start of a chat, not with every step


def test_going_back_says_that_files_are_not_part_of_a_branch(service_catalog):
    start = start_workflow("wr.change_in_slices")
    continue_workflow(stateToken=start["stateToken"], ackToken=start["ackToken"], output=notes_for(start["pending"]))
    rewound = continue_workflow(stateToken=start["stateToken"])
    assert "files changed in the project on another branch are still changed" in rewound["fork"]
    fork = continue_workflow(
        stateToken=start["stateToken"], ackToken=rewound["ackToken"], output=notes_for(start["pending"])
    )
    [notice] = [w for w in fork["warnings"] if w["code"] == "BRANCH_STARTED"]
    assert "check the working tree (git status)" in notice["message"]


def test_inspect_names_what_only_the_user_can_give_before_the_run_starts(service_catalog):
    outcome = tools.call("inspect_workflow", {"workflowId": "wr.risk_scaled_mr_review"})
    [needed] = outcome.structured["workflow"]["fromTheUser"]
    assert (needed["contextKey"], needed["stepId"]) == ("changeRef", "triage-change")
    assert "- context.changeRef: Which change to review" in outcome.text
    plain = tools.call("inspect_workflow", {"workflowId": "wr.change_in_slices"}).structured["workflow"]
    assert "fromTheUser" not in plain


def test_workflow_ids_a_prompt_hands_on_that_this_server_lacks_are_named_at_start(service_catalog):
    doc = workflow_doc(
        "team.pipeline",
        steps=[
            {
                "id": "recommend",
                "title": "Recommend a Pipeline",
                "prompt": "Set `taskType` (feature / bug-fix / docs). Then list workflow IDs to run next:\n"
                "- If taskType = 'bug-fix': include 'bug-investigation.agentic.v2'\n"
                "- Always include 'wr.change_in_slices' and 'release-notes-workflow'.",
            }
        ],
    )
    write_json(service_catalog["extra"] / "pipeline.json", doc)
    start = start_workflow("team.pipeline")
    [warning] = [w for w in start["warnings"] if w["code"] == "UNKNOWN_WORKFLOW_IDS"]
    assert "'bug-investigation.agentic.v2' (closest here: wr.evidence_first_bug_fix)" in warning["message"]
    assert "'release-notes-workflow'" in warning["message"]
    assert "wr.change_in_slices'" not in warning["message"]  # this server has it
    assert "'bug-fix'" not in warning["message"]  # a value the step offers, not a workflow id
    plain = start_workflow("wr.change_in_slices")
    assert not [w for w in plain["warnings"] if w["code"] == "UNKNOWN_WORKFLOW_IDS"]


def test_the_first_step_says_how_to_come_back_to_a_step_and_notices_are_not_warnings(service_catalog):
    start = start_workflow("wr.evidence_first_bug_fix")
    text = texts.execution_text(start)
    assert "keep its stateToken: continue_workflow with only that stateToken shows the step again" in text
    assert "Note PREFERENCES_FOLLOW_RECOMMENDATION:" in text and "Warning PREFERENCES" not in text
    moved = continue_workflow(
        stateToken=start["stateToken"], ackToken=start["ackToken"], output=notes_for(start["pending"])
    )
    assert "keep its stateToken" not in texts.execution_text(moved)  # said once, at the start


def test_the_list_counts_steps_the_way_progress_does(service_catalog):
    listing = tools.call("list_workflows", {"tags": ["investigation", "review_audit"]})
    bugs = next(w for w in listing.structured["workflows"] if w["id"] == "wr.evidence_first_bug_fix")
    assert (bugs["outlineLength"], bugs["stepCount"], bugs["loopBodySteps"]) == (10, 11, 2)
    # One wording for every workflow: the outline's entries, then with the steps inside loops (what inspect numbers).
    assert "10 outline steps, 12 with the steps inside loops" in listing.text
    # A loop of one step is no exception: it used to say "8 steps" here.
    assert (
        "wr.risk_scaled_mr_review: Risk-Scaled Merge Request Review [review_audit; 8 outline steps, 9 with"
        in listing.text
    )
    start = start_workflow("wr.evidence_first_bug_fix")
    assert "of the outline's 10" in start["progress"]["summary"]


def test_a_session_key_the_step_only_reads_is_optional_and_guidance_keeps_its_sub_points(service_catalog):
    doc = workflow_doc(
        "team.keys",
        steps=[{"id": "triage", "title": "Triage", "prompt": "Read the linked ticket, if context `ticketId` is set."}],
    )
    doc["metaGuidance"] = ["Memory, when this session has it:\n- store decisions\n- query before asking"]
    write_json(service_catalog["extra"] / "keys.json", doc)
    start = start_workflow("team.keys")
    text = texts.execution_text(start)
    assert (
        "Context to send: ticketId (any; optional: only the user's own, never made up; not in the call below; "
        "WorkRail: runs with the same ticketId share one session)"
    ) in text
    # Issue 28: no blank invites the agent to invent an id it was never given.
    assert "ticketId" not in start["nextCall"]["arguments"].get("context", {})
    assert [e["key"] for e in start["pending"]["expectedContext"]] == ["ticketId"]  # still said, in the structure
    assert "- Memory, when this session has it:\n  - store decisions\n  - query before asking" in text


def test_autopilot_says_once_which_wins_at_a_confirmation_and_speaks_in_mode_names(service_catalog):
    """Issue 28: in autopilot the confirm step showed the workflow's "wait for approval" beside "self: decide
    as the user would" without saying which wins; `mode` answered in preference values no description
    mapped it to, and the API's autonomy names reached the agent where users know a mode's name."""
    settings_for = {
        "triage-change": {"complexity": "standard"},
        "list-changed-files": {"reviewAreas": ["api"]},
        "confirm-comments": {"postComments": False},
    }
    answer = start_workflow("wr.risk_scaled_mr_review", {"changeRef": "MR !1"}, mode="autopilot")
    assert (answer["mode"], answer["preferences"]["autonomy"]) == ("autopilot", "full_auto_stop_on_user_deps")
    said = {}
    while answer["pending"] is not None:
        said[answer["pending"]["stepId"]] = texts.execution_text(answer)
        answer = ack(answer, context=settings_for.get(answer["pending"]["stepId"], {}))
    confirm = said["confirm-comments"]
    assert confirm.count("Confirmation (autopilot mode): ") == 1
    assert "the mode wins over the prompt's asking and waiting" in confirm
    assert "Before continuing, ask the user to confirm" not in confirm
    assert "leave undone what the prompt allows only on the user's explicit word" in confirm
    assert not [step for step, text in said.items() if "full_auto" in text]
    start_mode = tools.tool_specs()["start_workflow"].listed().input_schema["properties"]["mode"]["description"]
    assert "autopilot (stop only for the user's own input: autonomy full_auto_stop_on_user_deps, riskPolicy " in (
        start_mode
    )
    answered_mode = tools.tool_specs()["continue_workflow"].listed().output_schema["anyOf"][0]["properties"]["mode"]
    assert "start_workflow's mode says which preferences each sets" in answered_mode["description"]

"""Each thing said once per run, in full where a chat may start: the goal, the workflow's guidance, the
call instructions; a rewind view shows each other branch once; inspect's preview leaves out metadata.
Asserted on the text an agent reads (what the tools render), as well as on the structured answer."""

import pytest

from runs.mcp import rendering
from runs.mcp.tools import call
from tests.support import texts
from tests.support.mcp_calls import resume_session
from tests.support.workflow_files import parallel_doc, step_doc, workflow_doc, write_json

pytestmark = pytest.mark.django_db

GOAL = (
    "Customers on the Pro plan are charged twice when their card needs a 3-D Secure check; it started with "
    "release v4.12. Find the root cause and where it lives. Requirements from the ticket: reproduce it with a "
    "test first; keep the fix direction high level; note every file read; the docs page on retries and the "
    "changelog must be updated by whoever fixes it, so name both in the hand-off (the END OF THE GOAL)."
)
RULES = ["Prove before you claim.", "Keep notes short."]
FULL_RULES = "the server decides none of them"  # a phrase of the call instructions given in full


@pytest.fixture
def four(service_catalog):
    steps = [step_doc(name, name.title(), f"Do {name}.") for name in ("one", "two", "three", "four")]
    document = workflow_doc("project.four", steps=steps, metaGuidance=RULES)
    return write_json(service_catalog["project"] / ".workrail" / "workflows" / "four.json", document)


def text(tool, arguments):
    outcome = call(tool, arguments)
    assert not outcome.is_error, outcome.text
    return outcome.structured, outcome.text


def start(goal=GOAL):
    return text("start_workflow", {"workflowId": "project.four", "goal": goal})


def step(answer, **extra):
    arguments = {"stateToken": answer["stateToken"], "ackToken": answer["ackToken"]}
    arguments |= {"output": {"notesMarkdown": f"Notes on {answer['pending']['stepId']}."}, **extra}
    return text("continue_workflow", arguments)


def test_the_first_step_says_the_goal_the_guidance_and_the_call_rules_in_full(four):
    first, said = start()
    assert first["selfContained"] is True
    assert GOAL in said  # whole: never cut at 300 characters
    assert all(rule in said for rule in RULES)
    assert FULL_RULES in said


def test_a_later_step_names_the_goal_in_a_line_and_gives_the_call_rules_in_one_line(four):
    first, _ = start()
    second, said = step(first)
    assert second["selfContained"] is False
    assert second["goal"] == GOAL  # the structured answer keeps it
    assert "END OF THE GOAL" not in said and "Goal: as shown in full before." in said
    assert not any(rule in said for rule in RULES)
    assert FULL_RULES not in said
    instructions = second["nextCall"]["instructions"]
    assert "\n" not in instructions and len(instructions) < 120
    assert len(said) < len(texts.execution_text(first)) - len(GOAL)


def test_a_rehydrate_says_everything_again_and_the_goal_once(four):
    first, _ = start()
    second, _ = step(first)
    again, said = text("continue_workflow", {"stateToken": second["stateToken"]})
    assert again["selfContained"] is True
    assert said.count("END OF THE GOAL") == 1  # the Goal line, not again among the context values
    assert GOAL in said and all(rule in said for rule in RULES) and FULL_RULES in said


def test_a_resume_in_a_new_chat_shows_the_goal_whole(four):
    first, _ = start()
    step(first)
    [candidate, *_] = resume_session(query="3-D Secure charged twice")["candidates"]
    resumed, said = text("continue_workflow", {"stateToken": candidate["stateToken"]})
    assert resumed["pending"]["stepId"] == "two"
    assert GOAL in said and FULL_RULES in said


def test_a_new_goal_is_shown_whole_once_then_named(four):
    first, _ = start()
    second, said = step(first, context={"goal": "Now only the END OF THE NEW GOAL: refunds."})
    assert [w["code"] for w in second["warnings"]] == ["GOAL_CHANGED"]
    assert said.count("END OF THE NEW GOAL") == 1 and "Goal: as shown" not in said
    _, later = step(second)
    assert "END OF THE NEW GOAL" not in later and "Goal: as shown in full before." in later


def test_a_replay_gives_the_recorded_text_again(four):
    first, _ = start()
    arguments = {"stateToken": first["stateToken"], "ackToken": first["ackToken"], "output": {"notesMarkdown": "x"}}
    _, said = text("continue_workflow", arguments)
    _, again = text("continue_workflow", arguments)
    assert again == said and FULL_RULES not in again


def test_a_rewind_view_shows_each_other_branch_once_with_its_tip_and_names_the_guidance(four):
    first, _ = start()
    second, _ = step(first, output={"notesMarkdown": "BRANCH-NOTE " + "long notes " * 200})
    third, _ = step(second)
    tip, _ = step(third)
    rewound, said = text("continue_workflow", {"stateToken": first["stateToken"]})
    assert len(rewound["branches"]) == 1
    assert said.count("BRANCH-NOTE") == 1  # once: the newest branch's notes, in the recap's budget, no preview
    assert len(said) < 6000
    assert tip["stateToken"] in said  # the branch's tip, to return to it
    assert not any(rule in said for rule in RULES)
    assert "the 2 rule(s) given at start (continue_workflow with a branch tip's stateToken" in said
    _, at_tip = text("continue_workflow", {"stateToken": tip["stateToken"]})
    assert all(rule in at_tip for rule in RULES)  # where the rewind view says they are
    assert GOAL in said


def test_a_rewind_within_the_chat_names_other_branches_notes_without_numbering_them(four):
    first, _ = start()
    second, _ = step(first)
    step(second)
    _, said = text("continue_workflow", {"stateToken": first["stateToken"]})
    branch = said.split("already has 1 branch(es)")[1].split("Step:")[0]
    assert "Notes on one." in branch and "[1]" not in branch


def test_an_answer_recorded_before_the_flag_existed_is_read_in_full(four):
    first, _ = start()
    second, _ = step(first)
    recorded = {key: value for key, value in second.items() if key != "selfContained"}
    assert GOAL in texts.execution_text(recorded)  # says what it said then, whole


def test_delegation_advice_comes_only_where_a_step_delegates(service_catalog):
    folder = service_catalog["project"] / ".workrail" / "workflows"
    plain = workflow_doc("project.plain", features=["wr.features.subagent_guidance"])
    child = workflow_doc("project.child")
    delegating = workflow_doc(
        "project.delegating",
        features=["wr.features.subagent_guidance"],
        steps=[parallel_doc("fan", "Fan out", [{"workflowId": "project.child", "goal": "look"}])],
    )
    for document in (plain, child, delegating):
        write_json(folder / f"{document['id']}.json", document)
    _, plain_text = text("start_workflow", {"workflowId": "project.plain"})
    _, delegating_text = text("start_workflow", {"workflowId": "project.delegating"})
    assert "Subagents:" not in plain_text
    assert "Subagents:" in delegating_text
    inspected = call("inspect_workflow", {"workflowId": "project.plain"}).structured["workflow"]
    assert not any("Subagents:" in item for item in inspected.get("metaGuidance") or [])


def test_inspect_preview_does_not_repeat_metadata(service_catalog):
    workflow = "wr.risk_scaled_mr_review"
    metadata = call("inspect_workflow", {"workflowId": workflow}).text
    preview = call("inspect_workflow", {"workflowId": workflow, "mode": "preview"})
    described = preview.structured["workflow"]
    for said in (described["description"], described["workflowHash"], described["about"].splitlines()[2]):
        assert said in metadata and said not in preview.text
    assert preview.structured["steps"][0]["prompt"][:60] in preview.text
    assert 'inspect_workflow {"workflowId": "wr.risk_scaled_mr_review"}' in preview.text


def test_a_blocked_retry_gives_the_call_rules_in_one_line(service_catalog, four):
    first, _ = start()
    blocked, said = step(first, output={"notesMarkdown": "<fill in (Markdown): your notes>"})
    assert blocked["kind"] == "blocked" and FULL_RULES not in said


def test_inspect_names_the_guidance_that_the_first_step_gives_in_full(four):
    inspected = call("inspect_workflow", {"workflowId": "project.four"})
    assert inspected.structured["workflow"]["metaGuidance"] == RULES
    assert not any(rule in inspected.text for rule in RULES)
    assert "Guidance: 2 rule(s) for every step, given in full with the first step." in inspected.text
    _, said = start()
    assert all(rule in said for rule in RULES)


def test_a_later_confirmation_is_asked_for_in_a_line(service_catalog):
    steps = [step_doc("one", "One", "Do one."), step_doc("two", "Two", "Do two.", requireConfirmation=True)]
    folder = service_catalog["project"] / ".workrail" / "workflows"
    write_json(folder / "confirm.json", workflow_doc("project.confirm", steps=steps))
    first, _ = text("start_workflow", {"workflowId": "project.confirm"})
    second, said = step(first)
    assert second["pending"]["requireConfirmation"] is True
    assert rendering.CONFIRM_IN_A_LINE in said and rendering.CONFIRM_IN_FULL not in said
    _, again = text("continue_workflow", {"stateToken": second["stateToken"]})
    assert rendering.CONFIRM_IN_FULL in again

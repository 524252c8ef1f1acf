"""Delegations end to end in plain text: each brief whole in the parent's text (whole briefs left out
past a bound, with the call that shows them), a delegated run that opens with its brief and ends by
naming the parent step that waits and its call, and a parent step that shows what its runs recorded."""

from __future__ import annotations

import re
from typing import Any

import pytest

from runs.mcp.delegation_text import BRIEFS_CHARS
from tests.support.mcp_calls import ack, ack_with_notes, continue_workflow, start_workflow
from tests.support.texts import execution_text
from tests.support.workflow_files import parallel_doc, step_doc, workflow_doc, write_json

pytestmark = pytest.mark.django_db

FAMILIES = ("correctness", "security", "tests")


def checklist(family: str, size: int) -> str:
    items = [f"{n}. Check the {family} of the change, item {n}, against the fact packet." for n in range(1, 200)]
    text = "\n".join(items)
    return (text * (size // len(text) + 1))[:size] + "END"


@pytest.fixture
def review(service_catalog):
    """A review whose parallel step hands each reviewer family its mission and checklist (WorkRail's
    reviewer-family routine reads them from context, not from a template)."""

    def write(size: int) -> str:
        family = workflow_doc(
            "team.routine-reviewer-family",
            name="Reviewer family",
            steps=[
                step_doc(
                    "audit",
                    "Audit",
                    "Your mission and checklist are in the context variables `familyMission`, `familyChecklist` "
                    "and `familyName`. The facts are in `reviewFactPacket`. Report your findings in notes.",
                )
            ],
        )
        delegated = [
            {
                "workflowId": "team.routine-reviewer-family",
                "goal": f"Look for {name} problems.",
                "contextMapping": {"factPacket": "reviewFactPacket"},
                "args": {
                    "familyName": name,
                    "familyMission": f"Find {name} defects this change introduces.",
                    "familyChecklist": checklist(name, size),
                },
            }
            for name in FAMILIES
        ]
        parent = workflow_doc(
            "team.review",
            steps=[
                step_doc("facts", "Facts", "Freeze the facts."),
                parallel_doc("families", "Reviewer families", delegated),
                step_doc("verdict", "Verdict", "Give the verdict."),
            ],
        )
        write_json(service_catalog["extra"] / "family.json", family)
        write_json(service_catalog["extra"] / "review.json", parent)
        return "team.review"

    return write


def families_step(workflow_id: str) -> dict[str, Any]:
    return ack(start_workflow(workflow_id, {"factPacket": "diff: retry on 503; files: client.py"}))


def test_each_brief_is_whole_in_the_text(review):
    parallel = families_step(review(600))
    text = execution_text(parallel)
    for name in FAMILIES:  # the whole checklist, its lines as lines (not cut, not escaped as JSON)
        assert "\n".join(f"       {line}" for line in checklist(name, 600).splitlines()) in text
    assert "characters in all" not in text and "the structured answer has it all" not in text
    assert 'Shared context, which every delegated run receives: reviewFactPacket = "diff: retry on 503' in text


def test_briefs_past_the_bound_are_left_out_whole_with_the_call_that_shows_them(review):
    size = BRIEFS_CHARS // 2 - 1200  # two briefs fit, the third does not
    parallel = families_step(review(size))
    text = execution_text(parallel)
    third = parallel["pending"]["delegations"][2]
    for name in ("correctness", "security"):
        assert "\n".join(f"       {line}" for line in checklist(name, size).splitlines()) in text
    assert checklist("tests", size)[:40] not in text  # not a word of it: left out whole, never cut
    block = text[text.index("3. team.routine-reviewer-family") :]
    assert "familyName, familyMission, familyChecklist (" in block and "left out whole" in block
    assert f'continue_workflow {{"stateToken": "{third["stateToken"]}"}}' in block

    # The call shows that run's brief in full, and never asks it again for what it was handed.
    opened = continue_workflow(stateToken=third["stateToken"])
    own = execution_text(opened)
    assert "This run is delegation 3 of 3 handed out by run " in own and "at its step 'Reviewer families'" in own
    assert "Why: Look for tests problems." in own
    whole = "\n".join(f"    {line}" for line in checklist("tests", size).splitlines())
    assert f"- familyChecklist (text):\n{whole}" in own
    assert '- reviewFactPacket = "diff: retry on 503; files: client.py"' in own
    assert opened["delegatedBy"]["brief"] == ["reviewFactPacket", "familyName", "familyMission", "familyChecklist"]
    asked = [e["key"] for e in opened["pending"].get("expectedContext") or []]
    assert not {"familyMission", "familyChecklist", "familyName", "reviewFactPacket"} & set(asked)
    assert "Context to send: familyMission" not in own


def test_a_finished_run_names_the_parent_step_that_waits_and_its_call(review):
    parallel = families_step(review(300))
    runs = parallel["pending"]["delegations"]
    opened = continue_workflow(stateToken=runs[0]["stateToken"])
    done = ack_with_notes(opened, "Correctness: no finding; the retry keeps the idempotency key.")
    text = execution_text(done)
    assert done["isComplete"] and done["delegatedBy"]["unfinished"] == [runs[1]["runId"], runs[2]["runId"]]
    assert f"handed out by run {parallel['session']['runId']} at its step 'Reviewer families' [families]" in text
    assert f"still waits for 2 other delegated run(s): {runs[1]['runId']}, {runs[2]['runId']}" in text
    call = f'continue_workflow {{"stateToken": "{parallel["stateToken"]}"}}'
    assert call in text
    assert "A new piece of work" not in text  # what comes next is the parent's step

    for delegation, notes in zip(runs[1:], ("Security: none.", "Tests: the 503 path has no test."), strict=True):
        last = ack_with_notes(continue_workflow(stateToken=delegation["stateToken"]), notes)
    assert "Every delegation of that step is complete now." in execution_text(last)
    back = continue_workflow(stateToken=last["delegatedBy"]["parentStateToken"])
    assert back["pending"]["stepId"] == "families" and back["ackToken"]


def test_the_parent_step_shows_what_each_run_recorded_bounded_with_the_resource_for_the_rest(review):
    parallel = families_step(review(100))
    first, second, _ = parallel["pending"]["delegations"]
    ack_with_notes(continue_workflow(stateToken=first["stateToken"]), "Correctness: the retry drops the key.")
    long_notes = "Security finding: the token is logged. " * 800  # far more than a run's share
    ack_with_notes(continue_workflow(stateToken=second["stateToken"]), long_notes)
    again = continue_workflow(stateToken=parallel["stateToken"])
    text = execution_text(again)
    shown = again["pending"]["delegations"]
    assert [e["notesMarkdown"] for e in shown[0]["recorded"]["entries"]] == ["Correctness: the retry drops the key."]
    assert "What its run recorded:\n     - Audit: Correctness: the retry drops the key." in text
    cut = shown[1]["recorded"]
    assert cut["truncated"] and f"workrail://runs/{second['runId']}/notes" in cut["omitted"]["uri"]
    assert cut["omitted"]["uri"] in text
    assert len(text) < len(long_notes)
    assert "recorded" not in shown[2]  # nothing recorded yet
    assert re.search(r"3\. team\.routine-reviewer-family .*\(in progress\)", text)


def test_the_synthesis_after_the_parallel_step_shows_what_each_run_recorded(service_catalog):
    """WorkRail's `synthesis` is a step of its own after the parallel step: it combines what the runs
    recorded, so it shows them."""
    family = workflow_doc("team.routine-check", steps=[step_doc("check", "Check", "Check {{area}}; notes.")])
    parent = workflow_doc(
        "team.checks",
        steps=[
            parallel_doc(
                "fan-out",
                "Check in parallel",
                [{"workflowId": "team.routine-check", "args": {"area": area}} for area in ("api", "db")],
                synthesis={"prompt": "Merge the findings."},
            ),
            step_doc("decide", "Decide", "Decide."),
        ],
    )
    write_json(service_catalog["extra"] / "check.json", family)
    write_json(service_catalog["extra"] / "checks.json", parent)
    parallel = start_workflow("team.checks")
    for delegation, notes in zip(parallel["pending"]["delegations"], ("API: fine.", "DB: index missing."), strict=True):
        ack_with_notes(continue_workflow(stateToken=delegation["stateToken"]), notes)
    synthesis = ack_with_notes(continue_workflow(stateToken=parallel["stateToken"]), "Both ran.")
    assert synthesis["pending"]["stepId"] == "fan-out.synthesis"
    recorded = [d["recorded"]["entries"][0]["notesMarkdown"] for d in synthesis["pending"]["delegations"]]
    assert recorded == ["API: fine.", "DB: index missing."]
    text = execution_text(synthesis)
    assert "Delegations (2), whose runs are complete; what each recorded:" in text
    assert "     - Check: DB: index missing." in text
    assert "First carry out" not in synthesis["nextCall"]["instructions"]
    assert ack_with_notes(synthesis, "Merged.")["pending"]["stepId"] == "decide"


def test_a_shared_context_past_the_bound_is_named_not_cut_and_each_run_shows_it_whole(review):
    packet = "\n".join(f"- changed file {n}: src/module_{n}.py, retry path" for n in range(600))
    assert len(packet) > BRIEFS_CHARS
    parallel = ack(start_workflow(review(100), {"factPacket": packet}))
    text = execution_text(parallel)
    assert "Shared context, which every delegated run receives: reviewFactPacket (" in text
    assert "each run's own first answer shows it whole" in text and "changed file 1:" not in text
    opened = execution_text(continue_workflow(stateToken=parallel["pending"]["delegations"][0]["stateToken"]))
    assert "- reviewFactPacket (text):\n" + "\n".join(f"    {line}" for line in packet.splitlines()) in opened

"""Durable memory that keeps what matters: recaps keep the intake and the newest notes, the notes
left out can be paged (branch by branch), and a rewind shows how to return to each branch's tip."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from runs.contract.errors import ErrorCode
from runs.readmodels import recap
from runs.readmodels.resources import read_run, read_run_notes
from tests.runs.readmodels.support import PLAN
from tests.support.checks import error_code
from tests.support.mcp_calls import ack_with_notes, checkpoint_workflow, continue_workflow, start_workflow
from tests.support.texts import execution_text
from tests.support.workflow_files import loop_doc, step_doc, workflow_doc, write_json

pytestmark = pytest.mark.django_db

INTAKE = "Intake: ticket PAY-9, criteria: no double refunds, baseline: 3 failing tests."


@pytest.fixture(autouse=True)
def catalog(service_catalog):
    return service_catalog


def with_checkpoints(start: dict[str, Any], count: int, label: str = "Note") -> dict[str, Any]:
    """Acknowledges the first step with the intake, then records `count` checkpoints of ~200 bytes."""
    response = continue_workflow(
        stateToken=start["stateToken"], ackToken=start["ackToken"], output={"notesMarkdown": INTAKE}
    )
    for number in range(1, count + 1):
        response = checkpoint_workflow(
            stateToken=response["stateToken"],
            output={"notesMarkdown": f"{label} {number}: " + "tried another fix, " * 8},
        )
    return response


def page_of(uri: str) -> dict[str, Any]:
    """Reads a notes URI the way the MCP resource does."""
    parts = urlsplit(uri)
    run_id = parts.path.strip("/").split("/")[0] if parts.netloc == "runs" else parts.path.split("/")[2]
    query = {key: values[0] for key, values in parse_qs(parts.query).items()}
    return read_run_notes(run_id, query.get("stateToken"), query.get("cursor"))


def test_a_recap_over_budget_keeps_the_intake_and_the_newest_notes_and_says_how_to_read_the_rest():
    tip = with_checkpoints(start_workflow(PLAN), 80)  # 81 entries, far over 8 KB and beyond MAX_ENTRIES hops
    again = continue_workflow(stateToken=tip["stateToken"])
    summary = again["recap"]
    entries = summary["entries"]
    assert entries[0]["notesMarkdown"] == INTAKE and entries[0]["position"] == 1
    assert entries[-1]["notesMarkdown"].startswith("Note 80:") and entries[-1]["position"] == 81
    positions = [e["position"] for e in entries]
    assert positions == [1, *range(82 - len(positions) + 1, 82)]  # the first, then the newest run without holes
    assert summary["truncated"] is True
    assert summary["totalEntries"] == 81
    assert summary["omittedEntries"] == 81 - len(entries)
    gap = summary["omitted"]
    assert (gap["fromPosition"], gap["toPosition"]) == (2, positions[1] - 1)
    assert gap["uri"] in gap["howToRead"]
    assert len(json.dumps(entries, ensure_ascii=False).encode()) <= recap.RECAP_BUDGET_BYTES

    text = execution_text(again)
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if INTAKE in line)
    marker = next(i for i, line in enumerate(lines) if "left out" in line)
    newest = next(i for i, line in enumerate(lines) if "Note 80:" in line)
    assert first < marker < newest
    assert f"{summary['omittedEntries']} entries left out (positions 2 to {gap['toPosition']})" in lines[marker]
    assert gap["uri"] in lines[marker]

    # The marker's URI pages exactly the entries left out, in order, then on to the end.
    seen: list[int] = []
    uri: str | None = gap["uri"]
    while uri is not None:
        page = page_of(uri)
        assert len(page["entries"]) <= recap.PAGE_ENTRIES
        seen += [e["position"] for e in page["entries"]]
        uri = page["nextUri"]
    assert seen == list(range(2, 82))


def test_an_intake_longer_than_half_the_budget_is_cut_and_the_newest_entry_still_kept(monkeypatch):
    monkeypatch.setattr(recap, "RECAP_BUDGET_BYTES", 600)
    start = start_workflow(PLAN)
    response = continue_workflow(
        stateToken=start["stateToken"], ackToken=start["ackToken"], output={"notesMarkdown": "Intake " + "i" * 900}
    )
    for number in range(3):
        response = checkpoint_workflow(stateToken=response["stateToken"], output={"notesMarkdown": f"N{number} " * 60})
    summary = continue_workflow(stateToken=response["stateToken"])["recap"]
    assert summary["entries"][0]["position"] == 1
    assert summary["entries"][0]["notesMarkdown"].startswith("Intake ")
    assert summary["entries"][0]["notesMarkdown"].endswith(recap.CUT_MARK)
    assert summary["entries"][-1]["position"] == 4
    assert len(json.dumps(summary["entries"], ensure_ascii=False).encode()) <= 600 + 300
    assert summary["omitted"]["uri"].startswith("workrail://runs/")


def test_a_recap_within_budget_is_whole_and_names_no_gap():
    tip = with_checkpoints(start_workflow(PLAN), 2)
    summary = continue_workflow(stateToken=tip["stateToken"])["recap"]
    assert [e["position"] for e in summary["entries"]] == [1, 2, 3]
    assert summary["truncated"] is False and summary["omittedEntries"] == 0
    assert "omitted" not in summary


def test_the_notes_resource_pages_deterministically_and_only_the_branch_asked_for():
    start = start_workflow(PLAN)
    main = with_checkpoints(start, 45, label="Main")
    rewound = continue_workflow(stateToken=start["stateToken"])
    other = continue_workflow(
        stateToken=start["stateToken"], ackToken=rewound["ackToken"], output={"notesMarkdown": "Other intake."}
    )
    other = checkpoint_workflow(stateToken=other["stateToken"], output={"notesMarkdown": "Other branch note."})
    run_id = start["session"]["runId"]

    first = read_run_notes(run_id, main["stateToken"])
    assert first["cursor"] == 1 and first["totalEntries"] == 46
    assert [e["position"] for e in first["entries"]] == list(range(1, recap.PAGE_ENTRIES + 1))
    assert first["entries"][0]["notesMarkdown"] == INTAKE
    assert first["nextCursor"] == recap.PAGE_ENTRIES + 1
    assert first["nextUri"] == recap.notes_uri(run_id, main["stateToken"], recap.PAGE_ENTRIES + 1)
    assert read_run_notes(run_id, main["stateToken"]) == first  # same node, same cursor: same page
    last = read_run_notes(run_id, main["stateToken"], "41")
    assert [e["position"] for e in last["entries"]] == [41, 42, 43, 44, 45, 46]
    assert last["nextCursor"] is None and last["nextUri"] is None
    assert all("Other" not in e["notesMarkdown"] for e in first["entries"] + last["entries"])

    sibling = read_run_notes(run_id, other["stateToken"])
    assert [e["notesMarkdown"] for e in sibling["entries"]] == ["Other intake.", "Other branch note."]
    latest = read_run_notes(run_id)  # no stateToken: the run's latest tip, which is the other branch now
    assert latest["entries"] == sibling["entries"] and latest["stateToken"] == other["stateToken"]

    assert error_code(lambda: read_run_notes(run_id, main["stateToken"], "0")) == ErrorCode.INVALID_INPUT
    assert error_code(lambda: read_run_notes(run_id, main["stateToken"], "x")) == ErrorCode.INVALID_INPUT
    assert error_code(lambda: read_run_notes(run_id, "st1_nope")) == ErrorCode.TOKEN_MALFORMED
    elsewhere = start_workflow(PLAN)
    assert error_code(lambda: read_run_notes(run_id, elsewhere["stateToken"])) == ErrorCode.NOT_FOUND
    assert read_run_notes(run_id, main["stateToken"], "99")["entries"] == []


def test_a_rewind_lists_each_branch_tip_with_a_state_token_to_return_there():
    start = start_workflow(PLAN)
    first = continue_workflow(
        stateToken=start["stateToken"], ackToken=start["ackToken"], output={"notesMarkdown": "First try."}
    )
    first_tip = continue_workflow(
        stateToken=first["stateToken"], ackToken=first["ackToken"], output={"notesMarkdown": "Drafted plan A."}
    )
    rewound = continue_workflow(stateToken=start["stateToken"])
    second_tip = continue_workflow(
        stateToken=start["stateToken"], ackToken=rewound["ackToken"], output={"notesMarkdown": "Second try."}
    )
    again = continue_workflow(stateToken=start["stateToken"])
    branches = again["branches"]
    assert [b["tipStateToken"] for b in branches] == [first_tip["stateToken"], second_tip["stateToken"]]
    assert [b["tipPendingStepId"] for b in branches] == [first_tip["pending"]["stepId"], "draft-plan"]
    assert [b["tipIsComplete"] for b in branches] == [False, False]
    assert branches[0]["stateToken"] == first["stateToken"]  # where the branch began, as before

    text = execution_text(again)
    for tip in (first_tip, second_tip):
        call = f'continue_workflow {{"stateToken": "{tip["stateToken"]}"}}'
        line = next(line for line in text.splitlines() if call in line)
        assert f"pending {tip['pending']['stepId']}" in line
    assert len(re.findall(r"to return to this branch", text)) == 2

    # Returning with the tip's token lands on that branch's tip, with its own notes.
    back = continue_workflow(stateToken=branches[0]["tipStateToken"])
    assert back["pending"]["stepId"] == first_tip["pending"]["stepId"]
    assert [e["notesMarkdown"] for e in back["recap"]["entries"]] == ["First try.", "Drafted plan A."]


def test_over_budget_a_recap_keeps_the_note_of_the_step_that_set_what_the_loop_works_through(service_catalog):
    """A resume in the middle of a slice loop: the plan note the slices came from is kept, found from the
    loop's items and the step that set them, not from what any prompt says."""
    slices = [f"slice {n}" for n in range(1, 9)]
    document = workflow_doc(
        "team.sliced",
        steps=[
            step_doc("intake", "Intake", "Record the ticket."),
            step_doc("explore", "Explore", "Read the code the ticket touches."),
            step_doc("plan", "Plan", "Plan the work in slices."),
            loop_doc(
                "slices-loop",
                "Slices",
                {"type": "forEach", "items": "slices", "itemVar": "slice", "maxIterations": 10},
                [step_doc("implement", "Implement {{slice}}", "Implement {{slice}} as the plan says.")],
            ),
        ],
    )
    write_json(service_catalog["extra"] / "sliced.json", document)
    start = start_workflow("team.sliced")
    response = ack_with_notes(ack_with_notes(start, INTAKE), "Explored: " + "the repository layer, " * 60)
    plan = "Plan: the cache goes in behind the repository interface; each slice keeps the tests green."
    response = continue_workflow(
        stateToken=response["stateToken"],
        ackToken=response["ackToken"],
        output={"notesMarkdown": plan},
        context={"slices": slices},
    )
    for number in range(1, 7):
        response = ack_with_notes(response, f"Slice {number} done: " + "changed the adapter and its tests, " * 40)
    resumed = continue_workflow(stateToken=response["stateToken"])
    summary = resumed["recap"]
    by_position = {e["position"]: e for e in summary["entries"]}
    assert by_position[1]["notesMarkdown"] == INTAKE
    assert 2 not in by_position and by_position[3]["notesMarkdown"] == plan
    assert by_position[3]["keptBecause"] == "it set slices, the items of loop 'slices-loop'"
    assert max(by_position) == 9 and summary["truncated"] and 4 not in by_position
    assert len(json.dumps(summary["entries"], ensure_ascii=False).encode()) <= recap.RECAP_BUDGET_BYTES
    assert (
        "kept the first entry (the intake), the entries that set what the pending step works through"
        in (summary["policy"])
    )
    text = execution_text(resumed)
    assert f"  - [3] Plan (kept: it set slices, the items of loop 'slices-loop'): {plan}" in text
    assert [e["position"] for e in read_run(start["session"]["runId"])["recap"]["entries"]][:2] == [1, 3]
    gap = summary["omitted"]
    assert (gap["fromPosition"], gap["toPosition"]) == (2, 2)
    assert f"{summary['omittedEntries']} entries left out in all (positions 2 to 2 here)" in text
    assert gap["uri"] in text and "left out too; the same resource has them" in text

"""How each branch ended, in words (runs/readmodels/outcomes.py), and why a branch is blocked
(runs/readmodels/blocked.py): issue 20's forked merge-request review and blocked run."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from runs.execution.operator_fork import fork_node
from runs.models import Node, Run
from runs.readmodels import blocked, branches, outcomes
from runs.readmodels.clock import NO_CUTOFF
from tests.support import attention_sessions
from tests.support.attention_sessions import PLAN
from tests.support.branched_review import blocked_review, forked_review
from tests.support.mcp_calls import ack, continue_workflow, start_workflow

pytestmark = pytest.mark.django_db

SUMMARY = "Branch 2 open at step 4 (newest, where the agent works) · branch 1 finished earlier: Request changes"


# --- the verdict rule (pure) -------------------------------------------------------------------------------


def test_a_standing_verdict_artifact_wins_over_the_notes():
    review = {"kind": "wr.review_verdict", "verdict": "blocking", "confidence": "high", "findings": [], "summary": "x"}
    found = outcomes.verdict([review], [("Summary", "Verdict: approve")])
    assert found is not None and (found.text, found.source) == ("Blocking findings", "the wr.review_verdict artifact")
    gate = outcomes.verdict([{"kind": "wr.gate_verdict", "verdict": "rejected"}], [])
    assert gate is not None and gate.text == "Rejected"
    own = outcomes.verdict([{"kind": "team.decision", "recommendation": "ship it after the fix"}], [])
    assert own is not None and own.text == "Ship it after the fix"


@pytest.mark.parametrize(
    ("notes", "words"),
    [
        ("Findings: 1 Critical.\n\n**Verdict:** Request changes — the query is built from input.", "Request changes"),
        ("## Verdict: approve with comments", "Approve with comments"),
        ("- verdict: *request changes*; one blocker", "Request changes"),
        ("Recommendation: approve. Nothing blocks it.", "Approve"),
    ],
)
def test_a_verdict_line_in_the_notes_is_the_agents_own_words(notes, words):
    found = outcomes.verdict([], [("Record Findings by Severity", notes)])
    assert found is not None and found.text == words
    assert found.source == "the notes of step “Record Findings by Severity”"


def test_no_verdict_is_made_up():
    assert outcomes.verdict([{"kind": "mr_review.findings", "findings": []}], [("Plan", "All good, I think.")]) is None


def test_the_newest_verdict_line_on_the_path_stands():
    found = outcomes.verdict([], [("Findings", "Verdict: request changes"), ("Summary", "Verdict: approve")])
    assert found is not None and found.text == "Approve"


# --- a forked review ---------------------------------------------------------------------------------------


@pytest.fixture
def review(service_catalog):
    return forked_review()


def test_each_branch_of_the_forked_review_says_how_it_ended(review):
    tree = branches.read(Run.objects.get(public_id=review.run_id), records=False)
    first, second = outcomes.of_run(tree)
    assert first.headline == "Branch 1 completed: Request changes, 1 critical finding"
    assert (first.status, first.verdict, first.findings, first.tip_node_id) == (
        "complete",
        "Request changes",
        {"critical": 1},
        review.done_tip,
    )
    assert first.verdict_source == "the notes of step “Record Findings by Severity”"
    assert second.headline == "Branch 2 open at step 4: Review storage"
    assert (second.status, second.is_newest, second.tip_node_id) == ("open", True, review.open_tip)
    assert outcomes.summary_words([first, second]) == SUMMARY


def test_the_run_status_keeps_its_value_and_adds_the_words(review):
    from runs.readmodels import overview, run_view

    detail = run_view.run_detail(review.run_id)
    assert detail.run.status == "in_progress"  # API clients filter on it: unchanged
    assert detail.run.status_summary == SUMMARY
    assert detail.branch is not None and detail.branch.number == 2
    assert [o.headline for o in detail.other_branches] == ["Branch 1 completed: Request changes, 1 critical finding"]
    assert detail.synthesis is None and detail.tables.findings == []  # branch 1's are not branch 2's

    first = run_view.run_detail(review.run_id, tip=review.done_tip)
    assert first.branch is not None and first.branch.number == 1
    assert [f.severity for f in first.tables.findings] == ["critical"]
    assert [o.headline for o in first.other_branches] == ["Branch 2 open at step 4: Review storage"]

    session = overview.session_detail(review.session_id)
    assert session.session.status_summary == SUMMARY
    [listed] = overview.list_sessions().items
    assert listed.status == "in_progress" and listed.status_summary == session.session.status_summary


def _node_of(answer) -> str:
    from tests.support.branched_review import node_id_of

    return node_id_of(answer)


def test_a_node_before_the_fork_is_on_both_branches(review):
    from runs.readmodels import run_view

    fork = run_view.node_detail(_node_of(review.answers[1]))  # Record the Changed Files: branch 2 grew here
    # Branch 2 answered this step again: its own copy of the step, as the graph draws it, not a branch it is on;
    # the page's redo card says so, this heading not again (friction61b 7).
    assert fork.on_branches_words == "On branch 1"
    # Only branch 1 passes through this step's card; branch 2, from its redo, is among the others (friction60a 2).
    assert [o.number for o in fork.on_branches] == [1] and [o.number for o in fork.other_branches] == [2]
    shared = run_view.node_detail(_node_of(review.answers[0]))  # the first step, before the fork
    assert shared.on_branches_words == "On branches 1 and 2 (shared by branches 1 and 2)"
    own = run_view.node_detail(review.open_tip)
    assert own.on_branches_words == "On branch 2"
    assert [o.number for o in own.other_branches] == [1]


def test_a_step_answered_again_after_a_rewind_says_what_the_other_branch_answered(review):
    from runs.readmodels import run_view

    def notes_of(detail):
        return {(s.title, s.notes_markdown): s.answers_note for s in detail.steps}

    newest = notes_of(run_view.run_detail(review.run_id))
    assert newest[("Record the Changed Files", "After the rewind: a second look at the changed files.")] == (
        "↺ redone here; branch 1 had answered: 'Did list-changed-files.'"
    )
    assert newest[("Triage the Change", "Did triage-change.")] == ""  # one answer, shared by both branches
    first = notes_of(run_view.run_detail(review.run_id, tip=review.done_tip))
    assert first[("Record the Changed Files", "Did list-changed-files.")] == (
        "↺ redone on branch 2: 'After the rewind: a second look at the changed files.'"
    )
    # Each footnote links the branch it names: its tip, where the run page shows that branch.
    tips = {s.notes_markdown: s.footnotes for s in run_view.run_detail(review.run_id, tip=review.done_tip).steps}
    [(_, tip)] = tips["Did list-changed-files."]
    assert str(tip) == review.open_tip


# --- a blocked run -----------------------------------------------------------------------------------------


@pytest.fixture
def stuck(service_catalog):
    return blocked_review()


def test_a_blocked_branch_says_why_what_to_resend_and_since_when(stuck):
    tree = branches.read(Run.objects.get(public_id=stuck.run_id), records=False)
    [refusal] = blocked.refusals(tree).values()
    assert (refusal.branch, str(refusal.node_id), refusal.step_id, refusal.step_title) == (
        1,
        stuck.node_id,
        "list-changed-files",
        "Record the Changed Files",
    )
    [issue] = refusal.issues
    assert (issue["code"], issue["pointer"]) == ("ARTIFACT_MISSING", "/output/artifacts")
    assert "output.artifacts (mr_review.changed_files)" in refusal.resend
    assert "context: reviewAreas" in refusal.resend
    assert refusal.refusals == 1 and refusal.since == refusal.last_refused_at

    [told] = outcomes.of_run(tree)
    assert told.headline.startswith("Branch 1 blocked at step 2 (Record the Changed Files) since ")
    assert told.headline.endswith(": " + issue["message"])
    assert told.blocked is not None and told.blocked.issues[0].pointer == "/output/artifacts"
    assert outcomes.summary_words([told]).startswith("blocked at step 2 (Record the Changed Files) since ")


def test_blocked_since_is_the_first_refusal_that_still_stands(stuck):
    again = continue_workflow(
        stateToken=stuck.refused["stateToken"], ackToken=stuck.refused["ackToken"], output={"notesMarkdown": "Again."}
    )
    assert again["kind"] == "blocked"
    tree = branches.read(Run.objects.get(public_id=stuck.run_id), records=False)
    [refusal] = blocked.refusals(tree).values()
    assert refusal.refusals == 2 and refusal.since < refusal.last_refused_at


def test_a_blocked_branch_tells_the_developer_whose_move_it_is_and_the_call_to_give(stuck):
    tree = branches.read(Run.objects.get(public_id=stuck.run_id), records=False)
    [told] = outcomes.of_run(tree)
    refusal = told.blocked
    assert refusal is not None and refusal.whose_move == "agent"
    assert refusal.for_you == (
        "Nothing for you to do unless the agent has stopped: it must resend Record the Changed Files (step 2) "
        "with the list of changed files. If it is stuck, give it this call:"
    )
    # The exact call: the refusal's own tokens (the fresh ackToken is the one that still answers the step).
    assert refusal.call is not None
    call = json.loads(refusal.call)
    assert call["tool"] == "continue_workflow"
    assert call["arguments"]["stateToken"] == stuck.refused["stateToken"]
    fresh = stuck.refused["nextCall"]["arguments"]["ackToken"]
    assert call["arguments"]["ackToken"] == stuck.refused["ackToken"] == fresh
    assert [a["kind"] for a in call["arguments"]["output"]["artifacts"]] == ["mr_review.changed_files"]
    # What the agent sent, kept with the refusal.
    assert refusal.sent is not None
    assert (refusal.sent.notes_preview, refusal.sent.artifact_kinds, refusal.sent.context_keys) == (
        "Listed the files in my head.",
        [],
        [],
    )
    # The expected artifact's shape, from the step's contract, instead of "see pending.outputContract".
    artifact = refusal.expected_artifact
    assert artifact is not None and artifact.kind == "mr_review.changed_files"
    assert artifact.required_fields == ["changedFiles (a list; each: path, summary, risk)"]
    assert artifact.example is not None and json.loads(artifact.example)["kind"] == "mr_review.changed_files"
    assert "pending.outputContract" not in refusal.issues[0].for_people
    # Each part of the call, and why it is there when no issue says so.
    parts = {item.part: item for item in refusal.resend_items}
    assert list(parts) == ["output.notesMarkdown", "output.artifacts (mr_review.changed_files)", "context.reviewAreas"]
    assert parts["output.artifacts (mr_review.changed_files)"].listed
    # In the words of its heading, "The artifact this step asks for": no "contract" (friction63b 4).
    assert parts["output.artifacts (mr_review.changed_files)"].why == "the artifact this step asks for"
    assert not parts["context.reviewAreas"].listed
    assert parts["context.reviewAreas"].why.startswith("also asked for by this step")


def test_context_sent_with_a_refused_answer_is_said_to_go_again(stuck):
    again = continue_workflow(
        stateToken=stuck.refused["stateToken"],
        ackToken=stuck.refused["ackToken"],
        context={"reviewAreas": ["api"]},
        output={"notesMarkdown": "Still no artifact."},
    )
    assert again["kind"] == "blocked"
    tree = branches.read(Run.objects.get(public_id=stuck.run_id), records=False)
    [told] = outcomes.of_run(tree)
    assert told.blocked is not None and told.blocked.sent is not None
    assert told.blocked.sent.context_keys == ["reviewAreas"]
    assert json.loads(told.blocked.call or "{}")["arguments"]["ackToken"] == again["ackToken"]
    [context] = [item for item in told.blocked.resend_items if item.part == "context.reviewAreas"]
    assert context.why.startswith("sent with the refused answer")


# --- which branch the agent works on -------------------------------------------------------------------------


def _entry(number: int, status: str, *, newest: bool = False, verdict: str | None = None, step: int | None = None):
    from datetime import UTC, datetime

    from runs.contract.dashboard import BranchOutcomeEntry

    return BranchOutcomeEntry(
        number=number,
        status=status,
        tip_node_id=str(number),
        is_newest=newest,
        left_behind=not newest and status in ("open", "blocked"),
        verdict=verdict,
        verdict_source=None,
        findings={},
        step_number=step,
        step_id=None,
        step_title=None,
        at=datetime(2026, 1, 1, tzinfo=UTC),
        headline="",
        blocked=None,
    )


def test_the_status_words_lead_with_the_newest_branch():
    forked = [_entry(1, "complete", verdict="Request changes"), _entry(2, "open", newest=True, step=4)]
    assert outcomes.summary_words(forked) == SUMMARY
    three = [_entry(1, "open", step=3), _entry(2, "complete", newest=True, verdict="Approve"), _entry(3, "complete")]
    assert outcomes.summary_words(three) == (
        "Branch 2 completed: Approve (newest) · branch 3 finished earlier · branch 1 open at step 3, left behind by "
        "a newer branch"
    )


def test_an_open_branch_the_agent_rewound_away_from_is_left_behind(service_catalog):
    from tests.support.mcp_calls import start_workflow
    from tests.support.sample_session import advance

    start = start_workflow("wr.risk_scaled_mr_review", context={"sessionKey": "MR-50"})
    second = advance(start, "Triaged.")
    advance(second, "Listed the files.")  # branch 1 goes on to step 3, then the agent rewinds
    rewound = continue_workflow(stateToken=second["stateToken"])
    advance(rewound, "Listed them again.")
    tree = branches.read(Run.objects.get(public_id=start["session"]["runId"]), records=False)
    first, newest = outcomes.of_run(tree)
    assert (first.left_behind, newest.left_behind, newest.is_newest) == (True, False, True)
    assert first.headline.endswith(" — left behind by a newer branch")
    assert outcomes.summary_words([first, newest]).startswith("Branch 2 open at step 3 (newest, where the agent works)")


# --- the workrail://runs/{id} resource ----------------------------------------------------------------------


def test_the_run_resource_names_every_branch_and_says_why_it_is_blocked(review):
    from runs.readmodels.resources import read_run

    answer = read_run(review.run_id)
    assert answer["status"] == "in_progress"
    assert answer["statusSummary"] == SUMMARY
    assert answer["branch"] is not None and answer["branch"]["number"] == 2 and answer["blocked"] is None
    assert [o["headline"] for o in answer["otherBranches"]] == [
        "Branch 1 completed: Request changes, 1 critical finding"
    ]

    stuck = blocked_review("MR-78")
    refused = read_run(stuck.run_id)
    assert refused["blocked"] is not None
    assert refused["blocked"]["issues"] == [
        {
            "code": "ARTIFACT_MISSING",
            "message": stuck.refused["blocked"]["issues"][0]["message"],
            "forPeople": "The agent did not attach the list of changed files.",
            "pointer": "/output/artifacts",
            "reason": None,
        }
    ]
    assert refused["blocked"]["forYou"].startswith("Nothing for you to do unless the agent has stopped")
    assert refused["blocked"]["stepTitle"] == "Record the Changed Files"
    assert "output.artifacts (mr_review.changed_files)" in refused["blocked"]["resend"]


@pytest.mark.parametrize(
    ("codes", "move", "start"),
    [
        (["USER_DEPENDENCY_UNMET"], "user", "You are needed: Deploy (step 3) waits for something only you can give"),
        (["DELEGATIONS_PENDING"], "delegations", "Nothing for you to do: Deploy (step 3) waits for its delegated runs"),
        (["NOTES_REQUIRED", "VALIDATION_FAILED"], "agent", "Nothing for you to do unless the agent has stopped"),
    ],
)
def test_whose_move_a_refusal_is_follows_its_issues(codes, move, start):
    from datetime import UTC, datetime

    at = datetime(2026, 1, 1, tzinfo=UTC)
    refusal = blocked.Refusal(
        branch=1,
        node=1,
        node_id=1,
        step_id="deploy",
        step_title="Deploy",
        since=at,
        last_refused_at=at,
        refusals=1,
        issues=[{"code": code, "message": f"{code} message"} for code in codes],
        retry="",
        resend=[],
    )
    entry = blocked.as_entry(refusal, 3)
    assert entry.whose_move == move and entry.for_you.startswith(start)
    if move == "agent":
        assert entry.for_you.endswith(
            "it must resend Deploy (step 3) with its notes and an answer that passes the step's checks."
        )
    assert entry.call is None and "give it this call" not in entry.for_you  # no call was recorded: none offered


# --- a branch set aside: superseded, then left behind ------------------------------------------------------


@pytest.mark.usefixtures("fresh_attention_places")
def test_a_branch_set_aside_by_hand_is_superseded_until_it_has_been_quiet_as_long_as_a_stall():
    """friction19b 2: right after a person started a branch by hand, the old branch was "Left behind" (no agent
    works on it, nothing to do) while the form had just warned an agent works there. Until nothing was recorded on
    it for WORKRAIL_STALL_MINUTES (the stall rule's cutoff, given here, not read off the wall clock) it is
    superseded, the agent's move; then left behind. A rewind is the agent itself going on elsewhere: left behind."""
    start = start_workflow(PLAN, context={"sessionKey": "HAND-2"})
    ack(start)
    root = Node.objects.get(parent__isnull=True)
    run = Run.objects.get()
    old_tip = Node.objects.filter(run=run).order_by("-created_at", "-pk").first()
    assert old_tip is not None and old_tip != root
    fork_node(root.public_id, {}, "Try again.", via="dashboard")
    tree = branches.read(run, records=False)
    reached = old_tip.created_at

    def branch_1(cutoff: datetime) -> tuple[str, bool]:
        [first] = [o for o in outcomes.of_run(tree, cutoff) if o.number == 1]
        return first.state, first.left_behind

    assert branch_1(reached - timedelta(seconds=1)) == ("superseded", False)
    assert branch_1(reached) == ("superseded", False)  # quiet for less than the whole threshold
    assert branch_1(reached + timedelta(seconds=1)) == ("left_behind", True)
    assert branch_1(NO_CUTOFF) == ("left_behind", True)  # read as stored (a report): no clock applies
    [old] = [b for b in tree.branches if b.number == 1]
    assert outcomes.branch_state(tree, old, "paused", reached) == "superseded"  # the timeline's word, the same
    assert outcomes.branch_state(tree, old, "paused", reached + timedelta(seconds=1)) == "left_behind"


def test_a_branch_the_agent_rewound_away_from_is_left_behind_at_once():
    made = attention_sessions.left_behind()
    run = Run.objects.get(public_id=made.run_id)
    tree = branches.read(run, records=False)
    told = outcomes.of_run(tree, datetime.min.replace(tzinfo=UTC) + timedelta(days=1))  # everything is recent
    assert [o.state for o in told if not o.is_newest] == ["left_behind"]


def test_next_steps_name_the_branches_that_went_on_along_each_and_quote_this_steps_answer():
    # r59: two branches that went on along one answer are two branches, named as the graph names them.
    from runs.contract.dashboard import BranchEntry
    from runs.readmodels import run_view

    entries = [BranchEntry.model_construct(via="step"), BranchEntry.model_construct(via="step")]
    shared = run_view.NextStep(entries[0], (1, 2))
    assert shared.answer_label == "This step's answer on branches 1-2"
    assert run_view.NextStep(entries[1], (3,)).answer_label == "This step's answer on branch 3"

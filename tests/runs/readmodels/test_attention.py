"""Whose move it is (runs/readmodels/attention.py) and where in git a run started and ended
(runs/readmodels/commits.py): the words of each session's row, the run they name, the panels of a run's
page, and the commits recorded at a run's start and end."""

from __future__ import annotations

import importlib
from datetime import UTC, datetime, timedelta

import pytest
from django.apps import apps
from django.utils import timezone

from runs.execution import session_actions
from runs.models import Event, EventKind, Observation, Run, Session
from runs.readmodels import commits, overview, resources, run_view
from runs.readmodels.attention import said_when, stop_words
from runs.readmodels.clock import NO_CUTOFF
from runs.readmodels.outcomes import superseded_among
from runs.store import actors
from tests.support.attention_sessions import git, run_to_the_end
from tests.support.branched_review import blocked_review, forked_review
from tests.support.mcp_calls import checkpoint_workflow, continue_workflow, notes_for, start_workflow
from tests.support.sample_session import advance
from tests.support.workflow_files import step_doc, workflow_doc, write_json

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_attention_places")]

CONFIRM = "team.confirm"


@pytest.fixture
def confirm_workflow(service_catalog):
    """Three steps; the second asks for the user's confirmation."""
    steps = [
        step_doc("plan", "Plan", "Write the plan."),
        step_doc(
            "approve",
            "Approve the plan",
            "Show the user the plan and ask them to approve it.",
            requireConfirmation=True,
        ),
        step_doc("build", "Build", "Build it."),
    ]
    write_json(service_catalog["extra"] / "confirm.json", workflow_doc(CONFIRM, name="Plan and build", steps=steps))
    return CONFIRM


def _quiet(run_id: str, minutes: int = 45) -> None:
    """Nothing recorded for `minutes`: the run and its session last moved then."""
    then = timezone.now() - timedelta(minutes=minutes)
    run = Run.objects.get(public_id=run_id)
    Run.objects.filter(pk=run.pk).update(updated_at=then)
    Session.objects.filter(pk=run.session_id).update(updated_at=then)


def _row(session_id: str):
    return next(s for s in overview.list_sessions().items if s.session_id == session_id)


# --- where a session is ----------------------------------------------------------------------------------


def test_a_step_that_waits_for_the_user_says_so_and_is_never_stalled(confirm_workflow, settings):
    settings.WORKRAIL_STALL_MINUTES = 30
    start = start_workflow(confirm_workflow, context={"sessionKey": "CONF-1"})
    waiting = advance(start, "Planned it.")
    assert waiting["pending"]["stepId"] == "approve"
    run_id = start["session"]["runId"]
    assert Run.objects.get(public_id=run_id).waits_for_user
    _quiet(run_id)
    row = _row(start["session"]["sessionId"])
    assert row.status == "in_progress"  # quiet because it waits for a person: not the agent's fault
    assert (row.where.place, row.where.words) == (
        "waiting_for_user",
        "Approve the plan · step 2 of 3 · waiting for your confirmation",
    )
    assert row.where.run_id == run_id and row.where.run_name == "Plan and build"
    assert overview.list_sessions(status="stalled").total == 0
    assert overview.list_sessions().status_counts == {"in_progress": 1}
    detail = run_view.run_detail(run_id)
    assert detail.run.status == "in_progress" and detail.pending_needs_user
    assert detail.run.status_summary == "waiting for you at step 2: Approve the plan"
    [panel] = detail.panels
    assert panel.kind == "waiting_for_user"
    # One short verdict, then the step, then where the answer goes: the agent's chat, by one of two replies.
    # Since when it waits, as the stalled and blocked panels say theirs (the page shows the moment local).
    assert panel.title == "Waiting for your confirmation for under a minute"
    assert (panel.step.words, panel.step_title) == ("step 2 of 3", "Approve the plan")
    # Said to the user from the step's title (workflows_app/prose/confirmations.py), then where to answer.
    assert panel.next_move == (
        "The agent is waiting for you to approve the plan. "
        "The dashboard cannot talk to it: you confirm by copying a reply below."
    )
    # The two replies the panel's copy buttons hold (friction15: a control for every move of the person's).
    assert panel.reply_confirmed == "Confirmed: go on with “Approve the plan”."
    assert panel.reply_changes == "Not yet: change … before you go on with “Approve the plan”."
    # Its blank apart, for the page to fill with what the person types (friction18b 12).
    assert panel.reply_changes_parts == ("Not yet: change ", "…", " before you go on with “Approve the plan”.")
    assert "ask them to approve it" in panel.asks
    # What to approve: the agent's own latest notes on the branch, not only the step's instruction.
    assert panel.to_approve == "Planned it."
    assert panel.to_approve_from is not None and panel.to_approve_from != "Approve the plan"
    # Once the user confirmed and the agent went on, nobody waits for them.
    advance(waiting, "The user approved.")
    assert not Run.objects.get(public_id=run_id).waits_for_user
    assert not Session.objects.get(public_id=start["session"]["sessionId"]).waiting_for_user


def test_the_step_whose_notes_the_waiting_panel_quotes_is_named_by_its_node_not_its_text(confirm_workflow):
    start = start_workflow(confirm_workflow, context={"sessionKey": "CONF-IDS"})
    waiting = advance(start, "Same words.")
    run_id = start["session"]["runId"]
    detail = run_view.run_detail(run_id)
    [plan] = detail.steps
    [panel] = detail.panels
    assert panel.to_approve_node == plan.child_id
    # A checkpoint saved since, in the very same words: the panel quotes the newest, and names it by its node.
    checkpoint_workflow(stateToken=waiting["stateToken"], output={"notesMarkdown": "Same words."})
    detail = run_view.run_detail(run_id)
    [panel] = detail.panels
    saved = next(step for step in detail.steps if step.kind == "checkpoint")
    assert panel.to_approve == "Same words." and panel.to_approve_node == saved.child_id != plan.child_id


def test_in_autopilot_a_confirmation_step_does_not_wait_for_the_user(confirm_workflow):
    start = start_workflow(confirm_workflow, preferences={"autonomy": "full_auto_stop_on_user_deps"})
    advance(start, "Planned it.")
    assert not Run.objects.get(public_id=start["session"]["runId"]).waits_for_user


def test_a_session_names_its_blocked_run_not_its_first_one(service_catalog):
    first = start_workflow("wr.routine-focused_plan", context={"sessionKey": "MR-77"})
    stuck = blocked_review("MR-77")
    assert stuck.session_id == first["session"]["sessionId"]
    row = _row(stuck.session_id)
    assert row.status == "in_progress"  # the session's stored status: one run still works
    assert row.where.place == "blocked"
    assert row.where.run_id == stuck.run_id and row.where.run_id != first["session"]["runId"]
    assert row.where.run_name == "Risk-Scaled Merge Request Review"
    assert row.where.run_number == 2
    assert row.where.words.startswith("Record the Changed Files · step 2 of ")  # its name first
    # In plain words, beside the badge that says "Refused": the words do not say it again.
    assert row.where.words.endswith(" · the agent did not attach the list of changed files")
    # The session's page opens on that run.
    from runs.dashboard.sessions import default_run

    assert default_run(overview.session_detail(stuck.session_id)) == stuck.run_id


def test_a_quiet_run_is_stalled_since_its_last_step_and_says_how_to_resume(service_catalog, settings):
    settings.WORKRAIL_STALL_MINUTES = 30
    start = start_workflow("wr.routine-focused_plan")
    second = advance(start, "Clarified.")
    run_id = start["session"]["runId"]
    _quiet(run_id)
    row = _row(start["session"]["sessionId"])
    assert row.status == "stalled" and row.where.place == "stalled"
    assert row.where.words.startswith("Draft Plan with Risks · step 2 of 3 · stalled for ")
    assert_timed(row.where.words, row.where.timed, row.where.since)
    detail = run_view.run_detail(run_id)
    assert detail.run.status == "stalled"
    assert detail.run.status_summary.startswith("stalled at step 2")
    assert "where the agent works" not in detail.run.status_summary and "open" not in detail.run.status_summary
    [panel] = detail.panels
    assert panel.kind == "stalled" and panel.title.startswith("Stalled for ")
    assert panel.title.endswith(": resume the agent if it stopped") and panel.step.words == "step 2 of 3"
    assert_timed(panel.title, panel.timed, panel.since)
    assert panel.state_token and panel.state_token in panel.sentence
    assert panel.sentence.startswith("Resume the WorkRail workflow: call continue_workflow with stateToken")
    # The token resumes at that step: the agent is shown it again with a fresh ackToken.
    again = continue_workflow(stateToken=panel.state_token)
    assert again["pending"]["stepId"] == second["pending"]["stepId"] and again["ackToken"]


def test_a_forked_stalled_run_leads_with_stalled_not_where_the_agent_works(service_catalog, settings):
    settings.WORKRAIL_STALL_MINUTES = 30
    start = start_workflow("wr.routine-focused_plan")
    second = advance(start, "Clarified.")
    advance(second, "Drafted.")
    continue_workflow(stateToken=second["stateToken"])  # shown again: nothing recorded
    rewound = advance(continue_workflow(stateToken=second["stateToken"]), "Drafted again, differently.")
    assert rewound["pending"]
    run_id = start["session"]["runId"]
    _quiet(run_id)
    words = run_view.run_detail(run_id).run.status_summary
    assert words.startswith("Branch 2 stalled at step 3 (newest)"), words
    assert "where the agent works" not in words


def test_a_canceled_run_says_when_and_by_whom_and_that_its_tokens_are_dead(service_catalog):
    start = start_workflow("wr.routine-focused_plan")
    advance(start, "Clarified.")
    run_id = start["session"]["runId"]
    session_actions.cancel_run(run_id)
    row = _row(start["session"]["sessionId"])
    assert (row.where.place, row.where.run_id) == ("canceled", run_id)
    assert row.where.words == "canceled just now"  # when, beside its badge
    assert_timed(row.where.words, row.where.timed, row.where.since)
    [panel] = run_view.run_detail(run_id).panels
    assert panel.kind == "canceled"
    # Who canceled is in the title: here no door recorded who (not the dashboard, the API or a command), which
    # the title says as such, not as "from this machine" (friction14).
    assert panel.title.startswith("Canceled just now") and panel.step.words == "step 2 of 3"
    assert panel.title.endswith(" (by whom was not recorded)") and "machine" not in panel.title
    assert "told the run was canceled" in panel.for_you and "RUN_CANCELED" not in panel.for_you


def test_a_canceled_run_names_who_canceled_it_by_the_door_it_came_through(service_catalog):
    start = start_workflow("wr.routine-focused_plan")
    advance(start, "Clarified.")
    run_id = start["session"]["runId"]
    with actors.acting_as(actors.Actor("", actors.Door.DASHBOARD)):  # the dashboard's button, no one signed in
        session_actions.cancel_run(run_id)
    [panel] = run_view.run_detail(run_id).panels
    assert panel.title.startswith("Canceled in the dashboard just now") and "not recorded" not in panel.title
    other = start_workflow("wr.routine-focused_plan")
    with actors.acting_as(actors.Actor("bob", actors.Door.DASHBOARD, sees_everything=True)):
        session_actions.cancel_run(other["session"]["runId"])
    [panel] = run_view.run_detail(other["session"]["runId"]).panels
    assert panel.title.startswith("Canceled by bob (dashboard) just now")


def test_a_branch_left_behind_by_a_rewind_has_its_own_panel_with_the_token_to_go_back(service_catalog):
    start = start_workflow("wr.routine-focused_plan")
    second = advance(start, "Clarified.")
    advance(second, "Drafted.")  # branch 1 stands at step 3
    rewound = continue_workflow(stateToken=start["stateToken"])
    advance(rewound, "Clarified again.")  # branch 2, the newest, at step 2
    run_id = start["session"]["runId"]
    detail = run_view.run_detail(run_id)
    left = [p for p in detail.panels if p.kind == "left_behind"]
    assert [p.branch for p in left] == [1]
    assert left[0].title == "Left behind: the work goes on along branch 2"
    assert left[0].step.words == "step 3 of 3"
    assert "when the agent branched from an earlier step" in left[0].for_you
    assert left[0].state_token in left[0].sentence
    # Shown on its own, the left-behind branch's panel comes first.
    shown = run_view.run_detail(run_id, tip=left[0].node_id)
    assert [p.kind for p in shown.panels] == ["left_behind"]


def test_a_working_run_and_a_completed_one_say_so_in_a_few_words(service_catalog):
    start = start_workflow("wr.routine-focused_plan")
    assert (
        _row(start["session"]["sessionId"]).where.words == "Clarify Goal and Constraints · step 1 of 3"
    )  # the badge says Running
    answer = start
    while not answer["isComplete"]:
        answer = continue_workflow(
            stateToken=answer["stateToken"], ackToken=answer["ackToken"], output=notes_for(answer["pending"])
        )
    row = _row(start["session"]["sessionId"])
    # Beside its "Done" badge the line says when, never "done" again.
    assert (row.where.place, row.where.state) == ("completed", "done")
    assert row.where.words == "finished just now"
    assert_timed(row.where.words, row.where.timed, row.where.since)
    assert row.state == "done"
    assert run_view.run_detail(start["session"]["runId"]).panels == []


# --- commits ----------------------------------------------------------------------------------------------


@pytest.fixture
def repo(tmp_path):
    path = tmp_path / "shop"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    (path / "orders.py").write_text("one\ntwo\n")
    git(path, "add", "orders.py")
    git(path, "commit", "-q", "-m", "one")
    return path


def test_a_run_records_the_commit_it_started_and_ended_on_and_shows_the_change(repo, service_catalog, settings):
    settings.WORKRAIL_PROJECT_DIR = repo
    first = git(repo, "rev-parse", "HEAD")
    start = start_workflow("wr.routine-focused_plan")
    run_id = start["session"]["runId"]
    (repo / "orders.py").write_text("one\n2\nthree\n")
    (repo / "search.py").write_text("new\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "two")
    last = git(repo, "rev-parse", "HEAD")
    run_to_the_end(start)
    run = Run.objects.select_related("session").get(public_id=run_id)
    assert (run.start_commit, run.end_commit) == (first, last)
    started = Event.objects.get(kind=EventKind.RUN_STARTED, data__runId=run_id)
    completed = Event.objects.get(kind=EventKind.RUN_COMPLETED, data__runId=run_id)
    assert (started.data["headCommit"], completed.data["headCommit"]) == (first, last)
    shown = commits.of_run(run)
    assert (shown.start_commit, shown.end_commit, shown.ended) == (first, last, True)
    assert (shown.change.files_changed, shown.change.insertions, shown.change.deletions) == (2, 3, 1)
    assert run_view.run_detail(run_id).commits == shown


def test_an_open_run_shows_where_it_is_so_far(repo, service_catalog, settings):
    settings.WORKRAIL_PROJECT_DIR = repo
    start = start_workflow("wr.routine-focused_plan")
    (repo / "orders.py").write_text("one\ntwo\nthree\n")
    git(repo, "commit", "-q", "-am", "two")
    advance(start, "Clarified.")  # observed again: HEAD moved
    shown = commits.of_run(Run.objects.select_related("session").get(public_id=start["session"]["runId"]))
    assert not shown.ended and shown.end_commit == git(repo, "rev-parse", "HEAD")
    assert (shown.change.files_changed, shown.change.insertions, shown.change.deletions) == (1, 1, 0)


def test_a_repository_not_on_this_machine_shows_the_commits_without_a_change(repo, service_catalog, settings):
    settings.WORKRAIL_PROJECT_DIR = repo
    start = start_workflow("wr.routine-focused_plan")
    run_to_the_end(start)
    Session.objects.update(workspace_path="/nowhere/shop")
    shown = commits.of_run(Run.objects.select_related("session").get(public_id=start["session"]["runId"]))
    assert shown.start_commit and shown.change is None and shown.change_note == commits.NOT_HERE


def test_a_commit_missing_from_the_repository_is_said_not_guessed(repo, service_catalog, settings):
    settings.WORKRAIL_PROJECT_DIR = repo
    start = start_workflow("wr.routine-focused_plan")
    run_to_the_end(start)
    Run.objects.update(start_commit="0" * 40)
    shown = commits.of_run(Run.objects.select_related("session").get(public_id=start["session"]["runId"]))
    assert shown.change is None and "not in the repository" in shown.change_note


def test_outside_git_a_run_records_no_commit_and_its_events_keep_their_form(service_catalog):
    start = start_workflow("wr.routine-focused_plan")
    run_to_the_end(start)
    run = Run.objects.select_related("session").get(public_id=start["session"]["runId"])
    assert (run.start_commit, run.end_commit) == ("", "")
    for kind in (EventKind.RUN_STARTED, EventKind.RUN_COMPLETED):
        assert "headCommit" not in Event.objects.get(kind=kind).data
    assert commits.of_run(run) is None
    assert run_view.run_detail(run.public_id).commits is None


def test_runs_started_before_commits_were_recorded_get_their_first_observed_commit(service_catalog):
    start = start_workflow("wr.routine-focused_plan")
    run = Run.objects.get(public_id=start["session"]["runId"])
    for sha in ("a" * 40, "b" * 40):
        Observation.objects.create(session=run.session, run=run, git_head_sha=sha, created_at=run.created_at)
    migration = importlib.import_module("runs.migrations.0020_run_commits")
    migration.starts_from_the_observations(apps, None)
    assert Run.objects.get(pk=run.pk).start_commit == "a" * 40
    assert Run.objects.get(pk=run.pk).end_commit == ""


def test_a_rebuilt_store_keeps_the_commits_and_who_is_waited_for(repo, confirm_workflow, settings):
    from harness.projections import snapshot
    from runs.store.rebuild import rebuild_projections

    settings.WORKRAIL_PROJECT_DIR = repo
    run_to_the_end(start_workflow("wr.routine-focused_plan"))
    advance(start_workflow(confirm_workflow), "Planned it.")
    assert Run.objects.filter(waits_for_user=True).count() == 1
    assert Run.objects.exclude(end_commit="").count() == 1
    before = snapshot()
    rebuild_projections()
    assert snapshot() == before


# --- one vocabulary --------------------------------------------------------------------------------------


def test_each_branch_line_names_its_place_beside_its_badge_and_never_reaches_an_agent(service_catalog):
    review = forked_review()
    detail = run_view.run_detail(review.run_id, tip=review.done_tip)
    [other] = detail.other_branches
    assert detail.branch is not None
    # The badge says the state (Done, Running); the line says which branch and where, in the outline's terms.
    assert (detail.branch.state, detail.branch.line) == ("done", "Branch 1 · Request changes, 1 critical finding")
    assert (other.state, other.line) == (
        "running",
        "Branch 2 · Review storage · step 4 of 8 (area 2 of 2)",
    )
    for line in (detail.branch.line, other.line):
        assert not any(word in line for word in ("open at", "left at", "completed", "where the agent works"))
    # The agent's resource keeps its own words: the dashboard's line is not part of its answer.
    answer = resources.read_run(review.run_id)
    assert all("line" not in branch for branch in [answer["branch"], *answer["otherBranches"]] if branch)


def assert_timed(words, around, since):
    """Words that hold a moment come with the words around it, for the dashboard to print the moment in
    the reader's time zone (the `words_when` tag): the two say the same."""
    assert around is not None and since is not None, words
    before, after, form = around
    assert words == before + said_when(since, form) + after


def test_the_runs_that_wait_on_the_person_are_counted_as_their_pills_say():
    # friction19b 14: two paused runs, one panel (the shown run's): the runs column's heading counts both. Each
    # run's move is its where-line's, the clock applied (a blocked run whose agent stopped is the person's), else
    # its state's.
    from runs.contract.dashboard import RunSummary, Whereabouts
    from runs.readmodels.attention import yours_among

    runs = [
        RunSummary.model_construct(run_id=f"r{n}", state=state)
        for n, state in enumerate(("paused", "paused", "running", "blocked", "blocked"))
    ]
    lines = [
        Whereabouts.model_construct(run_id="r3", state="blocked"),
        Whereabouts.model_construct(run_id="r4", state="blocked"),
    ]
    lines[0]._move = "yours"  # its agent stopped trying
    lines[1]._move = "agents"  # its agent retries
    assert yours_among(runs, lines) == 3
    assert yours_among(runs[2:3], []) == 0


def test_the_stop_words_name_each_replaced_branch_once():
    # friction60a 7: what an "Agent's move" line adds for the replaced branches whose agents may still work.
    assert stop_words([]) == ""
    assert stop_words([1]) == "tell branch 1's agent to stop"
    assert stop_words([1, 3]) == "tell the agents of branches 1 and 3 to stop"


def test_a_set_aside_branch_is_replaced_only_while_recent():
    # The same rule as the branch's row (outcomes._set_aside): recorded since the stall rule's moment.
    now = datetime(2026, 12, 1, tzinfo=UTC)
    moments = [(1, now), (3, now - timedelta(hours=1))]
    assert superseded_among(moments, now - timedelta(minutes=30)) == [1]
    assert superseded_among(moments, NO_CUTOFF) == []

"""The sessions list names a session's workflows by name (an id shows only where two share a name), and titles
each row: the agent's goal with the key under it, else the key; other workflows only where the row does not
name them already."""

from runs.readmodels.overview import WorkflowTag, row_title, tagged


def test_workflows_are_named_and_their_ids_kept_for_the_title():
    names = {"wr.routine-focused_plan": "Focused Plan Routine"}
    assert tagged(["wr.routine-focused_plan"], names) == [
        WorkflowTag("wr.routine-focused_plan", "Focused Plan Routine", id_shown=False)
    ]


def test_an_id_shows_beside_a_name_two_workflows_share_and_an_unknown_one_is_its_id():
    names = {"team.review": "Code Review", "wr.code_review": "Code Review"}
    assert [(t.name, t.id_shown) for t in tagged(["team.review", "wr.code_review", "x.y"], names)] == [
        ("Code Review", True),
        ("Code Review", True),
        ("x.y", False),
    ]


def _summary(key, title, workflows, where_run=""):
    from datetime import UTC, datetime

    from runs.contract.dashboard import SessionSummary, Whereabouts

    now = datetime.now(UTC)
    where = Whereabouts(
        place="working", words="step 1 of 3", run_id="run_1", run_name=where_run, run_number=1, since=now
    )
    return SessionSummary(
        session_id="ses_1", title=title, session_key=key, status="in_progress", workflow_ids=workflows, run_count=1,
        branch_count=1, git_branch="", workspace_path="", created_at=now, last_activity=now,
        where=where if where_run else None,
    )  # fmt: skip


PLAN = WorkflowTag("wr.routine-focused_plan", "Focused Plan Routine", id_shown=False)
REVIEW = WorkflowTag("wr.mr-review", "Merge Request Review", id_shown=False)


def test_a_goal_titles_the_row_with_the_key_under_it():
    row = row_title(_summary("MR-77", "Fix the login timeout", ["wr.routine-focused_plan"]), [PLAN])
    assert (row.title, row.key) == ("Fix the login timeout", "MR-77")


def test_a_title_that_only_repeats_the_key_or_ticket_is_the_key_alone():
    keyed = row_title(_summary("CONF-1", "CONF-1", []), [])
    assert (keyed.title, keyed.key) == ("CONF-1", "")
    ticket = row_title(_summary("ticket:4242", "4242", []), [])
    assert (ticket.title, ticket.key) == ("4242", "")


def test_other_workflows_are_named_only_where_the_row_does_not_name_them_already():
    # The where-it-is cell names the review: only the plan routine is added, and a lone workflow never is.
    both = _summary("MR-77", "MR-77", ["wr.routine-focused_plan", "wr.mr-review"], where_run="Merge Request Review")
    assert row_title(both, [PLAN, REVIEW]).others == [PLAN]
    alone = _summary(None, "Focused Plan Routine", ["wr.routine-focused_plan"], where_run="Focused Plan Routine")
    assert row_title(alone, [PLAN]).others == []

"""How many statements start_workflow and a rehydrate (continue_workflow with only a stateToken) run: a
regression guard. Both go through compiled statements (runs/store/statements.py), and every statement
they need is listed below: a change that adds one fails here and must say why in the list.

Transaction control (BEGIN, COMMIT, savepoints) is left out of the counts: SQLite's backend here logs
its BEGIN IMMEDIATE and COMMIT, PostgreSQL's does not. The project directory is not a git repository,
so nothing is observed (an observation would add one INSERT to a start)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.support.mcp_calls import ack, continue_workflow, start_workflow
from tests.support.workflow_files import step_doc, workflow_doc, write_json

pytestmark = pytest.mark.django_db

TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE SAVEPOINT")


@pytest.fixture
def three(service_catalog):
    steps = [step_doc(step, step.title(), f"Do {step}.") for step in ("one", "two", "three")]
    path = service_catalog["project"] / ".workrail" / "workflows" / "three.json"
    write_json(path, workflow_doc("project.three", steps=steps))
    return "project.three"


def statements_of(call: Callable[[], dict[str, Any]]) -> tuple[dict[str, Any], list[str]]:
    """What `call` answered, and the SQL of each statement it ran (transaction control left out)."""
    with CaptureQueriesContext(connection) as captured:
        answer = call()
    sql = [query["sql"] for query in captured.captured_queries]
    return answer, [text for text in sql if not text.lstrip().upper().startswith(TRANSACTION_CONTROL)]


def on_postgresql(count: int) -> int:
    """The count on PostgreSQL, where a journal on an existing session locks its row first (SELECT ...
    FOR UPDATE); SQLite's IMMEDIATE transaction holds the store's write lock already."""
    return count + 1 if connection.vendor == "postgresql" else count


def test_a_start_in_a_new_session_runs_eleven_statements(three):
    start_workflow(three)  # pins the workflow (stored once) and compiles the statements
    answer, sql = statements_of(lambda: start_workflow(three))
    assert answer["kind"] == "step"
    # The start rate bucket; the session; whether the snapshot is stored (on PostgreSQL, its share lock);
    # the run and its search entry; the root node and its attempt; the events (one executemany); the
    # run's counts; the session row (its fields, summary and last_seq at once); the search entry's tip.
    assert len(sql) == 11, sql


def test_a_start_joining_a_session_by_its_ticket_reads_that_session_and_its_runs(three):
    start_workflow(three, {"ticketId": "T-1"})
    answer, sql = statements_of(lambda: start_workflow(three, {"ticketId": "T-1"}))
    assert answer["kind"] == "step"
    # As a new session's, without inserting the session, plus: finding the session by its key, and
    # reading its runs for its summary (a new session's are all known). On PostgreSQL the key's advisory
    # lock and the session row's lock come first.
    expected = 11 - 1 + 2
    assert len(sql) == (expected + 2 if connection.vendor == "postgresql" else expected), sql


def test_a_rehydrate_at_a_branchs_tip_runs_five_statements(three):
    answer = ack(start_workflow(three))
    continue_workflow(stateToken=answer["stateToken"])  # compiles the statements
    again, sql = statements_of(lambda: continue_workflow(stateToken=answer["stateToken"]))
    assert again["ackToken"] == answer["ackToken"] and again["recap"]["entries"]
    # The node with its run and session; whether a step made it (else it may be an operator fork);
    # its open attempt; the recap (one recursive query with the entries' content); the runs linked to the
    # run's steps with start_workflow's parentStateToken (none). No children query: a node without a latest
    # child has none.
    assert len(sql) == on_postgresql(5), sql


def test_a_rehydrate_of_a_point_with_branches_lists_them_in_a_bounded_number_of_statements(three):
    first = start_workflow(three)
    ack(first)
    ack(ack(continue_workflow(stateToken=first["stateToken"])))  # a second branch, two steps long
    continue_workflow(stateToken=first["stateToken"])
    again, sql = statements_of(lambda: continue_workflow(stateToken=first["stateToken"]))
    assert again["branchCount"] == 2
    # The node with its run and session, its children, its open attempt (the root: nothing made it, and no
    # notes above it to recap); the one-step branch: the step that made it; the two-step branch: the walk
    # down its latest children, its tip, the step that made it; the newest branch's recap down to its tip;
    # the runs linked to the run's steps (none).
    assert len(sql) == on_postgresql(9), sql

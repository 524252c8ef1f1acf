"""runs/readmodels/timeline_marks.py: each node of a session's runs as its timeline dot names it, with its
state in the dashboard's vocabulary: a branch's last node its branch's, the nodes before it done."""

from __future__ import annotations

import re
from datetime import UTC, timedelta

import pytest
from django.db.models import F

from runs.models import Ack, Node, Output, Run
from runs.readmodels import overview, timeline_marks, timeline_page
from tests.support.branched_review import blocked_review
from tests.support.sample_session import two_runs_one_forked_twice

pytestmark = pytest.mark.django_db


def test_a_branchs_last_node_carries_its_state_and_the_answered_nodes_before_it_are_done(service_catalog):
    forked = two_runs_one_forked_twice()
    trees = overview.session_trees(forked.session_id)
    assert {tree.run.public_id for tree in trees.values()} == {forked.review_run, forked.plan_run}
    # The review waits for the user: its newest branch takes the run's state; the others were left behind.
    found = timeline_marks.marks(trees.values(), {forked.review_run: "needs_you", forked.plan_run: "stalled"})
    review = found[forked.review_run]
    # Its 11 nodes, and a dot for each of the two steps redone after a rewind (the graph's "↺ redone" boxes),
    # when the answer was given: on the branch that redid it, counted as answered.
    assert len(review) == 11 + 2 and [mark.at for mark in review] == sorted(mark.at for mark in review)
    assert sorted(mark.state for mark in review) == ["done"] * 10 + ["left_behind"] * 2 + ["needs_you"]
    redone = [mark for mark in review if "↺ redone" in mark.words]
    assert [(mark.state, mark.kind) for mark in redone] == [("done", "answered")] * 2
    assert all(re.search(r"↺ redone: Answered \(branch [23]\) · ", mark.words) for mark in redone)
    newest = review[-1]
    assert newest.state == "needs_you"
    # Each node is named by its step's place in the outline, as the run page says it: never the steps taken.
    assert re.fullmatch(
        r"Summarize the Review · step 8 of 8: Your move · Confirm \(branch 1\) · \d\d:\d\d:\d\d UTC", newest.words
    )
    assert any(
        m.words.startswith("◆ checkpoint at Post the Approved Comments · step 7 of 8: Answered (branch 1)")
        for m in review
    )
    assert any(m.words.startswith("Review api · step 4 of 8 (area 1 of 2): Left behind (branch 3)") for m in review)
    # A run of one branch does not number it.
    plan = found[forked.plan_run]
    assert [mark.state for mark in plan] == ["done", "stalled"]
    assert plan[-1].words.startswith("Draft Plan with Risks · step 2 of 3: ") and "(branch" not in plan[-1].words
    assert Run.objects.count() == 2


def test_an_answered_steps_dot_stands_when_it_was_answered_as_the_steps_list_says(service_catalog):
    # Friction60a 1, 60b 1: the Steps list printed each step's answer time, the dot stood when the step was reached.
    forked = two_runs_one_forked_twice()
    first, second = Node.objects.filter(run__public_id=forked.plan_run).order_by("created_at", "pk")
    Node.objects.filter(pk=first.pk).update(created_at=second.created_at - timedelta(hours=1))  # reached an hour before
    trees = overview.session_trees(forked.session_id)
    answered, pending = timeline_marks.marks(trees.values(), {forked.plan_run: "stalled"})[forked.plan_run]
    answer = Output.objects.get(node_id=first.pk)  # what the Steps list prints: recorded_at
    assert answered.kind == "answered" and answered.at == second.created_at
    assert abs((answered.at - answer.created_at).total_seconds()) < 1
    assert answered.words.endswith(f"{second.created_at.astimezone(UTC):%H:%M:%S} UTC")
    # The step not answered yet stands when it was reached.
    assert pending.kind == "unanswered" and pending.at == second.created_at


def test_a_refused_steps_dot_takes_its_pills_colour_blue_while_the_agent_retries_amber_once_yours(service_catalog):
    """friction60b 12: the timeline drew a refused step red beside the blue "Agent's move · Retrying"
    pill and the blue "!" chip; its tone is the pill's (states.tone, attention.move_of_blocked)."""
    retrying, stopped = blocked_review("MR-90"), blocked_review("MR-91")
    Ack.objects.filter(node__run__public_id=stopped.run_id).update(created_at=F("created_at") - timedelta(hours=2))
    trees = [
        *overview.session_trees(retrying.session_id).values(),
        *overview.session_trees(stopped.session_id).values(),
    ]
    found = timeline_marks.marks(trees, {retrying.run_id: "blocked", stopped.run_id: "blocked"})
    assert [(mark.state, mark.tone) for mark in found[retrying.run_id]] == [("done", "nobody"), ("blocked", "agents")]
    assert found[stopped.run_id][-1].tone == "yours"  # the amber of every move of yours (friction65b 2)


def test_each_mark_names_the_node_whose_page_tells_its_step_a_redo_its_hosts_as_the_graph_links_it(service_catalog):
    # friction64: a numbered dot's list linked no step; its entries link where each mark's node is told.
    forked = two_runs_one_forked_twice()
    trees = overview.session_trees(forked.session_id)
    review = timeline_marks.marks(trees.values(), {forked.review_run: "needs_you"})[forked.review_run]
    nodes = {
        str(pk) for pk in Node.objects.filter(run__public_id=forked.review_run).values_list("public_id", flat=True)
    }
    assert all(mark.node in nodes for mark in review)
    plain = [mark for mark in review if "↺ redone" not in mark.what]
    assert len({mark.node for mark in plain}) == len(plain) == 11  # each node its own page
    # A step redone after a rewind is told on the page of the step it answered again (its "Redo on branch" card).
    for redo in (mark for mark in review if "↺ redone" in mark.what):
        host = next(mark for mark in plain if redo.what.startswith(mark.what.split(" (branch")[0]))
        assert redo.node == host.node, (redo.what, host.what)


def test_a_refused_steps_dot_and_its_legend_say_its_pills_word_never_refused(service_catalog):
    """friction65b 1: the legend said "Refused" beside an "Agent's move · Retrying" pill, and the Words page had no
    "Retrying": a refused step's dot and key name it as its pill does, by whose move it is."""
    retrying, stopped = blocked_review("MR-92"), blocked_review("MR-93")
    Ack.objects.filter(node__run__public_id=stopped.run_id).update(created_at=F("created_at") - timedelta(hours=2))
    trees = [
        *overview.session_trees(retrying.session_id).values(),
        *overview.session_trees(stopped.session_id).values(),
    ]
    found = timeline_marks.marks(trees, {retrying.run_id: "blocked", stopped.run_id: "blocked"})
    resending, quiet = found[retrying.run_id][-1], found[stopped.run_id][-1]
    assert resending.word == "Retrying" and ": Agent's move · Retrying" in resending.words
    assert quiet.word == "Agent stopped" and ": Your move · Agent stopped" in quiet.words
    legend = [count.label for count in timeline_page.state_counts(found[stopped.run_id])]
    assert legend == ["Agent stopped", "Answered"]
    assert timeline_page.cluster_state("blocked", [quiet]) == "Agent stopped"

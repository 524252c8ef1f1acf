"""One step count for every door (runs/readmodels/branches.py, step_numbers): step N is the Nth step of
the workflow taken on a node's path; a checkpoint or an operator fork adds a node, not a step. The run
page's graph, its sentences and the node page read it; a blocked branch's tip is marked in the graph."""

from __future__ import annotations

import pytest
from django.conf import settings

from runs.execution.operator_fork import fork_node
from runs.models import Node
from runs.readmodels import branches, run_view
from runs.store import tokens
from runs.store.tokens import TokenKind
from tests.support.branched_review import blocked_review
from tests.support.mcp_calls import ack, start_workflow
from tests.support.operator_fork import RELEASE, START_CONTEXT, install_release

pytestmark = pytest.mark.django_db


def node_of(answer: dict) -> Node:
    return Node.objects.get(public_id=tokens.parse(settings.WORKRAIL_HOME, answer["stateToken"], TokenKind.STATE).id)


def test_the_rule_a_checkpoint_or_a_fork_keeps_its_parents_step():
    # 1 start; 2 a step; 3 a checkpoint during step 2; 4 a step; 5 a fork by hand from 2; 6 a step from 5.
    placed = [(1, None), (2, 1), (3, 2), (4, 3), (5, 2), (6, 5)]
    assert branches.step_numbers(placed, same_step={3, 5}) == {1: 1, 2: 2, 3: 2, 4: 3, 5: 2, 6: 3}


def test_a_branch_started_by_hand_stands_at_the_step_it_was_started_from(service_catalog):
    install_release(service_catalog["extra"])
    start = start_workflow(RELEASE, context=START_CONTEXT)
    staged = ack(start)
    root = node_of(start)
    forked = fork_node(str(root.public_id), {"target": "production"}, "Production this time.", via="dashboard")

    detail = run_view.run_detail(start["session"]["runId"], tip=forked.node_id)
    drawn = {node.node_id: node for node in detail.graph.nodes}
    child = drawn[forked.node_id]
    assert child.via == "fork" and child.step_number == 1  # it waits at the step it was forked from
    assert drawn[str(node_of(staged).public_id)].step_number == 2
    assert detail.branch is not None and detail.branch.step_number == 1
    assert detail.branch.headline.startswith("Branch 2 open at step 1: ")
    assert run_view.node_detail(forked.node_id).step_number == 1


def test_a_blocked_branch_tip_is_marked_in_the_graph(service_catalog):
    stuck = blocked_review()
    detail = run_view.run_detail(stuck.run_id)
    marked = [node for node in detail.graph.nodes if node.is_blocked]
    assert [node.node_id for node in marked] == [str(stuck.node_id)]
    assert marked[0].step_number == 2 and detail.branch is not None and detail.branch.step_number == 2

"""runs/readmodels/graph_page.py: the run page's branch graph laid out by the read model, links and all,
so that the template tag only gives it the URLs and prints it."""

from __future__ import annotations

import pytest

from runs.contract.dashboard import AttentionPanel, BranchOutcomeEntry, RunDetail
from runs.readmodels.graph_page import graph_page, tip_states
from runs.readmodels.run_view import run_detail
from tests.support.looped_run import looped_and_forked

pytestmark = pytest.mark.django_db


def test_the_graph_page_is_laid_out_from_the_run_and_the_two_urls_it_is_given(service_catalog):
    looped = looped_and_forked(service_catalog["extra"], iterations=3)
    detail = run_detail(looped.run_id)
    laid_out = graph_page(detail, "/r/", "/n/NODE/")
    assert laid_out.drawing.startswith("<svg") and 'aria-label="Branch graph of ' in laid_out.drawing
    assert [(link.lane, link.href.startswith("/r/?tip="), link.is_newest) for link in laid_out.branches] == [
        (0, True, False),
        (1, True, True),
    ]
    newest = laid_out.branches[1]
    assert newest.where.endswith("newest") and newest.forked_at is not None and newest.shown
    assert f'href="/n/{detail.graph.nodes[0].node_id}/"' in laid_out.drawing
    assert {entry.key for entry in laid_out.legend} >= {"lane", "newest"}


def test_each_branch_tip_gets_its_state_from_the_branch_outcomes_and_the_panels():
    def outcome(tip: str, status: str, left_behind: bool = False) -> BranchOutcomeEntry:
        return BranchOutcomeEntry.model_construct(tip_node_id=tip, status=status, left_behind=left_behind)

    detail = RunDetail.model_construct(
        branch=outcome("1", "open"),
        other_branches=[
            outcome("2", "open", left_behind=True),
            outcome("3", "blocked"),
            outcome("4", "complete"),
            outcome("5", "canceled"),
            outcome("6", "open"),
        ],
        # A panel says more than "open": the shown branch waits for the user; branch 6 stalled.
        panels=[
            AttentionPanel.model_construct(kind="waiting_for_user", node_id="1"),
            AttentionPanel.model_construct(kind="stalled", node_id="6"),
            AttentionPanel.model_construct(kind="left_behind", node_id="2"),
        ],
    )
    assert tip_states(detail) == {
        "1": "waiting",
        "2": "left-behind",
        "3": "blocked",
        "4": "done",
        "5": "canceled",
        "6": "stalled",
    }

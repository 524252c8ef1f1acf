"""Which loop iteration each node stands in (runs/readmodels/loop_marks.py), read from the engine
state of the nodes of a real run, and shown on the run page's cards."""

from __future__ import annotations

import pytest

from runs.models import Node, Run
from runs.readmodels.loop_marks import innermost, loop_marks
from runs.readmodels.run_view import run_detail
from tests.support.looped_run import looped_and_forked

pytestmark = pytest.mark.django_db


def test_a_step_instance_names_its_innermost_loop_and_iteration():
    assert innermost("verify-slices#2/verify") == ("verify-slices", 2)
    assert innermost("outer#3/inner#1/check") == ("inner", 1)
    assert innermost("scope") is None
    assert innermost(None) is None


def test_each_node_inside_the_loop_knows_its_iteration_and_the_loop_title(service_catalog):
    looped = looped_and_forked(service_catalog["extra"], iterations=3)
    run = Run.objects.get(public_id=looped.run_id)
    marks = loop_marks(run)
    by_depth = {node.depth: marks.get(node.pk) for node in Node.objects.filter(run=run).order_by("created_at", "pk")}
    # step 1 scope; steps 2-3 iteration 1 (then the checkpoint's node, step 4); 5-6 iteration 2; 7-8 iteration 3;
    # step 9 summarize; step 10 complete.
    assert [mark.iteration if mark else None for _, mark in sorted(by_depth.items())] == [
        None, 1, 1, 1, 2, 2, 3, 3, None, None
    ]  # fmt: skip
    assert {mark.loop_title for mark in marks.values()} == {"Verify each slice"}
    detail = run_detail(looped.run_id)
    assert {(n.depth, n.iteration) for n in detail.graph.nodes if n.lane == 1} == {(5, 2)}  # the fork

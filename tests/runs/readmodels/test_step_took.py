"""A step's "took" runs from when the step was given to its answer, never from a checkpoint saved during it
(friction62a false 2, 62b 11: step 7 answered 10 h after step 6 said "took 7 h", counted from its checkpoint)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from runs.models import Checkpoint, Node, Output
from runs.readmodels import run_view
from tests.support.sample_session import Built

pytestmark = pytest.mark.django_db


def test_a_step_answered_after_a_checkpoint_took_from_when_it_was_given(built: Built):
    saved = Checkpoint.objects.get(node__run__public_id=built.review_run)
    given, made = saved.node, saved.child  # the step 7 node, and the node the checkpoint made (same step)
    assert made is not None
    answer = Output.objects.get(node=made)  # step 7 answered from the checkpoint's token
    # Every moment of that stretch moved alike: step 7 given at T, the checkpoint 3 h on, its answer 10 h on.
    start = given.created_at - timedelta(hours=12)
    Node.objects.filter(pk=given.pk).update(created_at=start)
    Node.objects.filter(pk=made.pk).update(created_at=start + timedelta(hours=3))
    Checkpoint.objects.filter(pk=saved.pk).update(created_at=start + timedelta(hours=3))
    Node.objects.filter(pk=answer.child_id).update(created_at=start + timedelta(hours=10))
    Output.objects.filter(pk=answer.pk).update(created_at=start + timedelta(hours=10))
    ten_hours = 10 * 3600.0
    # The run page's steps list, of the branch the answer is on.
    tip = str(Node.objects.get(pk=answer.child_id).public_id)
    listed = [entry for entry in run_view.run_detail(built.review_run, tip=tip).steps if entry.kind == "step"]
    post = next(entry for entry in listed if entry.recorded_at == start + timedelta(hours=10))
    assert post.seconds == ten_hours and post.started_at == start
    # The step page, opened at the checkpoint's node or at the step's own: the same "took".
    for node in (made, given):
        recorded = run_view.node_detail(str(node.public_id)).recorded
        steps = [entry for entry in recorded if entry.kind == "step"]
        assert [entry.seconds for entry in steps] == ([ten_hours] if node == made else []), node

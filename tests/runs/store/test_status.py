"""Run status is a state machine; the table is the only way to change it."""

import pytest

from runs.models import RunStatus
from runs.store.status import TRANSITIONS, IllegalTransition, transition

ALLOWED = {
    ("in_progress", "blocked"),
    ("in_progress", "complete"),
    ("in_progress", "canceled"),
    ("blocked", "in_progress"),
    ("blocked", "complete"),
    ("blocked", "canceled"),
    ("complete", "in_progress"),
    ("complete", "blocked"),  # a fork from an older token reopens a finished run
}


@pytest.mark.parametrize("source", list(RunStatus))
@pytest.mark.parametrize("target", list(RunStatus))
def test_every_pair_of_statuses_is_either_allowed_or_refused(source, target):
    if source == target:
        assert transition(source, target) is None
    elif (source.value, target.value) in ALLOWED:
        assert transition(source, target) == target
    else:
        with pytest.raises(IllegalTransition):
            transition(source, target)


def test_the_table_covers_every_status_and_canceled_is_final():
    assert set(TRANSITIONS) == set(RunStatus)
    assert TRANSITIONS[RunStatus.CANCELED] == frozenset()


@pytest.mark.django_db
def test_the_service_cannot_move_a_canceled_run(service_catalog):
    from runs.execution.session_actions import cancel_run
    from runs.models import Run
    from tests.support.checks import error_code
    from tests.support.mcp_calls import start_workflow

    response = start_workflow("wr.evidence_first_bug_fix")
    cancel_run(response["session"]["runId"])
    assert Run.objects.get().status == RunStatus.CANCELED
    cancel_run(response["session"]["runId"])  # canceling twice changes nothing and records nothing more
    assert Run.objects.get().status == RunStatus.CANCELED
    assert error_code(lambda: cancel_run("run_missing")) == "NOT_FOUND"

"""The step page's two sections of actions (runs/readmodels/step_actions.py): what "Resume here" holds for each
state of the step, that "Branch from here" is offered wherever a branch can start, and neither where nothing can
be done."""

from __future__ import annotations

import pytest

from runs.models import Node
from runs.readmodels import run_view, step_actions, step_state
from tests.support import attention_sessions as made
from tests.support.branched_review import blocked_review, forked_review, node_id_of

pytestmark = pytest.mark.django_db


def actions_at(node_id: str, *, at_work: bool = False) -> step_actions.StepActions:
    node = run_view.node_detail(node_id)
    step = step_state.of_node(node)
    return step_actions.of_step(node, step, step_state.went_on(node, step), at_work)


def test_the_pending_step_resumes_the_agent_its_message_for_when_it_stops_while_it_works(service_catalog):
    review = forked_review()
    working = actions_at(review.open_tip, at_work=True)
    assert (working.resume, working.message, working.stopped_note, working.lead) == ("resume", True, True, "")
    # The button in sight, the note beside it (friction15): the message is for when the agent has stopped.
    assert working.note == "only if the agent has stopped" and not working.quiet
    assert (
        working.shown
        and not working.fork_message
        # What branching does, said before it: the agent at work is not told (friction16a 10).
        and working.branch_lead
        == "Answered steps stay as they are; the new branch becomes the one this run follows. An agent working "
        "here is not told: it may carry on in its chat until you tell it there to stop."
    )
    stopped = actions_at(review.open_tip)
    assert stopped.branch_lead == "Answered steps stay as they are; the new branch becomes the one this run follows."
    assert (
        not stopped.stopped_note
        and stopped.note == ""
        and stopped.lead.startswith("Copy the message into the agent's chat")
    )


def test_a_step_the_run_went_on_from_says_why_and_where_the_branch_carries_on(service_catalog):
    review = forked_review()
    first = actions_at(node_id_of(review.answers[0]))
    # Two branches went on from the shared first step: both named, no one link.
    # No "Resume here" where nothing resumes (friction15): one line in the page's head says where the run is.
    assert first.resume is None and not first.resume_shown and not first.message and first.fork_message
    assert first.now_at == "the run went on from this step along several branches (listed above)"
    assert first.latest == ""
    later = actions_at(node_id_of(review.answers[3]))
    assert not later.resume_shown and later.now_at == "branch 1 went on to its end"
    assert later.latest == review.done_tip


def test_a_blocked_step_resends_by_the_refusal_s_message_and_branches_past_it(service_catalog):
    blocked = actions_at(blocked_review().node_id)
    # Its own button (friction15), not a pointer up to the red panel's fold.
    assert blocked.resume == "resend" and blocked.message and not blocked.fork_message
    assert blocked.lead == "To resend the step, give the agent the message: it gets this step again with the refusal."
    assert blocked.branch_lead.startswith("Another way past the refusal. Answered steps stay as they are;")
    assert blocked.branch_lead.endswith("until you tell it there to stop.")


def test_a_step_waiting_for_the_person_says_to_confirm_in_the_agent_s_chat(service_catalog):
    waiting = made.waiting_for_user(service_catalog["extra"])
    confirm = actions_at(node_id_of(waiting.answer), at_work=True)
    assert confirm.resume == "confirm" and confirm.message and confirm.stopped_note
    assert confirm.lead.endswith("Copy a reply below and paste it into the agent's chat.")
    # The two replies lead; the message is the quiet button, for when the agent has stopped (friction15).
    assert confirm.replies is not None and confirm.replies.confirmed.startswith("Confirmed: go on with “")
    assert confirm.replies.changes.startswith("Not yet: change … before you go on with “")
    assert confirm.quiet and confirm.note == "only if the agent has stopped"


def test_a_branch_left_behind_is_taken_up_again_from_its_latest_step(service_catalog):
    rewound = made.left_behind()
    left = Node.objects.filter(run__public_id=rewound.run_id, children__isnull=True).order_by("pk").first()
    assert left is not None
    taken_up = actions_at(str(left.public_id))
    assert taken_up.resume == "resume" and taken_up.lead.startswith("No agent works on this branch any more")
    # The quiet "Resume this branch…", as on the run page (friction15): nothing to do unless it is wanted back.
    assert taken_up.copy == "branch_back" and taken_up.quiet
    assert "puts it back on this branch, at this step" in taken_up.lead


def test_no_section_where_nothing_can_be_done(service_catalog):
    review = forked_review()
    assert actions_at(review.done_tip) == step_actions.NONE and not step_actions.NONE.shown  # a finished branch
    canceled = made.canceled()
    # A canceled run's step: no section, one line in its head (friction15).
    on_canceled = actions_at(node_id_of(canceled.answer))
    assert not on_canceled.shown and not on_canceled.resume_shown
    assert on_canceled.now_at == "nothing can resume or branch from a canceled run"

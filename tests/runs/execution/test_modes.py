"""Preferences and modes: each autonomy value changes behaviour on the same workflow, and a replay of an
old token behaves as it did at that node."""

import pytest

from runs.models import Event, EventKind, Gap, Session
from tests.support.checks import error_code
from tests.support.mcp_calls import ack, continue_workflow, start_workflow

pytestmark = pytest.mark.django_db
REVIEW = "wr.code_review"  # its first step needs the change to review (information only the user has)


def walk_to(response, step_id, **extra):
    for _ in range(20):
        if response["pending"]["stepId"] == step_id:
            return response
        assert response["kind"] == "step", response.get("blocked")
        response = ack(response, **extra)
    raise AssertionError(f"never reached {step_id}")


def test_guided_blocks_on_a_missing_user_dependency_and_asks_at_confirmations(service_catalog):
    start = start_workflow(REVIEW, {"reviewAreas": ["api"]})
    assert start["mode"] == "guided"
    [dep] = start["pending"]["userDependencies"]
    assert dep == {"reason": "information", "description": dep["description"], "contextKey": "changeRef", "met": False}
    blocked = ack(start)
    assert blocked["kind"] == "blocked"
    assert blocked["blocked"]["issues"][0]["code"] == "USER_DEPENDENCY_UNMET"
    assert blocked["blocked"]["expectedInputSchema"]["properties"]["context"]["required"] == ["changeRef"]
    assert "changeRef" in blocked["nextCall"]["arguments"]["context"]
    moved = ack(blocked, context={"changeRef": "MR !42"})
    assert moved["pending"]["stepId"] == "inventory-changed-files"
    confirm = walk_to(moved, "confirm-comments")
    assert confirm["pending"]["requireConfirmation"] is True


def test_autopilot_confirms_for_itself_but_still_stops_for_the_user(service_catalog):
    start = start_workflow(REVIEW, {"reviewAreas": ["api"]}, mode="autopilot")
    assert start["preferences"]["autonomy"] == "full_auto_stop_on_user_deps"
    blocked = ack(start)
    assert blocked["blocked"]["issues"][0]["code"] == "USER_DEPENDENCY_UNMET"
    confirm = walk_to(ack(blocked, context={"changeRef": "MR !42"}), "confirm-comments")
    assert confirm["pending"]["requireConfirmation"] is False
    assert confirm["pending"]["confirmation"].startswith("self")


def test_unattended_never_stops_and_records_the_gap(service_catalog):
    start = start_workflow(REVIEW, {"reviewAreas": ["api"]}, mode="unattended")
    moved = ack(start)
    assert moved["kind"] == "step"
    assert moved["pending"]["stepId"] == "inventory-changed-files"
    assert "USER_DEPENDENCY_GAP" in [w["code"] for w in moved["warnings"]]
    [gap] = Gap.objects.all()
    assert (gap.step_id, gap.reason) == ("establish-scope", "information")
    assert Event.objects.filter(kind=EventKind.GAP_RECORDED).count() == 1


def test_more_automation_than_recommended_is_a_warning_never_a_block(service_catalog):
    start = start_workflow(REVIEW, {"reviewAreas": ["api"], "changeRef": "x"}, mode="unattended")
    assert "PREFERENCES_EXCEED_RECOMMENDATION" in [w["code"] for w in start["warnings"]]
    assert start["kind"] == "step"
    guided = start_workflow(REVIEW, {"changeRef": "x"})
    assert "PREFERENCES_EXCEED_RECOMMENDATION" not in [w["code"] for w in guided["warnings"]]


def test_a_replay_of_an_old_token_behaves_as_at_that_node(service_catalog):
    start = start_workflow(REVIEW, {"reviewAreas": ["api"], "changeRef": "x"})
    second = ack(start, mode="unattended")
    assert second["mode"] == "unattended"
    assert Event.objects.filter(kind=EventKind.PREFERENCES_CHANGED).count() == 1
    third = ack(second)
    assert third["mode"] == "unattended"  # descendants keep the change
    rewound = continue_workflow(stateToken=start["stateToken"])
    assert rewound["mode"] == "guided"  # the old node still has its own preferences
    fork = continue_workflow(
        stateToken=start["stateToken"], ackToken=rewound["ackToken"], output={"notesMarkdown": "x"}
    )
    assert fork["mode"] == "guided"


def test_global_defaults_are_copied_into_the_session_baseline(service_catalog, settings):
    settings.WORKRAIL_DEFAULT_PREFERENCES = {"autonomy": "full_auto_stop_on_user_deps", "riskPolicy": "balanced"}
    first = start_workflow(REVIEW, {"sessionKey": "s1", "changeRef": "x"})
    assert first["mode"] == "autopilot"
    settings.WORKRAIL_DEFAULT_PREFERENCES = {"autonomy": "guided", "riskPolicy": "balanced"}
    again = start_workflow(REVIEW, {"sessionKey": "s1", "changeRef": "x"})
    assert again["mode"] == "autopilot"  # the session keeps its baseline
    assert start_workflow(REVIEW, {"changeRef": "x"})["mode"] == "guided"  # a new session takes today's defaults
    assert Session.objects.get(session_key="s1").preferences["autonomy"] == "full_auto_stop_on_user_deps"


@pytest.mark.parametrize(
    ("argument", "value"),
    [("mode", "turbo"), ("preferences", {"autonomy": "yolo"}), ("preferences", {"speed": "fast"})],
)
def test_preferences_outside_the_closed_set_are_refused(service_catalog, argument, value):
    assert error_code(lambda: start_workflow(REVIEW, **{argument: value})) == "INVALID_INPUT"

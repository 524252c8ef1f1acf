"""Every fixture workflow (tests/fixtures/workflows) runs to completion through the SDK's client and the
MCP server in this process, driven only by the responses (tests/support/scripted_agent.py), from its start
context.

One client session serves a test: it lives in a blocking portal, and each fixture a test asks for is
inspected and run once.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client

from tests.support.fixture_workflows import CONFIRMATIONS, EXPECTED_PATHS, START_CONTEXTS, fixture_ids
from tests.support.paths import FIXTURE_WORKFLOWS
from tests.support.scripted_agent import run_to_completion

# The scripted agent sends a contract's example as given: wr.loop_control's example says "stop", so
# each artifact-driven loop runs once here (the engine tests decide continue, continue, stop).
E2E_PATHS = {
    **EXPECTED_PATHS,
    "fixture.loop_control": [
        "collect-feedback",
        *[f"revise-loop#{i}/{step}" for i in (1, 2) for step in ("revise-draft", "decide-another-round")],
        "cleanup-loop#1/tidy-pass",
        "cleanup-loop#2/tidy-pass",
        "publish-revision",
    ],  # the literal agent decides continue on a loop's first pass and stop after (scripted_agent.py)
}


class FixtureServer:
    """The test's server: tool calls and fixture runs through one client session, runs cached."""

    def __init__(self, portal: BlockingPortal, client: Client) -> None:
        self.portal = portal
        self.client = client
        self.runs: dict[str, list[dict[str, Any]]] = {}

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = self.portal.call(self.client.call_tool, tool, arguments)
        assert not result.is_error, result.content[0].text
        assert result.structured_content is not None
        return result.structured_content

    def run(self, workflow_id: str) -> list[dict[str, Any]]:
        """Every structured response of a run of the fixture from its start context, in order."""
        if workflow_id not in self.runs:
            context = START_CONTEXTS.get(workflow_id)
            self.runs[workflow_id] = self.portal.call(run_to_completion, self.client, workflow_id, context)
        return self.runs[workflow_id]


@pytest.fixture
def server(mcp_server) -> Iterator[FixtureServer]:
    configured = mcp_server.configure(WORKRAIL_WORKFLOW_PATHS=[FIXTURE_WORKFLOWS])
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(mcp_server.client(configured, mode="legacy")) as session,
    ):
        yield FixtureServer(portal, session)


def instances(responses: list[dict[str, Any]]) -> list[str]:
    """The step instances given to the agent, in order (a blocked answer repeats its step)."""
    return list(dict.fromkeys(r["pending"]["stepInstance"] for r in responses if r.get("pending")))


def pending_views(responses: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {r["pending"]["stepInstance"]: r["pending"] for r in responses if r.get("pending")}


def test_the_server_lists_every_fixture_with_warnings_only_for_the_legacy_one(server):
    listed = set()
    for kind in ("workflow", "routine"):
        listed |= {w["id"] for w in server.call("list_workflows", {"kind": kind, "includeExamples": True})["workflows"]}
    assert set(fixture_ids()) <= listed
    assert server.call("list_workflows", {})["problems"]["warnings"] >= 1  # the legacy-format fixture's


@pytest.mark.parametrize("workflow_id", fixture_ids())
def test_it_runs_every_fixture_to_completion_over_the_protocol(server, workflow_id):
    outline = server.call("inspect_workflow", {"workflowId": workflow_id, "mode": "preview"})["steps"]
    assert outline and all(step["prompt"] for step in outline if step["kind"] != "loop")  # every prompt shown
    responses = server.run(workflow_id)
    assert responses[-1]["kind"] == "complete"
    assert responses[-1]["workflow"]["id"] == workflow_id
    assert instances(responses) == E2E_PATHS[workflow_id]
    blocked = [issue["code"] for r in responses if r["kind"] == "blocked" for issue in r["blocked"]["issues"]]
    assert set(blocked) <= {"VALIDATION_FAILED"}  # contract examples and user context are sent up front
    assert bool(blocked) == (workflow_id == "fixture.validation")


def test_workflow_level_fields_reach_the_agent(server):
    details = server.call("inspect_workflow", {"workflowId": "fixture.workflow_metadata"})["workflow"]
    assert details["about"].startswith("## Release notes")
    assert details["clarificationPrompts"][0].startswith("Which release are the notes for")
    assert details["preconditions"] and len(details["examples"]) == 2
    assert details["recommendedPreferences"] == {
        "recommendedAutonomy": "guided",
        "recommendedRiskPolicy": "conservative",
    }
    assert details["features"] == [
        "wr.features.capabilities",
        "wr.features.subagent_guidance",
        "wr.features.memory_context",
    ]
    assert details["metaGuidance"][0] == "Describe changes by their effect on the reader, not by the code that moved."
    # Its own two, then one per feature; the subagent advice left out: no step of it delegates.
    assert len(details["metaGuidance"]) == 4
    first = server.run("fixture.workflow_metadata")[0]
    # The server's default risk policy (balanced) is above the recommendation (conservative): followed, and said.
    assert "PREFERENCES_FOLLOW_RECOMMENDATION" in {w["code"] for w in first["warnings"]}


def test_confirmations_roles_and_rendered_prompts_reach_the_agent(server):
    confirmation = pending_views(server.run("fixture.confirmation"))
    assert {step: view["requireConfirmation"] for step, view in confirmation.items()} == CONFIRMATIONS
    fields = pending_views(server.run("fixture.step_fields"))
    assert fields["read-failure"]["agentRole"].startswith("You are an on-call engineer")
    assert "Guidance:\n- The first error is usually the cause" in fields["read-failure"]["prompt"]
    assert fields["rerun-job"]["notesRequired"] is False
    loops = pending_views(server.run("fixture.loops_for_foreach"))
    check = loops["service-loop#2/check-service"]
    assert check["prompt"] == "Service 2 of 2: check that search (owned by discovery-team) starts on the new runtime."
    assert check["loop"]["item"] == {"name": "search", "owner": "discovery-team"}
    advice = pending_views(server.run("fixture.prompt_blocks"))["tailor-advice"]
    assert advice["prompt"].startswith("Advise the executive team about response caching: 3 options were compared")
    assert "Lead with the cost in one sentence." in advice["prompt"]


def test_a_delegated_audit_starts_its_routine_and_a_cognitive_verification_asks_for_reasoning(server):
    views = pending_views(server.run("fixture.delegated_checks"))
    [delegation] = views["locate-cause.audit"]["delegations"]
    assert (delegation["workflowId"], delegation["runs"]) == ("fixture.routine-cause_review", True)
    assert delegation["context"] == {"failingCheck": "nightly-integration", "findingsFile": "notes/cause-review.md"}
    assert delegation["runId"] and delegation["stateToken"]  # a run of its own, carried out by the scripted agent
    assert "No command settles this check" in views["revert-suspect.verify"]["prompt"]


def test_user_dependencies_given_up_front_are_met_and_never_block(server):
    views = pending_views(server.run("fixture.user_dependencies"))
    dependencies = [dep for view in views.values() for dep in view["userDependencies"]]
    assert sorted(dep["reason"] for dep in dependencies) == [
        "access", "approval", "decision", "document", "information", "secret",
    ]  # fmt: skip
    assert all(dep["met"] for dep in dependencies)
    assert views["read-runbook"]["prompt"] == "Read the credential rotation runbook at ops/runbooks/rotate.md."


def test_contracts_are_shown_with_their_examples(server):
    views = pending_views(server.run("fixture.output_contracts"))
    assert views["list-changed-files"]["outputContract"]["artifactKind"] == "mr_review.changed_files"
    assert views["extra-findings"]["outputContract"]["required"] is False
    inline = views["release-summary"]["outputContract"]
    assert inline["contractRef"] == "fixture.release_summary"
    assert inline["example"] == {"kind": "fixture.release_summary", "version": "2.4.0", "breaking": False}

"""Every fixture workflow (tests/fixtures/workflows) runs to completion through the pure interpreter,
taking exactly the path its conditions, loops and contracts call for; the feature each fixture is
about behaves as documented. The driver is the one the corpus runs use (tests/workflows_app/engine/scripted_run.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.fixture_workflows import CONFIRMATIONS, EXPECTED_PATHS, START_CONTEXTS, fixture_ids
from tests.support.paths import FIXTURE_WORKFLOWS
from tests.workflows_app.engine.scripted_run import ScriptedRun, load_catalog, run_scripted, scenario_context
from workflows_app.engine import advance, start

CATALOG = load_catalog(FIXTURE_WORKFLOWS)


def compiled(workflow_id: str) -> dict[str, Any]:
    entry = CATALOG.get(workflow_id)
    assert entry is not None, workflow_id
    return entry.compiled


def run_fixture(workflow_id: str, **context: Any) -> ScriptedRun:
    """A scripted run from the fixture's start context (plus `context`)."""
    workflow = compiled(workflow_id)
    return run_scripted(workflow, {**scenario_context(workflow), **START_CONTEXTS.get(workflow_id, {}), **context})


def by_step(run: ScriptedRun) -> dict[str, dict[str, Any]]:
    """The pending view of each step instance (each is given once)."""
    return {pending["stepInstance"]: pending for pending in run.visited}


def test_every_fixture_has_an_expected_path():
    assert sorted(EXPECTED_PATHS) == fixture_ids()


@pytest.mark.parametrize("workflow_id", fixture_ids())
def test_it_runs_every_fixture_to_completion_along_the_expected_path(workflow_id):
    run = run_fixture(workflow_id)
    assert run.instances == EXPECTED_PATHS[workflow_id]
    # Blocked only for what the step asks: a required artifact (once per such step) or its validation rules.
    contract_steps = [p for p in run.visited if p["outputContract"] and p["outputContract"]["required"]]
    assert run.agent.blocked_by.count("ARTIFACT_MISSING") == len(contract_steps)
    assert set(run.agent.blocked_by) <= {"ARTIFACT_MISSING", "VALIDATION_FAILED"}
    assert ("VALIDATION_FAILED" in run.agent.blocked_by) == (workflow_id == "fixture.validation")
    expected_warnings = ["LOOP_MAX_ITERATIONS"] if workflow_id == "fixture.loops_while_until" else []
    assert run.warning_codes == expected_warnings


def test_every_form_of_require_confirmation_is_evaluated_against_the_context():
    confirmations = {p["stepId"]: p["requireConfirmation"] for p in run_fixture("fixture.confirmation").visited}
    assert confirmations == CONFIRMATIONS
    elsewhere = run_fixture("fixture.confirmation", deployTarget="qa").visited
    qa = {p["stepId"]: p["requireConfirmation"] for p in elsewhere}
    assert qa["confirm-production"] is False and qa["human-approval-gate"] is False


def test_loop_variables_and_placeholders_are_rendered_into_titles_and_prompts():
    while_until = by_step(run_fixture("fixture.loops_while_until"))
    assert while_until["draft-loop#2/write-draft"]["title"] == "Draft round 2"
    assert while_until["draft-loop#2/write-draft"]["prompt"].startswith(
        "Write draft 2 of the essay, improving on draft 1"
    )
    assert while_until["proofread-loop#2/proofread"]["prompt"].startswith("Proofreading pass 2:")
    assert while_until["capped-loop#2/review-pass"]["loop"] == {
        "loopId": "capped-loop",
        "iteration": 2,
        "maxIterations": 2,
    }

    each = by_step(run_fixture("fixture.loops_for_foreach"))
    assert each["list-services"]["prompt"].startswith("There are 2 services")
    second = each["service-loop#2/check-service"]
    assert second["title"] == "Check search"
    assert second["prompt"] == "Service 2 of 2: check that search (owned by discovery-team) starts on the new runtime."
    assert second["loop"]["item"] == {"name": "search", "owner": "discovery-team"} and second["loop"]["index"] == 1
    assert each["label-loop#2/apply-label"]["prompt"] == "Apply label 2: needs-restart."
    assert each["warmup-loop#2/send-warmup"]["prompt"].startswith("Send warm-up request 2 of 2")
    assert each["retry-loop#3/retry-check"]["prompt"].startswith("Attempt 3 of 3:")  # count "3" as text


def test_prompt_blocks_fragments_and_placeholders_make_the_prompt():
    views = by_step(run_fixture("fixture.prompt_blocks"))
    advice = views["tailor-advice"]
    assert advice["title"] == "Advice for the executive audience"
    assert advice["prompt"] == (
        "Advise the executive team about response caching: 3 options were compared, the next review is round 3 "
        "and the last one was round 1.\n\nLead with the cost in one sentence.\n\n"
        "Close with the next decision to make and who makes it."
    )
    engineers = by_step(run_fixture("fixture.prompt_blocks", audience={"role": "engineering"}))["tailor-advice"]
    assert "Lead with the eviction policy." in engineers["prompt"] and "cost" not in engineers["prompt"]
    options = views["compare-options"]["prompt"]
    assert options.startswith("Compare an in-process cache")
    assert options.index("Goal: Pick one caching option.") < options.index("Procedure:") < options.index("Guidance:")


def test_function_definitions_from_workflow_step_and_loop_are_shown_where_referenced():
    views = by_step(run_fixture("fixture.functions"))
    assert (
        "- recordDecision(decision, confidence, reversible, effortDays, alternatives, context): Write the"
        in (views["choose-approach"]["prompt"])
    )
    risks = views["assess-risks"]["prompt"]
    assert "- rankRisk(): Order risks" in risks and "- listRisks(): List risks" in risks
    rehearse = views["rehearsal-loop#2/rehearse"]["prompt"]
    assert "- checkRowCounts(): Compare row counts" in rehearse and "- recordDecision(" in rehearse


def test_validation_rules_block_until_the_notes_satisfy_them():
    workflow = compiled("fixture.validation")
    first = start(workflow, START_CONTEXTS["fixture.validation"])
    blocked = advance(workflow, first.state, output={"notesMarkdown": "Short."})
    assert blocked.kind == "blocked"
    assert [i["message"] for i in blocked.issues] == [
        "Start the notes with a short summary.",
        "Say what risk remains.",
        "Write between 60 and 4000 characters.",
    ]
    notes = "Summary: the login service failed for an hour. The remaining RISK is a stale cache on two nodes."
    rollback = advance(workflow, blocked.state, output={"notesMarkdown": notes})
    assert rollback.pending["stepId"] == "plan-rollback"
    # The rule that applies depends on the context: production needs a rollback plan...
    assert [i["message"] for i in advance(workflow, rollback.state, output={"notesMarkdown": "x"}).issues] == [
        "Production changes need a rollback plan."
    ]
    # ...and elsewhere the other rule applies instead.
    staging = advance(workflow, rollback.state, output={"notesMarkdown": "x"}, context={"deployTarget": "staging"})
    assert [i["message"] for i in staging.issues] == ["Staging changes must say they stay on staging."]
    decision = advance(workflow, rollback.state, output={"notesMarkdown": "The rollback is a redeploy of 2.3."})
    todo = advance(workflow, decision.state, output={"notesMarkdown": "The fix was approved. TODO: dates."})
    assert [i["message"] for i in todo.issues] == ["Must not hold: Leave no TODO in the notes."]
    neither = advance(workflow, decision.state, output={"notesMarkdown": "The fix was discussed at length."})
    assert len(neither.issues) == 2  # neither side of the "or" holds
    structured = advance(workflow, decision.state, output={"notesMarkdown": "The fix was rejected by the owner."})
    assert structured.pending["stepId"] == "structured-notes"
    short = advance(workflow, structured.state, output={"notesMarkdown": "Owner: ana."})
    assert short.issues[0]["message"].startswith("The notes must be a real account of the follow-ups.")


def test_inline_and_optional_contracts_judge_the_artifacts():
    workflow = compiled("fixture.output_contracts")
    transition = start(workflow)
    steps = {}
    while transition.pending["stepId"] != "release-summary":
        steps[transition.pending["stepId"]] = transition.pending
        example = transition.pending["outputContract"]["example"]
        output = {"artifacts": [example]} if transition.pending["stepId"] != "extra-findings" else {}
        transition = advance(workflow, transition.state, output=output)  # the optional contract needs nothing
        assert transition.kind == "advanced", transition.issues
    contract = transition.pending["outputContract"]
    assert contract["contractRef"] == "fixture.release_summary" and contract["required"] is True
    assert contract["example"] == {"kind": "fixture.release_summary", "version": "2.4.0", "breaking": False}
    wrong = {"artifacts": [{"kind": "fixture.release_summary", "version": "next", "breaking": False}]}
    invalid = advance(workflow, transition.state, output=wrong)
    assert [i["code"] for i in invalid.issues] == ["ARTIFACT_INVALID"]
    assert invalid.issues[0]["pointer"] == "/artifacts/0/version"
    tagged = advance(workflow, transition.state, output={"artifacts": [contract["example"]]})
    assert tagged.pending["stepId"] == "tag-release" and tagged.pending["notesRequired"] is False
    assert advance(workflow, tagged.state, output={}).kind == "complete"  # notesOptional


def test_parallel_steps_show_their_delegations_and_follow_their_conditions():
    views = by_step(run_fixture("fixture.parallel"))
    research = views["split-research"]
    assert research["requireConfirmation"] is True  # delegationBudget 0 < 1
    assert research["prompt"].splitlines() == [
        "Run these delegations in parallel and report what each found (the next step combines them):",
        "- fixture.routine-release_checks (model tier: lightweight): Check that the upgraded build still passes "
        "its release checks.",
        "- fixture.step_fields: Triage any nightly job the upgrade breaks.",
    ]
    synthesis = views["split-research.synthesis"]  # the synthesis is a step of its own, right after
    assert synthesis["title"] == "Synthesize: Research in parallel"
    assert synthesis["prompt"].endswith("Merge the findings of both delegations into one go or no-go recommendation.")
    assert synthesis["outputContract"]["contractRef"] == "mr_review.findings"
    assert synthesis["requireConfirmation"] is False
    assert views["module-loop#2/module-fanout"]["title"] == "Check renderer in parallel"
    skipped = run_fixture("fixture.parallel", parallelAllowed=False)
    assert "split-research" not in skipped.instances


def test_a_guarded_routine_call_is_skipped_with_all_its_expanded_steps():
    run = run_fixture("fixture.routine_calls", includeWorker=False, risky=False)
    assert [name for name in run.instances if name.startswith("check-")] == [
        "check-api.verify-build",
        "check-api.smoke-loop#1/check-api.smoke-test",
        "check-api.smoke-loop#2/check-api.smoke-test",
    ]
    assert by_step(run)["check-api.smoke-loop#2/check-api.smoke-test"]["prompt"] == "Smoke test api-server, round 2."

"""Every workflow of the WorkRail corpus (and the bundled ones) runs to completion.

The driver and its scripted agent are in tests/workflows_app/engine/scripted_run.py. Corpus workflows are skipped
when the corpus is absent (see tests/support/corpus.py); the bundled ones always run.
"""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tests.support.corpus import CORPUS_WORKFLOWS, corpus_available, corpus_params
from tests.workflows_app.engine.scripted_run import (
    MAX_ADVANCES,
    ScriptedAgent,
    assessments_for,
    load_catalog,
    run_scripted,
)
from workflows_app.engine import advance, start
from workflows_app.sources import SourceKind

CATALOG = load_catalog(*([CORPUS_WORKFLOWS] if corpus_available() else []))
COMPILED = {entry.id: entry.compiled for entry in CATALOG.entries}
BUNDLED_IDS = sorted(entry.id for entry in CATALOG.entries if entry.source.kind is SourceKind.BUNDLED)
CORPUS_IDS = sorted(entry.id for entry in CATALOG.entries if entry.source.kind is SourceKind.EXTRA)
needs_corpus = pytest.mark.usefixtures("corpus_dir")


@needs_corpus
def test_the_corpus_is_present_and_loads():
    assert len(CORPUS_IDS) >= 30
    assert "test-artifact-loop-control" in COMPILED


@pytest.mark.parametrize("workflow_id", [*BUNDLED_IDS, *corpus_params(CORPUS_IDS)])
def test_every_bundled_and_corpus_workflow_runs_to_completion(workflow_id):
    compiled = COMPILED[workflow_id]
    run = run_scripted(compiled)
    # The agent was blocked exactly once per contract step it met, always for the missing artifact.
    contract_steps = [p for p in run.visited if p["outputContract"] and p["outputContract"]["required"]]
    assert run.agent.blocked_by == ["ARTIFACT_MISSING"] * len(contract_steps)


@needs_corpus
def test_artifact_loop_control_corpus_workflow_follows_the_decisions():
    compiled = COMPILED["test-artifact-loop-control"]
    agent = ScriptedAgent()
    transition = start(compiled)
    names = []
    while transition.kind != "complete":
        assert len(names) < 20, names
        pending = transition.pending
        names.append(pending["stepInstance"])
        output = agent.first_output(pending)
        if pending["outputContract"]:
            output["artifacts"] = [agent.artifact(pending["outputContract"])]
        output["artifacts"] = [*output.get("artifacts", []), *assessments_for(pending)]  # its last step asks for one
        transition = advance(compiled, transition.state, output=output)
        assert transition.kind != "blocked", transition.issues
    # init "continue" enters; "continue" after iteration 1; "stop" after iteration 2.
    assert names == [
        "init-loop",
        "iteration-loop#1/do-work",
        "iteration-loop#1/decide-continue",
        "iteration-loop#2/do-work",
        "iteration-loop#2/decide-continue",
        "complete",
    ]


def test_for_each_loops_of_a_bundled_workflow_iterate_over_the_scenario_lists():
    compiled = COMPILED["wr.code_review"]
    transition = start(compiled, {"reviewAreas": ["api", "storage"]})
    seen = []
    while transition.kind != "complete":
        pending = transition.pending
        if pending["loop"]:
            seen.append((pending["loop"]["item"], pending["loop"]["index"]))
        transition = advance(compiled, transition.state, output={"notesMarkdown": "ok"})
    assert seen == [("api", 0), ("storage", 1)]


@needs_corpus
def test_branching_corpus_workflow_follows_the_context_set_while_acknowledging():
    compiled = COMPILED["workrail.adaptive-ticket-creation"]
    transition = start(compiled)
    names = []
    while transition.kind != "complete":
        names.append(transition.pending["stepId"])
        update = {"pathComplexity": "Simple"} if transition.pending["stepId"] == "phase-0-triage" else None
        transition = advance(compiled, transition.state, output={"notesMarkdown": "ok"}, context=update)
    assert names == ["phase-0-triage", "phase-1-simple-ticket"]


@needs_corpus
def test_validation_criteria_of_a_corpus_workflow_block_until_satisfied():
    compiled = COMPILED["workrail.personal-learning-materials"]
    first = start(compiled)
    second = advance(
        compiled, first.state, output={"notesMarkdown": "Quick it is."}, context={"thoroughnessLevel": "Quick"}
    )
    assert second.pending["stepId"] == "analyze-learning-plan-quick"
    blocked = advance(compiled, second.state, output={"notesMarkdown": "Too short."})
    assert blocked.kind == "blocked"
    assert {i["code"] for i in blocked.issues} == {"VALIDATION_FAILED"}
    assert len(blocked.issues) == 3
    notes = "Each learning objective is listed with its study guide section. " * 4
    assert Draft202012Validator(blocked.expected_output_schema).is_valid({"notesMarkdown": notes})
    assert advance(compiled, blocked.state, output={"notesMarkdown": notes}).kind == "advanced"


def drive(workflow_id: str, script: dict[str, Any]) -> list[dict[str, Any]]:
    """Runs a corpus workflow where `script[stepId](pending)` gives the context update an agent following
    the prompt would send with its acknowledgement."""
    compiled = COMPILED[workflow_id]
    transition = start(compiled)
    visited = []
    while transition.kind != "complete":
        pending = transition.pending
        visited.append(pending)
        update = script[pending["stepId"]](pending) if pending["stepId"] in script else None
        transition = advance(compiled, transition.state, output={"notesMarkdown": "ok"}, context=update)
        assert len(visited) < MAX_ADVANCES
    return visited


@needs_corpus
def test_polling_example_loops_until_the_agent_reports_completion():
    attempts = {"n": 0}

    def check(pending: dict[str, Any]) -> dict[str, Any]:
        attempts["n"] += 1
        return {"attempts": attempts["n"], "status": "completed" if attempts["n"] == 3 else "pending"}

    visited = drive(
        "simple-polling-example", {"setup": lambda p: {"status": "pending", "attempts": 0}, "check-status": check}
    )
    assert [p["stepInstance"] for p in visited] == [
        "setup", "polling-loop#1/check-status", "polling-loop#2/check-status", "polling-loop#3/check-status",
        "handle-result",
    ]  # fmt: skip


@needs_corpus
def test_search_example_renders_the_search_index_and_stops_at_three():
    visited = drive(
        "simple-search-example",
        {
            "init-search": lambda p: {"found": False, "searchIndex": 0, "sources": ["db1", "db2", "api1"]},
            "search-source": lambda p: {"searchIndex": p["loop"]["iteration"]},
        },
    )
    prompts = [p["prompt"].splitlines()[0] for p in visited if p["stepId"] == "search-source"]
    assert prompts == [f"Search in sources[{i}] for the target data" for i in range(3)]
    assert visited[-1]["stepId"] == "process-result"


@needs_corpus
def test_retry_example_takes_its_count_from_the_context_set_by_the_first_step():
    visited = drive("simple-retry-example", {"prepare": lambda p: {"maxRetries": 3, "succeeded": False}})
    attempts = [p["loop"]["iteration"] for p in visited if p["stepId"] == "attempt-operation"]
    assert attempts == [1, 2, 3]

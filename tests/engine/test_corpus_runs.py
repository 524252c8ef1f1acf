"""Every workflow of the WorkRail corpus (and the bundled ones) runs to completion.

The scripted agent sees only what a real agent sees: the pending step and, when blocked, the
issues. It always writes notes; at a step with an output contract it first forgets the artifact,
then, told ARTIFACT_MISSING, sends one built from the contract (loop_control: "continue" twice,
then "stop"). The scenario context gives every forEach loop a list and every for loop a count.
"""

from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tests.helpers import CORPUS_WORKFLOWS
from workflows_app.catalog import CatalogLoader
from workflows_app.engine import Transition, advance, start
from workflows_app.sources import configured_sources

MAX_ADVANCES = 400


def _load_compiled() -> dict[str, dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        sources = configured_sources(workrail_home=home, project_dir=home, extra_paths=[CORPUS_WORKFLOWS])
        catalog = CatalogLoader(sources).load()
    return {entry.id: entry.compiled for entry in catalog.entries}


COMPILED = _load_compiled()


def test_the_corpus_is_present_and_loads():
    assert len(COMPILED) >= 30
    assert "test-artifact-loop-control" in COMPILED


def _walk(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found = []
    for step in steps:
        found.append(step)
        if step["kind"] == "loop":
            found += _walk(step["body"])
    return found


def scenario_context(compiled: dict[str, Any]) -> dict[str, Any]:
    """What a user would have set up for the run: lists for forEach loops, counts for for loops."""
    context: dict[str, Any] = {}
    for step in _walk(compiled["steps"]):
        loop = step.get("loop", {})
        if loop.get("type") == "forEach":
            context[loop["items"]] = [f"{loop['items']}-1", f"{loop['items']}-2"]
        if loop.get("type") == "for" and isinstance(loop.get("count"), str):
            context[loop["count"]] = 2
    return context


class ScriptedAgent:
    def __init__(self) -> None:
        self.loop_decisions = 0
        self.blocked_by: list[str] = []

    def first_output(self, pending: dict[str, Any]) -> dict[str, Any]:
        return {"notesMarkdown": f"Worked on {pending['title']}."}

    def respond(self, pending: dict[str, Any], blocked: Transition) -> dict[str, Any]:
        """Fixes exactly what the issues name, and nothing else."""
        self.blocked_by += [i["code"] for i in blocked.issues]
        fixed = self.first_output(pending)
        if any(i["code"] == "ARTIFACT_MISSING" for i in blocked.issues):
            fixed["artifacts"] = [self.artifact(pending["outputContract"])]
        return fixed

    def artifact(self, contract: dict[str, Any]) -> dict[str, Any]:
        if contract["artifactKind"] == "wr.loop_control":
            self.loop_decisions += 1
            return {"kind": "wr.loop_control", "decision": "continue" if self.loop_decisions <= 2 else "stop"}
        return copy.deepcopy(contract["example"])


@pytest.mark.parametrize("workflow_id", sorted(COMPILED))
def test_every_corpus_workflow_runs_to_completion(workflow_id):
    compiled = COMPILED[workflow_id]
    agent = ScriptedAgent()
    transition = start(compiled, scenario_context(compiled))
    visited: list[dict[str, Any]] = []
    advances = 0
    while transition.kind != "complete":
        assert advances < MAX_ADVANCES, f"{workflow_id} did not complete within {MAX_ADVANCES} advances"
        pending = transition.pending
        assert pending is not None
        visited.append(pending)
        transition = advance(compiled, transition.state, output=agent.first_output(pending))
        advances += 1
        if transition.kind == "blocked":
            schema = transition.expected_output_schema
            Draft202012Validator.check_schema(schema)
            fixed = agent.respond(pending, transition)
            assert Draft202012Validator(schema).is_valid(fixed)
            transition = advance(compiled, transition.state, output=fixed)
            advances += 1
            assert transition.kind != "blocked", transition.issues

    assert transition.state["complete"] is True
    assert json.loads(json.dumps(transition.state)) == transition.state
    # Each step instance is done once, and every unconditional top-level step is done, in order.
    names = [p["stepInstance"] for p in visited]
    assert len(names) == len(set(names))
    unconditional = [s["id"] for s in compiled["steps"] if s["kind"] != "loop" and "runCondition" not in s]
    assert [n for n in names if n in unconditional] == unconditional
    # The agent was blocked exactly once per contract step it met, always for the missing artifact.
    contract_steps = [p for p in visited if p["outputContract"] and p["outputContract"]["required"]]
    assert agent.blocked_by == ["ARTIFACT_MISSING"] * len(contract_steps)
    # Every loop whose condition let it run showed its body with loop information.
    for pending in visited:
        if "#" in pending["stepInstance"]:
            assert pending["loop"] is not None and pending["loop"]["iteration"] >= 1


def test_artifact_loop_control_corpus_workflow_follows_the_decisions():
    compiled = COMPILED["test-artifact-loop-control"]
    agent = ScriptedAgent()
    transition = start(compiled)
    names = []
    while transition.kind != "complete":
        pending = transition.pending
        names.append(pending["stepInstance"])
        output = agent.first_output(pending)
        if pending["outputContract"]:
            output["artifacts"] = [agent.artifact(pending["outputContract"])]
        transition = advance(compiled, transition.state, output=output)
    # init "continue" enters; "continue" after iteration 1; "stop" after iteration 2.
    assert names == [
        "init-loop",
        "iteration-loop#1/do-work",
        "iteration-loop#1/decide-continue",
        "iteration-loop#2/do-work",
        "iteration-loop#2/decide-continue",
        "complete",
    ]


def test_for_each_corpus_loops_iterate_over_the_scenario_lists():
    compiled = COMPILED["wr.code_review"]
    transition = start(compiled, {"reviewAreas": ["api", "storage"]})
    seen = []
    while transition.kind != "complete":
        pending = transition.pending
        if pending["loop"]:
            seen.append((pending["loop"]["item"], pending["loop"]["index"]))
        transition = advance(compiled, transition.state, output={"notesMarkdown": "ok"})
    assert seen == [("api", 0), ("storage", 1)]


def test_branching_corpus_workflow_follows_the_context_set_while_acknowledging():
    compiled = COMPILED["workrail.adaptive-ticket-creation"]
    transition = start(compiled)
    names = []
    while transition.kind != "complete":
        names.append(transition.pending["stepId"])
        update = {"pathComplexity": "Simple"} if transition.pending["stepId"] == "phase-0-triage" else None
        transition = advance(compiled, transition.state, output={"notesMarkdown": "ok"}, context=update)
    assert names == ["phase-0-triage", "phase-1-simple-ticket"]


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


def test_retry_example_takes_its_count_from_the_context_set_by_the_first_step():
    visited = drive("simple-retry-example", {"prepare": lambda p: {"maxRetries": 3, "succeeded": False}})
    attempts = [p["loop"]["iteration"] for p in visited if p["stepId"] == "attempt-operation"]
    assert attempts == [1, 2, 3]

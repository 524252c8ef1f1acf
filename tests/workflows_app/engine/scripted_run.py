"""Drives compiled workflows (the corpus, our fixtures, the bundled ones) to completion through the
pure interpreter with a scripted agent, checking what must hold for every run.

The scripted agent sees only what a real agent sees: the pending step and, when blocked, the issues
and the expected output schema. It always writes notes; at a step with an output contract it first
forgets the artifact, then, told ARTIFACT_MISSING, sends one built from the contract (loop_control:
"continue" twice, then "stop"); told VALIDATION_FAILED, it rewrites its notes to satisfy the schema
(the words its patterns ask for, the length it asks for). The scenario context gives every forEach
loop a list and every for loop a count.
"""

from __future__ import annotations

import copy
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from harness.agent import literal as _literal
from harness.agent import notes_constraints as _notes_constraints
from workflows_app.catalog import Catalog, CatalogLoader
from workflows_app.engine import Transition, advance, start
from workflows_app.sources import configured_sources

MAX_ADVANCES = 400


def load_catalog(*extra_paths: Path) -> Catalog:
    """The bundled workflows plus those under `extra_paths`, with an empty user home and project."""
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        sources = configured_sources(workrail_home=home, project_dir=home, extra_paths=list(extra_paths))
        return CatalogLoader(sources).load()


def walk(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every compiled step, loop bodies included."""
    found = []
    for step in steps:
        found.append(step)
        if step["kind"] == "loop":
            found += walk(step["body"])
    return found


def scenario_context(compiled: dict[str, Any]) -> dict[str, Any]:
    """What a user would have set up for the run: lists for forEach loops, counts for for loops."""
    context: dict[str, Any] = {}
    for step in walk(compiled["steps"]):
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
        output: dict[str, Any] = {"notesMarkdown": f"Worked on {pending['title']}."}
        if pending.get("assessments"):  # read from the pending step, as an agent would
            output["artifacts"] = assessments_for(pending)
        return output

    def respond(self, pending: dict[str, Any], blocked: Transition) -> dict[str, Any]:
        """Fixes exactly what the issues name, and nothing else."""
        codes = [i["code"] for i in blocked.issues]
        self.blocked_by += codes
        fixed = self.first_output(pending)
        if "VALIDATION_FAILED" in codes:
            fixed["notesMarkdown"] = self.notes_satisfying(pending, blocked.expected_output_schema)
        if "ARTIFACT_MISSING" in codes:
            fixed["artifacts"] = [*fixed.get("artifacts", []), self.artifact(pending["outputContract"])]
        return fixed

    def notes_satisfying(self, pending: dict[str, Any], schema: dict[str, Any] | None) -> str:
        found: dict[str, Any] = {"patterns": [], "min": 0, "max": 10**9}
        _notes_constraints(schema, found)
        words = " ".join(_literal(p) for p in found["patterns"])
        text = f"Worked on {pending['title']}. {words}".strip()
        while len(text) < found["min"]:
            text += " Checked the result and wrote down what comes next."
        return text[: found["max"]]

    def artifact(self, contract: dict[str, Any]) -> dict[str, Any]:
        if contract["artifactKind"] == "wr.loop_control":
            self.loop_decisions += 1
            return {"kind": "wr.loop_control", "decision": "continue" if self.loop_decisions <= 2 else "stop"}
        return copy.deepcopy(contract["example"])


def assessments_for(pending: dict[str, Any]) -> list[dict[str, Any]]:
    """A rating of every dimension of each assessment the step asks for, at a level that does not call
    for a follow-up (the first such level), as an agent that did the follow-up work would rate it."""
    rated = []
    for assessment in pending.get("assessments") or []:
        avoid = {followup["level"] for followup in assessment["followUpWhen"]}
        dimensions = {
            d["id"]: next((level for level in d["levels"] if level not in avoid), d["levels"][0])
            for d in assessment["dimensions"]
        }
        rated.append({"kind": "wr.assessment", "assessmentId": assessment["assessmentId"], "dimensions": dimensions})
    return rated


@dataclass
class ScriptedRun:
    agent: ScriptedAgent
    visited: list[dict[str, Any]] = field(default_factory=list)  # every pending view, in order
    transitions: list[Transition] = field(default_factory=list)

    @property
    def instances(self) -> list[str]:
        return [p["stepInstance"] for p in self.visited]

    @property
    def warning_codes(self) -> list[str]:
        return [w["code"] for t in self.transitions for w in t.warnings]


def run_scripted(compiled: dict[str, Any], context: dict[str, Any] | None = None) -> ScriptedRun:
    """Runs `compiled` to completion with the scripted agent, from `context` (the scenario context
    when None), and checks the invariants every run must keep."""
    workflow_id = compiled["id"]
    run = ScriptedRun(ScriptedAgent())
    transition = start(compiled, scenario_context(compiled) if context is None else context)
    run.transitions.append(transition)
    advances = 0
    while transition.kind != "complete":
        assert advances < MAX_ADVANCES, f"{workflow_id} did not complete within {MAX_ADVANCES} advances"
        pending = transition.pending
        assert pending is not None
        run.visited.append(pending)
        transition = advance(compiled, transition.state, output=run.agent.first_output(pending))
        run.transitions.append(transition)
        advances += 1
        if transition.kind == "blocked":
            schema = transition.expected_output_schema
            Draft202012Validator.check_schema(schema)
            fixed = run.agent.respond(pending, transition)
            assert Draft202012Validator(schema).is_valid(fixed), (pending["stepId"], fixed, schema)
            transition = advance(compiled, transition.state, output=fixed)
            run.transitions.append(transition)
            advances += 1
            assert transition.kind != "blocked", transition.issues

    assert transition.state["complete"] is True
    assert json.loads(json.dumps(transition.state)) == transition.state
    # Each step instance is done once, and every unconditional top-level step is done, in order.
    assert len(run.instances) == len(set(run.instances))
    unconditional = [s["id"] for s in compiled["steps"] if s["kind"] != "loop" and "runCondition" not in s]
    assert [n for n in run.instances if n in unconditional] == unconditional
    # Every loop whose condition let it run showed its body with loop information.
    for pending in run.visited:
        if "#" in pending["stepInstance"]:
            assert pending["loop"] is not None and pending["loop"]["iteration"] >= 1
    return run

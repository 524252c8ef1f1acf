"""Parity with WorkRail's registries: every snippet, feature, template form and artifact contract its
current release can name resolves here, and each artifact contract accepts and refuses exactly what
WorkRail's zod schema does (src/v2/durable-core/schemas/artifacts/ in EtienneBBeaulac/workrail).

The accepted and refused artifacts below are derived from the zod rules, one rule at a time: each
refused artifact is a valid one with one rule broken."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tests.support.workflow_files import workflow_doc, write_json
from workflows_app import builtins
from workflows_app.compiler import CompileError, RoutineDocument, compile_workflow
from workflows_app.diagnostics import Code
from workflows_app.engine.contracts import known_contracts
from workflows_app.engine.output import artifact_issues
from workflows_app.structure import structure_diagnostics

# WorkRail's ref registry (ref-registry.ts), feature registry (feature-registry.ts) and artifact
# contract list (ARTIFACT_CONTRACT_REFS in schemas/artifacts/index.ts).
WORKRAIL_REFS = {
    "wr.refs.memory_usage",
    "wr.refs.memory_store",
    "wr.refs.memory_query",
    "wr.refs.notes_first_durability",
    "wr.refs.synthesis_under_disagreement",
    "wr.refs.parallelize_cognition_serialize_synthesis",
    "wr.refs.adversarial_challenge_rules",
}
WORKRAIL_FEATURES = {"wr.features.memory_context", "wr.features.capabilities", "wr.features.subagent_guidance"}
WORKRAIL_CONTRACTS = {
    "wr.contracts.assessment",
    "wr.contracts.loop_control",
    "wr.contracts.coordinator_signal",
    "wr.contracts.review_verdict",
    "wr.contracts.discovery_handoff",
    "wr.contracts.shaping_handoff",
    "wr.contracts.coding_handoff",
    "wr.contracts.gate_verdict",
    "wr.contracts.differentiation_handoff",
}


def compile_doc(document: dict[str, Any], routines: dict[str, RoutineDocument] | None = None) -> dict[str, Any]:
    return compile_workflow(document, kind="workflow", resolve_routine=(routines or {}).get)


# --- refs, features -------------------------------------------------------------------------------


def test_every_workrail_ref_feature_and_contract_is_a_builtin():
    assert set(builtins.REFS) == WORKRAIL_REFS
    assert set(builtins.FEATURES) == WORKRAIL_FEATURES
    assert set(builtins.CONTRACTS) >= WORKRAIL_CONTRACTS
    # Ours besides WorkRail's: the code review findings and the workflow draft of wr.workflow_authoring.
    assert set(builtins.CONTRACTS) - WORKRAIL_CONTRACTS == {
        "mr_review.changed_files",
        "mr_review.findings",
        "wr.contracts.workflow_draft",
    }


@pytest.mark.parametrize("ref", sorted(WORKRAIL_REFS))
def test_each_ref_resolves_into_the_prompt_without_a_finding(ref):
    step = {
        "id": "work",
        "title": "Work",
        "promptBlocks": {
            "goal": "Do it.",
            "constraints": [[{"kind": "text", "text": "Rule: "}, {"kind": "ref", "refId": ref}]],
        },
    }
    document = workflow_doc(steps=[step])
    assert structure_diagnostics(document) == []
    compiled = compile_doc(document)
    # Inside a list item, the snippet's later lines are indented under it (nested bullets stay nested).
    assert "Rule: " + builtins.REFS[ref].replace("\n", "\n  ") in compiled["steps"][0]["prompt"]
    assert "leftOut" not in compiled


@pytest.mark.parametrize("feature", sorted(WORKRAIL_FEATURES))
def test_each_feature_resolves_into_the_workflow_guidance_without_a_finding(feature):
    document = workflow_doc(features=[feature])
    assert structure_diagnostics(document) == []
    compiled = compile_doc(document)
    assert compiled["features"] == [feature]
    assert compiled["metaGuidance"] == [builtins.FEATURES[feature]]
    assert "leftOut" not in compiled


def test_features_carry_the_snippets_workrail_composes_them_from():
    # WorkRail's memory_context injects wr.refs.memory_usage, subagent_guidance the parallelism rules.
    assert builtins.REFS["wr.refs.memory_usage"] in builtins.FEATURES["wr.features.memory_context"]
    guidance = builtins.FEATURES["wr.features.subagent_guidance"]
    assert builtins.REFS["wr.refs.parallelize_cognition_serialize_synthesis"] in guidance


# --- templates ------------------------------------------------------------------------------------


def routine(routine_id: str) -> dict[str, Any]:
    return workflow_doc(
        routine_id,
        steps=[
            {
                "id": "design",
                "title": "Design for {goal}",
                "prompt": 'Design {goal} and write `{deliverableName}` for {{audience}}; keep {notAnArg} and {"k": 1}.',
            }
        ],
    )


def test_a_routine_template_names_the_routine_with_or_without_its_prefix():
    assert builtins.routine_names_of("wr.templates.routine.tension-driven-design") == [
        "routine-tension-driven-design",
        "tension-driven-design",
    ]
    assert builtins.routine_names_of("wr.templates.routine.routine-x") == ["routine-x"]
    assert builtins.routine_names_of("wr.templates.capability_probe") == []  # WorkRail has no static template
    assert builtins.routine_names_of("wr.templates.routine.") == []


def test_template_args_fill_workrails_single_brace_and_our_double_brace_placeholders():
    caller = workflow_doc(
        steps=[
            {
                "id": "call",
                "title": "Call",
                "templateCall": {
                    "templateId": "wr.templates.routine.design",
                    "args": {"goal": "a cache", "deliverableName": "design.md", "flag": True},
                },
            }
        ]
    )
    compiled = compile_doc(
        caller, {"routine-design": RoutineDocument("team.routine-design", routine("team.routine-design"))}
    )
    [step] = compiled["steps"]
    assert step["title"] == "Design for a cache"
    # Context placeholders ({{audience}}), unknown names and literal braces are left as written.
    assert step["prompt"] == ('Design a cache and write `design.md` for {{audience}}; keep {notAnArg} and {"k": 1}.')
    assert builtins.substitute_args("{flag} {{flag}}", {"flag": True}) == "true true"


def test_a_routine_without_the_prefix_is_found_by_the_catalog_but_only_if_it_is_a_routine(make_loader, dirs):
    write_json(dirs["extra"] / "routines" / "context-gathering.json", routine("team.context-gathering"))
    write_json(dirs["extra"] / "plain.json", routine("team.plain-design"))
    calls = {
        "team.calls_routine": "wr.templates.routine.context-gathering",
        "team.calls_workflow": "wr.templates.routine.plain-design",
    }
    for workflow_id, template in calls.items():
        step = {
            "id": "call",
            "title": "Call",
            "templateCall": {"templateId": template, "args": {"goal": "g", "deliverableName": "d"}},
        }
        write_json(dirs["extra"] / f"{workflow_id}.json", workflow_doc(workflow_id, steps=[step]))
    catalog = make_loader(dirs["extra"]).load()
    assert [s["id"] for s in catalog.get("team.calls_routine").compiled["steps"]] == ["call.design"]
    # 'plain-design' is a workflow, not a routine: a template never expands a workflow by its bare name.
    assert catalog.get("team.calls_workflow") is None
    [problem] = catalog.invalid["team.calls_workflow"]
    assert (problem.code, problem.pointer) == (Code.UNKNOWN_REFERENCE, "/steps/0/templateCall/templateId")


def test_an_unknown_template_is_still_an_error():
    step = {"id": "x", "title": "X", "templateCall": {"templateId": "wr.templates.routine.nowhere"}}
    with pytest.raises(CompileError) as caught:
        compile_doc(workflow_doc(steps=[step]))
    assert caught.value.diagnostics[0].code is Code.UNKNOWN_REFERENCE


# --- contracts ------------------------------------------------------------------------------------


@pytest.mark.parametrize("ref", sorted(builtins.CONTRACTS))
def test_each_contract_has_its_kind_a_valid_schema_and_a_valid_example(ref):
    contract = builtins.CONTRACTS[ref]
    if ref.startswith("wr.contracts."):
        assert contract["artifactKind"] == "wr." + ref.removeprefix("wr.contracts.")  # WorkRail's convention
    Draft202012Validator.check_schema(contract["schema"])
    assert judge(contract["example"]) == []
    assert builtins.artifact_kind_of(ref) == contract["artifactKind"]


@pytest.mark.parametrize("ref", sorted(builtins.CONTRACTS))
def test_each_contract_resolves_into_a_step_and_its_example_passes_the_engine(ref):
    step = {"id": "hand-back", "title": "Hand back", "prompt": "Hand it back.", "outputContract": {"contractRef": ref}}
    document = workflow_doc(steps=[step])
    assert structure_diagnostics(document) == []
    compiled = compile_doc(document)
    contract = compiled["steps"][0]["outputContract"]
    assert contract["artifactKind"] == builtins.CONTRACTS[ref]["artifactKind"]
    assert contract["schema"] == builtins.CONTRACTS[ref]["schema"] and contract["required"] is True
    assert "leftOut" not in compiled


def test_contract_kinds_follow_workrails_naming_convention_for_unknown_references():
    assert builtins.artifact_kind_of("wr.contracts.release_gate") == "wr.release_gate"
    assert builtins.artifact_kind_of("team.contracts.release_notes") == "team.release_notes"
    assert builtins.artifact_kind_of("team.release_notes") == "team.release_notes"
    assert builtins.artifact_kind_of("mr_review.findings") == "mr_review.findings"


def judge(artifact: dict[str, Any]) -> list[str]:
    """Where the engine (the one artifact judge) refuses this artifact, each place once."""
    return sorted({issue["pointer"] for issue in artifact_issues([artifact], known_contracts([]))})


def example(ref: str) -> dict[str, Any]:
    return copy.deepcopy(builtins.CONTRACTS[ref]["example"])


def changed(ref: str, **changes: Any) -> dict[str, Any]:
    """The contract's example with top-level keys replaced (a value of DROP removes the key)."""
    artifact = example(ref)
    for key, value in changes.items():
        if value is DROP:
            artifact.pop(key, None)
        else:
            artifact[key] = value
    return artifact


def nested(ref: str, path: str, value: Any) -> dict[str, Any]:
    """The contract's example with the value at a dotted path replaced (DROP removes it)."""
    artifact = example(ref)
    *parents, last = path.split(".")
    target: Any = artifact
    for part in parents:
        target = target[int(part)] if isinstance(target, list) else target[part]
    if value is DROP:
        del target[last]
    elif isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return artifact


DROP = object()
LOOP = "wr.contracts.loop_control"
ASSESSMENT = "wr.contracts.assessment"
SIGNAL = "wr.contracts.coordinator_signal"
REVIEW = "wr.contracts.review_verdict"
GATE = "wr.contracts.gate_verdict"
DISCOVERY = "wr.contracts.discovery_handoff"
DIFFERENTIATION = "wr.contracts.differentiation_handoff"
SHAPING = "wr.contracts.shaping_handoff"
CODING = "wr.contracts.coding_handoff"
DRAFT = "wr.contracts.workflow_draft"


def lines(count: int, length: int = 10) -> list[str]:
    return ["x" * length] * count


def generated_at(value: str) -> tuple[dict[str, Any], str]:
    """A differentiation artifact whose generatedAt is `value`, refused at that field."""
    return changed(DIFFERENTIATION, generatedAt=value), "/artifacts/0/generatedAt"


ACCEPTED: dict[str, dict[str, Any]] = {
    # loop_control: loopId optional, delimiter-safe, 1-64; metadata optional and strict.
    "loop: decision only": {"kind": "wr.loop_control", "decision": "continue"},
    "loop: safe loopId of 64": changed(LOOP, loopId="a-b_1" + "x" * 59),
    "loop: every metadata field": changed(
        LOOP, metadata={"reason": "r" * 1024, "issuesFound": 0, "iterationIndex": 3, "confidence": 100}
    ),
    "loop: empty metadata": changed(LOOP, metadata={}),
    # assessment: dimensions a non-empty record of a level or {level, rationale?}.
    "assessment: level strings": {"kind": "wr.assessment", "dimensions": {"a": "high"}},
    "assessment: level objects": changed(
        ASSESSMENT, dimensions={"a": {"level": "low"}, "b": {"level": "x", "rationale": "r" * 512}}
    ),
    "assessment: longest id and summary": changed(ASSESSMENT, assessmentId="i" * 64, summary="s" * 1024),
    # coordinator_signal: every signal kind; payload any object; sessionId optional.
    **{
        f"signal: {kind}": changed(SIGNAL, signalKind=kind, payload={})
        for kind in ("progress", "finding", "data_needed", "approval_needed", "blocked")
    },
    "signal: with a sessionId": changed(SIGNAL, sessionId="sess-1"),
    # review_verdict: findings may be empty; a finding keeps enrichment fields (passthrough).
    "review: clean without findings": changed(REVIEW, verdict="clean", findings=[]),
    "review: finding enrichment": nested(REVIEW, "findings.0.startLine", 42),
    "review: finding without category": nested(REVIEW, "findings.0.findingCategory", DROP),
    "review: blocking critical security": changed(
        REVIEW,
        verdict="blocking",
        confidence="low",
        findings=[{"severity": "critical", "summary": "s", "findingCategory": "security"}],
    ),
    # gate_verdict: rationale at least 20 characters.
    "gate: rationale of exactly 20": changed(GATE, rationale="r" * 20, verdict="uncertain", confidence="low"),
    "gate: rejected": changed(GATE, verdict="rejected"),
    # discovery_handoff: optional lists within their bounds; nested objects not strict.
    "discovery: empty design doc path": changed(DISCOVERY, designDocPath=""),
    "discovery: every optional field at its bounds": changed(
        DISCOVERY,
        keyInvariants=lines(12, 200),
        rejectedDirections=[{"direction": "d" * 200, "reason": "r" * 300, "note": "kept"}] * 5,
        implementationConstraints=lines(8, 200),
        keyCodebaseLocations=[{"path": "p" * 300, "relevance": "r" * 150}] * 10,
        selectionTier="insufficient_signal",
    ),
    # differentiation_handoff: zod datetime (UTC, seconds optional, fractions any, real dates).
    "differentiation: no seconds": changed(DIFFERENTIATION, generatedAt="2026-03-02T09:30Z"),
    "differentiation: fractions": changed(DIFFERENTIATION, generatedAt="2026-03-02T09:30:00.123456Z"),
    "differentiation: leap day": changed(DIFFERENTIATION, generatedAt="2024-02-29T00:00:00Z"),
    "differentiation: extra nested key": nested(DIFFERENTIATION, "shapingHandoff.owner", "ana"),
    "differentiation: exclusions given": nested(DIFFERENTIATION, "shapingHandoff.constraints.exclusions", ["x"]),
    "differentiation: uppercase uuid": nested(
        DIFFERENTIATION, "shapingHandoff.evidenceTopK", ["6F1C2B1E-8D4A-4C2E-9A57-3D0E5B7C9F10"] * 10
    ),
    # shaping_handoff: lists may be empty, items within bounds.
    "shaping: empty lists": changed(SHAPING, keyConstraints=[], rabbitHoles=[], outOfScope=[], validationChecklist=[]),
    "shaping: lists at their bounds": changed(
        SHAPING,
        selectedShape="s" * 200,
        appetite="a" * 100,
        keyConstraints=lines(8, 200),
        rabbitHoles=lines(6),
        outOfScope=lines(6),
        validationChecklist=lines(10),
    ),
    # coding_handoff: branchName optional; correctedAssumptions items not strict.
    "coding: without branch": changed(CODING, branchName=DROP),
    "coding: at its bounds": changed(
        CODING,
        keyDecisions=lines(8, 200),
        knownLimitations=lines(6),
        testsAdded=lines(10),
        filesChanged=lines(20, 300),
        correctedAssumptions=[{"assumed": "a", "actual": "b", "by": "fix agent"}] * 6,
    ),
    # ours
    "draft: any workflow object": changed(DRAFT, workflow={}),
}

REFUSED: dict[str, tuple[dict[str, Any], str]] = {
    "loop: no decision": (changed(LOOP, decision=DROP), "/artifacts/0"),
    "loop: unknown decision": (changed(LOOP, decision="maybe"), "/artifacts/0/decision"),
    "loop: uppercase loopId": (changed(LOOP, loopId="Work"), "/artifacts/0/loopId"),
    "loop: empty loopId": (changed(LOOP, loopId=""), "/artifacts/0/loopId"),
    "loop: loopId of 65": (changed(LOOP, loopId="x" * 65), "/artifacts/0/loopId"),
    "loop: loopId with a slash": (changed(LOOP, loopId="a/b"), "/artifacts/0/loopId"),
    "loop: loopId with a final newline": (changed(LOOP, loopId="work\n"), "/artifacts/0/loopId"),
    "loop: null loopId": (changed(LOOP, loopId=None), "/artifacts/0/loopId"),
    "loop: unknown metadata key": (changed(LOOP, metadata={"why": "x"}), "/artifacts/0/metadata"),
    "loop: confidence over 100": (changed(LOOP, metadata={"confidence": 101}), "/artifacts/0/metadata/confidence"),
    "loop: negative issues": (changed(LOOP, metadata={"issuesFound": -1}), "/artifacts/0/metadata/issuesFound"),
    "loop: fractional iteration": (
        changed(LOOP, metadata={"iterationIndex": 1.5}),
        "/artifacts/0/metadata/iterationIndex",
    ),
    "loop: reason too long": (changed(LOOP, metadata={"reason": "r" * 1025}), "/artifacts/0/metadata/reason"),
    "loop: null metadata": (changed(LOOP, metadata=None), "/artifacts/0/metadata"),
    "loop: unknown key": (changed(LOOP, extra=1), "/artifacts/0"),
    "assessment: no dimensions": (changed(ASSESSMENT, dimensions=DROP), "/artifacts/0"),
    "assessment: empty dimensions": (changed(ASSESSMENT, dimensions={}), "/artifacts/0/dimensions"),
    "assessment: empty level": (changed(ASSESSMENT, dimensions={"a": ""}), "/artifacts/0/dimensions/a"),
    "assessment: number level": (changed(ASSESSMENT, dimensions={"a": 3}), "/artifacts/0/dimensions/a"),
    "assessment: object without level": (
        changed(ASSESSMENT, dimensions={"a": {"rationale": "r"}}),
        "/artifacts/0/dimensions/a",
    ),
    "assessment: object with unknown key": (
        changed(ASSESSMENT, dimensions={"a": {"level": "x", "why": "y"}}),
        "/artifacts/0/dimensions/a",
    ),
    "assessment: empty rationale": (
        changed(ASSESSMENT, dimensions={"a": {"level": "x", "rationale": ""}}),
        "/artifacts/0/dimensions/a",
    ),
    "assessment: rationale too long": (
        changed(ASSESSMENT, dimensions={"a": {"level": "x", "rationale": "r" * 513}}),
        "/artifacts/0/dimensions/a",
    ),
    "assessment: empty id": (changed(ASSESSMENT, assessmentId=""), "/artifacts/0/assessmentId"),
    "assessment: id too long": (changed(ASSESSMENT, assessmentId="i" * 65), "/artifacts/0/assessmentId"),
    "assessment: summary too long": (changed(ASSESSMENT, summary="s" * 1025), "/artifacts/0/summary"),
    "assessment: unknown key": (changed(ASSESSMENT, score=3), "/artifacts/0"),
    "signal: unknown signal kind": (changed(SIGNAL, signalKind="done"), "/artifacts/0/signalKind"),
    "signal: no payload": (changed(SIGNAL, payload=DROP), "/artifacts/0"),
    "signal: list payload": (changed(SIGNAL, payload=[]), "/artifacts/0/payload"),
    "signal: text payload": (changed(SIGNAL, payload="found it"), "/artifacts/0/payload"),
    "signal: number sessionId": (changed(SIGNAL, sessionId=3), "/artifacts/0/sessionId"),
    "signal: unknown key": (changed(SIGNAL, urgent=True), "/artifacts/0"),
    "review: unknown verdict": (changed(REVIEW, verdict="ok"), "/artifacts/0/verdict"),
    "review: unknown confidence": (changed(REVIEW, confidence="sure"), "/artifacts/0/confidence"),
    "review: no findings": (changed(REVIEW, findings=DROP), "/artifacts/0"),
    "review: unknown severity": (nested(REVIEW, "findings.0.severity", "blocker"), "/artifacts/0/findings/0/severity"),
    "review: empty finding summary": (nested(REVIEW, "findings.0.summary", ""), "/artifacts/0/findings/0/summary"),
    "review: finding without summary": (nested(REVIEW, "findings.0.summary", DROP), "/artifacts/0/findings/0"),
    "review: unknown category": (
        nested(REVIEW, "findings.0.findingCategory", "docs"),
        "/artifacts/0/findings/0/findingCategory",
    ),
    "review: empty summary": (changed(REVIEW, summary=""), "/artifacts/0/summary"),
    "review: unknown key": (changed(REVIEW, reviewer="ana"), "/artifacts/0"),
    "gate: rationale of 19": (changed(GATE, rationale="r" * 19), "/artifacts/0/rationale"),
    "gate: version 2": (changed(GATE, version=2), "/artifacts/0/version"),
    "gate: version as text": (changed(GATE, version="1"), "/artifacts/0/version"),
    "gate: unknown verdict": (changed(GATE, verdict="pass"), "/artifacts/0/verdict"),
    "gate: no confidence": (changed(GATE, confidence=DROP), "/artifacts/0"),
    # WorkRail's own blocked message mentions a stepId, but its schema is strict and has none.
    "gate: stepId": (changed(GATE, stepId="phase-6"), "/artifacts/0"),
    "discovery: no version": (changed(DISCOVERY, version=DROP), "/artifacts/0"),
    "discovery: empty direction": (changed(DISCOVERY, selectedDirection=""), "/artifacts/0/selectedDirection"),
    "discovery: unknown confidence band": (changed(DISCOVERY, confidenceBand="very"), "/artifacts/0/confidenceBand"),
    "discovery: 13 invariants": (changed(DISCOVERY, keyInvariants=lines(13)), "/artifacts/0/keyInvariants"),
    "discovery: invariant of 201": (changed(DISCOVERY, keyInvariants=["i" * 201]), "/artifacts/0/keyInvariants/0"),
    "discovery: empty invariant": (changed(DISCOVERY, keyInvariants=[""]), "/artifacts/0/keyInvariants/0"),
    "discovery: 6 rejected directions": (
        changed(DISCOVERY, rejectedDirections=[{"direction": "d", "reason": "r"}] * 6),
        "/artifacts/0/rejectedDirections",
    ),
    "discovery: rejection reason of 301": (
        changed(DISCOVERY, rejectedDirections=[{"direction": "d", "reason": "r" * 301}]),
        "/artifacts/0/rejectedDirections/0/reason",
    ),
    "discovery: rejection without reason": (
        changed(DISCOVERY, rejectedDirections=[{"direction": "d"}]),
        "/artifacts/0/rejectedDirections/0",
    ),
    "discovery: 9 constraints": (
        changed(DISCOVERY, implementationConstraints=lines(9)),
        "/artifacts/0/implementationConstraints",
    ),
    "discovery: relevance of 151": (
        changed(DISCOVERY, keyCodebaseLocations=[{"path": "p", "relevance": "r" * 151}]),
        "/artifacts/0/keyCodebaseLocations/0/relevance",
    ),
    "discovery: unknown selection tier": (changed(DISCOVERY, selectionTier="weak"), "/artifacts/0/selectionTier"),
    "discovery: unknown key": (changed(DISCOVERY, owner="ana"), "/artifacts/0"),
    "differentiation: offset time": generated_at("2026-03-02T09:30:00+01:00"),
    "differentiation: no zone": generated_at("2026-03-02T09:30:00"),
    "differentiation: date only": generated_at("2026-03-02"),
    "differentiation: 30 February": generated_at("2026-02-30T09:30:00Z"),
    "differentiation: 29 February of a common year": generated_at("2025-02-29T09:30:00Z"),
    "differentiation: hour 24": generated_at("2026-03-02T24:00:00Z"),
    "differentiation: bad freshness time": (
        nested(DIFFERENTIATION, "evidenceFreshness.oldestCapturedAt", "yesterday"),
        "/artifacts/0/evidenceFreshness/oldestCapturedAt",
    ),
    "differentiation: schema version 1.0": (
        changed(DIFFERENTIATION, schemaVersion="1.0"),
        "/artifacts/0/schemaVersion",
    ),
    "differentiation: no freshness": (changed(DIFFERENTIATION, evidenceFreshness=DROP), "/artifacts/0"),
    "differentiation: 11 checks": (
        changed(DIFFERENTIATION, validationChecklist=lines(11)),
        "/artifacts/0/validationChecklist",
    ),
    "differentiation: team of 0": (
        nested(DIFFERENTIATION, "shapingHandoff.constraints.teamSize", 0),
        "/artifacts/0/shapingHandoff/constraints/teamSize",
    ),
    "differentiation: team of 1.5": (
        nested(DIFFERENTIATION, "shapingHandoff.constraints.teamSize", 1.5),
        "/artifacts/0/shapingHandoff/constraints/teamSize",
    ),
    "differentiation: no capabilities": (
        nested(DIFFERENTIATION, "shapingHandoff.constraints.technicalCapabilities", []),
        "/artifacts/0/shapingHandoff/constraints/technicalCapabilities",
    ),
    "differentiation: not a uuid": (
        nested(DIFFERENTIATION, "shapingHandoff.evidenceTopK", ["evidence-1"]),
        "/artifacts/0/shapingHandoff/evidenceTopK/0",
    ),
    "differentiation: 11 pieces of evidence": (
        nested(DIFFERENTIATION, "shapingHandoff.evidenceTopK", ["6f1c2b1e-8d4a-4c2e-9a57-3d0e5b7c9f10"] * 11),
        "/artifacts/0/shapingHandoff/evidenceTopK",
    ),
    "differentiation: unknown power": (
        nested(DIFFERENTIATION, "shapingHandoff.defensibilityClaim.power", "Brand"),
        "/artifacts/0/shapingHandoff/defensibilityClaim/power",
    ),
    "differentiation: unknown appetite": (
        nested(DIFFERENTIATION, "shapingHandoff.appetiteHint", "medium_batch"),
        "/artifacts/0/shapingHandoff/appetiteHint",
    ),
    "differentiation: no baseline": (
        nested(DIFFERENTIATION, "shapingHandoff.baseline", DROP),
        "/artifacts/0/shapingHandoff",
    ),
    "differentiation: unknown key": (changed(DIFFERENTIATION, winningCandidate="x"), "/artifacts/0"),
    "shaping: shape of 201": (changed(SHAPING, selectedShape="s" * 201), "/artifacts/0/selectedShape"),
    "shaping: appetite of 101": (changed(SHAPING, appetite="a" * 101), "/artifacts/0/appetite"),
    "shaping: empty pitch path": (changed(SHAPING, pitchPath=""), "/artifacts/0/pitchPath"),
    "shaping: 9 constraints": (changed(SHAPING, keyConstraints=lines(9)), "/artifacts/0/keyConstraints"),
    "shaping: 7 rabbit holes": (changed(SHAPING, rabbitHoles=lines(7)), "/artifacts/0/rabbitHoles"),
    "shaping: 7 out of scope": (changed(SHAPING, outOfScope=lines(7)), "/artifacts/0/outOfScope"),
    "shaping: 11 checks": (changed(SHAPING, validationChecklist=lines(11)), "/artifacts/0/validationChecklist"),
    "shaping: empty rabbit hole": (changed(SHAPING, rabbitHoles=[""]), "/artifacts/0/rabbitHoles/0"),
    "shaping: version 2": (changed(SHAPING, version=2), "/artifacts/0/version"),
    "shaping: unknown key": (changed(SHAPING, owner="ana"), "/artifacts/0"),
    "coding: empty branch": (changed(CODING, branchName=""), "/artifacts/0/branchName"),
    "coding: 21 files": (changed(CODING, filesChanged=lines(21)), "/artifacts/0/filesChanged"),
    "coding: file of 301": (changed(CODING, filesChanged=["f" * 301]), "/artifacts/0/filesChanged/0"),
    "coding: 9 decisions": (changed(CODING, keyDecisions=lines(9)), "/artifacts/0/keyDecisions"),
    "coding: 7 limitations": (changed(CODING, knownLimitations=lines(7)), "/artifacts/0/knownLimitations"),
    "coding: 11 tests": (changed(CODING, testsAdded=lines(11)), "/artifacts/0/testsAdded"),
    "coding: no tests list": (changed(CODING, testsAdded=DROP), "/artifacts/0"),
    "coding: 7 corrections": (
        changed(CODING, correctedAssumptions=[{"assumed": "a", "actual": "b"}] * 7),
        "/artifacts/0/correctedAssumptions",
    ),
    "coding: correction without actual": (
        changed(CODING, correctedAssumptions=[{"assumed": "a"}]),
        "/artifacts/0/correctedAssumptions/0",
    ),
    "coding: unknown key": (changed(CODING, reviewer="ana"), "/artifacts/0"),
    "draft: no workflow": (changed(DRAFT, workflow=DROP), "/artifacts/0"),
    "draft: workflow as text": (changed(DRAFT, workflow="{}"), "/artifacts/0/workflow"),
}


def test_every_workrail_contract_has_accepted_and_refused_cases():
    kinds = {builtins.CONTRACTS[ref]["artifactKind"] for ref in builtins.CONTRACTS if ref.startswith("wr.")}
    assert {artifact["kind"] for artifact in ACCEPTED.values()} == kinds
    assert {artifact["kind"] for artifact, _pointer in REFUSED.values()} == kinds


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_the_contract_accepts_what_workrail_accepts(name):
    assert judge(ACCEPTED[name]) == []


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_the_contract_refuses_what_workrail_refuses(name):
    artifact, pointer = REFUSED[name]
    assert judge(artifact) == [pointer]


def test_loop_control_without_a_loop_id_still_steers_the_loop():
    """WorkRail made loopId optional: a decision without one steers the loop the step is in."""
    from workflows_app.engine import advance, start

    source = {"kind": "artifact_contract", "contractRef": LOOP}
    document = workflow_doc(
        steps=[
            {
                "id": "again",
                "type": "loop",
                "title": "Again",
                "loop": {"type": "while", "maxIterations": 5, "conditionSource": source},
                "body": [{"id": "work", "title": "Work", "prompt": "Work.", "outputContract": {"contractRef": LOOP}}],
            }
        ]
    )
    assert structure_diagnostics(document) == []
    compiled = compile_doc(document)
    first = start(compiled)
    second = advance(compiled, first.state, output={"artifacts": [{"kind": "wr.loop_control", "decision": "continue"}]})
    assert second.pending["loop"]["iteration"] == 2
    done = advance(compiled, second.state, output={"artifacts": [{"kind": "wr.loop_control", "decision": "stop"}]})
    assert done.kind == "complete"

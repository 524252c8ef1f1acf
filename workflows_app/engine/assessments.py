"""Assessments: a step that names assessments (`assessmentRefs`) is done only with a `wr.assessment`
artifact for each, rating every dimension at one of its declared levels; a consequence
(`assessmentConsequences`, effect `require_followup`) keeps the step pending while any dimension
it watches sits at its trigger level, with the workflow's guidance on what to do about it.

An assessment artifact: {"kind": "wr.assessment", "assessmentId"?: id, "dimensions": {dimensionId:
level | {"level", "rationale"?}}, "summary"?}. `assessmentId` may be left out when the step names
exactly one assessment. Its shape is checked by the `wr.assessment` contract like any artifact; this
module checks what only the workflow knows: which assessments, dimensions and levels exist.
"""

from __future__ import annotations

from typing import Any

from workflows_app.engine.codes import IssueCode, issue
from workflows_app.engine.jsontypes import JsonObject
from workflows_app.engine.model import (
    AgentStep,
    AssessmentConsequence,
    AssessmentDefinition,
    AssessmentView,
    CompiledWorkflow,
    EngineIssue,
    FollowUpView,
)

KIND = "wr.assessment"


def referenced(compiled: CompiledWorkflow, step: AgentStep) -> list[AssessmentDefinition]:
    """The definitions of the assessments `step` names, in its order."""
    known = {item.get("id"): item for item in compiled.get("assessments") or [] if isinstance(item, dict)}
    return [known[ref] for ref in step.get("assessmentRefs") or [] if ref in known]


def view(compiled: CompiledWorkflow, step: AgentStep) -> list[AssessmentView] | None:
    """`pending.assessments`: what to rate, and which levels keep the step pending."""
    definitions = referenced(compiled, step)
    if not definitions:
        return None
    shown: list[AssessmentView] = []
    for definition in definitions:
        followups: list[FollowUpView] = [
            {"level": c["when"]["anyEqualsLevel"], "guidance": c["effect"]["guidance"]}
            for c in _consequences(step)
            if c["when"].get("forAssessment") in (None, definition["id"])
        ]
        shown.append(
            {
                "assessmentId": definition["id"],
                "purpose": definition.get("purpose", ""),
                "dimensions": [
                    {
                        "id": dimension["id"],
                        "purpose": dimension.get("purpose", ""),
                        "levels": list(dimension.get("levels") or []),
                        "required": dimension.get("required", True) is not False,
                    }
                    for dimension in definition.get("dimensions") or []
                ],
                "followUpWhen": followups,
            }
        )
    return shown


def check(compiled: CompiledWorkflow, step: AgentStep, artifacts: Any) -> list[EngineIssue]:
    """Issues with the assessments sent for `step` (empty when it names none, or all are in order)."""
    definitions = referenced(compiled, step)
    if not definitions:
        return []
    listed = [(i, a) for i, a in enumerate(artifacts if isinstance(artifacts, list) else []) if _is_assessment(a)]
    found: list[EngineIssue] = []
    ratings: dict[str, dict[str, str]] = {}
    for definition in definitions:
        match = _matching(definition["id"], listed, single=len(definitions) == 1)
        if match is None:
            found.append(
                issue(
                    IssueCode.ASSESSMENT_MISSING,
                    f"This step needs a '{KIND}' artifact for assessment '{definition['id']}' "
                    f"({definition.get('purpose', '')}); see pending.assessments for its dimensions and levels.",
                    "/artifacts",
                )
            )
            continue
        index, artifact = match
        problems, levels = _rated(definition, index, artifact)
        found += problems
        ratings[definition["id"]] = levels
    if found:
        return found
    return _followups(step, ratings)


def _is_assessment(artifact: Any) -> bool:
    return isinstance(artifact, dict) and artifact.get("kind") == KIND


def _matching(assessment_id: str, listed: list[tuple[int, Any]], *, single: bool) -> tuple[int, Any] | None:
    for index, artifact in listed:
        named = artifact.get("assessmentId")
        if named == assessment_id or (named is None and single):
            return index, artifact
    return None


def _rated(
    definition: AssessmentDefinition, index: int, artifact: JsonObject
) -> tuple[list[EngineIssue], dict[str, str]]:
    dimensions = {d["id"]: d for d in definition.get("dimensions") or []}
    given = artifact.get("dimensions")
    sent: dict[str, Any] = given if isinstance(given, dict) else {}
    base = f"/artifacts/{index}/dimensions"
    problems: list[EngineIssue] = []
    levels: dict[str, str] = {}
    for dimension_id, rating in sent.items():
        if dimension_id not in dimensions:
            problems.append(
                issue(
                    IssueCode.ASSESSMENT_INVALID,
                    f"Assessment '{definition['id']}' has no dimension '{dimension_id}'; its dimensions are "
                    f"{', '.join(dimensions)}.",
                    f"{base}/{dimension_id}",
                )
            )
            continue
        level = rating.get("level") if isinstance(rating, dict) else rating
        allowed = list(dimensions[dimension_id].get("levels") or [])
        if not isinstance(level, str) or level not in allowed:
            problems.append(
                issue(
                    IssueCode.ASSESSMENT_INVALID,
                    f"Dimension '{dimension_id}' of assessment '{definition['id']}' is rated {level!r}; rate it "
                    f"one of {', '.join(allowed)}.",
                    f"{base}/{dimension_id}",
                )
            )
            continue
        levels[dimension_id] = level
    for dimension_id, dimension in dimensions.items():
        if dimension.get("required", True) is not False and dimension_id not in sent:
            problems.append(
                issue(
                    IssueCode.ASSESSMENT_INVALID,
                    f"Assessment '{definition['id']}' needs a rating for dimension '{dimension_id}' "
                    f"({dimension.get('purpose', '')}).",
                    base,
                )
            )
    return problems, levels


def _followups(step: AgentStep, ratings: dict[str, dict[str, str]]) -> list[EngineIssue]:
    found: list[EngineIssue] = []
    for consequence in _consequences(step):
        trigger = consequence["when"]
        watched = [trigger["forAssessment"]] if trigger.get("forAssessment") else list(ratings)
        hits = [
            f"{assessment_id}.{dimension_id}"
            for assessment_id in watched
            for dimension_id, level in ratings.get(assessment_id, {}).items()
            if level == trigger["anyEqualsLevel"]
        ]
        if hits:
            found.append(
                issue(
                    IssueCode.ASSESSMENT_FOLLOWUP_REQUIRED,
                    f"{', '.join(hits)} rated '{trigger['anyEqualsLevel']}': {consequence['effect']['guidance']} "
                    "Do that, then assess again: the step stays pending while a dimension is at that level.",
                    "/artifacts",
                )
            )
    return found


def _consequences(step: AgentStep) -> list[AssessmentConsequence]:
    return [
        c
        for c in step.get("assessmentConsequences") or []
        if isinstance(c, dict) and isinstance(c.get("when"), dict) and isinstance(c.get("effect"), dict)
    ]


def output_schema(compiled: CompiledWorkflow, step: AgentStep) -> JsonObject | None:
    """A JSON Schema the output must also match: one rating per assessment the step names, each
    dimension at a declared level (the consequences are not expressible here: they depend on what
    the agent did about them)."""
    definitions = referenced(compiled, step)
    if not definitions:
        return None
    single = len(definitions) == 1
    needed = []
    for definition in definitions:
        dimensions = definition.get("dimensions") or []
        rating = {
            d["id"]: {
                "anyOf": [
                    {"enum": list(d.get("levels") or [])},
                    {
                        "type": "object",
                        "required": ["level"],
                        "properties": {"level": {"enum": list(d.get("levels") or [])}},
                    },
                ]
            }
            for d in dimensions
        }
        required = [d["id"] for d in dimensions if d.get("required", True) is not False]
        identity: JsonObject = {"kind": {"const": KIND}}
        if not single:
            identity["assessmentId"] = {"const": definition["id"]}
        needed.append(
            {
                "contains": {
                    "type": "object",
                    "required": ["kind", "dimensions", *([] if single else ["assessmentId"])],
                    "properties": {
                        **identity,
                        "dimensions": {
                            "type": "object",
                            "required": required,
                            "properties": rating,
                            "additionalProperties": False,
                        },
                    },
                }
            }
        )
    return {"required": ["artifacts"], "properties": {"artifacts": {"allOf": needed}}}


def _level_schema(levels: list[str]) -> JsonObject:
    """A level, or {level, rationale?}: the two forms a rating may take."""
    return {
        "anyOf": [
            {"enum": levels},
            {"type": "object", "required": ["level"], "properties": {"level": {"enum": levels}}},
        ]
    }

"""Output contracts a step names with `"outputContract": {"contractRef": ...}`.

WorkRail's artifact contracts (`wr.contracts.*`, src/v2/durable-core/schemas/artifacts/ in its
repository) are rewritten here as JSON Schemas (draft 2020-12) that accept exactly what its zod
schemas accept: a `.strict()` object is `additionalProperties: false`, any other object allows
extra keys, `.optional()` leaves a key out of `required`, min/max become minLength/maxLength or
minItems/maxItems, `z.literal` is `const`, `z.enum` is `enum`, `z.union` is `anyOf`. Patterns end in
`$(?!\\n)` because a JSON Schema `$` also matches before a final newline where zod's does not.
The examples are ours; each is a valid artifact. Our own `mr_review.*` contracts follow.

By WorkRail's convention the artifact kind of `wr.contracts.<name>` is `wr.<name>`
(`artifact_kind_of`), which is also the kind a contract this build does not know is given.
"""

from __future__ import annotations

from typing import Any

CONTRACT_NAMESPACE_MARK = ".contracts."

# zod's uuid and datetime checks (zod 3: z.string().uuid(), z.string().datetime() with no options:
# UTC "Z" only, no offset, seconds and fractions optional, calendar dates only).
UUID_PATTERN = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$(?!\\n)"
_DATE = (
    "(([0-9][0-9][2468][048]|[0-9][0-9][13579][26]|[0-9][0-9]0[48]|[02468][048]00|[13579][26]00)-02-29"
    "|[0-9]{4}-((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)"
    "|02-(0[1-9]|1[0-9]|2[0-8])))"
)
_TIME = "([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]+)?)?"
DATETIME_PATTERN = f"^{_DATE}T{_TIME}Z$(?!\\n)"
# WorkRail's DELIMITER_SAFE_ID_PATTERN, for loop ids.
DELIMITER_SAFE_ID = "^[a-z0-9_-]+$(?!\\n)"

CONFIDENCE = {"enum": ["high", "medium", "low"]}
_FILE_LOCATION = {
    "type": "object",
    "properties": {"file": {"type": "string"}, "line": {"type": "integer", "minimum": 1}},
    "required": ["file"],
}


def _text(min_length: int | None = None, max_length: int | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    if min_length is not None:
        schema["minLength"] = min_length
    if max_length is not None:
        schema["maxLength"] = max_length
    return schema


def _list(items: dict[str, Any], max_items: int | None = None, min_items: int | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "array", "items": items}
    if min_items is not None:
        schema["minItems"] = min_items
    if max_items is not None:
        schema["maxItems"] = max_items
    return schema


def _object(properties: dict[str, Any], required: list[str], *, strict: bool) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "required": required, "properties": properties}
    if strict:
        schema["additionalProperties"] = False
    return schema


def _artifact(kind: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    """A top-level artifact: every WorkRail artifact schema is strict and starts with its kind."""
    return _object({"kind": {"const": kind}, **properties}, ["kind", *required], strict=True)


def _lines(max_items: int, max_length: int = 200) -> dict[str, Any]:
    """WorkRail's recurring list of short non-empty lines."""
    return _list(_text(1, max_length), max_items=max_items)


WORKRAIL_CONTRACTS: dict[str, dict[str, Any]] = {
    "wr.contracts.loop_control": {
        "artifactKind": "wr.loop_control",
        "description": "Decides whether the enclosing loop runs another iteration.",
        "schema": _artifact(
            "wr.loop_control",
            {
                "loopId": {**_text(1, 64), "pattern": DELIMITER_SAFE_ID},
                "decision": {"enum": ["continue", "stop"]},
                "metadata": _object(
                    {
                        "reason": _text(max_length=1024),
                        "issuesFound": {"type": "integer", "minimum": 0},
                        "iterationIndex": {"type": "integer", "minimum": 0},
                        "confidence": {"type": "integer", "minimum": 0, "maximum": 100},
                    },
                    [],
                    strict=True,
                ),
            },
            ["decision"],
        ),
        "example": {"kind": "wr.loop_control", "decision": "stop", "metadata": {"reason": "All checks pass."}},
    },
    "wr.contracts.assessment": {
        "artifactKind": "wr.assessment",
        "description": "Rates each dimension of an assessment the step names (assessmentRefs) at one of its levels.",
        "schema": _artifact(
            "wr.assessment",
            {
                "assessmentId": _text(1, 64),
                "dimensions": {
                    "type": "object",
                    "minProperties": 1,
                    "additionalProperties": {
                        "anyOf": [
                            _text(1),
                            _object(
                                {"level": _text(1), "rationale": _text(1, 512)},
                                ["level"],
                                strict=True,
                            ),
                        ]
                    },
                },
                "summary": _text(max_length=1024),
            },
            ["dimensions"],
        ),
        "example": {
            "kind": "wr.assessment",
            "assessmentId": "release-readiness",
            "dimensions": {
                "test_coverage": "high",
                "rollback_plan": {"level": "medium", "rationale": "A manual rollback is written down."},
            },
            "summary": "Ready, with a manual rollback.",
        },
    },
    "wr.contracts.coordinator_signal": {
        "artifactKind": "wr.coordinator_signal",
        "description": "Tells a coordinating agent about progress, a finding, or something the run needs.",
        "schema": _artifact(
            "wr.coordinator_signal",
            {
                "signalKind": {"enum": ["progress", "finding", "data_needed", "approval_needed", "blocked"]},
                "payload": {"type": "object"},
                "sessionId": _text(),
            },
            ["signalKind", "payload"],
        ),
        "example": {
            "kind": "wr.coordinator_signal",
            "signalKind": "finding",
            "payload": {"summary": "The cache is never invalidated on logout."},
        },
    },
    "wr.contracts.review_verdict": {
        "artifactKind": "wr.review_verdict",
        "description": "The verdict of a code review, with its findings (extra fields on a finding are kept).",
        "schema": _artifact(
            "wr.review_verdict",
            {
                "verdict": {"enum": ["clean", "minor", "blocking"]},
                "confidence": CONFIDENCE,
                "findings": _list(
                    _object(
                        {
                            "severity": {"enum": ["critical", "major", "minor", "nit"]},
                            "summary": _text(1),
                            "findingCategory": {
                                "enum": [
                                    "correctness",
                                    "security",
                                    "architecture",
                                    "ux",
                                    "performance",
                                    "testing",
                                    "style",
                                ]
                            },
                        },
                        ["severity", "summary"],
                        strict=False,
                    )
                ),
                "summary": _text(1),
            },
            ["verdict", "confidence", "findings", "summary"],
        ),
        "example": {
            "kind": "wr.review_verdict",
            "verdict": "minor",
            "confidence": "high",
            "findings": [
                {
                    "severity": "minor",
                    "summary": "The retry loop has no upper bound.",
                    "findingCategory": "correctness",
                    "file": "src/client.py",
                }
            ],
            "summary": "One minor finding.",
        },
    },
    "wr.contracts.gate_verdict": {
        "artifactKind": "wr.gate_verdict",
        "description": "An independent evaluator's decision on a gate: approved, rejected or uncertain.",
        "schema": _artifact(
            "wr.gate_verdict",
            {
                "version": {"const": 1},
                "verdict": {"enum": ["approved", "rejected", "uncertain"]},
                "confidence": CONFIDENCE,
                "rationale": _text(20),
            },
            ["version", "verdict", "confidence", "rationale"],
        ),
        "example": {
            "kind": "wr.gate_verdict",
            "version": 1,
            "verdict": "approved",
            "confidence": "medium",
            "rationale": "Every acceptance criterion has a passing test.",
        },
    },
    "wr.contracts.discovery_handoff": {
        "artifactKind": "wr.discovery_handoff",
        "description": "What a discovery phase hands to shaping: the chosen direction and what it rests on.",
        "schema": _artifact(
            "wr.discovery_handoff",
            {
                "version": {"const": 1},
                "selectedDirection": _text(1),
                "designDocPath": _text(),
                "confidenceBand": CONFIDENCE,
                "keyInvariants": _lines(12),
                "rejectedDirections": _list(
                    _object(
                        {"direction": _text(1, 200), "reason": _text(1, 300)},
                        ["direction", "reason"],
                        strict=False,
                    ),
                    max_items=5,
                ),
                "implementationConstraints": _lines(8),
                "keyCodebaseLocations": _list(
                    _object(
                        {"path": _text(1, 300), "relevance": _text(1, 150)},
                        ["path", "relevance"],
                        strict=False,
                    ),
                    max_items=10,
                ),
                "selectionTier": {
                    "enum": ["strong_recommendation", "provisional_recommendation", "insufficient_signal"]
                },
            },
            ["version", "selectedDirection", "designDocPath", "confidenceBand", "keyInvariants"],
        ),
        "example": {
            "kind": "wr.discovery_handoff",
            "version": 1,
            "selectedDirection": "Cache sessions in the existing Redis instance.",
            "designDocPath": "docs/design/session-cache.md",
            "confidenceBand": "medium",
            "keyInvariants": ["A session is never served after logout."],
        },
    },
    "wr.contracts.differentiation_handoff": {
        "artifactKind": "wr.differentiation_handoff",
        "description": "What a differentiation phase hands to shaping: the pitch primitives and how fresh they are.",
        "schema": _artifact(
            "wr.differentiation_handoff",
            {
                "version": {"const": 1},
                "schemaVersion": {"const": "1.0.0"},
                "generatedAt": {"type": "string", "pattern": DATETIME_PATTERN},
                "evidenceFreshness": _object(
                    {
                        "oldestCapturedAt": {"type": "string", "pattern": DATETIME_PATTERN},
                        "newestCapturedAt": {"type": "string", "pattern": DATETIME_PATTERN},
                    },
                    ["oldestCapturedAt", "newestCapturedAt"],
                    strict=False,
                ),
                "validationChecklist": _lines(10),
                "shapingHandoff": _object(
                    {
                        "rawIdea": _text(1),
                        "problem": _text(1),
                        "baseline": _text(1),
                        "appetiteHint": {"enum": ["small_batch", "big_batch"]},
                        "noGosHints": _list(_text()),
                        "constraints": _object(
                            {
                                "teamSize": {"type": "integer", "exclusiveMinimum": 0},
                                "technicalCapabilities": _list(_text(), min_items=1),
                                "exclusions": _list(_text()),
                            },
                            ["teamSize", "technicalCapabilities"],
                            strict=False,
                        ),
                        "evidenceTopK": _list({"type": "string", "pattern": UUID_PATTERN}, max_items=10),
                        "defensibilityClaim": _object(
                            {
                                "power": {
                                    "enum": [
                                        "Counter-Positioning",
                                        "Switching Costs",
                                        "Network Economies",
                                        "Scale Economies",
                                        "Cornered Resource",
                                        "Process Power",
                                        "Branding",
                                        "None_Imitable",
                                    ]
                                },
                                "cannibalization": _text(),
                            },
                            ["power", "cannibalization"],
                            strict=False,
                        ),
                    },
                    [
                        "rawIdea",
                        "problem",
                        "baseline",
                        "appetiteHint",
                        "noGosHints",
                        "constraints",
                        "evidenceTopK",
                        "defensibilityClaim",
                    ],
                    strict=False,
                ),
            },
            ["version", "schemaVersion", "generatedAt", "evidenceFreshness", "validationChecklist", "shapingHandoff"],
        ),
        "example": {
            "kind": "wr.differentiation_handoff",
            "version": 1,
            "schemaVersion": "1.0.0",
            "generatedAt": "2026-03-02T09:30:00Z",
            "evidenceFreshness": {
                "oldestCapturedAt": "2026-02-20T08:00:00Z",
                "newestCapturedAt": "2026-03-01T17:45:00Z",
            },
            "validationChecklist": ["A first invoice can be sent without leaving the timesheet."],
            "shapingHandoff": {
                "rawIdea": "Invoice straight from the timesheet.",
                "problem": "Freelancers retype their hours into a separate invoicing tool every month.",
                "baseline": "A spreadsheet export pasted into an invoice template.",
                "appetiteHint": "small_batch",
                "noGosHints": ["No tax filing."],
                "constraints": {"teamSize": 2, "technicalCapabilities": ["PDF generation"]},
                "evidenceTopK": ["6f1c2b1e-8d4a-4c2e-9a57-3d0e5b7c9f10"],
                "defensibilityClaim": {"power": "Switching Costs", "cannibalization": "None: no invoicing yet."},
            },
        },
    },
    "wr.contracts.shaping_handoff": {
        "artifactKind": "wr.shaping_handoff",
        "description": "What a shaping phase hands to coding: the pitch, its appetite, limits and checks.",
        "schema": _artifact(
            "wr.shaping_handoff",
            {
                "version": {"const": 1},
                "pitchPath": _text(1),
                "selectedShape": _text(1, 200),
                "appetite": _text(1, 100),
                "keyConstraints": _lines(8),
                "rabbitHoles": _lines(6),
                "outOfScope": _lines(6),
                "validationChecklist": _lines(10),
            },
            [
                "version",
                "pitchPath",
                "selectedShape",
                "appetite",
                "keyConstraints",
                "rabbitHoles",
                "outOfScope",
                "validationChecklist",
            ],
        ),
        "example": {
            "kind": "wr.shaping_handoff",
            "version": 1,
            "pitchPath": "docs/pitches/session-cache.md",
            "selectedShape": "A read-through cache in front of the session table.",
            "appetite": "Small batch (two days)",
            "keyConstraints": ["Logout invalidates the cached session at once."],
            "rabbitHoles": ["Cache warming at start-up."],
            "outOfScope": ["Multi-region replication."],
            "validationChecklist": ["All existing session tests pass."],
        },
    },
    "wr.contracts.coding_handoff": {
        "artifactKind": "wr.coding_handoff",
        "description": "What a coding phase hands to review: decisions, known limits, tests and files.",
        "schema": _artifact(
            "wr.coding_handoff",
            {
                "version": {"const": 1},
                "branchName": _text(1),
                "keyDecisions": _lines(8),
                "knownLimitations": _lines(6),
                "testsAdded": _lines(10),
                "filesChanged": _lines(20, 300),
                "correctedAssumptions": _list(
                    _object(
                        {"assumed": _text(1, 200), "actual": _text(1, 200)},
                        ["assumed", "actual"],
                        strict=False,
                    ),
                    max_items=6,
                ),
            },
            ["version", "keyDecisions", "knownLimitations", "testsAdded", "filesChanged"],
        ),
        "example": {
            "kind": "wr.coding_handoff",
            "version": 1,
            "branchName": "feature/session-cache",
            "keyDecisions": ["The cache sits behind the repository so callers do not change."],
            "knownLimitations": [],
            "testsAdded": ["tests/test_session_cache.py"],
            "filesChanged": ["app/sessions/repository.py", "app/sessions/cache.py"],
        },
    },
}

OUR_CONTRACTS: dict[str, dict[str, Any]] = {
    "mr_review.changed_files": {
        "artifactKind": "mr_review.changed_files",
        "description": "The files a change touches, with a one-line summary and a risk level.",
        "schema": {
            "type": "object",
            "required": ["kind", "changedFiles"],
            "properties": {
                "kind": {"const": "mr_review.changed_files"},
                "changedFiles": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["path", "summary", "risk"],
                        "properties": {
                            "path": {"type": "string", "minLength": 1},
                            "summary": {"type": "string"},
                            "risk": {"enum": ["L", "M", "H"]},
                        },
                        "additionalProperties": False,
                    },
                },
            },
            "additionalProperties": False,
        },
        "example": {
            "kind": "mr_review.changed_files",
            "changedFiles": [{"path": "src/app.py", "summary": "Validate input early", "risk": "M"}],
        },
    },
    "mr_review.findings": {
        "artifactKind": "mr_review.findings",
        "description": "Review findings and copy-ready comments.",
        "schema": {
            "type": "object",
            "required": ["kind", "findings"],
            "properties": {
                "kind": {"const": "mr_review.findings"},
                "findings": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["severity", "title"],
                        "properties": {
                            "severity": {"enum": ["Critical", "Major", "Minor", "Nit"]},
                            "location": _FILE_LOCATION,
                            "title": {"type": "string", "minLength": 1},
                            "rationale": {"type": "string"},
                            "suggestion": {"type": "string"},
                        },
                    },
                },
                "mrComments": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["title", "body"],
                        "properties": {
                            "location": _FILE_LOCATION,  # where the comment goes: the same shape as a finding's
                            "title": {"type": "string"},
                            "body": {"type": "string"},
                        },
                    },
                },
            },
        },
        "example": {
            "kind": "mr_review.findings",
            "findings": [{"severity": "Major", "title": "Unchecked None", "location": {"file": "a.py", "line": 3}}],
        },
    },
    # Not WorkRail's: the draft an agent writes with our bundled wr.workflow_authoring. Its shape is
    # checked here; runs/services/drafts.py checks the workflow inside as the loader would.
    "wr.contracts.workflow_draft": {
        "artifactKind": "wr.workflow_draft",
        "description": "A complete workflow document being written, to be checked as the loader checks a file.",
        "schema": {
            "type": "object",
            "required": ["kind", "workflow"],
            "properties": {"kind": {"const": "wr.workflow_draft"}, "workflow": {"type": "object"}},
            "additionalProperties": False,
        },
        "example": {
            "kind": "wr.workflow_draft",
            "workflow": {
                "id": "team.release_checklist",
                "name": "Release checklist",
                "description": "Walks through the checks to run before a release is tagged.",
                "version": "1.0.0",
                "steps": [{"id": "run-checks", "title": "Run the checks", "prompt": "Run each release check."}],
            },
        },
    },
}

CONTRACTS: dict[str, dict[str, Any]] = {**WORKRAIL_CONTRACTS, **OUR_CONTRACTS}


def artifact_kind_of(contract_ref: str) -> str:
    """The artifact kind a contract reference stands for when no registry defines it: WorkRail names
    `wr.contracts.<name>`'s artifacts `wr.<name>` (so `team.contracts.x` gives `team.x`); a reference
    without `.contracts.` is its own kind, as our `mr_review.*` contracts are."""
    known = CONTRACTS.get(contract_ref)
    if known is not None:
        return str(known["artifactKind"])
    namespace, mark, name = contract_ref.partition(CONTRACT_NAMESPACE_MARK)
    return f"{namespace}.{name}" if mark and namespace and name else contract_ref

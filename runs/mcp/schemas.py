"""JSON Schemas of the MCP tools' inputs and outputs: the one source for what the tools accept,
what they return, and the examples in their descriptions (tests validate every example)."""

from __future__ import annotations

from typing import Any

from workflows_app.diagnostics import Code, Severity

DIAGNOSTIC: dict[str, Any] = {
    "type": "object",
    "required": ["code", "severity", "message", "fix", "file", "pointer", "workflowId"],
    "properties": {
        "code": {"enum": [code.value for code in Code]},
        "severity": {"enum": [severity.value for severity in Severity]},
        "message": {"type": "string"},
        "fix": {"type": "string", "description": "What to do about it."},
        "file": {"type": ["string", "null"]},
        "pointer": {"type": "string", "description": "JSON pointer into the file; empty for the whole file."},
        "workflowId": {"type": ["string", "null"]},
        "details": {"type": "object"},
    },
    "additionalProperties": False,
}

WORKFLOW_SUMMARY: dict[str, Any] = {
    "type": "object",
    "required": [
        "id",
        "name",
        "description",
        "version",
        "kind",
        "idStatus",
        "namespace",
        "source",
        "stepCount",
        "workflowHash",
        "warningCount",
    ],
    "properties": {
        "id": {"type": "string"},
        "name": {"type": "string"},
        "description": {"type": "string"},
        "version": {"type": "string"},
        "kind": {"enum": ["workflow", "routine"]},
        "idStatus": {"enum": ["namespaced", "legacy"]},
        "namespace": {"type": ["string", "null"]},
        "source": {
            "type": "object",
            "required": ["kind", "path"],
            "properties": {
                "kind": {"enum": ["bundled", "user", "project", "extra"]},
                "path": {"type": "string"},
            },
            "additionalProperties": False,
        },
        "stepCount": {"type": "integer", "minimum": 1, "description": "Top-level steps as authored."},
        "workflowHash": {"type": "string", "pattern": "^sha256:[0-9a-f]{64}$"},
        "warningCount": {"type": "integer", "minimum": 0, "description": "How many entries of 'warnings' concern it."},
    },
}

LIST_WORKFLOWS_INPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "kind": {"enum": ["workflow", "routine"], "description": "Only workflows or only routines."},
        "namespace": {"type": "string", "description": "Only ids in this namespace, e.g. 'wr'."},
    },
    "additionalProperties": False,
}

LIST_WORKFLOWS_OUTPUT: dict[str, Any] = {
    "type": "object",
    "required": ["count", "workflows", "warnings"],
    "properties": {
        "count": {"type": "integer", "minimum": 0},
        "workflows": {"type": "array", "items": {**WORKFLOW_SUMMARY, "additionalProperties": False}},
        "warnings": {
            "type": "array",
            "items": DIAGNOSTIC,
            "description": "Files that could not be loaded, and loaded workflows with something to fix.",
        },
    },
    "additionalProperties": False,
}

INSPECT_WORKFLOW_INPUT: dict[str, Any] = {
    "type": "object",
    "required": ["workflowId"],
    "properties": {
        "workflowId": {"type": "string", "minLength": 1, "description": "An id from list_workflows."},
        "mode": {
            "enum": ["metadata", "preview"],
            "default": "metadata",
            "description": "metadata: what the workflow is for and its step outline; preview: also each "
            "step's prompt (truncated) and role.",
        },
    },
    "additionalProperties": False,
}

STEP_OUTLINE: dict[str, Any] = {
    "type": "object",
    "required": ["id", "title", "kind"],
    "properties": {
        "id": {"type": "string"},
        "title": {"type": "string"},
        "kind": {"enum": ["step", "loop", "parallel"]},
        "runCondition": {"type": "object"},
        "requireConfirmation": {"type": ["boolean", "object"]},
        "loop": {"type": "object"},
        "body": {"type": "array", "items": {"$ref": "#/$defs/stepOutline"}},
        "prompt": {"type": "string"},
        "promptTruncated": {"type": "boolean"},
        "agentRole": {"type": "string"},
    },
    "additionalProperties": False,
}

INSPECT_WORKFLOW_OUTPUT: dict[str, Any] = {
    "type": "object",
    "required": ["mode", "workflow", "steps"],
    "properties": {
        "mode": {"enum": ["metadata", "preview"]},
        "workflow": {
            **WORKFLOW_SUMMARY,
            "required": [*WORKFLOW_SUMMARY["required"], "warnings"],
            "properties": {
                **WORKFLOW_SUMMARY["properties"],
                "warnings": {"type": "array", "items": DIAGNOSTIC},
                "about": {"type": "string"},
                "preconditions": {"type": "array", "items": {"type": "string"}},
                "clarificationPrompts": {"type": "array", "items": {"type": "string"}},
                "metaGuidance": {"type": "array", "items": {"type": "string"}},
                "recommendedPreferences": {"type": "object"},
                "examples": {"type": "array", "items": {"type": "string"}},
                "features": {"type": "array", "items": {"type": "string"}},
            },
            "additionalProperties": False,
        },
        "steps": {"type": "array", "items": {"$ref": "#/$defs/stepOutline"}},
    },
    "additionalProperties": False,
    "$defs": {"stepOutline": STEP_OUTLINE},
}

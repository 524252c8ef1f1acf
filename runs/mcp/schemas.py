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

TOKEN_FIELD: dict[str, Any] = {"type": "string", "minLength": 1, "maxLength": 200}
WARNING: dict[str, Any] = {
    "type": "object",
    "required": ["code", "message"],
    "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
}
OUTPUT_ENVELOPE: dict[str, Any] = {
    "type": "object",
    "description": "Durable memory for this step: what survives a rewind of the chat.",
    "properties": {
        "notesMarkdown": {"type": "string", "description": "A short recap: what you did, decided, and what is next."},
        "artifacts": {
            "type": "array",
            "items": {"type": "object", "required": ["kind"], "properties": {"kind": {"type": "string"}}},
            "description": "Small structured results, when the step asks for them (see pending.outputContract).",
        },
    },
}
CONTEXT: dict[str, Any] = {
    "type": "object",
    "description": "External facts that steer the workflow (conditions, loop inputs): ticketId, complexity...",
}

PREFERENCES_INPUT: dict[str, Any] = {
    "type": "object",
    "description": "How autonomous the agent is (a closed set). Applies from this point on, and to what follows.",
    "properties": {
        "autonomy": {"enum": ["guided", "full_auto_stop_on_user_deps", "full_auto_never_stop"]},
        "riskPolicy": {"enum": ["conservative", "balanced", "aggressive"]},
    },
    "additionalProperties": False,
}
MODE_INPUT: dict[str, Any] = {
    "enum": ["guided", "autopilot", "unattended"],
    "description": "A preset: guided (ask the user), autopilot (stop only for the user's own input), "
    "unattended (never stop; record gaps). Explicit preferences override it.",
}

START_WORKFLOW_INPUT: dict[str, Any] = {
    "type": "object",
    "required": ["workflowId"],
    "properties": {
        "workflowId": {"type": "string", "minLength": 1, "description": "An id from list_workflows."},
        "context": {
            **CONTEXT,
            "description": CONTEXT["description"] + " A ticketId or sessionKey joins the session that has it.",
        },
        "preferences": PREFERENCES_INPUT,
        "mode": MODE_INPUT,
    },
    "additionalProperties": False,
}

CONTINUE_WORKFLOW_INPUT: dict[str, Any] = {
    "type": "object",
    "required": ["stateToken"],
    "properties": {
        "stateToken": {**TOKEN_FIELD, "description": "From the last response, exactly as given."},
        "ackToken": {
            **TOKEN_FIELD,
            "description": "From the same response: acknowledges the pending step. Omit it to see the pending "
            "step again (with a recap of earlier notes) without advancing.",
        },
        "context": CONTEXT,
        "output": OUTPUT_ENVELOPE,
        "preferences": {**PREFERENCES_INPUT, "description": "With an ackToken: change preferences from here on."},
        "mode": MODE_INPUT,
    },
    "additionalProperties": False,
}

PENDING: dict[str, Any] = {
    "type": ["object", "null"],
    "required": ["stepId", "title", "prompt", "requireConfirmation"],
    "properties": {
        "stepId": {"type": "string"},
        "title": {"type": "string"},
        "prompt": {"type": "string"},
        "agentRole": {"type": ["string", "null"]},
        "requireConfirmation": {"type": "boolean"},
        "notesRequired": {"type": "boolean"},
        "outputContract": {"type": ["object", "null"]},
        "loop": {"type": ["object", "null"]},
        "stepInstance": {"type": "string"},
    },
}
RECAP: dict[str, Any] = {
    "type": "object",
    "required": ["entries", "truncated", "omittedEntries", "policy"],
    "properties": {
        "entries": {"type": "array", "items": {"type": "object"}},
        "truncated": {"type": "boolean"},
        "omittedEntries": {"type": ["integer", "null"]},
        "policy": {"type": "string"},
    },
}

EXECUTION_OUTPUT: dict[str, Any] = {
    "type": "object",
    "required": [
        "kind",
        "isComplete",
        "stateToken",
        "ackToken",
        "pending",
        "session",
        "workflow",
        "progress",
        "warnings",
        "preferences",
        "mode",
        "nextCall",
    ],
    "properties": {
        "kind": {"enum": ["step", "blocked", "complete", "checkpoint"]},
        "isComplete": {"type": "boolean"},
        "stateToken": {"type": "string"},
        "ackToken": {"type": ["string", "null"]},
        "pending": PENDING,
        "session": {
            "type": "object",
            "required": ["sessionId", "runId", "sessionKey"],
            "properties": {
                "sessionId": {"type": "string"},
                "runId": {"type": "string"},
                "sessionKey": {"type": ["string", "null"]},
            },
        },
        "workflow": {"type": "object", "required": ["id", "workflowHash"]},
        "progress": {"type": "object", "required": ["completedSteps"]},
        "warnings": {"type": "array", "items": WARNING},
        "preferences": {"type": "object", "required": ["autonomy", "riskPolicy"]},
        "mode": {"enum": ["guided", "autopilot", "unattended", "custom"]},
        "nextCall": {
            "type": ["object", "null"],
            "required": ["tool", "arguments", "instructions"],
            "properties": {
                "tool": {"const": "continue_workflow"},
                "arguments": {"type": "object"},
                "instructions": {"type": "string"},
            },
        },
        "blocked": {
            "type": "object",
            "required": ["issues", "expectedOutputSchema", "retry"],
            "properties": {
                "issues": {"type": "array", "items": {"type": "object"}},
                "expectedOutputSchema": {"type": ["object", "null"]},
                "expectedInputSchema": {"type": "object"},
                "retry": {"type": "string"},
            },
        },
        "rehydrated": {"type": "boolean"},
        "recap": RECAP,
        "downstreamRecap": RECAP,
        "branches": {"type": "array", "items": {"type": "object"}},
        "fork": {"type": "string"},
        "checkpoint": {"type": "object"},
    },
}


CHECKPOINT_INPUT: dict[str, Any] = {
    "type": "object",
    "required": ["output"],
    "properties": {
        "stateToken": {**TOKEN_FIELD, "description": "The run snapshot the work belongs to (the latest stateToken)."},
        "sessionToken": {**TOKEN_FIELD, "description": "A checkpoint-only session from start_session, instead."},
        "output": {**OUTPUT_ENVELOPE, "minProperties": 1},
    },
    "additionalProperties": False,
}

SESSION_OUTPUT: dict[str, Any] = {
    "type": "object",
    "required": ["kind", "sessionToken", "session", "nextCall"],
    "properties": {
        "kind": {"const": "session"},
        "sessionToken": {"type": "string"},
        "session": {"type": "object", "required": ["sessionId", "sessionKey", "title"]},
        "nextCall": {"type": "object"},
        "joined": {"type": "boolean"},
        "checkpoint": {"type": "object"},
    },
}

CHECKPOINT_OUTPUT: dict[str, Any] = {"type": "object", "oneOf": [EXECUTION_OUTPUT, SESSION_OUTPUT]}

START_SESSION_INPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "minLength": 1, "maxLength": 200},
        "sessionKey": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200,
            "description": "A name to find it again; the same key joins the same session.",
        },
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 60}, "maxItems": 20},
    },
    "additionalProperties": False,
}

RESUME_SESSION_INPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "maxLength": 500, "description": "Words the user used: ticket, topic, title."},
        "gitBranch": {"type": "string", "maxLength": 255},
        "gitHeadSha": {"type": "string", "maxLength": 64},
        "workspacePath": {"type": "string", "maxLength": 1024},
    },
    "additionalProperties": False,
}

RESUME_SESSION_OUTPUT: dict[str, Any] = {
    "type": "object",
    "required": ["candidates"],
    "properties": {
        "candidates": {
            "type": "array",
            "maxItems": 5,
            "items": {"type": "object", "required": ["sessionId", "stateToken", "snippet", "whyMatched"]},
        },
    },
}

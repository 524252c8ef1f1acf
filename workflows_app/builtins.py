"""What the compiler provides by name: prompt snippets (`wr.refs.*`), features (`wr.features.*`),
output contracts (`wr.contracts.*` and artifact contracts), and routine templates.

The texts are ours. Workflows refer to them by id, so they participate in the compiled workflow
and therefore in its hash: editing a snippet here changes the hash of every workflow using it.
"""

from __future__ import annotations

from typing import Any

ROUTINE_TEMPLATE_PREFIX = "wr.templates.routine."

REFS: dict[str, str] = {
    "wr.refs.notes_first_durability": (
        "Write what you learned into output.notesMarkdown before moving on: a few lines on what was "
        "done, what was decided and what comes next. The chat may be rewound or lost; these notes are "
        "what survives and what you (or another agent) will resume from."
    ),
    "wr.refs.parallelize_cognition_serialize_synthesis": (
        "Independent investigations may run in parallel (subagents, separate passes), but bring their "
        "results together in one place, one at a time: a single synthesis owns the final judgement."
    ),
    "wr.refs.synthesis_under_disagreement": (
        "When sources or reviewers disagree, do not average them. Name the disagreement, weigh the "
        "evidence each side has, say which you follow and why, and record what would change your mind."
    ),
}

FEATURES: dict[str, str] = {
    "wr.features.capabilities": (
        "Capabilities: before relying on an optional ability (delegating to subagents, browsing the web, "
        "running commands), check that you actually have it. If you do not, say so in your notes and use "
        "the closest fallback instead of pretending."
    ),
    "wr.features.subagent_guidance": (
        "Subagents: delegate only self-contained work with a precise brief (goal, inputs, expected output). "
        "Review what comes back yourself; a delegated result is evidence, not a verdict."
    ),
    "wr.features.memory_context": (
        "Memory: before starting, look for notes from earlier runs on the same topic (this session's recap, "
        "project docs) and build on them rather than starting over."
    ),
}

CONTRACTS: dict[str, dict[str, Any]] = {
    "wr.contracts.loop_control": {
        "artifactKind": "wr.loop_control",
        "description": "Decides whether the enclosing loop runs another iteration.",
        "schema": {
            "type": "object",
            "required": ["kind", "decision"],
            "properties": {
                "kind": {"const": "wr.loop_control"},
                "decision": {"enum": ["continue", "stop"]},
                "loopId": {"type": "string"},
                "metadata": {"type": "object"},
            },
            "additionalProperties": False,
        },
        "example": {
            "kind": "wr.loop_control",
            "decision": "stop",
            "metadata": {"reason": "All checks pass."},
        },
    },
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
                            "location": {
                                "type": "object",
                                "properties": {
                                    "file": {"type": "string"},
                                    "line": {"type": "integer", "minimum": 1},
                                },
                                "required": ["file"],
                            },
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
                            "location": {"type": "object"},
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
}


def routine_name_of(template_id: str) -> str | None:
    """`wr.templates.routine.design-review` -> `routine-design-review`; None for other templates."""
    if not template_id.startswith(ROUTINE_TEMPLATE_PREFIX):
        return None
    rest = template_id[len(ROUTINE_TEMPLATE_PREFIX) :]
    return f"routine-{rest}" if rest else None

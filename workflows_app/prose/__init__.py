"""HEURISTICS over workflow authors' prose: the one place in the project that reads meaning out of words
people wrote in workflow files (prompts, titles, descriptions). Everything else reads structure, and
nothing here ever parses text the project wrote itself.

Workflow files come from people (ours in workflows_app/bundled, WorkRail's library, a team's), and
WorkRail's prompts say in words what a step asks for: "Capture: `a`, `b`", "context.riskLevel", "set
`reproduced` to true or false", "include 'coding-task-workflow-agentic'". Each reading is a best-effort
guess tuned on those libraries: it answers where the words are plain and says nothing otherwise. The
structure an author declares always comes first (`promptBlocks.outputRequired`, kept by the compiler as a
step's `declaredAsks`), and `manage.py validate_workflow` advises declaring what was read from words.

- asks.py: what one compiled step asks the agent to set and the values it may take (StepAsks), read
  once per compiled workflow by workflows_app/engine/asks.py; the answers read the fields.
- advice.py: for validate_workflow, the steps whose asks came from words and how to declare them.
- confirmations.py: what a step waiting for the user's confirmation asks them to do, read from its
  title, for the dashboard's "Your move · Confirm" panel ("waiting for you to approve the plan").
- descriptions.py: the first sentence of a workflow's description, for a catalog line; its about text
  without the name and description it repeats, for the workflow's page.
- agreement.py: words against structure (contract fields, listed values, stated lengths), for the tests
  that check every bundled workflow and WorkRail's library.

tests/project/test_regex_guard.py fails when a module outside this package applies a regex to prompt,
description or answer text.
"""

from __future__ import annotations

from workflows_app.prose.agreement import (
    Demand,
    Disagreement,
    FieldWords,
    contract_fields,
    disagreements,
    field_demands,
    listed_values,
    stated_character_limits,
    string_limits,
)
from workflows_app.prose.asks import NONE, Ask, NotesAsk, StepAsks, asks_to_delegate, read_step
from workflows_app.prose.confirmations import what_to_confirm
from workflows_app.prose.descriptions import about_below_the_name, when_to_use

__all__ = [
    "NONE",
    "Ask",
    "Demand",
    "Disagreement",
    "FieldWords",
    "NotesAsk",
    "StepAsks",
    "about_below_the_name",
    "asks_to_delegate",
    "contract_fields",
    "disagreements",
    "field_demands",
    "listed_values",
    "read_step",
    "stated_character_limits",
    "string_limits",
    "what_to_confirm",
    "when_to_use",
]

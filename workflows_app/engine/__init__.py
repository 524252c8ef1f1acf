"""The pure workflow interpreter: compiled workflow + engine state + agent output -> next state.

No Django, database, I/O, clock or randomness here: the same inputs always give the same
Transition, which is what makes runs replayable and forkable. See state.py for the state format
and codes.py for the issue and warning codes.

The names below load on first use (PEP 562), so importing one light module of the package
(`jsontypes`, `codes`) does not load the interpreter and jsonschema with it: the MCP server's
handshake path imports type names from here and must stay light (runs/mcp/entry.py).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workflows_app.engine.codes import IssueCode, WarningCode
    from workflows_app.engine.interpreter import (
        advance,
        expected_context,
        loop_sizes,
        outline_length,
        output_schema,
        pending_fragments,
        pending_view,
        recordable_artifact_issues,
        start,
        step_count,
    )
    from workflows_app.engine.sources import worked_through
    from workflows_app.engine.state import STATE_VERSION, StateError
    from workflows_app.engine.transition import Transition

_HOME = {
    "IssueCode": "codes",
    "WarningCode": "codes",
    "advance": "interpreter",
    "expected_context": "interpreter",
    "loop_sizes": "interpreter",
    "outline_length": "interpreter",
    "output_schema": "interpreter",
    "pending_fragments": "interpreter",
    "pending_view": "interpreter",
    "recordable_artifact_issues": "interpreter",
    "start": "interpreter",
    "step_count": "interpreter",
    "STATE_VERSION": "state",
    "StateError": "state",
    "Transition": "transition",
    "worked_through": "sources",
}

__all__ = [
    "STATE_VERSION",
    "IssueCode",
    "StateError",
    "Transition",
    "WarningCode",
    "advance",
    "expected_context",
    "loop_sizes",
    "outline_length",
    "output_schema",
    "pending_fragments",
    "pending_view",
    "recordable_artifact_issues",
    "start",
    "step_count",
    "worked_through",
]


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:  # a submodule not yet imported, or a name that does not exist
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

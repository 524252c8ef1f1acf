"""The continue_workflow path, as tests/project/test_call_path.py checks it and bench/call_path.py
measures it: the modules a call goes through from the MCP tool to the store's journal, and how a
function's parameters are counted.

The rule: every parameter a caller can pass counts (positional, keyword-only, *args, **kwargs), except
a method's `self` or `cls`; the bare `*` that starts keyword-only parameters is no parameter. At most
MAX_PARAMETERS: past that, group them in a small frozen dataclass named for what they are.
"""

from __future__ import annotations

import ast
from types import CodeType

MAX_PARAMETERS = 5

# In call order: the tool's door, the service, the use case (load, decide, record, answer), the journal.
PATH_MODULES = (
    "runs.mcp.tools",
    "runs.mcp.tool_spec",
    "runs.mcp.string_arguments",
    "runs.mcp.boundary",
    "runs.mcp.services",
    "runs.execution.advance",
    "runs.execution.loading",
    "runs.execution.replay",
    "runs.execution.rehydrate",
    "runs.execution.ack_decision",
    "runs.execution.modes",
    "runs.execution.placeholders",
    "runs.execution.drafts",
    "runs.execution.delegations",
    "runs.execution.recording",
    "runs.execution.answer",
    "runs.execution.responses",
    "runs.contract.execution",
    "runs.mcp.rendering",
    "runs.mcp.delegation_text",
    "runs.store.journal",
)


def defined_parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """A function's parameters as written, by the rule above."""
    arguments = function.args
    names = [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]
    count = len(names) - (1 if names[:1] in (["self"], ["cls"]) else 0)
    return count + (arguments.vararg is not None) + (arguments.kwarg is not None)


def code_parameters(code: CodeType) -> int:
    """A running function's parameters (its code object), by the rule above."""
    names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    count = len(names) - (1 if names[:1] in (("self",), ("cls",)) else 0)
    return count + bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)  # CO_VARARGS, CO_VARKEYWORDS

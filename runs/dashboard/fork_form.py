"""The node page's fork form (templates/dashboard/_fork.html): what it shows, and what it sends to the use
case (runs/execution/operator_fork.py).

The form's editor holds the node's whole context as JSON: the developer edits values, adds keys, deletes
a key to remove it. The change the use case records is only what differs from the node's context
(`change_between`), so a key left as it was is no part of it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.http import QueryDict

from runs.contract.dashboard import NodeDetail
from runs.contract.errors import ErrorCode, WorkRailError
from runs.execution.operator_fork import change_between


@dataclass(frozen=True)
class ForkForm:
    context_text: str  # the editor's JSON
    reason: str
    error: WorkRailError | None = None  # shown inline, above the fields


def blank(node: NodeDetail) -> ForkForm:
    """The form as a node page first shows it: the editor holds the node's context."""
    return ForkForm(context_text=pretty(node.context), reason="")


def pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def agent_call(state_token: str) -> str:
    """The continue_workflow call to paste to the agent, as JSON text (runs.contract.fork.AgentCall)."""
    return pretty({"tool": "continue_workflow", "arguments": {"stateToken": state_token}})


def parsed(post: QueryDict, node: NodeDetail) -> tuple[Any, str]:
    """(the change, the reason) the form sent: the change is what the edited context changes in the node's;
    an editor that holds no JSON object is passed on as it is, for the use case to refuse."""
    text = post.get("context", "")
    try:
        edited = json.loads(text) if text.strip() else {}
    except (ValueError, RecursionError) as error:
        where = f" (line {error.lineno}, column {error.colno})" if isinstance(error, json.JSONDecodeError) else ""
        raise WorkRailError(
            ErrorCode.CONTEXT_CHANGE_INVALID,
            f"The context is not valid JSON{where}. Nothing was recorded.",
            'Write the context as a JSON object, such as {"target": "production"}: keys in double quotes, no '
            "trailing comma.",
            details={"pointer": "/context"},
        ) from None
    change = change_between(node.context, edited) if isinstance(edited, dict) else edited
    return change, post.get("reason", "")

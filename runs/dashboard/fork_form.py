"""The node page's fork form (templates/dashboard/_fork.html): what it shows, and what it sends to the use
case (runs/execution/operator_fork.py).

The editor holds the node's context without the keys a fork may not change (the session's keys, the
workflow's loop variables): those are shown beside it, read-only, and kept as they are. The developer edits
values, adds keys, or deletes a key to remove it. The change is only what differs from the node's context
(`change_between`). Nothing is recorded on the first submit: the page shows the change in words
("target: "staging" → "production"; service: removed") and a second button records it, so a key deleted
by mistake is seen before it is gone.

The editor is the JSON textarea, which works without a script; with one (static/dashboard/fork_form.js) it is the other
side of a switch "Edit as: Rows | JSON" and the context is edited as rows, one per top-level key (`rows_of`): a string
as it is, any other value as its JSON (friction22a B4, 22b B12: a person must not have to write JSON to change a value).
The rows and the textarea stay in step, the textarea is what is sent; a list of what changes, against `original`,
follows the typing. The preview the server shows stays what is recorded.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from django.http import QueryDict

from runs.contract.dashboard import NodeDetail
from runs.contract.errors import ErrorCode, WorkRailError
from runs.execution.operator_fork import ForkPlan, change_between, locked_keys_of_run

CONFIRM = "confirm"  # the second submit's field: record the change the page previewed
EDITORS = ("rows", "json")  # the switch "Edit as: Rows | JSON"; its choice comes back with the form (friction62a 11)

# The form's fields a refusal can be about, named by the JSON pointer the use case gives it (details.pointer):
# the page shows the mistake at that field's own label, not above the whole form (friction65a 6: "at /context"
# read as a place the form did not have).
ErrorField = Literal["inputs", "reason"]
_FIELD_OF_POINTER: dict[str, ErrorField] = {"context": "inputs", "reason": "reason"}


@dataclass(frozen=True)
class Preview:
    """The change a confirmed form would record, in words, one line per key."""

    lines: list[str]
    context_text: str  # what was typed, sent again by the confirm button
    reason: str


@dataclass(frozen=True)
class Row:
    """One top-level key of the context, as the rows editor shows it."""

    key: str
    value: str  # what the row's field holds: a string as it is, any other value as its JSON, on one line
    json: bool  # the value is JSON (a number, boolean, null, list or object), not text


def rows_of(context: dict[str, Any]) -> list[Row]:
    """The rows editor's rows, in the context's order."""
    return [
        Row(key, value, False) if isinstance(value, str) else Row(key, json.dumps(value, ensure_ascii=False), True)
        for key, value in context.items()
    ]


@dataclass(frozen=True)
class ForkForm:
    context_text: str  # the editor's JSON (the context without its locked keys)
    reason: str
    error: WorkRailError | None = None  # shown inline, at the field it is about (`error_at`)
    locked: list[tuple[str, str]] = field(default_factory=list)  # (key, its value as JSON): kept as they are
    loop_names: list[str] = field(default_factory=list)  # the workflow's loop variables, which the loops set
    preview: Preview | None = None
    rows: list[Row] | None = None  # the rows editor's, from the textarea's JSON; None: it is not a JSON object
    original: dict[str, Any] = field(default_factory=dict)  # the step's context, locked keys aside: "what changes"
    editor: str = "rows"  # the editor in sight (fork_form.js): the one chosen before a preview or a mistake

    @property
    def error_at(self) -> ErrorField | None:
        """The field the mistake is about, from its pointer's first part ("/context/target": the inputs); None for
        one about no field (a rate limit, a run that moved on), said beside the form's button."""
        pointer = self.error.details.get("pointer") if self.error else None
        if not isinstance(pointer, str):
            return None
        return _FIELD_OF_POINTER.get(pointer.split("/")[1] if pointer.startswith("/") else "")

    @property
    def inputs(self) -> tuple[tuple[str, str], ...]:
        """The step's inputs beside "Branch from here", so a newcomer sees what "inputs" are before opening the form
        (friction24a 7): the step's context, locked keys aside, each (key, its value as its row shows it, on one
        line, cut short), shown as a small key/value list (friction28a 10: "key=value · key=value" read as raw
        text)."""
        return tuple((row.key, _truncated(" ".join(row.value.split()), 40)) for row in rows_of(self.original))

    @property
    def text_rows(self) -> int:
        """The textarea's height in lines: its JSON's, and one to type in, within 4 and 20 (friction23a B6: ten
        lines, most of them empty, for a context of two keys)."""
        return min(max(self.context_text.count("\n") + 2, 4), 20)


def _truncated(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def locked_of(node: NodeDetail) -> set[str]:
    return locked_keys_of_run(node.run.run_id)


def blank(node: NodeDetail, *, locked: set[str] | None = None) -> ForkForm:
    """The form as a node page first shows it: the editor holds the node's context, locked keys aside."""
    return with_text(node, pretty(editable(node.context, locked_of(node) if locked is None else locked)), "")


def with_text(
    node: NodeDetail,
    context_text: str,
    reason: str,
    *,
    error: WorkRailError | None = None,
    preview: Preview | None = None,
    editor: str = "rows",
) -> ForkForm:
    """The form with what the developer typed (and the mistake or the preview to show), in the editor they chose."""
    keys = locked_of(node)
    return ForkForm(
        rows=_rows_of_text(context_text),
        original=editable(node.context, keys),
        context_text=context_text,
        reason=reason,
        error=error,
        locked=[(key, compact(node.context[key])) for key in sorted(keys) if key in node.context],
        loop_names=sorted(key for key in keys if key not in node.context and key not in ("sessionKey", "ticketId")),
        preview=preview,
        editor=editor if editor in EDITORS else "rows",
    )


def _rows_of_text(text: str) -> list[Row] | None:
    try:
        value = json.loads(text) if text.strip() else {}
        json.dumps(value, ensure_ascii=False).encode()  # half a character ("\ud800") has no row: the page says why
    except (ValueError, RecursionError):
        return None
    return rows_of(value) if isinstance(value, dict) else None


def editable(context: dict[str, Any], locked: set[str]) -> dict[str, Any]:
    """The keys a branch may change, in key order: PostgreSQL's JSONB keeps no insertion order, so the editor
    (its JSON and its rows) reads the same on every store, as the locked keys do."""
    return {key: context[key] for key in sorted(context) if key not in locked}


def pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def compact(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:79] + "…"


def agent_call(state_token: str) -> str:
    """The continue_workflow call to paste to the agent, as JSON text (runs.contract.fork.AgentCall)."""
    return pretty({"tool": "continue_workflow", "arguments": {"stateToken": state_token}})


def editor_of(post: QueryDict) -> str:
    """The editor the form was sent from: the page comes back in it (friction62a 11: typed as JSON, shown as rows
    after the preview)."""
    editor = post.get("editor", "")
    return editor if editor in EDITORS else "rows"


def confirmed(post: QueryDict) -> bool:
    return post.get(CONFIRM) == "1"


def parsed(post: QueryDict, node: NodeDetail) -> tuple[Any, str]:
    """(the change, the reason) the form sent: the change is what the edited context changes in the node's
    (the locked keys, not in the editor, stay as they are); an editor that holds no JSON object is passed on
    as it is, for the use case to refuse."""
    text = post.get("context", "")
    try:
        edited = json.loads(text) if text.strip() else {}
    except (ValueError, RecursionError) as error:
        where = f" (line {error.lineno}, column {error.colno})" if isinstance(error, json.JSONDecodeError) else ""
        raise WorkRailError(
            ErrorCode.CONTEXT_CHANGE_INVALID,
            # "inputs", the form's word for them (friction61a 4: "context" here named the same thing twice)
            f"The inputs are not valid JSON{where}. Nothing was recorded.",
            'Write the inputs as a JSON object, such as {"target": "production"}: keys in double quotes, no '
            "trailing comma.",
            details={"pointer": "/context"},
        ) from None
    if not isinstance(edited, dict):
        return edited, post.get("reason", "")
    kept = {key: value for key, value in node.context.items() if key in locked_of(node)}
    return change_between(node.context, kept | edited), post.get("reason", "")


def preview_of(plan: ForkPlan, context_text: str) -> Preview:
    """The change in words: 'target: "staging" → "production"', 'service: removed (was "billing")',
    'region: added, "eu"'; or that nothing changes."""
    lines = []
    for key, value in plan.context_set.items():
        if key in plan.current:
            lines.append(f"{key}: {compact(plan.current[key])} → {compact(value)}")
        else:
            lines.append(f"{key}: added, {compact(value)}")
    lines += [f"{key}: removed (was {compact(plan.current[key])})" for key in plan.context_removed]
    return Preview(lines=lines, context_text=context_text, reason=plan.reason)

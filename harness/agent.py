"""An agent that knows nothing about workflows and answers every blank an answer leaves it.

From a structured execution answer it builds the next `continue_workflow` arguments: those of
`nextCall`, with every `<fill in ...>` blank filled from the machine-readable parts of the answer:
notes of its own (when blocked, notes that satisfy `blocked.expectedOutputSchema`: the words a
`pattern` asks for, the length `minLength`/`maxLength` ask for); each expected context value from
`pending.expectedContext` (the first value the workflow compares it with, else a plain value of its
type, else it leaves the key out); what only the user can give, as a test user would answer; each
assessment's dimensions, at the first level that calls for no follow-up.

The artifacts in `nextCall` are templates whose blanks say their type; this agent fills each blank by
its type alone (`fill_blanks`): the first value of a closed set, a plain sentence for text, the lower
bound for a number, and it removes the fields marked optional; only a free-form object it cannot
write from its type (a whole workflow draft) is modelled on the contract's labelled example. The one
decision it makes on purpose is a loop's: continue on a loop's first pass, stop after, so every loop
runs twice where the workflow lets it and ends by the workflow's own rule, never by something
nextCall decided.

Used by the tests that run whole workflows (tests/support/scripted_agent.py, over the SDK client) and by
bench/answer_size.py (over harness/stdio.py).
"""

from __future__ import annotations

import copy
import re
from typing import Any


def notes_constraints(schema: Any, found: dict[str, Any]) -> None:
    """Patterns and lengths the schema asks of notesMarkdown (all of allOf, the first anyOf option)."""
    if not isinstance(schema, dict):
        return
    notes = schema.get("properties", {}).get("notesMarkdown", {})
    if isinstance(notes.get("pattern"), str) and notes["pattern"] != "\\S":
        found["patterns"].append(notes["pattern"])
    found["min"] = max(found["min"], notes.get("minLength", 0))
    found["max"] = min(found["max"], notes.get("maxLength", found["max"]))
    for part in schema.get("allOf", []):
        notes_constraints(part, found)
    if schema.get("anyOf"):
        notes_constraints(schema["anyOf"][0], found)


def literal(pattern: str) -> str:
    """Text a simple pattern (a word, a contains rule's escaped literal, scoped flags) matches."""
    match = re.fullmatch(r"\(\?[ims]+:(.*)\)", pattern)
    body = match.group(1) if match else pattern
    return re.sub(r"\\(.)", r"\1", body)


def notes_satisfying(step_id: str, schema: dict[str, Any] | None) -> str:
    found: dict[str, Any] = {"patterns": [], "min": 0, "max": 10**9}
    notes_constraints(schema or {}, found)
    words = " ".join(literal(p) for p in found["patterns"])
    text = f"Completed {step_id}. {words}".strip()
    filler = " Checked the result and recorded what comes next."
    while len(text) < found["min"]:
        text += filler
    return text[: found["max"]]


PLAIN_VALUES = {"string": "as the test agent found it", "number": 1, "integer": 1, "boolean": True, "array": []}
USER_ANSWER = "given by the test user"


def is_blank(value: Any) -> bool:
    return isinstance(value, str) and value.startswith("<fill in") and value.endswith(">")


def fill_context(arguments: dict[str, Any], pending: dict[str, Any]) -> None:
    expected = {item["key"]: item for item in pending.get("expectedContext") or []}
    context = arguments.get("context") or {}
    for key, value in list(context.items()):
        if not is_blank(value):
            continue
        if value.startswith("<fill in from the user"):
            context[key] = USER_ANSWER
        elif "current" in expected.get(key, {}):
            del context[key]  # set already: the placeholder offers to keep it, and this agent does
        elif expected.get(key, {}).get("values"):
            context[key] = expected[key]["values"][0]
        elif expected.get(key, {}).get("type") in PLAIN_VALUES:
            context[key] = PLAIN_VALUES[expected[key]["type"]]
        else:
            del context[key]
    if "context" in arguments and not context:
        del arguments["context"]


_BLANK = re.compile(r"^<fill in \((?P<optional>optional; )?(?P<kind>[^)]*)\): (?P<what>.*)>$", re.DOTALL)
OPTIONAL = object()


def fill_blank(value: str, pending: dict[str, Any]) -> Any:
    """The value this agent gives a typed blank, from its type alone (OPTIONAL: leave the field out)."""
    match = _BLANK.match(value)
    assert match is not None, f"not a typed blank: {value}"
    if match["optional"]:
        return OPTIONAL
    kind, what = match["kind"], match["what"]
    if kind.startswith("one of "):
        choices = kind.removeprefix("one of ").split(", ")
        if what == "decision" and {"continue", "stop"} <= set(choices):
            loop = pending.get("loop") or {}
            return "continue" if loop.get("iteration", 1) < 2 else "stop"
        return choices[0]
    if kind.startswith(("integer", "number")):
        bound = re.search(r"(-?\d+) to|at least (-?\d+)", kind)
        return int(next(g for g in bound.groups() if g is not None)) if bound else 1
    if kind.startswith("boolean"):
        return True
    if kind.startswith("Markdown"):
        return f"Completed {pending['stepId']}."
    if kind.startswith("object"):
        # A free-form object (a whole workflow draft, say) cannot be written from its type: like a real
        # agent, this one reads the contract's example for the shape, and writes its own from it.
        example = ((pending.get("outputContract") or {}).get("example") or {}).get(what)
        return copy.deepcopy(example) if isinstance(example, dict) else {}
    if kind.startswith("array"):
        return []
    if "matching " in kind:
        return text_matching(kind.split("matching ", 1)[1])
    if "date-time" in kind:
        return "2026-01-31T09:30:00Z"
    if "a UUID" in kind:
        return "123e4567-e89b-42d3-a456-426614174000"
    return f"{what} as the test agent observed it"


def text_matching(pattern: str) -> str:
    """The simplest text a contract's `pattern` accepts (found by hypothesis, deterministically)."""
    from hypothesis import find, settings
    from hypothesis import strategies as st

    return find(st.from_regex(pattern, fullmatch=True), lambda _: True, settings=settings(database=None))


def fill_blanks(value: Any, pending: dict[str, Any]) -> Any:
    if is_blank(value):
        return fill_blank(value, pending)
    if isinstance(value, dict):
        filled = {
            (fill_blank(key, pending) if is_blank(key) else key): fill_blanks(item, pending)
            for key, item in value.items()
        }
        return {key: item for key, item in filled.items() if item is not OPTIONAL}
    if isinstance(value, list):
        return [item for item in (fill_blanks(item, pending) for item in value) if item is not OPTIONAL]
    return value


def fill_assessments(arguments: dict[str, Any], pending: dict[str, Any]) -> None:
    """Rates each blank dimension of a wr.assessment artifact at the first level that calls for no
    follow-up, as an agent that did the work the workflow asks for would."""
    shown = {item["assessmentId"]: item for item in pending.get("assessments") or []}
    for artifact in arguments.get("output", {}).get("artifacts", []):
        if artifact.get("kind") != "wr.assessment" or artifact.get("assessmentId") not in shown:
            continue
        assessment = shown[artifact["assessmentId"]]
        avoid = {followup["level"] for followup in assessment["followUpWhen"]}
        for dimension in assessment["dimensions"]:
            if is_blank(artifact["dimensions"].get(dimension["id"])):
                levels = [level for level in dimension["levels"] if level not in avoid] or dimension["levels"]
                artifact["dimensions"][dimension["id"]] = levels[0]


def next_arguments(answer: dict[str, Any]) -> dict[str, Any]:
    """The continue_workflow arguments this agent sends after `answer` (a structured execution answer
    that is not complete): nextCall's, every blank filled."""
    call = copy.deepcopy(answer["nextCall"])
    assert call["tool"] == "continue_workflow"
    arguments: dict[str, Any] = call["arguments"]
    pending = answer["pending"]
    schema = answer["blocked"]["expectedOutputSchema"] if answer["kind"] == "blocked" else None
    if "notesMarkdown" in arguments["output"] or schema is not None:
        arguments["output"]["notesMarkdown"] = notes_satisfying(pending["stepId"], schema)
    fill_context(arguments, pending)
    fill_assessments(arguments, pending)
    arguments["output"] = fill_blanks(arguments["output"], pending)
    return arguments

"""The notes resource as an agent reads it: Markdown, not JSON inside a JSON string.

A page of notes (runs/readmodels/resources.py, read_run_notes) is rendered from its typed answer:
first a line saying exactly which entries the page holds ("entries 2 to 4 of 4"), then each entry
with its position, step and notes as they were written, then where the next page is."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from runs.readmodels.resources import NotesPageAnswer
    from runs.readmodels.shapes import RecapEntry

MARKDOWN = "text/markdown"


def notes_page_markdown(page: NotesPageAnswer) -> str:
    """One page of a path's notes, with a range line that matches what follows."""
    entries = page["entries"]
    total = page["totalEntries"]
    lines = [f"# Notes of run {page['runId']}: {_range(page)}", ""]
    if page.get("stateToken"):
        where = "the run is complete there" if page.get("isComplete") else f"pending step `{page.get('pendingStepId')}`"
        lines += [
            f"The path from the run's start to one node ({where}), in path order; other branches are not in it. "
            f"That node's stateToken: {page['stateToken']}",
            "",
        ]
    for item in entries:
        lines += [*_entry_lines(item), ""]
    following = page.get("nextUri")
    if following:
        lines.append(f"Next page (from entry {page.get('nextCursor')} of {total}): {following}")
    elif entries or total:
        lines.append("This is the last page.")
    return "\n".join(lines).rstrip() + "\n"


def _range(page: NotesPageAnswer) -> str:
    entries = page["entries"]
    total = page["totalEntries"]
    if not entries:
        if total == 0:
            return "nothing recorded yet"
        return f"no entries from position {page['cursor']} on ({total} in all)"
    first, last = entries[0].get("position", page["cursor"]), entries[-1].get("position", page["cursor"])
    if first == last:
        return f"entry {first} of {total}"
    return f"entries {first} to {last} of {total}"


def _entry_lines(item: RecapEntry) -> list[str]:
    position = item.get("position")
    number = f"[{position}] " if position is not None else ""
    if item["kind"] == "checkpoint":
        head = f"## {number}Checkpoint" + (f" at `{item['stepId']}`" if item["stepId"] else "")
    else:
        head = f"## {number}{item['title'] or item['stepId']} (`{item['stepId']}`)"
    lines = [head, "", item["notesMarkdown"].strip() or "(no notes)"]
    kinds = [str(kind) for kind in item["artifactKinds"] if kind]
    if kinds:
        lines += ["", f"Artifacts recorded with it: {', '.join(kinds)}"]
    return lines

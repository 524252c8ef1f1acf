"""The notes resource reads as Markdown, and its first line names exactly the entries that follow."""

from __future__ import annotations

import re
from typing import Any

import anyio
import pytest

from runs.mcp.server import WorkRailServer
from tests.runs.readmodels.support import PLAN
from tests.support.mcp_calls import checkpoint_workflow, continue_workflow, start_workflow

INTAKE = "Intake: ticket PAY-9, criteria: no double refunds."


def read(uri: str) -> tuple[str, str]:
    async def reading() -> tuple[str, str]:
        [contents] = list(await WorkRailServer().read_resource(uri))
        return contents.mime_type, contents.content

    return anyio.run(reading)


@pytest.mark.django_db(transaction=True)
def test_the_page_a_recap_points_to_says_which_entries_it_holds_and_shows_them_as_markdown(service_catalog):
    start = start_workflow(PLAN)
    response: dict[str, Any] = continue_workflow(
        stateToken=start["stateToken"], ackToken=start["ackToken"], output={"notesMarkdown": INTAKE}
    )
    for number in range(1, 60):
        note = f"Note {number}:\n\n- tried another fix\n- " + "the retry path again, " * 8
        response = checkpoint_workflow(stateToken=response["stateToken"], output={"notesMarkdown": note})
    gap = continue_workflow(stateToken=response["stateToken"])["recap"]["omitted"]
    assert gap["fromPosition"] == 2 and gap["uri"] in gap["howToRead"]

    mime, page = read(gap["uri"])
    assert mime == "text/markdown"
    first_line = page.splitlines()[0]
    shown = [int(n) for n in re.findall(r"^## \[(\d+)\]", page, re.MULTILINE)]
    assert shown == list(range(2, 22))  # a page of 20, from the first entry left out
    assert first_line.endswith(": entries 2 to 21 of 60")
    assert "\n- tried another fix\n" in page  # the notes as written, not escaped inside a JSON string
    assert "\\n" not in page
    next_line = page.rstrip().splitlines()[-1]
    assert next_line.startswith("Next page (from entry 22 of 60): workrail://runs/")
    _, following = read(next_line.split(": ", 1)[1])
    assert following.splitlines()[0].endswith(": entries 22 to 41 of 60")

"""A workflow's about text as its page shows it, under the name and description already shown
(workflows_app/prose/descriptions.py): the opening heading that repeats the name and an opening paragraph
that repeats the description are left out, everything else is kept as written."""

from __future__ import annotations

import json

import pytest

from tests.support.corpus import CORPUS_WORKFLOWS, skip_without_corpus
from workflows_app.prose import about_below_the_name

NAME = "Adaptive Ticket Creation"
DESCRIPTION = "Creates Jira tickets, from one ticket to a whole epic."


@pytest.mark.parametrize(
    "about",
    [
        "## Adaptive Ticket Creation Workflow\n\nUse this to create tickets.\n\n### When to use it\n\n- Always.",
        "# Adaptive Ticket Creation\nUse this to create tickets.\n\n### When to use it\n\n- Always.",
        f"### Adaptive ticket creation ###\n\n{DESCRIPTION}\n\n"
        "Use this to create tickets.\n\n### When to use it\n\n- Always.",
    ],
)
def test_the_name_and_the_description_are_not_said_again(about):
    assert about_below_the_name(about, NAME, DESCRIPTION) == (
        "Use this to create tickets.\n\n### When to use it\n\n- Always."
    )


def test_a_heading_that_is_not_the_name_and_a_paragraph_that_is_not_the_description_stay():
    about = "## What it does\n\nCreates tickets.\n\n## Tips\n\nBe specific."
    assert about_below_the_name(about, NAME, DESCRIPTION) == about
    assert about_below_the_name("", NAME, DESCRIPTION) == ""


def test_in_workrails_library_no_about_opens_with_its_workflows_name():
    skip_without_corpus()
    for path in sorted(CORPUS_WORKFLOWS.glob("*.json")):
        document = json.loads(path.read_text())
        if not document.get("about"):
            continue
        shown = about_below_the_name(document["about"], document["name"], document.get("description", ""))
        first = shown.splitlines()[0] if shown else ""
        assert document["name"].lower() not in first.lower() or not first.startswith("#"), path.name

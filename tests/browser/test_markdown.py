"""Markdown the way agents and workflow authors write it, in a real browser: on a node page, a list right
after a line (and a line right after a list), a task list and lists nested by 2 and 4 spaces, in the
step's prompt and in the agent's notes; on a workflow page, its About. The DOM is checked (items,
nesting, checkbox state) and a screenshot saved (test-artifacts/screenshots/markdown-node.png,
markdown-workflow.png)."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from runs.models import Node
from tests.browser import screenshot
from tests.support.mcp_calls import ack_with_notes, start_workflow
from tests.support.workflow_files import step_doc, workflow_doc

pytestmark = pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows

PROMPT = (
    "Review the change.\n"
    "Check:\n"
    "- the tests pass\n"
    "- the docs say what changed\n"
    "  - README\n"
    "  - docs/api.md\n"
    "Then:\n"
    "1. write the summary\n"
    "2. ask the user"
)
NOTES = (
    "Reviewed the change.\n"
    "Tasks:\n"
    "- [x] ran `pytest -q`\n"
    "- [ ] update the changelog\n"
    "- [X] read the diff\n"
    "\n"
    "Findings:\n"
    "- auth\n"
    "    - the cookie is set **before** the check\n"
    "        - found in `views.py`\n"
    "- cache: fine <script>window.__pwned = 1</script>"
)
ABOUT = "## Review helper\n\nA small review.\n\n**What it does**\n- reads the diff\n- checks the tests"


@pytest.fixture
def node_id(live_server, service_catalog) -> str:
    document = workflow_doc(
        "team.md_review",
        name="Markdown review",
        about=ABOUT,
        steps=[step_doc("review", "Review", PROMPT), step_doc("wrap-up", "Wrap up", "Say what is left.")],
    )
    (service_catalog["extra"] / "team.md_review.json").write_text(json.dumps(document))
    started = start_workflow("team.md_review", context={"sessionKey": "MD-1"})
    ack_with_notes(started, NOTES)
    node = Node.objects.get(run__public_id=started["session"]["runId"], depth=0)
    return str(node.public_id)


def test_lists_task_lists_and_nested_lists_render_on_a_node_page(page, console_log, live_server, node_id):
    page.goto(f"{live_server.url}/nodes/{node_id}/")
    page.wait_for_load_state("networkidle")

    prompt = page.locator(".markdown.prompt")
    expect(prompt.locator("p").first).to_have_text("Review the change.\nCheck:")
    expect(prompt.locator(":scope > ul > li")).to_have_count(2)  # a list right after a line
    expect(prompt.locator(":scope > ul > li:nth-child(2) > ul > li")).to_have_text(["README", "docs/api.md"])
    expect(prompt.locator(":scope > p").nth(1)).to_have_text("Then:")  # a line after a list ends it
    expect(prompt.locator(":scope > ol > li")).to_have_text(["write the summary", "ask the user"])

    notes = page.locator("#recorded-title ~ ol .markdown.notes").first
    tasks = notes.locator("ul.contains-task-list > li.task-list-item")
    expect(tasks).to_have_count(3)
    boxes = tasks.locator("input[type=checkbox]")
    expect(boxes).to_have_count(3)
    assert [boxes.nth(i).is_checked() for i in range(3)] == [True, False, True]
    assert all(boxes.nth(i).is_disabled() for i in range(3))
    expect(tasks.nth(0)).to_have_text("ran pytest -q")
    # A ticked box is drawn full strength in the done colour, not the browser's faint disabled grey (friction61b 15).
    ok = page.evaluate("getComputedStyle(document.body).getPropertyValue('--ok').trim()")
    ticked = boxes.nth(0).evaluate("(e) => [getComputedStyle(e).backgroundColor, getComputedStyle(e).opacity]")
    probe = page.evaluate(
        "(c) => { const s = document.createElement('span'); s.style.color = c; document.body.append(s);"
        " const v = getComputedStyle(s).color; s.remove(); return v; }",
        ok,
    )
    assert ticked == [probe, "1"], (ticked, probe)
    assert "[x]" not in notes.inner_text() and "[ ]" not in notes.inner_text()

    findings = notes.locator(":scope > ul:not(.contains-task-list)")
    expect(findings.locator(":scope > li")).to_have_count(2)
    expect(findings.locator(":scope > li > ul > li > ul > li")).to_have_text("found in views.py")  # 3 deep, 4 spaces
    expect(findings.locator(":scope > li").nth(1)).to_contain_text("<script>window.__pwned = 1</script>")
    assert page.evaluate("typeof window.__pwned") == "undefined"
    screenshot(page, "markdown-node")
    console_log.assert_clean()


def test_a_workflows_about_is_rendered_not_shown_raw(page, console_log, live_server, node_id):
    page.goto(f"{live_server.url}/workflows/team.md_review/")
    about = page.locator("section[aria-labelledby=about-title] .markdown")
    expect(about.locator("h2")).to_have_text("Review helper")
    expect(about.locator("strong")).to_have_text("What it does")
    expect(about.locator("ul > li")).to_have_text(["reads the diff", "checks the tests"])
    assert "##" not in about.inner_text()
    screenshot(page, "markdown-workflow")
    console_log.assert_clean()

"""Markdown reports: deterministic, complete, and agent notes that cannot break out of their place.

The snapshot (tests/snapshots/reports/small_session.md) is the report of a small completed session
with its ids and times replaced (tests/exports/reports/support.py: normalized); after an intended change of the format,
rewrite it with `UPDATE_SNAPSHOTS=1 .venv/bin/pytest tests/exports/reports/test_reports_markdown.py`.
"""

from __future__ import annotations

import os
import re

import pytest
from markdown_it import MarkdownIt

from exports.reports import html_report, markdown_report, wording
from exports.reports.data import build_report
from exports.reports.safe_markdown import code_block, code_span, inline, notes
from runs.contract.errors import WorkRailError
from tests.exports.reports.support import normalized, small_complete_session
from tests.support.mcp_calls import ack_with_notes, continue_workflow, start_workflow
from tests.support.paths import REPO
from tests.support.sample_session import HOSTILE, two_runs_one_forked_twice

pytestmark = pytest.mark.django_db

SNAPSHOT = REPO / "tests" / "snapshots" / "reports" / "small_session.md"


def report_of(session_id: str, run_id: str | None = None) -> str:
    return markdown_report.render(build_report(session_id, run_id))


def html_of(markdown_text: str) -> str:
    """The report as a common Markdown reader shows it, raw HTML on (the reader's default): what must
    stay inert is checked against this."""
    return MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"]).render(markdown_text)


def test_the_same_store_gives_byte_identical_markdown(service_catalog, settings):
    built = two_runs_one_forked_twice()
    first = report_of(built.session_id)
    assert report_of(built.session_id) == first
    # Time passes and the dashboard now calls the quiet runs stalled; the store is unchanged, and so is
    # the report (no clock in it).
    settings.WORKRAIL_STALL_MINUTES = 0
    from runs.readmodels import overview

    assert overview.session_detail(built.session_id).session.status == "stalled"
    assert report_of(built.session_id) == first
    assert "stalled" not in first


def test_a_small_session_matches_its_snapshot(service_catalog):
    small = small_complete_session()
    text = normalized(report_of(small.session_id))
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        SNAPSHOT.parent.mkdir(parents=True, exist_ok=True)
        SNAPSHOT.write_text(text, encoding="utf-8")
    assert SNAPSHOT.exists(), "No snapshot yet: run with UPDATE_SNAPSHOTS=1 (see the module docstring)."
    assert text == SNAPSHOT.read_text(encoding="utf-8")


def test_the_report_has_header_runs_graph_steps_tables_and_synthesis(service_catalog):
    small = small_complete_session()
    text = report_of(small.session_id)
    for expected in (
        "# Session report: REPORT-1",
        f"| Session | `{small.session_id[:12]}` |",
        "| Status | complete |",
        "## Summary",
        "## Runs",
        "### Branch graph",
        "● Branch 1: 3 steps",  # a checkpoint is not a step
        "##### Step 1 of 3 · Clarify Goal and Constraints",
        "> ## Goal\n>\n> Paginate `/orders`:\n>\n> - keep the old query\n> - add `limit`",  # quoted: a heading
        "Halfway: plan drafted.",
        "#### Changed files",
        "| `src/orders.py` | Paginate | medium |",
        "#### Findings",
        "| 1 | **major** | Unbounded query | `src/orders.py:12` |",
        "#### Summary\n",  # its only branch is not named, as on the session page (friction64 A2)
        "Artifacts that stand:",
        "### Timeline",
        "## Appendix for developers: full ids",
        f"| `{small.session_id[:12]}` | `{small.session_id}` | session |",
    ):
        assert expected in text, expected
    assert "Summary of branch" not in text
    assert text.endswith("\n") and "\r" not in text


def test_the_paper_report_names_the_summarys_branch_only_when_the_run_branched(service_catalog):
    small = small_complete_session()
    html = html_report.render(build_report(small.session_id))
    assert "<h4>Summary</h4>" in html and "Summary of branch" not in html


def test_a_run_report_covers_that_run_only(service_catalog):
    built = two_runs_one_forked_twice()
    text = report_of(built.session_id, built.plan_run)
    assert text.startswith("# Run report: ")
    assert f"| Run | `{built.plan_run[:12]}` |" in text
    assert built.review_run[:12] not in text
    assert "Planned the follow-up." in text
    with pytest.raises(WorkRailError) as refused:
        build_report(built.session_id, "run_0000000000000000")
    assert refused.value.code == "NOT_FOUND"


def test_the_branch_graph_is_a_tree_of_branches(service_catalog):
    built = two_runs_one_forked_twice()
    text = report_of(built.session_id, built.review_run)
    graph = text.split("### Branch graph\n\n```text\n")[1].split("\n```")[0].splitlines()
    assert len(graph) == 3  # the run's three branches
    assert re.match(r"● Branch 1: \d+ steps, ", graph[0])
    assert "newest" in graph[0]
    # Where each grew from, as the run page's list of branches says it: the step each redoes, then the branch
    # (fork_point).
    assert graph[1].startswith("  ├─ Branch 2: redoes Review api · step 4 of 8 (area 1 of 2), from branch 1, ")
    assert graph[2].startswith("  └─ Branch 3: redoes Record the Changed Files · step 2 of 8, from branch 1, ")
    assert not any(re.search(r"\bnode\b", line) for line in graph)  # places and branch numbers, never node ids


def test_hostile_notes_stay_inert_and_inside_their_step(service_catalog):
    start = start_workflow("wr.routine-focused_plan", context={"sessionKey": "HOSTILE-MD"})
    hostile = (
        "# Injected top heading\n\n## Injected section\n\n"
        f"{HOSTILE}\n\n"
        '<a href="javascript:alert(2)">raw link</a> [md link](javascript:alert(3)) [ok](https://example.com/x)\n\n'
        "````\n```\n# not a heading, in code\n```\n````\n\n"
        "| a | b |\n|---|---|\n| <b>x</b> | y |\n\n"
        "Setext heading\n===\n"
    )
    ack_with_notes(start, hostile)
    text = report_of(start["session"]["sessionId"])
    html = html_of(text)
    # Raw HTML and a javascript: link: the note is shown as written, in a code block, so nothing in it acts.
    assert "`````markdown\n# Injected top heading\n\n## Injected section\n\n<script>" in text
    assert "<script" not in html and "<img" not in html and "<svg" not in html and "<b>x" not in html
    assert "&lt;script&gt;" in html
    assert re.findall(r'<a [^>]*href="([^"]*)"', html) == []
    # The report's outline is its own: no heading of the note is a heading of the report.
    assert not re.findall(r"<h\d>[^<]*(Injected|Setext)", html)
    # The note ends where it does: the report goes on after it.
    assert (
        "Injected" not in html.split("</pre>")[-1] and "Appendix for developers: full ids" in html.split("</pre>")[-1]
    )


def test_notes_are_embedded_as_written(service_catalog):
    """Issue 20: the report rewrote `MR !42` as `MR \\!42`, `has_perm()` as `has\\_perm()`, `[ ]` as `\\[ \\]`."""
    start = start_workflow("wr.routine-focused_plan", context={"sessionKey": "VERBATIM"})
    note = (
        "Reviewed MR !42: `has_perm()` is called twice; has_perm() skips staff_users.\n\n"
        "- [ ] add a test\n- [x] read the diff\n\n| a | b |\n|---|---|\n| 1 * 2 | [link](https://example.com) |"
    )
    ack_with_notes(start, note)
    text = report_of(start["session"]["sessionId"])
    assert note in text  # character for character, outside any code block or quote
    assert "\\!" not in text and "\\_" not in text and "\\[" not in text
    assert "<li>[ ] add a test</li>" in html_of(text)


def test_a_note_with_headings_is_quoted_and_keeps_them_inside(service_catalog):
    start = start_workflow("wr.routine-focused_plan", context={"sessionKey": "QUOTED"})
    second = ack_with_notes(start, "# Findings\n\nNone_here, MR !42.\n\nSetext heading\n===")
    ack_with_notes(second, "AFTER-MARKER in the next step.")
    text = report_of(start["session"]["sessionId"])
    assert "> # Findings\n>\n> None_here, MR !42.\n>\n> Setext heading\n> ===" in text
    html = html_of(text)
    quote = html.split("<blockquote>")[1].split("</blockquote>")[0]
    assert "<h1>Findings</h1>" in quote and "<h1>Setext heading</h1>" in quote
    assert "AFTER-MARKER" not in quote and "<h5>Step 2 of 3 · Draft Plan with Risks</h5>" in html


def test_an_unclosed_fence_in_notes_cannot_swallow_the_rest_of_the_report(service_catalog):
    start = start_workflow("wr.routine-focused_plan", context={"sessionKey": "FENCE"})
    second = ack_with_notes(start, "Before.\n\n```\nunclosed code block\n# still code")
    ack_with_notes(second, "AFTER-MARKER in the next step.")
    text = report_of(start["session"]["sessionId"])
    assert "> ```\n> unclosed code block\n> # still code" in text  # quoted: the quote closes the fence
    html = html_of(text)
    assert "AFTER-MARKER" in html.split("</pre>")[-1]  # outside every code block


def test_store_text_helpers_escape_every_markdown_construct():
    assert inline("# not a heading") == "\\# not a heading"
    assert inline("a | b <i>c</i> [x](y) *z*") == "a &#124; b &lt;i&gt;c&lt;/i&gt; \\[x\\](y) \\*z\\*"
    assert inline("1. not a list") == "1\\. not a list"
    assert inline("=== not an underline") == "&#61;== not an underline"
    assert inline("line one\n\n# line two") == "line one # line two"  # one line: no heading
    assert code_span("a ``b`` c") == "```a ``b`` c```"
    block = code_block("```\ninside\n````")
    assert block.startswith("`````\n") and block.endswith("\n`````")
    assert notes("") == ""
    assert notes("# Title\n\ntext") == "**Title**\n\ntext"


def test_a_confirmation_the_agent_gave_names_the_modes_that_let_it():
    # The modes as the dashboard's Mode panel names them, not "full auto" (friction64 A1).
    said = wording.CONFIRMED_BY["agent"]
    assert said == "the agent decided for the user, as the Autopilot or Unattended mode lets it"


def test_gaps_and_warnings_are_reported(service_catalog):
    from tests.support.mcp_calls import notes_for

    start = start_workflow("wr.code_review", {"reviewAreas": ["api"]}, mode="unattended")
    continue_workflow(stateToken=start["stateToken"], ackToken=start["ackToken"], output=notes_for(start["pending"]))
    text = report_of(start["session"]["sessionId"])
    gaps = text.split("#### Open gaps and questions\n\n")[1].split("\n\n#")[0]
    assert "| `establish-scope` | information |" in gaps
    # The mode by the name the dashboard gives it, and what it did, not "full auto" (friction64 A1).
    assert gaps.startswith("Questions only the user could answer, which the agent did not stop for (Unattended mode: ")
    assert "full auto" not in text.lower() and "full-auto" not in text.lower()
    assert wording.GAPS_INTRO in html_report.render(build_report(start["session"]["sessionId"]))
    summary = text.split("## Summary")[1].split("## Runs")[0]
    assert "| Branch 1 (newest, open) |" in summary and "| 1 |" in summary  # one open gap
    warnings = text.split("### Warnings\n\n")[1].split("\n\n")[0]
    assert "| `USER_DEPENDENCY_GAP` |" in warnings
    # Where it was recorded, as the graph's card says it; the node's id is in the appendix for developers.
    assert "| Code | Message | Where | When |" in warnings and "| step 1 of " in warnings

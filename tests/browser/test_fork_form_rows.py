"""Changing a step's context without writing JSON (friction22a B4, 22b B12): the node page's "Redo with changed
inputs…" form edits the context as rows, one per value, or as JSON, a switch "Edit as: Rows | JSON" saying which is
in sight (friction24a 2, 24b 2); the two stay in step, the JSON is checked as it is typed, and "What changes" follows
the typing. The preview the server gives is the same as the JSON way's (static/dashboard/fork_form.js,
runs/dashboard/fork_form.py)."""

from __future__ import annotations

import json

import pytest
from django.conf import settings
from playwright.sync_api import expect

from runs.store import tokens
from runs.store.tokens import TokenKind
from tests.browser.layout import assert_fits, keep_screenshot
from tests.support.mcp_calls import ack, start_workflow
from tests.support.operator_fork import RELEASE, START_CONTEXT, install_release

pytestmark = pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows


def changes_place(page, editor: str) -> str:
    """Where "What changes" sits by the editor in sight: "beside" it (its top level with the editor's) on a
    desktop, "under" it on a phone, in either mode."""
    changes, shown = page.locator("#fork-changes").bounding_box(), page.locator(editor).bounding_box()
    top = page.locator("#fork-editors").bounding_box()["y"]
    if changes["x"] >= shown["x"] + shown["width"] and abs(changes["y"] - top) <= 2:
        return "beside"
    assert changes["y"] >= shown["y"] + shown["height"] - 1, (changes, shown)
    return "under"


# The gaps (px) between the fork form's parts that stood touching at 390 px (friction64): each row's fields and button
# side by side, row after row, "Add a value" after the last row, "What changes" after it, "Why" and its field.
FORM_GAPS = """() => {
  const box = (e) => e.getBoundingClientRect();
  const one = (s) => box(document.querySelector(s));
  const gaps = {};
  const rows = [...document.querySelectorAll("#fork-row-list .fork-row")];
  rows.forEach((row, i) => {
    const parts = [...row.querySelectorAll("input, button")].map(box);
    parts.slice(1).forEach((b, j) => { gaps[`row ${i} across ${j}`] = b.left - parts[j].right; });
    if (i) gaps[`row ${i} under row ${i - 1}`] = box(row.querySelector("input")).top
      - box(rows[i - 1].querySelector("input")).bottom;
  });
  const last = box(rows[rows.length - 1].querySelector("input"));
  gaps["add a value"] = one("#fork-add").top - last.bottom;
  // Under the rows on a phone; beside them on a desktop, a column's gap apart.
  gaps["what changes"] = one("#fork-changes").left > one("#fork-add").right
    ? one("#fork-changes").left - one("#fork-rows").right : one("#fork-changes").top - one("#fork-add").bottom;
  gaps["why and its field"] = one("#fork-reason").top - one("label[for=fork-reason]").bottom;
  gaps["why after the editors"] = one("label[for=fork-reason]").top - one("#fork-editors").bottom;
  return gaps;
}"""


def test_a_row_edits_the_context_the_json_and_the_change_list_follow_and_the_preview_is_the_json_ways(
    sized_page, console_log, site, service_catalog
):
    install_release(service_catalog["extra"])
    start = start_workflow(RELEASE, context=START_CONTEXT)
    ack(start)
    node = tokens.parse(settings.WORKRAIL_HOME, start["stateToken"], TokenKind.STATE).id
    page = sized_page
    page.goto(f"{site}/nodes/{node}/")
    page.locator("#branch-here > summary").click()  # one quiet fold in every state (friction62a 6)
    page.locator("#fork-details > summary").click()
    rows = page.locator("#fork-row-list .fork-row")
    expect(rows).to_have_count(2)  # service, target: ticketId is kept, read-only, aside
    assert page.locator("#fork-row-list .fork-key").evaluate_all("es => es.map(e => e.value)") == ["service", "target"]
    expect(page.locator("#fork-context")).to_be_hidden()  # the other side of the switch
    rows_mode, json_mode = page.locator("#fork-mode [data-mode=rows]"), page.locator("#fork-mode [data-mode=json]")
    expect(page.locator("#fork-mode")).to_have_text("Edit as: RowsJSON")
    expect(rows_mode).to_have_attribute("aria-pressed", "true")
    expect(json_mode).to_have_attribute("aria-pressed", "false")
    # The column labels start where their fields do (friction24a 3: "Value" sat ~30 px right of its fields).
    for label, field in ((0, ".fork-key"), (1, ".fork-value")):
        head = page.locator(".fork-row-head span").nth(label).bounding_box()
        first = page.locator(f"#fork-row-list {field}").first.bounding_box()
        assert abs(head["x"] - first["x"]) <= 2, (label, head, first)
    expect(page.locator("#fork-no-change")).to_be_visible()
    # The rows have column labels, the rule is said once, and whether "Why" is needed is said (friction23a B6).
    expect(page.locator(".fork-row-head")).to_have_text("KeyValue")
    # When the branch is recorded is said once, in the section's "How branching works", not again in the form
    # (friction24b 15: two wordings of it).
    expect(page.locator("#branch-how")).to_contain_text("nothing is recorded until you confirm a preview")
    assert "nothing is recorded" not in page.locator("#fork-details").inner_text().lower()
    expect(page.locator("label[for=fork-reason]")).to_contain_text("Why (required;")
    # friction26a 5: "Preview the change" is off while "Why" is empty, a line saying so in the site's hint style
    # (the reply asking for changes'), and on once it has text; spaces alone are not a reason.
    preview = page.get_by_role("button", name="Preview the change")
    expect(preview).to_be_disabled()
    expect(page.locator("#fork-needs-why.reply-needs-text")).to_have_text("Say why to enable the preview.")
    expect(page.locator("#fork-needs-why")).to_be_visible()
    # Off, it has the one look of a button that is off, the "Not yet" reply's and Import's (friction28b 9): grey
    # with muted words, not a faded blue.
    look = "b => { const s = getComputedStyle(b); return [s.backgroundColor, s.color, s.borderTopStyle, s.opacity]; }"
    surface, muted = page.evaluate(
        "() => ['--surface-2', '--muted'].map(v => getComputedStyle(document.documentElement).getPropertyValue(v))"
    )
    probe = (
        "c => { const d = document.createElement('i'); d.style.color = c; document.body.append(d);"
        " const v = getComputedStyle(d).color; d.remove(); return v; }"
    )
    assert preview.evaluate(look) == [page.evaluate(probe, surface), page.evaluate(probe, muted), "solid", "1"]
    page.locator("#fork-reason").fill("   ")
    expect(preview).to_be_disabled()
    page.locator("#fork-reason").fill("A reason.")
    expect(preview).to_be_enabled()
    expect(page.locator("#fork-needs-why")).to_be_hidden()
    page.locator("#fork-reason").fill("")
    expect(preview).to_be_disabled()

    page.get_by_label("Value of target").fill("production")
    expect(page.locator("#fork-changes li")).to_have_text(['target: "staging" → "production"'])
    expect(page.locator("#fork-no-change")).to_be_hidden()
    assert json.loads(page.locator("#fork-context").input_value()) == {"service": "billing", "target": "production"}

    # A value added, then removed: the list and the JSON follow.
    page.get_by_role("button", name="Add a value").click()
    page.locator(".fork-row").last.locator(".fork-key").fill("region")
    page.get_by_label("Value of region").fill("eu")
    expect(page.locator("#fork-changes li")).to_have_text(['target: "staging" → "production"', 'region: added, "eu"'])
    keep_screenshot(page, "fork-rows")
    assert_fits(page)
    # Nothing touches: fields and buttons a gap apart, the form's parts set apart as its fields are (friction64).
    gaps = page.evaluate(FORM_GAPS)
    tight = {name: gap for name, gap in gaps.items() if gap < (4 if name == "why and its field" else 8)}
    assert not tight, tight
    rows_place = changes_place(page, "#fork-rows")
    assert rows_place == ("beside" if page.viewport_size["width"] > 640 else "under")
    page.get_by_role("button", name="Remove region").click()
    assert "region" not in json.loads(page.locator("#fork-context").input_value())

    # The JSON way: checked as it is typed, where it fails said inline; the rows wait, then follow it.
    # One editor in sight at a time (friction23b 11): "JSON" pressed hides the rows; it is as tall as its JSON.
    json_mode.click()
    expect(page.locator("#fork-rows")).to_be_hidden()
    expect(json_mode).to_have_attribute("aria-pressed", "true")
    expect(rows_mode).to_have_attribute("aria-pressed", "false")
    editor = page.locator("#fork-context")
    assert editor.get_attribute("rows") == "5"  # four lines of JSON and one to type in
    assert editor.bounding_box()["height"] < 150
    # "What changes" keeps its one place in both modes (friction25b 6: above the JSON, beside the rows).
    assert changes_place(page, "#fork-json") == rows_place
    editor.fill('{\n  "service": "billing",\n  "target": "production",\n}')
    expect(page.locator("#fork-json-error")).to_contain_text("not valid JSON at line 4")
    expect(page.get_by_label("Value of target")).to_be_disabled()
    editor.fill('{"service": "payments", "target": "production"}')
    expect(page.locator("#fork-json-error")).to_be_hidden()
    rows_mode.click()  # the rows are back, in step with the JSON
    expect(page.locator("#fork-context")).to_be_hidden()
    expect(page.locator("#fork-rows")).to_be_visible()
    expect(page.get_by_label("Value of service")).to_have_value("payments")
    expect(page.locator("#fork-changes li")).to_have_text(
        ['service: "billing" → "payments"', 'target: "staging" → "production"']
    )
    page.get_by_label("Value of service").fill("billing")  # back as it was: one change, as the JSON way's

    page.locator("#fork-reason").fill("Straight to production.")
    page.get_by_role("button", name="Preview the change").click()
    expect(page.locator("#fork-preview li")).to_have_text(['target: "staging" → "production"'])
    # The preview where its button was, under the inputs and "Why" it previews, the button that records in it and
    # the form's own now a quiet "Preview again" (friction65a 8, 65b 4): one primary button, no way back up.
    box = page.locator("#fork-preview").bounding_box()
    assert box["y"] >= page.locator("#fork-reason").bounding_box()["y"] + 10
    start = page.get_by_role("button", name="Start the branch with this change")
    again = page.locator("#fork-preview-button")
    expect(again).to_have_text("Preview again")
    assert "primary" in start.get_attribute("class") and "primary" not in (again.get_attribute("class") or "")
    expect(page.get_by_role("button", name="Preview the change")).to_have_count(0)
    assert start.bounding_box()["y"] <= again.bounding_box()["y"]  # the button that records first
    # One fold deep: the form as wide as the section's other lines, no rule of its own narrowing its fields on a
    # phone (friction65b 30: nested left rules left the Key inputs about 100 px wide).
    form, lead = page.locator("#fork-details").bounding_box(), page.locator("#branch-inputs").bounding_box()
    assert abs(form["x"] - lead["x"]) <= 1 and abs(form["width"] - lead["width"]) <= 1, (form, lead)
    keep_screenshot(page, "fork-rows-preview")
    assert_fits(page)
    # The page after the preview shows the rows of what was typed.
    expect(page.get_by_label("Value of target")).to_have_value("production")
    # The editor chosen comes back after a preview (friction62a 11: typed as JSON, shown as rows after it).
    json_mode.click()
    page.locator("#fork-context").fill('{"service": "billing", "target": "canary"}')
    page.get_by_role("button", name="Preview again").click()
    expect(page.locator("#fork-preview li")).to_have_text(['target: "staging" → "canary"'])
    expect(page.locator("#fork-context")).to_be_visible()
    expect(page.locator("#fork-rows")).to_be_hidden()
    expect(json_mode).to_have_attribute("aria-pressed", "true")
    console_log.assert_clean()


def test_a_branch_preview_keeps_updating_live_from_the_steps_own_page(page, console_log, site, service_catalog):
    # The preview is the answer to a POST to /nodes/<id>/fork; a live update fetched that address again with a GET,
    # which the server refuses (405, logged in the console, the page no longer updated) when the agent moved while
    # a person previewed. It fetches the step's own page, and the preview stays as it was.
    install_release(service_catalog["extra"])
    start = start_workflow(RELEASE, context=START_CONTEXT)
    moved = ack(start)
    node = tokens.parse(settings.WORKRAIL_HOME, start["stateToken"], TokenKind.STATE).id
    page.goto(f"{site}/nodes/{node}/")
    page.locator("#branch-here > summary").click()
    page.locator("#fork-details > summary").click()
    page.get_by_label("Value of target").fill("production")
    page.locator("#fork-reason").fill("Straight to production.")
    page.get_by_role("button", name="Preview the change").click()
    expect(page.locator("#fork-preview li")).to_have_text(['target: "staging" → "production"'])
    assert page.url.endswith(f"/nodes/{node}/fork")

    def refetched(response) -> bool:
        return response.request.method == "GET" and "/nodes/" in response.url and "/live/" not in response.url

    with page.expect_response(refetched, timeout=10_000) as fresh:
        ack(moved)  # the agent answers the next step while the person looks at the preview
    assert fresh.value.url.endswith(f"/nodes/{node}/") and fresh.value.status == 200
    expect(page.locator("#fork-preview li")).to_have_text(['target: "staging" → "production"'])
    console_log.assert_clean()

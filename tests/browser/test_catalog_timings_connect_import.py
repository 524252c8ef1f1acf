"""The catalog, the tool timings, the connect page and the import page at desktop and phone size, as a
first-time developer reads them (the second friction review, C1-C4): the catalog leads with each
workflow's name and says its tags as the chips do, a failed call says what failed and links to its run,
the connect commands are shown whole and copied by their buttons, and the import page says what a bundle
is. Every page fits its window (tests/browser/layout.py); screenshots are kept."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from playwright.sync_api import expect

from runs.dashboard.connect import connection_instructions
from runs.store import tool_calls
from tests.browser import layout
from tests.browser.layout import DESKTOP, PASTE_NEXT, assert_fits, keep_screenshot, viewport_name
from tests.support.timed_calls import Timed

pytestmark = pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows


def visit(page, url: str, name: str) -> None:
    layout.visit(page, url, name)
    expect(page.locator("body")).not_to_contain_text("{#")  # no template comment shows as text


# Whether an input's placeholder fits inside its text box: the placeholder's width in the input's font
# against the box's inner width.
PLACEHOLDER_FITS = """(input) => {
  const s = getComputedStyle(input);
  const context = document.createElement("canvas").getContext("2d");
  context.font = s.font;
  const room = input.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
  return {text: input.placeholder, needs: context.measureText(input.placeholder).width, room};
}"""


def test_the_catalog_leads_with_names_and_says_tags_as_the_chips_do(sized_page, console_log, site, service_catalog):
    sized_page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site)
    visit(sized_page, site + "/workflows/", "catalog")
    # A column every row would say the same in is said once in the head (every workflow here is bundled); the
    # kinds differ (a routine among workflows), so that column stays.
    headers = sized_page.locator("table.catalog thead th")
    expect(headers).to_have_text(["Workflow", "Kind", "Steps"], ignore_case=True)
    # A plain count: what the six are and where they come from (friction12 10), and what a routine is.
    expect(sized_page.locator(".page-head")).to_contain_text("6 workflows, all bundled with WorkRail")
    expect(sized_page.locator("#routine-hint")).to_be_visible()
    # Each row hands over the message that starts it, the same one as the workflow's own "Start it" box.
    copy = (
        sized_page.locator("tbody tr")
        .filter(has_text="wr.code_review")
        .get_by_role("button", name="Copy the start message")
    )
    # Under the workflow's name, at its left edge, not floating at the row's far end (friction18b 19).
    name_box, copy_box = (
        sized_page.locator("a.workflow-name", has_text="Code Review").bounding_box(),
        copy.bounding_box(),
    )
    assert name_box and copy_box and abs(copy_box["x"] - name_box["x"]) < 2, (name_box, copy_box)
    copy.click()
    expect(copy.locator("xpath=..").locator("[data-copy-status]")).to_have_text(PASTE_NEXT)
    copied = sized_page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith('Run the WorkRail workflow "Code Review"') and '"wr.code_review"' in copied, copied
    # The tag filters are chips: outlined, "All" pressed until a tag is chosen.
    chips = sized_page.locator(".tag-filters a.filter-chip")
    expect(chips.first).to_have_text("All")
    expect(chips.first).to_have_attribute("aria-current", "true")
    assert chips.nth(1).evaluate("a => getComputedStyle(a).borderTopStyle") == "solid"
    # The search says what it looks through in a label in sight, and its placeholder is never cut.
    search = sized_page.get_by_role("searchbox", name="Search names, ids, descriptions and tags")
    expect(sized_page.locator("label[for=workflow-query]")).to_be_visible()
    fits = search.evaluate(PLACEHOLDER_FITS)
    assert fits["text"] and fits["needs"] <= fits["room"], fits
    row = sized_page.locator("tbody tr").filter(has_text="wr.code_review")
    name = row.locator("a.workflow-name")
    expect(name).to_have_text("Code Review")
    expect(row.locator(".workflow-id")).to_have_text("wr.code_review")
    # The id is quiet text under the name: monospace, muted, never underlined (its underscores stay visible).
    id_style = row.locator(".workflow-id").evaluate(
        "el => { const s = getComputedStyle(el); return [s.fontFamily, s.textDecorationLine, s.color] }"
    )
    name_color = name.evaluate("el => getComputedStyle(el).color")
    assert "mono" in id_style[0].lower() and id_style[1] == "none" and id_style[2] != name_color
    name_box, id_box, row_box = name.bounding_box(), row.locator(".workflow-id").bounding_box(), row.bounding_box()
    assert name_box is not None and id_box is not None and row_box is not None
    assert id_box["y"] >= name_box["y"] + name_box["height"] - 1  # beneath the name
    assert name_box["x"] - row_box["x"] < 16  # the name opens the row (on a phone, the card), nothing before it
    # One label per tag: the row says what the chip says, the raw id only in the link.
    tag = row.locator(".row-tags a.tag")
    expect(tag).to_have_text("Review & audit")
    assert tag.get_attribute("href") == "?tag=review_audit"
    expect(sized_page.locator(".tag-filters")).to_contain_text("Review & audit")
    expect(sized_page.locator("table")).not_to_contain_text("review_audit")
    tag.click()
    sized_page.wait_for_load_state("networkidle")
    expect(sized_page.locator("tbody tr")).to_have_count(2)  # the two review workflows
    # Both are workflows, yet the Kind column stays: columns are judged over the catalog, not the filter's rows.
    expect(headers).to_have_text(["Workflow", "Kind", "Steps"], ignore_case=True)
    # The chosen chip is pressed, filled as no other is; "All" is not pressed any more.
    chosen = sized_page.locator(".tag-filters a.filter-chip[aria-current=true]")
    expect(chosen).to_have_count(1)
    expect(chosen).to_contain_text("Review & audit")
    fills = chips.evaluate_all("as => as.map((a) => getComputedStyle(a).backgroundColor)")
    assert fills.count(chosen.evaluate("a => getComputedStyle(a).backgroundColor")) == 1, fills
    keep_screenshot(sized_page, "catalog-by-tag")
    assert_fits(sized_page)
    chosen.click()  # takes its filter off again
    sized_page.wait_for_load_state("networkidle")
    expect(sized_page.locator("tbody tr")).to_have_count(6)
    expect(chips.first).to_have_attribute("aria-current", "true")
    # A search keeps the search box whole beside its button, its "Clear search" on a line of its own on a phone.
    search.fill("review")
    search.press("Enter")
    sized_page.wait_for_load_state("networkidle")
    fits = search.evaluate(PLACEHOLDER_FITS)
    assert fits["needs"] <= fits["room"], fits
    clear = sized_page.get_by_role("link", name="Clear search")
    if sized_page.viewport_size["width"] < DESKTOP.width:
        box, link = search.bounding_box(), clear.bounding_box()
        assert box is not None and link is not None and link["y"] >= box["y"] + box["height"], (box, link)
    clear.click()
    sized_page.wait_for_load_state("networkidle")
    expect(sized_page.locator("tbody tr")).to_have_count(6)
    console_log.assert_clean()


# A row's cells whose content is wider than the cell, so that it runs into the next one.
OVERLAPS = """(row) => [...row.cells]
  .filter((cell) => cell.checkVisibility() && cell.scrollWidth > cell.clientWidth + 1)
  .map((cell) => cell.innerText)"""

# A table row's cells by the line they stand on (tops within a few pixels: cells of one line may sit on a
# shared baseline in different fonts): each line's cells' text, their column name first on a phone.
CELL_LINES = """(row) => {
  const cells = [...row.cells].filter((cell) => cell.checkVisibility()).map((cell) => {
    const label = getComputedStyle(cell, "::before").content;
    const text = (label.startsWith('"') ? label.slice(1, -1) + " " : "") + cell.innerText.replace(/\\s+/g, " ").trim();
    return {top: cell.getBoundingClientRect().top, text};
  });
  const lines = [];
  for (const cell of cells.sort((a, b) => a.top - b.top)) {
    const line = lines.find((l) => Math.abs(l.top - cell.top) < 6);
    if (line) line.texts.push(cell.text); else lines.push({top: cell.top, texts: [cell.text]});
  }
  return lines.map((l) => l.texts);
}"""


def test_a_failed_call_says_what_failed_and_links_to_its_run(sized_page, console_log, site, forked):
    now = datetime.now(UTC)
    tool_calls.save(
        [
            Timed("continue_workflow", "ok", 12.5, now, forked.review_run, forked.session_id),
            Timed("continue_workflow", "RUN_CANCELED", 4.0, now, forked.review_run, forked.session_id),
            Timed("start_workflow", "INTERNAL_ERROR", 1834.25, now, exception="OperationalError"),
            Timed("start_workflow", "WORKFLOW_NOT_FOUND", 3.0, now, message="There is no workflow 'wr.nope' here."),
        ]
    )
    visit(sized_page, site + "/timings/", "timings")
    # Per tool: short headers spelled out in a tooltip; on a phone a compact row per tool, its name on the
    # first line and its figures side by side on the second (each under its short column name, times with
    # their unit), not a stack of a line per column.
    # Two calls per tool: the Median and p95 columns are there all the same, "—" in them, and why said once
    # under the table (friction18a 2: a note about "—" under columns that were not there). The canceled run's
    # refusal is the expected answer: turned away, never red, so continue_workflow shows no red figure.
    stats = sized_page.locator("table.tool-stats")
    expect(stats.locator("thead abbr")).to_have_count(1)
    expect(stats.locator("tbody td").filter(has_text=re.compile("^—$"))).to_have_count(4)
    expect(sized_page.locator("#p95-note")).to_contain_text("a p95 from 20")
    going_on = stats.locator("tbody tr").filter(has_text="continue_workflow")
    expect(going_on.locator(".risk-high")).to_have_count(0)
    # An error count and its share are one piece: never "2" / "(100" / "%)" down a phone's cell (friction19a 2).
    # Friction26b 13: the bad workflow id the agent sent is turned away; only the crash is a red server error.
    failing = stats.locator("tbody tr").filter(has_text="start_workflow").locator(".risk-high")
    expect(failing).to_have_text("1 (50%)")
    assert failing.evaluate("e => e.getClientRects().length") == 1
    for row in stats.locator("tbody tr").all():
        lines = row.evaluate(CELL_LINES)
        if viewport_name(sized_page) == DESKTOP.name:
            assert len(lines) == 1, lines
        else:
            assert len(lines) == 3 and len(lines[0]) == 1, lines  # the tool's name alone, then its figures
            # Every column's figure, the slowest call's too: not dropped without a word (friction9 15), three
            # to a line, the counts then the times (friction20b 1: six to a line ran "2 (100%)" into its
            # neighbour). Two calls per tool: a "—" median, which would only be those calls again (friction16a 18).
            names = [["Calls", "Call", "Server"], ["Median", "p95", "Slowest"]]
            assert [[figure.split()[0] for figure in line] for line in lines[1:]] == names, lines
            # No figure runs into another: each cell's content stays inside its own cell.
            assert row.evaluate(OVERLAPS) == [], row.inner_text()
    # friction62a 7, 62b 5: the call errors told apart from a refused answer under the table, in sight; named by
    # what was wrong, the call (friction63a 2: "Rejected call" read as a third word for a refused answer).
    expect(sized_page.locator("#call-error-note")).to_be_visible()
    expect(sized_page.locator("#call-error-note")).to_contain_text("not a refused answer, nor a server error")
    # Times in the unit that suits them, as on the run pages: "12 ms", "1.8 s", never bare milliseconds.
    figures = " | ".join(stats.locator("tbody td").all_text_contents())
    assert "1,834" not in figures and "1834" not in figures, figures
    assert re.search(r"\b1\.8 s\b", figures) and re.search(r"\b12 ms\b", figures), figures
    recent = sized_page.locator("section[aria-labelledby=recent-title]")
    if viewport_name(sized_page) != DESKTOP.name:
        # A compact card per call: the tool beside when on the first line, no column name before either.
        for row in recent.locator("tbody tr").all():
            first = row.evaluate(CELL_LINES)[0]
            assert len(first) == 2 and any(text.endswith("_workflow") for text in first), first
            assert not any(text.startswith(("When", "Tool")) for text in first), first
    canceled = recent.locator("tbody tr").filter(has_text="RUN_CANCELED")
    expect(canceled).to_contain_text("continue_workflow was told no, as it should be: the run was canceled")
    expect(canceled.locator(".badge")).to_have_text("Call error")
    crash = recent.locator("tbody tr").filter(has_text="INTERNAL_ERROR")
    expect(crash.locator(".badge")).to_have_text("Server error")
    expect(crash).to_contain_text(
        "start_workflow failed inside the server on an unexpected OperationalError; the details are in the stderr of"
        " manage.py mcp"
    )
    expect(recent).not_to_contain_text("without an error code")
    # A failed call says why in its error's own words, as the agent was told them, when they were kept.
    bad_id = recent.locator("tbody tr").filter(has_text="WORKFLOW_NOT_FOUND")
    expect(bad_id).to_contain_text("start_workflow was told no: There is no workflow 'wr.nope' here.")
    expect(bad_id.locator(".badge")).to_have_text("Call error")
    canceled.get_by_role("link").last.click()
    sized_page.wait_for_load_state("networkidle")
    assert sized_page.url.endswith(f"/runs/{forked.review_run}/")
    console_log.assert_clean()


# The pieces of a block's text between its break chances (a space, or a <wbr> after a "/") that are drawn on
# more than one line: a name broken inside itself.
BROKEN_INSIDE_A_NAME = """
el => {
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  const broken = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    let start = 0;
    for (const piece of node.data.split(/(\\s+)/)) {
      if (piece && !/\\s/.test(piece)) {
        const range = document.createRange();
        range.setStart(node, start);
        range.setEnd(node, start + piece.length);
        const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (tops.size > 1) broken.push(piece);
      }
      start += piece.length;
    }
  }
  return broken.length ? broken : null;
}
"""


def test_the_connect_commands_show_whole_and_copy(sized_page, console_log, site, service_catalog, settings):
    # service_catalog: a WORKRAIL_HOME of the test's own, not the one this process read its settings file from
    sized_page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site)
    # With no password in them, the lines work as shown: the buttons copy them as they are.
    settings.DATABASE_URL_SECRET = ""
    sized_page.goto(site + "/connect/")
    expect(sized_page.locator("#password-note")).to_have_count(0)
    for box, button, text in (
        ("#connect-claude", "Copy the command", connection_instructions().claude_code),
        ("#connect-json", "Copy the JSON", connection_instructions().json_config),
    ):
        sized_page.get_by_role("button", name=button).click()
        status = sized_page.locator(box).locator("xpath=preceding-sibling::div[1]").locator("[data-copy-status]")
        expect(status).to_have_text("Copied.")
        assert status.get_attribute("aria-live") == "polite"
        assert sized_page.evaluate("navigator.clipboard.readText()") == text
    settings.DATABASE_URL_SECRET = "postgres://workrail:s3cret@db.local/workrail"
    visit(sized_page, site + "/connect/", "connect")
    # The password is hidden: one clear way to working lines comes first, signing in and back here (friction17b
    # 14); no button offers to copy what would not work (friction12 11), and the masked lines are dimmed.
    # friction22a B12 / 22b A2: what to do leads, as numbered steps; the unusable masked lines do not.
    note = sized_page.locator("#password-note")
    expect(note).to_be_visible()
    expect(note).to_contain_text("The commands hold your database's password, so they are shown to admins.")
    expect(note).to_contain_text(
        "No admin account yet? Make one: run python manage.py createsuperuser in the project folder."
    )
    connect_card = sized_page.locator("section.connect")
    steps = connect_card.locator("#connect-steps > li")
    expect(steps).to_have_count(3)
    expect(steps.nth(1)).to_contain_text("Copy the command for your agent's client")
    expect(steps.nth(2).locator(".step-lead")).to_have_text(
        "Ask the agent to list the workflows (list_workflows) and start one."
    )
    expect(connect_card.get_by_role("button")).to_have_count(0)
    sign_in = connect_card.get_by_role("link", name="Sign in to copy working commands")
    expect(sign_in).to_have_count(1)
    expect(sign_in).to_have_attribute("href", "/admin/login/?next=/connect/")
    # The masked commands are folded under a preview, out of sight until asked for.
    expect(sized_page.locator("#connect-claude")).to_be_hidden()
    sized_page.locator("#connect-preview > summary").click()
    expect(sized_page.locator("#connect-preview > summary")).to_have_text("Preview (password masked)")
    expect(sized_page.locator("#connect-claude")).to_be_visible()
    keep_screenshot(sized_page, "connect-preview")
    first, claude = sign_in.bounding_box(), sized_page.locator("#connect-claude").bounding_box()
    assert first and claude and first["y"] + first["height"] <= claude["y"]
    # friction19b 4: the masked lines do not work as shown, so they are muted (not the text colour) and cannot
    # be selected and copied by hand.
    text_colour = sized_page.locator("h1").evaluate("e => getComputedStyle(e).color")
    for box in ("#connect-claude", "#connect-json"):
        style = sized_page.locator(box).evaluate("e => [getComputedStyle(e).color, getComputedStyle(e).userSelect]")
        assert style[0] != text_colour and style[1] == "none", style
    connect = connection_instructions()
    for box in ("#connect-claude", "#connect-json"):
        pre = sized_page.locator(box)
        # Shown whole at both sizes: nothing hidden behind a sideways scroll inside the block (friction13 4),
        # and a line breaks only after a "/" or at a space, never inside a name (friction12 11).
        assert pre.evaluate("el => el.scrollWidth <= el.clientWidth + 1"), f"{box} scrolls sideways"
        assert not pre.evaluate(BROKEN_INSIDE_A_NAME), f"{box} breaks a name over two lines"
        if sized_page.viewport_size["width"] < DESKTOP.width:
            # In a smaller monospace on a phone, so a long path is two or three lines, not a tall column.
            assert pre.evaluate("el => parseFloat(getComputedStyle(el).fontSize) <= 12"), f"{box} font on a phone"
    # The settings file shown is the one in the WORKRAIL_HOME the commands' server gets: the default, ~/.workrail
    # (tests/browser/conftest.py's `dirs`), which they leave out; shown under "~" as its user knows it, not as a
    # long absolute path (friction62a 12).
    assert "WORKRAIL_HOME" not in connect.env
    expect(sized_page.locator("#connect-claude")).not_to_contain_text("WORKRAIL_HOME")
    settings_file = sized_page.locator("#settings-file-path")
    expect(settings_file).to_have_text("~/.workrail/config.toml")
    # Signed in as staff, on this machine: the buttons copy the working lines, fetched by a POST; the page
    # itself still never holds the password (friction8 6).
    staff = Client()
    staff.force_login(get_user_model().objects.create_user("ops", password="pw-for-tests", is_staff=True))
    sized_page.context.add_cookies([{"name": "sessionid", "value": staff.cookies["sessionid"].value, "url": site}])
    visit(sized_page, site + "/connect/", "connect-signed-in")
    assert "s3cret" not in sized_page.content()
    expect(note).to_contain_text("the copy buttons put it back in what they copy")
    sized_page.get_by_role("button", name="Copy the command, with the password").click()
    expect(sized_page.locator("#connect-claude").locator("xpath=preceding-sibling::div[1]")).to_contain_text(
        "Copied, with the password."
    )
    revealed = connection_instructions(reveal_password=True)
    assert sized_page.evaluate("navigator.clipboard.readText()") == revealed.claude_code
    assert "workrail:s3cret@db.local" in revealed.claude_code
    sized_page.get_by_role("button", name="Copy the JSON, with the password").click()
    expect(sized_page.locator("#connect-json").locator("xpath=preceding-sibling::div[1]")).to_contain_text("Copied")
    assert sized_page.evaluate("navigator.clipboard.readText()") == revealed.json_config
    console_log.assert_clean()
    # Signed out since the page was loaded: the refusal's own words and what to do, from its error body.
    sized_page.context.clear_cookies(name="sessionid")
    sized_page.get_by_role("button", name="Copy the command, with the password").click()
    expect(sized_page.locator("#connect-claude").locator("xpath=preceding-sibling::div[1]")).to_contain_text(
        "Not copied: Only a signed-in staff user on this machine can copy the password. Sign in to the admin"
    )


def test_the_import_page_says_what_a_bundle_is_under_one_heading(sized_page, console_log, site, live_server):
    visit(sized_page, site + "/sessions/import", "import")
    expect(sized_page.locator("h1")).to_have_count(1)
    expect(sized_page.get_by_text("Import a session bundle")).to_have_count(1)
    about = sized_page.locator("#what-a-bundle-is")
    expect(about).to_be_visible()
    expect(about).to_contain_text("another WorkRail dashboard")
    expect(about).not_to_contain_text("manage.py")  # the command line is a footnote under the form
    expect(sized_page.locator("#import-cli")).to_contain_text("manage.py export_session")
    cli = sized_page.locator("#import-cli").bounding_box()
    form_box = sized_page.locator("form.import-form").bounding_box()
    assert cli is not None and form_box is not None and cli["y"] > form_box["y"] + form_box["height"]
    # A drop zone (friction8 15): the real file input, labelled, covers the whole zone, so a click or a drop
    # anywhere on it reaches the browser's picker; the keyboard reaches it too, and it names the chosen file.
    bundle = sized_page.get_by_label("Bundle file")
    expect(bundle).to_be_visible()
    zone = sized_page.locator("#import-drop")
    covered = zone.evaluate(
        "z => { const r = z.getBoundingClientRect(); const hit = (x, y) => document.elementFromPoint(x, y);"
        " return [hit(r.left + r.width / 2, r.top + r.height / 2), hit(r.left + 4, r.top + 4)]"
        ".every(e => e && e.id === 'import-bundle') }"
    )
    assert covered, "a click or a drop on the zone misses the file input"
    assert zone.evaluate("z => getComputedStyle(z).borderTopStyle") == "dashed"
    expect(sized_page.locator("#import-chosen")).to_have_text("No file chosen yet")
    # Nothing to import before a file is chosen (friction15 23); a phone has no drag and drop to offer.
    import_button = sized_page.get_by_role("button", name="Import", exact=True)
    expect(import_button).to_be_disabled()
    hint = sized_page.locator("#import-hint")
    drop_words, choose_words = hint.locator(".drop-words"), hint.locator(".choose-words")
    if viewport_name(sized_page) == DESKTOP.name:
        expect(drop_words).to_contain_text("Drop the .workrail-bundle.json file here")
        expect(choose_words).to_be_hidden()
    else:
        expect(drop_words).to_be_hidden()
        expect(choose_words).to_be_visible()
        expect(choose_words).to_contain_text("Choose the .workrail-bundle.json file")
    sized_page.locator("#import-bundle").focus()
    assert zone.evaluate("z => getComputedStyle(z).outlineStyle") == "solid"  # where the keyboard is, seen
    bundle.dispatch_event("dragenter")  # a file dragged over the zone lights it, until it leaves or drops
    assert zone.evaluate("z => z.classList.contains('dragging')")
    bundle.dispatch_event("dragleave")
    assert not zone.evaluate("z => z.classList.contains('dragging')")
    chosen = {"name": "ses_1.workrail-bundle.json", "mimeType": "application/json", "buffer": b"{}"}
    sized_page.set_input_files("#import-bundle", files=[chosen])
    expect(sized_page.locator("#import-chosen")).to_have_text("Chosen: ses_1.workrail-bundle.json (2 bytes)")
    expect(import_button).to_be_enabled()
    # The copy option sits right under the zone, at its left edge, not far off to the right of it.
    drop, copy = zone.bounding_box(), sized_page.locator(".copy-option").bounding_box()
    assert drop is not None and copy is not None
    assert 0 <= copy["y"] - (drop["y"] + drop["height"]) < 40 and copy["x"] - drop["x"] < 40
    # One sentence, the case first, then the box and what not ticking it does (friction28a 17).
    expect(sized_page.locator(".copy-option")).to_have_text(
        "If this session is already here: import it as a separate copy (otherwise you get a link to the one here)"
    )
    lead, box = sized_page.locator("#copy-lead").bounding_box(), sized_page.locator(".copy-option input")
    assert lead and (b := box.bounding_box()) and (b["x"] > lead["x"] or b["y"] > lead["y"]), (lead, b)
    # The file's name is one piece, never broken inside (friction28a 17), and the page's crumb leads back.
    for name in sized_page.locator("code", has_text=".workrail-bundle.json").filter(visible=True).all():
        assert name.evaluate("e => e.getClientRects().length") == 1
    expect(sized_page.locator("p.crumbs")).to_have_text("Sessions / Import")
    expect(sized_page.get_by_role("link", name="All sessions")).to_have_count(0)
    # The Import button under the option, at the form's left edge (the drop zone's), not floating beside the
    # option's hint (friction22a B14).
    button_box = import_button.bounding_box()
    assert button_box is not None and button_box["y"] >= copy["y"] + copy["height"], (button_box, copy)
    assert abs(button_box["x"] - drop["x"]) < 2, (button_box, drop)
    keep_screenshot(sized_page, "import-chosen")
    assert_fits(sized_page)
    console_log.assert_clean()


def test_an_import_refusal_spans_the_form_like_every_other_box(sized_page, site, live_server, tmp_path):
    broken = tmp_path / "broken.workrail-bundle.json"
    broken.write_text("not a bundle")
    sized_page.goto(site + "/sessions/import")
    sized_page.set_input_files("#import-bundle", str(broken))
    sized_page.get_by_role("button", name="Import", exact=True).click()
    sized_page.wait_for_load_state("networkidle")
    form = sized_page.locator("form.import-form")
    expect(form.locator("#import-error")).to_be_visible()
    # A file that is not JSON from its start is the wrong file, not one cut short (friction60b 15).
    expect(form.locator("#import-error")).to_contain_text(
        "This is not a WorkRail bundle (not JSON). Did you pick the right file?"
    )
    # That it was not imported, said once (friction61a 5: "Not imported: … Nothing was imported.").
    assert form.locator("#import-error").inner_text().lower().count("imported") == 1
    expect(form.locator("#import-error")).not_to_contain_text("cut short")
    expect(form.locator("#import-error")).not_to_contain_text("Expecting value")
    # Posted in place (drop.js), a file refused for what it is is let go: sending it again cannot work, so the
    # line asks for another and Import waits for it (friction63b 10: the bad file stayed "Chosen" beside a blue
    # Import), without "choose the file again".
    import_button = sized_page.get_by_role("button", name="Import", exact=True)
    expect(sized_page.locator("#import-chosen")).to_have_text("Choose another file")
    assert sized_page.locator("#import-bundle").evaluate("input => input.files.length") == 0
    expect(import_button).to_be_disabled()
    expect(form.locator(".choose-again")).to_have_count(0)
    keep_screenshot(sized_page, "import-refused")
    sized_page.set_input_files("#import-bundle", str(broken))
    expect(import_button).to_be_enabled()
    expect(sized_page.locator("#import-chosen")).to_have_text("Chosen: broken.workrail-bundle.json (12 bytes)")
    # A chosen file is neutral, not a success's green under the red refusal (friction10 6).
    zone = sized_page.locator(".drop-zone.has-file")
    ok_green = sized_page.evaluate(
        "() => { const b = document.createElement('span'); b.className = 'badge state-done'; document.body.append(b);"
        " const c = getComputedStyle(b).color; b.remove(); return c }"
    )
    assert zone.evaluate("z => getComputedStyle(z).borderTopColor") != ok_green
    expect(form).to_have_attribute("aria-describedby", re.compile(r"\bimport-error\b"))
    with sized_page.expect_response(lambda r: r.request.method == "POST") as again:
        sized_page.get_by_role("button", name="Import", exact=True).click()
    assert again.value.status == 400
    expect(form.locator("#import-error")).to_have_count(1)  # the refusal replaced, not stacked
    expect(form.locator("#import-error")).to_contain_text("not a WorkRail bundle")  # the file's, not "no file was sent"
    assert_fits(sized_page)
    gap = form.evaluate(
        "f => { const e = f.querySelector('#import-error').getBoundingClientRect();"
        " return f.getBoundingClientRect().right - parseFloat(getComputedStyle(f).paddingRight) - e.right }"
    )
    assert abs(gap) < 2, f"the refusal stops {gap}px short of the form's edge"

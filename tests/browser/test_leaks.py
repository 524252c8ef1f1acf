"""Issue 20's leaks and faults in a real browser: importing a bundle twice (the message, the link to
the existing session, the copy option), a tampered upload refused inline on the form, and a clean
console (favicon included) on the dashboard's and the admin's main pages."""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from exports.bundles import export_session_bundle
from runs.models import Node, Session
from tests.browser import screenshot
from tests.support.sample_session import two_runs_one_forked_twice

pytestmark = pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows


def is_import_post(response) -> bool:
    """The import form's post (drop.js sends it in place, so the page does not navigate)."""
    return response.request.method == "POST" and response.url.endswith("/sessions/import")


def test_importing_a_bundle_already_imported_says_so_links_it_and_offers_a_copy(
    page, live_server, service_catalog, tmp_path
):
    site = str(live_server.url)
    built = two_runs_one_forked_twice()
    bundle = tmp_path / "b.workrail-bundle.json"
    bundle.write_bytes(export_session_bundle(built.session_id, via="command"))

    page.goto(f"{site}/sessions/import")
    page.set_input_files("#import-bundle", str(bundle))
    with page.expect_response(is_import_post) as answer:  # posted in place: the page, and the chosen file, stay
        page.get_by_role("button", name="Import", exact=True).click()
    assert answer.value.status == 409
    error = page.locator("#import-error")
    expect(error).to_contain_text("BUNDLE_ALREADY_IMPORTED")
    expect(error).to_contain_text(f"session “TICKET-4242” ({built.session_id})")  # its key, then its id
    link = error.get_by_role("link", name="Open the existing session")
    expect(link).to_have_attribute("href", f"/sessions/{built.session_id}/")
    screenshot(page, "import-already-imported")
    assert Session.objects.count() == 1

    # The file is still chosen: tick the copy option and import again, nothing to choose twice (friction9 15).
    expect(error).not_to_contain_text("choose the file again")
    page.get_by_label("import it as a separate copy").check()
    page.get_by_role("button", name="Import", exact=True).click()
    expect(page.locator(".messages")).to_contain_text(", a copy with new ids")
    expect(page.locator(".messages")).to_contain_text(
        "a message copied from the original session still resumes the original, not this copy"
    )
    expect(page.locator("h1")).to_have_text("TICKET-4242 (copy)")
    copy = Session.objects.exclude(public_id=built.session_id).get()
    expect(page).to_have_url(f"{site}/sessions/{copy.public_id}/?imported=1")
    screenshot(page, "import-as-a-copy")

    page.goto(f"{site}/sessions/import")  # the link on the refusal leads to the existing session
    page.set_input_files("#import-bundle", str(bundle))
    page.get_by_role("button", name="Import", exact=True).click()
    page.locator("#import-error").get_by_role("link").click()
    expect(page).to_have_url(f"{site}/sessions/{built.session_id}/")


def test_a_tampered_upload_is_refused_inline_on_the_form(page, live_server, service_catalog, tmp_path):
    site = str(live_server.url)
    built = two_runs_one_forked_twice()
    document = json.loads(export_session_bundle(built.session_id, via="command"))
    document["events"][3]["data"]["notesMarkdown"] = "Edited after the export."
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(document))

    page.goto(f"{site}/sessions/import")
    page.set_input_files("#import-bundle", str(tampered))
    with page.expect_response(is_import_post) as answer:
        page.get_by_role("button", name="Import", exact=True).click()
    assert answer.value.status == 400
    form = page.locator("form.import-form")
    expect(form.locator("#import-error")).to_contain_text("BUNDLE_CORRUPT")
    expect(form.locator("#import-error")).to_contain_text("What to do:")
    expect(form.locator("#import-bundle")).to_be_visible()  # choose another file right there
    expect(page.locator("nav[aria-label=Main]")).to_be_visible()  # the dashboard around it, not a bare page
    # The refusal spans the form's whole width, like every other box, not cut short beside the file field.
    spans = form.evaluate(
        "f => { const e = f.querySelector('#import-error').getBoundingClientRect();"
        " const b = f.getBoundingClientRect(); const pad = parseFloat(getComputedStyle(f).paddingRight);"
        " return Math.abs(b.right - pad - e.right) < 2 }"
    )
    assert spans
    screenshot(page, "import-tampered")
    assert Session.objects.count() == 1


def test_the_console_is_clean_on_the_dashboard_and_admin_pages(page, console_log, live_server, service_catalog):
    site = str(live_server.url)
    built = two_runs_one_forked_twice()
    node = Node.objects.filter(run__public_id=built.review_run, depth=1).get().public_id
    dashboard = [
        "/sessions/",
        f"/sessions/{built.session_id}/",
        f"/runs/{built.review_run}/",
        f"/nodes/{node}/",
        "/workflows/",
        "/workflows/wr.risk_scaled_mr_review/",
        "/timings/",
        "/connect/",
        "/sessions/import",
    ]
    for path in dashboard:
        response = page.goto(site + path)
        assert response is not None and response.status == 200, path
        page.wait_for_load_state("networkidle")
    screenshot(page, "import-page")
    page.goto(site + "/connect/")
    expect(page.get_by_text("Connect an agent", exact=True)).to_have_count(1)
    screenshot(page, "connect")

    get_user_model().objects.create_superuser("admin", "admin@example.com", "a-long-test-password")
    page.goto(site + "/admin/login/?next=/admin/")
    page.wait_for_load_state("networkidle")  # Chromium asks for /favicon.ico here: the admin names no icon
    page.fill("#id_username", "admin")
    page.fill("#id_password", "a-long-test-password")
    with page.expect_navigation():
        page.click("input[type=submit]")
    for path in ["/admin/", "/admin/runs/session/", "/admin/runs/run/", "/admin/runs/runsynthesis/"]:
        page.goto(site + path)
        page.wait_for_load_state("networkidle")
    page.goto(site + "/admin/runs/searchentry/")
    page.wait_for_load_state("networkidle")
    expect(page.locator("h1")).to_have_text(re.compile("search entry to view", re.I))
    page.goto(site + "/admin/")
    expect(page.locator("body")).to_contain_text("Branch summaries")
    expect(page.locator("body")).to_contain_text("Search entries")
    screenshot(page, "admin-index-labels")
    console_log.assert_clean()
    favicon = page.request.get(site + "/favicon.ico")
    assert favicon.status == 200 and favicon.headers["content-type"] == "image/svg+xml"


def test_a_node_page_names_nodes_by_their_step_with_one_short_id_length(page, live_server, service_catalog):
    built = two_runs_one_forked_twice()
    forked = Node.objects.filter(run__public_id=built.review_run, children__isnull=False).order_by("depth")
    node = next(n for n in forked if n.children.count() > 1)
    page.goto(f"{live_server.url}/nodes/{node.public_id}/")
    crumbs = page.locator("p.crumbs")
    expect(crumbs).to_contain_text("TICKET-4242")
    expect(crumbs).not_to_contain_text("ses_")
    text = page.locator("main").inner_text()
    assert not re.search(r"\b\d{12,}\b", text), "a full node id in the page's text"
    assert "then pending" not in text and "Branches from this node" not in text
    assert not re.search(r"\b\d{8,}\b", text), "a node id in the page's text: the title attribute has it"
    expect(page.locator("#node-branch-title")).to_have_text("Where it went")  # its next step in it (friction62a 4)
    # Its changed files as the run page's table, the JSON the agent sent in a closed drawer (friction7 item 8).
    recorded = page.locator("section[aria-labelledby=recorded-title]")
    expect(recorded.locator("table.changed-files").first).to_be_visible()
    expect(recorded.locator("details.for-developers pre").first).not_to_be_visible()
    screenshot(page, "node-page-fork-point")

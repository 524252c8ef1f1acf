"""The site works in a real browser under its CSP: pages load with no console errors or violations, and
the admin logs in and is styled."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from tests.browser import SCREENSHOTS_DIR, screenshot
from tests.browser.layout import DESKTOP, PHONE, assert_fits, contrast, keep_screenshot, visit

pytestmark = pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows

ADMIN_CSS = "/static/admin/css/base.css"


@pytest.fixture
def site(live_server, service_catalog):
    """The live server's base URL, with the catalog pointed at empty temporary directories."""
    return live_server.url


def test_the_home_page_loads_with_no_console_errors_or_csp_violations(page, console_log, site):
    response = page.goto(site + "/")
    assert response is not None and response.status == 200
    assert "Content-Security-Policy" in {name.title() for name in response.headers}
    page.wait_for_load_state("networkidle")
    assert page.title()
    console_log.assert_clean()
    assert screenshot(page, "home").stat().st_size > 0


def test_the_admin_login_page_loads_styled_with_no_console_errors(page, console_log, site):
    stylesheets = []
    page.on("response", lambda response: stylesheets.append(response) if response.url.endswith(".css") else None)
    response = page.goto(site + "/admin/login/")
    assert response is not None and response.status == 200
    page.wait_for_load_state("networkidle")
    assert any(r.url.endswith(ADMIN_CSS) and r.status == 200 for r in stylesheets), [r.url for r in stylesheets]
    assert page.locator("#id_username").is_visible()
    console_log.assert_clean()


def log_in_to_admin(page, site: str) -> None:
    """A superuser logs in through the admin's own form and lands on its index."""
    get_user_model().objects.create_superuser("admin", "admin@example.com", "a-long-test-password")
    page.goto(site + "/admin/login/?next=/admin/")
    page.fill("#id_username", "admin")
    page.fill("#id_password", "a-long-test-password")
    with page.expect_navigation():
        page.click("input[type=submit]")


def test_a_superuser_logs_in_through_the_form_and_sees_the_styled_admin_index(page, console_log, site):
    log_in_to_admin(page, site)
    assert page.url == site + "/admin/"
    assert page.locator("#site-name").is_visible()
    with page.expect_response(lambda r: r.url.endswith(ADMIN_CSS)) as css:
        page.reload()
    assert css.value.status == 200
    # The stylesheet is applied, not just fetched: the admin header has its coloured background.
    background = page.eval_on_selector("#header", "el => getComputedStyle(el).backgroundColor")
    assert background not in ("rgba(0, 0, 0, 0)", "transparent"), background
    page.wait_for_load_state("networkidle")
    console_log.assert_clean()
    # At the dashboard's desktop size, the index as wide as a dashboard page (friction18a 23: a 600px column).
    page.set_viewport_size(DESKTOP.size)
    main, bar = page.locator("#content-main").bounding_box(), page.locator("#header").bounding_box()
    assert main and bar and main["width"] > 0.6 * bar["width"], (main, bar)
    expect(page.locator("#user-tools")).not_to_contain_text("Welcome")
    screenshot(page, "admin-index")


def test_the_admin_wears_the_dashboards_brand_and_palette_light_dark_and_phone(page, console_log, site):
    """The admin looks like part of the dashboard: its brand "WorkRail" leads back to the dashboard, and
    its header and page take the dashboard's colours (dashboard.css :root), light and dark, fitting a phone."""
    log_in_to_admin(page, site)
    brand = page.locator("#site-name a.brand")
    # The dashboard's brand and subtitle, not a product called "WorkRail admin" (friction16a 19).
    assert brand.text_content() == "WorkRaillocal dashboard" and brand.get_attribute("href") == "/"
    colours = "() => [document.body, document.querySelector('#header')].map((e) => getComputedStyle(e).backgroundColor)"
    # The dashboard's --bg and --surface, light and dark.
    assert page.evaluate(colours) == ["rgb(251, 251, 250)", "rgb(255, 255, 255)"]
    page.emulate_media(color_scheme="dark")
    assert page.evaluate(colours) == ["rgb(20, 22, 26)", "rgb(27, 30, 35)"]
    screenshot(page, "admin-index-dark")
    page.emulate_media(color_scheme="light")
    page.set_viewport_size(PHONE.size)
    assert_fits(page)
    screenshot(page, "admin-index-phone")
    # The dashboard's top menu on a phone: one row, Sessions, Workflows and "More ▾" holding the rest, as on
    # every dashboard page (not two wrapped rows: friction16b 17).
    menu = page.get_by_role("navigation", name="Main")
    row = menu.locator(":scope > ul.nav > li").filter(visible=True)
    expect(row).to_have_count(3)
    tops = {round(box["y"]) for box in (item.bounding_box() for item in row.all()) if box}
    assert len(tops) == 1, tops
    more = menu.locator(".nav-more summary")
    expect(more).to_have_text("More: Admin")  # "More" (friction18a 15), highlighted, naming the page in it (26a 16)
    # The bar's end is every dashboard page's (friction28a 7, 28b 19): the "?" alone, no theme switch, no letter
    # chip (friction63b 11); who is signed in, "Change password" and "Sign out" are in "More ▾". One row.
    tools = page.locator("#user-tools")
    expect(tools.get_by_role("button", name="Sign out")).to_be_hidden()
    expect(page.locator(".theme-toggle")).to_have_count(0)
    expect(tools.locator("button, svg")).to_have_count(1)  # the hidden line's Sign out alone
    expect(tools.get_by_role("link", name="Words used here")).to_be_visible()
    bar = [page.locator(i).bounding_box() for i in ("#site-name", "#user-tools .words-link", ".nav-more summary")]
    assert all(bar), bar
    assert max(b["y"] + b["height"] / 2 for b in bar) - min(b["y"] + b["height"] / 2 for b in bar) < 8, bar
    assert bar[2]["x"] + bar[2]["width"] + 4 <= bar[1]["x"], bar  # "More" clear of the "?" (friction59b 8)
    more.click()
    expect(menu.locator(".menu-who")).to_have_text("Signed in as admin")
    for name, href in (("Connect", "/connect/"), ("Tool timings", "/timings/")):
        expect(menu.get_by_role("link", name=name, exact=True)).to_be_visible()
        assert menu.get_by_role("link", name=name, exact=True).get_attribute("href") == href
    expect(menu.get_by_role("link", name="Change password")).to_be_visible()
    expect(menu.get_by_role("button", name="Sign out")).to_be_visible()
    keep_screenshot(page, "admin-index-menu")
    page.keyboard.press("Escape")  # menus.js closes it, as on the dashboard
    expect(menu.get_by_role("link", name="Connect", exact=True)).to_be_hidden()
    # On a desktop every entry in the row, as wide as the dashboard's pages: the brand starts where theirs does.
    page.set_viewport_size(DESKTOP.size)
    for name, href in (("Sessions", "/sessions/"), ("Workflows", "/workflows/"), ("Connect", "/connect/")):
        expect(menu.get_by_role("link", name=name, exact=True)).to_be_visible()
        assert menu.get_by_role("link", name=name, exact=True).get_attribute("href") == href
    keep_screenshot(page, "admin-index")
    # Every "View" at its table's right edge, a read-only one among "Change" links too (friction17a 9).
    rights = {
        round(box["x"] + box["width"]) for box in (a.bounding_box() for a in page.locator("a.viewlink").all()) if box
    }
    assert len(rights) == 1, rights
    admin_left = brand.bounding_box()["x"]
    expect(menu.get_by_role("link", name="Admin")).to_have_attribute("aria-current", "page")
    # The dashboard's line, in its words and style, not Django's "Change password / Log out".
    expect(page.locator("#account-line")).to_have_text("Signed in as admin · Sign out")
    expect(page.locator("#user-tools").get_by_role("link", name="Change password")).to_have_count(0)
    expect(page.locator("#user-tools").get_by_role("link", name="Words used here")).to_be_visible()
    menu.get_by_role("link", name="Workflows").click()
    expect(page).to_have_url(site + "/workflows/")
    # The URL changes when the new page commits, before its stylesheet applies: measure once it has loaded, or the
    # brand sits at the browser's default 8px body margin.
    page.wait_for_load_state("load")
    dashboard_left = page.locator("header.topbar a.brand").bounding_box()["x"]
    assert abs(dashboard_left - admin_left) < 1, (dashboard_left, admin_left)
    page.go_back()
    brand.click()
    page.wait_for_load_state("networkidle")
    assert page.url.startswith(site) and "/admin/" not in page.url
    console_log.assert_clean()


# Each text of the admin's bar and index with the colour it is read on: the nearest ancestor's with a background.
INKS = """() => [...document.querySelectorAll(
    '#site-name a.brand, #site-name a.brand span, #header .nav a, #user-tools .account-line, '
    + '#content-main .module caption, #content-main .module th a, #content-main .module td a, '
    + '#content-main .module .model-description')].filter((e) => e.offsetParent).map((e) => {
    let ground = e, bg = 'rgba(0, 0, 0, 0)';
    while (ground && (bg = getComputedStyle(ground).backgroundColor) === 'rgba(0, 0, 0, 0)') {
        ground = ground.parentElement;
    }
    return [e.textContent.trim().slice(0, 30), getComputedStyle(e).color, bg, getComputedStyle(e).opacity];
})"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_admin_index_is_readable_in_people_s_words_light_and_dark(page, console_log, site, scheme):
    """The index names each table as a person would, with one line on what a row is, in sections (friction60a
    17, 60b 11: internal table names, "Groups", "Recent actions: None available"); and every text of its bar and
    lists reads at 4.5:1 or more, the brand and the first links too (in dark they were dimmer than the rest)."""
    log_in_to_admin(page, site)
    # Switched on the open page, as a system's theme switches, and read at once: a colour still fading from
    # the other scheme's is what the reader saw dim.
    page.emulate_media(color_scheme=scheme)
    inks = page.evaluate(INKS)
    assert len(inks) > 20, inks
    for text, ink, ground, opacity in inks:
        assert opacity == "1" and contrast(ink, ground) >= 4.5, (text, ink, ground, contrast(ink, ground))
    captions = [c.strip() for c in page.locator("#content-main .module caption").all_text_contents()]
    assert captions[:3] == ["Who can sign in", "Sessions and runs (read only)", "For developers (read only)"], captions
    names = page.locator("#content-main .module th a").all_text_contents()
    for name in (
        "Branch summaries",
        "Step notes",
        "Workflow copies",
        "Answer tokens",
        "Questions a full-auto run skipped",
    ):
        assert name in names, names
    for old in ("Groups", "Outputs", "Pinned workflows", "Step attempts", "Finished branch records"):
        assert old not in names, names
    expect(page.locator("#runs-event-what")).to_have_text("The append-only history every table above is rebuilt from.")
    expect(page.get_by_text("Recent actions")).to_have_count(0)
    screenshot(page, f"admin-index-{scheme}-readable")
    console_log.assert_clean()


def test_the_harness_notices_a_csp_violation(page, console_log, site):
    console_log.allow_csp_violations()
    page.goto(site + "/admin/login/")
    # An inline script added to the DOM: the CSP (script-src 'self') must block it.
    page.evaluate(
        """() => {
            const script = document.createElement("script");
            script.textContent = "window.__ran = true";
            document.body.appendChild(script);
        }"""
    )
    page.wait_for_timeout(200)
    assert page.evaluate("() => window.__ran === undefined")
    assert console_log.csp_violations, console_log.messages


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_admin_sign_in_page_shows_the_brand_whole_and_no_menu(page, console_log, site, size):
    """Its narrow card held the dashboard's menu, which pushed the brand out of sight and was cut mid-word
    (friction59a 8, 59b 9): the card's head is the brand alone, whole, leading back to the dashboard."""
    page.set_viewport_size(size.size)
    page.goto(site + "/admin/login/")
    brand = page.locator("#site-name a.brand")
    expect(brand).to_be_visible()
    assert brand.get_attribute("href") == "/"
    card, box = page.locator("#container").bounding_box(), brand.bounding_box()
    assert card and box and card["x"] <= box["x"] and box["x"] + box["width"] <= card["x"] + card["width"], (card, box)
    expect(page.get_by_role("navigation", name="Main")).to_have_count(0)
    assert page.locator("#header").evaluate("h => h.scrollWidth <= h.clientWidth")
    # Which account it wants and where one comes from, and the way back (friction60a 17, 60b 11).
    expect(page.locator("#login-what")).to_have_text(
        "Sign in with an admin account. To make one, run python manage.py createsuperuser in the project folder."
    )
    back = page.get_by_role("link", name="Back to the dashboard")
    expect(back).to_be_visible()
    assert back.get_attribute("href") == "/"
    # The dashboard's look, not the stock admin's (friction62b 20): its page colour, the button in plain case.
    page_colour = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert page_colour == "rgb(251, 251, 250)", page_colour  # dashboard.css --bg
    button = page.locator("#login-form input[type=submit]")
    assert button.evaluate("b => [b.value, getComputedStyle(b).textTransform]") == ["Sign in", "none"]
    assert_fits(page)
    screenshot(page, f"admin-login-{size.name}")
    console_log.assert_clean()


def test_screenshots_go_to_the_git_ignored_artifacts_dir(page, site):
    page.goto(site + "/admin/login/")
    path = screenshot(page, "admin login / smoke")
    assert path == SCREENSHOTS_DIR / "admin-login-smoke.png"
    assert path.read_bytes().startswith(b"\x89PNG")


def test_the_api_docs_page_renders_from_local_files_under_the_csp(page, console_log, site):
    get_user_model().objects.create_superuser("admin", "admin@example.com", "a-long-test-password")
    page.goto(site + "/admin/login/?next=/api/v1/docs")
    page.fill("#id_username", "admin")
    page.fill("#id_password", "a-long-test-password")
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    with page.expect_navigation():
        page.click("input[type=submit]")
    assert page.url == site + "/api/v1/docs"
    page.wait_for_selector(".swagger-ui .opblock", timeout=15_000)  # the operations are listed
    assert page.get_by_text("/api/v1/sessions", exact=True).first.is_visible()
    assert all(url.startswith(site) for url in requested), [u for u in requested if not u.startswith(site)]
    console_log.assert_clean()


def test_every_dashboard_page_says_who_is_signed_in(sized_page, console_log, site, viewport):
    """Signed in, a dashboard page's bar names the person with a way out (friction26b 19: only the admin did): at
    the bar's end on a desktop, at the top of "More" on a phone, the bar one row at both sizes. Logging out comes
    back to the page, signed out."""
    log_in_to_admin(sized_page, site)
    visit(sized_page, site + "/workflows/", "signed-in")
    line = sized_page.locator("#account-line")
    if viewport == PHONE:
        expect(line).to_be_hidden()
        # One place for the account on a phone, "More", with the name (friction63b 11: a letter chip in the bar was
        # cryptic, and "More" said it again): the bar shows the brand, Sessions, Workflows, More and the "?" alone.
        bar = sized_page.locator(".topbar-inner > *").filter(visible=True)
        expect(bar).to_have_count(3)  # the brand, the menu and the "?"
        expect(sized_page.locator(".topbar").get_by_text("Signed in").filter(visible=True)).to_have_count(0)
        expect(sized_page.locator(".topbar button, .topbar svg").filter(visible=True)).to_have_count(0)
        sized_page.locator(".nav-more summary").click()
        who = sized_page.locator(".nav-more .menu-who")
        expect(who).to_have_text("Signed in as admin")
        expect(who).to_be_in_viewport()
        # The menu's first entry, above the pages (friction27a 6), and on screen (the log-out too).
        first = sized_page.locator(".nav-more details > ul > li").first
        expect(first).to_have_text("Signed in as admin")
        pages = sized_page.locator(".nav-more ul").get_by_role("link", name="Tool timings").bounding_box()
        logout = sized_page.locator(".nav-more .menu-logout").bounding_box()
        assert pages and logout and logout["y"] < pages["y"], (logout, pages)
        out = sized_page.locator(".nav-more .menu-logout")
    else:
        expect(line).to_have_text("Signed in as admin · Sign out")
        bar, nav = line.bounding_box(), sized_page.locator(".topbar nav").bounding_box()
        assert bar and nav and abs(bar["y"] + bar["height"] / 2 - (nav["y"] + nav["height"] / 2)) < 8, (bar, nav)
        # At the bar's right, beside the "?", not floating mid-bar (friction63b 11).
        words = sized_page.locator(".words-link").bounding_box()
        assert words and 0 < words["x"] - (bar["x"] + bar["width"]) < 40, (bar, words)
        out = line.get_by_role("button", name="Sign out")
    with sized_page.expect_navigation():
        out.click()
    assert sized_page.url == site + "/workflows/"
    expect(sized_page.get_by_text("Signed in as")).to_have_count(0)
    console_log.assert_clean()

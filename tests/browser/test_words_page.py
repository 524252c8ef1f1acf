"""The "Words used here" page, one tap from every page's header, at desktop and phone size."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.layout import assert_fits, visit
from tests.support.branched_review import forked_review

pytestmark = pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows


def test_the_header_s_question_mark_opens_the_words_and_a_branch_link_lands_on_its_line(
    sized_page, console_log, site, service_catalog
):
    """friction26b 9: a "?" in the header, on every page and at every size, opens one line per word; the run
    card's "Other branches" leads to the branch's line."""
    review = forked_review()
    visit(sized_page, f"{site}/sessions/", "words-header")
    link = sized_page.locator("header .words-link")
    expect(link).to_be_visible()
    box = link.bounding_box()
    assert box is not None and box["height"] >= (44 if (sized_page.viewport_size or {})["width"] < 500 else 28)
    link.click()
    sized_page.wait_for_load_state("networkidle")
    expect(sized_page.locator("h1")).to_have_text("Words used here")
    # glossary.TERMS, Call error included, and Area, Resume code, Hand-off (friction63b 4); no "Part" (friction60a 4:
    # no part count is said); the states after them, each by its pill's word (friction65b 1, 16: states.MEANINGS).
    expect(sized_page.locator(".glossary dt")).to_have_count(16)
    expect(sized_page.locator("#states li")).to_have_count(12)
    expect(sized_page.locator("#retrying strong")).to_have_text("Retrying")
    expect(sized_page.locator("#stalled")).to_contain_text("nothing was recorded for")
    visit(sized_page, f"{site}/words/#states", "words-states")
    assert_fits(sized_page)
    assert_fits(sized_page)
    visit(sized_page, f"{site}/words/#branch", "words-page")
    expect(sized_page.locator("#branch dd")).to_contain_text("One line of steps through a run")
    expect(sized_page.locator("#artifact dt")).to_have_text("Artifact")  # friction60a 12
    # A loop's several steps are lettered on every view; the words page says so (friction61a 6, 61b 1).
    expect(sized_page.locator("#round dd")).to_contain_text("\u201cstep 2a\u201d, \u201cstep 2b\u201d")
    sized_page.goto(f"{site}/runs/{review.run_id}/")
    expect(sized_page.locator('a.term-link[href="/words/#branch"]').first).to_be_attached()

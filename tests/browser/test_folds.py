"""Folds look tappable, the same way on every page (friction64: the small grey fold labels were easy to miss on a
phone): every text fold's summary has a drawn chevron in its words' colour, words at a readable contrast, a
thumb's 44 px row on a phone, and no box or fill that would make it louder than the page's primary actions. Cards
folded to their heading (details.fold, the prompt), menus and buttons that open (Export, Cancel run…) keep their
own looks, and so are left out here."""

from __future__ import annotations

from typing import Any

import pytest

from runs.models import Node
from tests.browser.layout import PHONE, visit
from tests.support.branched_review import blocked_review
from tests.support.sample_session import Built

pytestmark = pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows

# Every fold's summary in sight that is a line of text (not a card's heading, a menu, a button or a chip): its
# chevron, its colour against what is behind it, its height, and whether it draws a box.
TEXT_FOLDS = """() => {
  const other = "summary.button, details:is(.fold, .prompt-card, .phone-fold, .step-fold, .graph-help, .filter-fold,"
    + " .tl-legend, .gl-fold, .branch-callouts, .export-menu, .confirm, .masked-preview, .more-findings)"
    + " > summary, .nav-more summary, #catalog-problems > summary";
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = (c) => { const [r, g, b] = rgb(c).map((v) => v / 255)
    .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const behind = (e) => { for (let n = e; n; n = n.parentElement) { const c = getComputedStyle(n).backgroundColor;
    if (rgb(c).length < 4 || rgb(c)[3] > 0) return c; } return "rgb(255, 255, 255)"; };
  return [...document.querySelectorAll("details > summary")]
    .filter((s) => !s.matches(other) && s.getBoundingClientRect().width > 0 && s.checkVisibility())
    .map((s) => {
      const own = getComputedStyle(s), mark = getComputedStyle(s, "::before"), box = s.getBoundingClientRect();
      const [a, b] = [lum(own.color), lum(behind(s))];
      return {words: s.textContent.trim().slice(0, 50), height: box.height,
        chevron: mark.content !== "none" && mark.display !== "none" && parseFloat(mark.width) > 3
          && parseFloat(mark.borderRightWidth) >= 2 && mark.borderRightColor === own.color,
        marker: own.listStyleType !== "none" && own.display === "list-item",
        contrast: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05),
        boxed: own.backgroundColor !== "rgba(0, 0, 0, 0)" || parseFloat(own.borderTopWidth) > 0};
    });
}"""


def assert_folds_tappable(page: Any) -> list[dict[str, Any]]:
    folds = page.evaluate(TEXT_FOLDS)
    assert folds, "the page shows some fold"
    phone = page.viewport_size == {"width": PHONE.width, "height": PHONE.height}
    for fold in folds:
        assert fold["chevron"] and not fold["marker"], fold  # one drawn chevron, not the browser's small triangle
        assert fold["contrast"] >= 4.5, fold
        assert not fold["boxed"], fold  # quieter than a button: no box, no fill
        if phone:
            assert fold["height"] >= 43.5, fold  # a thumb's height
    return folds


def test_every_text_fold_has_a_chevron_contrast_and_a_thumbs_height(sized_page, console_log, site, forked: Built):
    stuck = blocked_review("MR-78")
    visit(sized_page, f"{site}/runs/{stuck.run_id}/", "folds-blocked-run")
    said = [fold["words"] for fold in assert_folds_tappable(sized_page)]
    assert any(words.startswith("Details:") for words in said), said  # the state panel's one fold
    visit(sized_page, f"{site}/nodes/{stuck.node_id}/", "folds-blocked-step")
    said = [fold["words"] for fold in assert_folds_tappable(sized_page)]
    assert any(words.startswith("Resume here") for words in said), said
    assert any(words.startswith("Branch from here") for words in said), said
    # An answered step's page with its two redo ways open: the action folds have the same chevron.
    node = Node.objects.filter(run__public_id=forked.plan_run).order_by("depth").first()
    assert node is not None
    visit(sized_page, f"{site}/nodes/{node.public_id}/", "folds-step")
    sized_page.locator("#branch-here > summary").click()
    said = [fold["words"] for fold in assert_folds_tappable(sized_page)]
    assert any(words.startswith("Redo with new inputs") for words in said), said
    visit(sized_page, f"{site}/runs/{forked.review_run}/", "folds-forked-run")
    assert_folds_tappable(sized_page)
    console_log.assert_clean()

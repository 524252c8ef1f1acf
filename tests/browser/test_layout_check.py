"""The layout check itself (tests/browser/layout.py), on hand-made pages: it names an element that sticks
out of the window, a table behind a sideways scroll and clipped text, and lets a page that fits pass."""

from __future__ import annotations

import pytest

from tests.browser.layout import PHONE, assert_fits, fit_problems

FITS = """
<main id="main"><h1>Fits</h1><p>Short words only.</p>
<pre style="overflow-x:auto">a code line that is far longer than any phone is wide: it scrolls in its box</pre>
<span style="position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap">
a visually hidden label that is much longer than one pixel</span>
<a href="#main" style="position:absolute;left:-999px">Skip to content</a>
<a href="#main" title="A title far too long for its box, shortened" style="display:inline-block;max-width:80px;
overflow:hidden;white-space:nowrap;text-overflow:ellipsis">A title far too long for its box, shortened</a></main>
"""

BROKEN = """
<main id="main">
  <div class="card wide" style="width:492px">A card wider than the screen</div>
  <div class="table-wrap" style="overflow-x:auto"><table style="width:900px"><tr><td>status</td></tr></table></div>
  <p class="cut" style="overflow:hidden;white-space:nowrap;width:120px">A sentence clipped mid-word by its box</p>
</main>
"""


@pytest.fixture
def phone_page(page):
    page.set_viewport_size(PHONE.size)
    return page


def test_a_page_that_fits_passes(phone_page):
    phone_page.set_content(FITS)
    assert fit_problems(phone_page) == []
    assert_fits(phone_page)


def test_what_does_not_fit_is_named(phone_page):
    phone_page.set_content(BROKEN)
    problems = fit_problems(phone_page)
    assert any(p.startswith("the page is") for p in problems), problems
    assert any("div.card.wide" in p and "spans" in p for p in problems), problems
    assert any("div.table-wrap" in p and "scrolls sideways" in p for p in problems), problems
    assert any("p.cut" in p and "clips its text" in p for p in problems), problems
    # The table inside the scrolling box is not reported again: the box answers for it.
    assert not any(p.startswith("main#main > div.table-wrap > table") for p in problems), problems
    with pytest.raises(AssertionError, match="does not fit"):
        assert_fits(phone_page)
    # A box meant to scroll sideways can be allowed by the caller.
    assert not any("table-wrap" in p for p in fit_problems(phone_page, scrolls=(".table-wrap",)))

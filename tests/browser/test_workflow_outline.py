"""The workflow page numbers a loop's steps as an outline does: under the loop's entry 2, "2.1", "2.2"; a run page
says the loop's entry, lettered by its step, and its round after the step's name, "Record · step 2b of 3 (round 2 of
3)", and in full with the loop's name ("step 2b of 3 (round 2 of 3) in “Verify each slice”":
tests/browser/test_graph.py)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.layout import assert_fits
from tests.support.looped_run import looped_and_forked

pytestmark = pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows


def test_a_loops_steps_are_numbered_inside_the_loops_number(sized_page, site, service_catalog):
    looped_and_forked(service_catalog["extra"], iterations=1)
    sized_page.goto(f"{site}/workflows/project.verify_slices/")
    expect(sized_page.locator("ol.outline .step-no")).to_have_text(["1.", "2.", "2.1", "2.2", "3."])
    assert_fits(sized_page)

"""The "Words used here" page (runs/readmodels/glossary.py, dashboard/words.html), one tap from every page."""

from __future__ import annotations

import html

import pytest

from runs.readmodels import glossary, states
from tests.support.branched_review import forked_review
from tests.support.pages import page

pytestmark = pytest.mark.django_db


def test_the_words_page_lists_every_term_once_then_every_state_by_its_pills_word(client):
    text = page(client, "/words/")
    for term in glossary.TERMS:
        assert text.count(f'<div id="{term.anchor}"><dt>') == 1, term
    # friction65b 16: every state once, by the word its pill shows, in the legend's own lines (states.MEANINGS), not
    # a link to the sessions list nor a second definition; friction65b 1: "Retrying" is there, "Refused" is not.
    for meaning in states.MEANINGS:
        word, means = html.escape(meaning.word), html.escape(meaning.means)
        line = f'<li id="{meaning.anchor}"><strong>{word}</strong>: {means}</li>'
        assert text.count(line) == 1, meaning
    for word in ("Stalled", "Confirm", "Working", "Done", "Retrying", "Agent stopped"):
        assert f"<strong>{word}</strong>" in text, word
    assert "<strong>Refused</strong>" not in text and "<dt>Refused</dt>" not in text


def test_the_words_readers_looked_for_have_a_line(client):
    """friction63b 4: "resume code", "area" and "hand-off" are on the pages, and were not here; "the step's
    contract" is said in the page's own words instead."""
    terms = {term.word: term.means for term in glossary.TERMS}
    assert "stateToken" in terms["Resume code"] and "area 1 of 2" in terms["Area"]
    assert "Coding hand-off" in terms["Hand-off"]


def test_one_word_for_the_refused_family_in_the_legend_and_the_glossary(client, service_catalog):
    """friction28a 2, 28b 8: a refused step went by "Retrying", "Refused" and "Blocked · agent stopped", and
    "Blocked · needs your input" named another situation. Now "Refused" with its stage, needs-input its own
    name; the glossary tells a refused answer from a call error. friction62a 1, 62b 5: two parts at most, the
    stage in plain words ("Retrying", "Agent stopped"), not "Refused · to resend"."""
    forked_review()  # the sessions list shows its legend once it lists a session
    words = page(client, "/words/")
    legend = page(client, "/sessions/").split('id="state-meanings"')[1].split("</details>")[0]
    for text in (words, legend):
        assert "Blocked" not in text and "Refused ·" not in text and "to resend<" not in text
    for said in ("Agent stopped", "Retrying", "Needs your input"):
        assert f"<strong>{html.escape(said)}</strong>" in legend, said
    terms = {term.word: term.means for term in glossary.TERMS}
    assert "not a refused answer" in terms["Call error"]
    # Tool timings counts its call errors apart from its server errors: the line says so too (friction30b 2).
    assert "nor a server error" in terms["Call error"] and "Rejected call" not in terms


def test_every_page_header_and_a_runs_other_branches_lead_to_the_words(client, service_catalog):
    """friction26b 9: a "?" in the page header on every page; the run card's "Other branches" links the word."""
    review = forked_review()
    for url in ("/sessions/", f"/sessions/{review.session_id}/", "/workflows/", "/timings/", "/connect/"):
        head = page(client, url).split("</header>")[0]
        assert 'class="words-link" href="/words/" title="Words used here"' in head, url
    run = page(client, f"/runs/{review.run_id}/")
    others = run.split('id="other-branches"')[1].split("</summary>")[0]
    assert 'href="/words/#branch" title="What a branch is"' in others

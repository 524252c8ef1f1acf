"""The dashboard's words, one line each (runs/readmodels/glossary.py)."""

from __future__ import annotations

from runs.readmodels import glossary, states


def test_each_word_a_newcomer_meets_has_one_line_and_one_anchor():
    """friction26b 9: run, branch, left behind, replaced, redone, round, part and checkpoint appeared in the first
    pages and only the states were explained."""
    words = [term.word.split(" ")[0] for term in glossary.TERMS]
    # friction27a 19, 27b 12: the two most basic words, the session the list shows and the mode each run has.
    assert words == [
        "Session",
        "Run",
        "Step",
        "Call",  # friction63a 2: "Rejected call" read as a third word for a refused answer
        "Branch",
        "Started",
        "Redone",
        "Round",
        "Area",  # friction63b 4: area, resume code and hand-off are on the pages, and were not here
        "Checkpoint",
        "Resume",
        "Inputs",
        "Artifact",
        "Hand-off",
        "Bundle",
        "Mode",
    ]
    # Friction60a 4, 60b 2: "part 2 of 2" is said nowhere now; a round is said as the pages say it.
    rounds = next(term.means for term in glossary.TERMS if term.anchor == "round")
    assert "step 2 of 3 (round 2 of 3)" in rounds and "loop round" not in rounds
    # Friction61a 6, 61b 1: a loop's body steps are lettered on every view; the glossary says so.
    assert "\u201cstep 2b\u201d" in rounds
    anchors = [term.anchor for term in glossary.TERMS]
    assert len(set(anchors)) == len(anchors) and all(a == a.lower() and " " not in a for a in anchors)
    assert all(term.means.endswith(".") and "\n" not in term.means for term in glossary.TERMS)
    # friction65b 16: the states (Refused, Left behind, No agent yet, Replaced) are not said again here in other
    # words: their one line is states.MEANINGS', which the Words page lists after these.
    said = {term.word for term in glossary.TERMS}
    assert not said & {meaning.word for meaning in states.MEANINGS} and "Refused" not in said
    # Friction r64: a replaced branch's one line says it becomes left behind once quiet, as the graph's key does.
    assert "min, it reads Left behind)" in states.meaning("superseded", "yours")
    by_anchor = {term.anchor: term.means for term in glossary.TERMS}
    # friction65a 6: a branch started by hand is explained by the control people see on every step page, not by
    # the name of a fold inside it.
    assert "\u201cBranch from here\u201d" in by_anchor["started-by-hand"]
    assert "Redo with" not in by_anchor["started-by-hand"]

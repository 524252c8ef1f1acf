"""A note's first line as plain words: what a folded step says of its answer on a phone (friction18a 17)."""

from runs.readmodels.markdown import first_line


def test_a_note_s_first_line_is_its_first_paragraph_up_to_its_line_break_without_marks():
    assert first_line("Clarified the goal.\nThen asked about scope.") == "Clarified the goal."
    assert first_line("## Plan\n\n- two modules") == "Plan"
    assert first_line("\n\n- **Split** the `api` module\n- then test") == "Split the api module"
    assert first_line("") == "" and first_line("   \n") == ""

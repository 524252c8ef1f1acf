from runs.readmodels.listing import joined


def test_words_are_listed_as_a_sentence_lists_them():
    assert joined([]) == ""
    assert joined(["branch 1"]) == "branch 1"
    assert joined(["1", "2"]) == "1 and 2"
    assert joined(["“Plan” (branch 1)", "this step", "“Review” (branch 3)"]) == (
        "“Plan” (branch 1), this step and “Review” (branch 3)"
    )

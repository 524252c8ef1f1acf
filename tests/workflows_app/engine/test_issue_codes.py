"""engine/codes.py: an issue tells the agent where to look in its pending view; people get the sentence alone."""

from __future__ import annotations

from workflows_app.engine.codes import GUIDES, IssueCode, for_people, issue

SENTENCE = "This step needs an artifact of kind 'x' (contract wr.contracts.x) in output.artifacts."


def test_a_guided_issue_ends_with_where_the_agent_looks_and_people_get_the_sentence_alone():
    sent = issue(IssueCode.ARTIFACT_MISSING, SENTENCE, "/artifacts")
    assert sent["message"] == (
        "This step needs an artifact of kind 'x' (contract wr.contracts.x) in output.artifacts; "
        "see pending.outputContract for its schema and an example."
    )
    assert for_people(sent["code"], sent["message"]) == SENTENCE


def test_every_guided_code_reads_back_its_own_sentence_and_other_codes_are_left_alone():
    for code in GUIDES:
        sent = issue(IssueCode(code), "A sentence.")
        assert sent["message"] != "A sentence." and for_people(sent["code"], sent["message"]) == "A sentence."
    plain = issue(IssueCode.NOTES_REQUIRED, "Notes are needed; see pending.outputContract for why.")
    assert for_people(plain["code"], plain["message"]) == plain["message"]

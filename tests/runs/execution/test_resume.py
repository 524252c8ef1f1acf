"""resume_session: layered search for the run (or checkpoint-only session) a new chat should resume."""

import json

import pytest
from django.conf import settings
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from runs.execution import resume
from runs.execution.recording import open_session
from runs.execution.resume import DEEP_SCAN_ROWS, MAX_CANDIDATES
from runs.models import Event, Node, Run, SearchEntry, Session
from runs.store import events, tokens
from runs.store.journal import Journal, session_token_id
from runs.store.projections import SEARCH_NOTES_CHARS
from runs.store.tokens import TokenKind
from tests.support import texts
from tests.support.mcp_calls import continue_workflow, resume_session, start_workflow

pytestmark = pytest.mark.django_db

WORKFLOW = "wr.evidence_first_bug_fix"


@pytest.fixture(autouse=True)
def catalog(service_catalog):
    return service_catalog


def run_with_notes(context, *notes):
    """Starts the bug investigation with `context` and acknowledges one step per note."""
    response = start_workflow(WORKFLOW, context)
    for text in notes:
        response = continue_workflow(
            stateToken=response["stateToken"], ackToken=response["ackToken"], output={"notesMarkdown": text}
        )
        assert response["kind"] == "step", response.get("blocked")
    return response


def observe(response, branch="", sha="", workspace=""):
    run = Run.objects.select_related("session").get(public_id=response["session"]["runId"])
    with transaction.atomic():
        journal = Journal(run.session, timezone.now())
        journal.record(
            events.ObservationRecorded(
                run_id=run.public_id, git_branch=branch, git_head_sha=sha, workspace_path=workspace
            )
        )
        journal.flush()


def checkpoint_only(key, title, tags=(), notes=()):
    with transaction.atomic():
        journal = open_session(key, title, list(tags), timezone.now(), kind="checkpoint_only")
        for number, text in enumerate(notes):
            journal.record(
                events.CheckpointRecorded(
                    run_id=None,
                    node_id=None,
                    child_node_id=None,
                    output_digest=f"sha256:{number:064x}",
                    notes_markdown=text,
                    artifacts=[],
                    response="{}",
                )
            )
        journal.flush()
    return journal.session


CANDIDATE_FIELDS = {
    "sessionId",
    "sessionKey",
    "title",
    "runId",
    "workflowId",
    "status",
    "stateToken",
    "sessionToken",
    "pendingStepId",
    "isComplete",
    "updatedAt",
    "snippet",
    "whyMatched",
    "layer",
    "score",
}


def keys(result):
    """The session keys of the candidates, in order, after checking the shape of the answer."""
    assert set(result) == {"candidates", "searched", "query"}
    assert len(result["candidates"]) <= MAX_CANDIDATES
    for candidate in result["candidates"]:
        assert set(candidate) == CANDIDATE_FIELDS
        assert len(candidate["snippet"]) <= 200
        assert candidate["layer"] in (1, 2, 3, 4)
        assert candidate["whyMatched"] and all(isinstance(w, str) for w in candidate["whyMatched"])
    ranking = [(c["layer"], -c["score"]) for c in result["candidates"]]
    assert ranking == sorted(ranking)
    return [c["sessionKey"] for c in result["candidates"]]


def layer(result, number):
    return next(entry for entry in result["searched"]["layers"] if entry["layer"] == number)


# --- layer 1: identity ---------------------------------------------------------------------------------


def test_identity_matches_rank_exact_then_prefix_then_substring_then_all_words():
    # Created best-last, so recency alone would give the opposite order.
    run_with_notes({"sessionKey": "1234-auth"})  # every word, not the phrase
    run_with_notes({"sessionKey": "old-auth-1234"})  # substring
    run_with_notes({"sessionKey": "AUTH-1234-followup"})  # prefix
    run_with_notes({"ticketId": "AUTH-1234"})  # exact title (key ticket:AUTH-1234)
    run_with_notes({"sessionKey": "unrelated"})

    result = resume_session(query="AUTH-1234")

    assert keys(result) == ["ticket:AUTH-1234", "AUTH-1234-followup", "old-auth-1234", "1234-auth"]
    assert [c["layer"] for c in result["candidates"]] == [1, 1, 1, 1]
    scores = [c["score"] for c in result["candidates"]]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) == 4
    why = [c["whyMatched"][0] for c in result["candidates"]]
    assert why[0] == "title is 'auth-1234'"
    assert why[1] == "session key starts with 'auth-1234'; title starts with 'auth-1234'"
    assert "contains 'auth-1234'" in why[2]
    assert why[3] == "key/title/tags/workflow mention 'auth', '1234'"


def test_workflow_id_and_name_are_part_of_the_identity():
    run_with_notes({"sessionKey": "one"})
    result = resume_session(query="wr.evidence_first_bug_fix")
    assert keys(result) == ["one"]
    assert result["candidates"][0]["whyMatched"] == ["workflow id is 'wr.evidence_first_bug_fix'"]
    by_name = resume_session(query="Evidence-First Bug Fix")
    assert keys(by_name) == ["one"]
    assert by_name["candidates"][0]["layer"] == 1


def test_a_candidate_carries_the_tip_and_what_to_resume_with():
    started = run_with_notes({"ticketId": "PAY-7"}, "Triaged: the refund job double-charges.")
    result = resume_session(query="pay-7")
    (candidate,) = result["candidates"]
    assert candidate == {
        "sessionId": started["session"]["sessionId"],
        "sessionKey": "ticket:PAY-7",
        "title": "PAY-7",
        "runId": started["session"]["runId"],
        "workflowId": WORKFLOW,
        "status": "in_progress",
        "stateToken": started["stateToken"],
        "sessionToken": None,
        "pendingStepId": started["pending"]["stepId"],
        "isComplete": False,
        "updatedAt": SearchEntry.objects.get().updated_at.isoformat(),
        "snippet": "Triaged: the refund job double-charges.",  # as written, not as searched
        "whyMatched": ["title is 'pay-7'"],
        "layer": 1,
        "score": candidate["score"],
    }
    assert result["query"] == {
        "query": "pay-7",
        "words": ["pay", "7"],
        "gitBranch": None,
        "gitHeadSha": None,
        "workspacePath": None,
    }


# --- layer 2: recent notes -----------------------------------------------------------------------------------


def test_recent_notes_find_a_run_and_the_whole_phrase_ranks_above_scattered_words():
    run_with_notes({"sessionKey": "phrase"}, "The token refresh races with logout.")
    run_with_notes({"sessionKey": "scattered"}, "Refresh the page, then the token is stale.")
    run_with_notes({"sessionKey": "neither"}, "Nothing to see.")

    run_with_notes({"sessionKey": "long"}, long_notes("Token refresh"))

    result = resume_session(query="Token Refresh")

    assert keys(result) == ["long", "phrase", "scattered"]
    assert [c["layer"] for c in result["candidates"]] == [2, 2, 2]
    assert result["candidates"][1]["whyMatched"] == ["notes mention 'token refresh'"]
    assert result["candidates"][2]["whyMatched"] == ["notes mention 'token', 'refresh'"]
    assert "token refresh races with logout" in result["candidates"][1]["snippet"]
    assert result["candidates"][0]["snippet"].startswith("Token refresh: checked the logs")
    assert result["candidates"][0]["snippet"].endswith("…")
    assert layer(result, 1)["candidates"] == 0
    assert layer(result, 2)["candidates"] == 3


def test_words_split_between_identity_and_notes_match_in_layer_two():
    run_with_notes({"ticketId": "AUTH-77"}, "Gateway timeout on login.")
    result = resume_session(query="auth-77 timeout")
    (candidate,) = result["candidates"]
    assert candidate["layer"] == 2
    assert candidate["whyMatched"] == ["key/title/tags/workflow mention 'auth', '77', notes mention 'timeout'"]


def test_artifact_kinds_recorded_on_the_run_are_searched():
    response = start_workflow(WORKFLOW, {"sessionKey": "with-artifact"})
    with transaction.atomic():
        run = Run.objects.select_related("session").get(public_id=response["session"]["runId"])
        node = Node.objects.get(run=run)
        journal = Journal(run.session, timezone.now())
        journal.record(
            events.CheckpointRecorded(
                run_id=run.public_id,
                node_id=node.public_id,
                child_node_id=None,
                output_digest="sha256:" + "0" * 64,
                notes_markdown="Saved the plan.",
                artifacts=[{"kind": "wr.contracts.flamegraph"}],
                response="{}",
            )
        )
        journal.flush()
    assert keys(resume_session(query="flamegraph")) == ["with-artifact"]


# --- layer 3: deep search ----------------------------------------------------------------------------------------


def long_notes(label):
    return f"{label}: " + "checked the logs and the metrics again, nothing new there. " * 30


def test_notes_that_left_the_recent_window_are_found_by_the_deep_layer():
    run_with_notes(
        {"sessionKey": "deep"},
        "Triage: the mobile client breaks after the Certificate Pinning change.",
        long_notes("Reproduce"),
        long_notes("Evidence"),
        long_notes("Hypotheses"),
    )
    entry = SearchEntry.objects.get()
    assert len(entry.notes_text) == SEARCH_NOTES_CHARS
    assert "pinning" not in entry.notes_text  # only the deep layer can see it now

    result = resume_session(query="certificate pinning")

    assert keys(result) == ["deep"]
    (candidate,) = result["candidates"]
    assert candidate["layer"] == 3
    assert candidate["whyMatched"] == ["older notes (step triage-report) mention 'certificate pinning'"]
    assert "Certificate Pinning change" in candidate["snippet"]  # the notes as written
    deep = layer(result, 3)
    assert deep["outputsRead"] == 4 and deep["capped"] is False
    assert str(DEEP_SCAN_ROWS) in deep["searched"]


def test_the_deep_layer_reads_only_the_newest_rows_and_says_so(monkeypatch):
    run_with_notes({"sessionKey": "old"}, "Osprey cache stampede.", long_notes("a"), long_notes("b"), long_notes("c"))
    run_with_notes({"sessionKey": "new"}, "One.", "Two.")
    assert keys(resume_session(query="osprey")) == ["old"]
    monkeypatch.setattr(resume, "DEEP_SCAN_ROWS", 2)  # the two outputs of "new" only

    result = resume_session(query="osprey")

    assert keys(result) == []
    deep = layer(result, 3)
    assert (deep["outputsRead"], deep["checkpointsRead"], deep["capped"]) == (2, 0, True)
    assert "older ones were not read" in deep["searched"]


def test_the_deep_layer_runs_only_when_layers_one_and_two_found_fewer_than_five():
    for number in range(MAX_CANDIDATES):
        run_with_notes({"sessionKey": f"pinning-{number}"})
    run_with_notes({"sessionKey": "deep"}, "Pinning broke.", long_notes("a"), long_notes("b"), long_notes("c"))
    result = resume_session(query="pinning")
    assert [c["layer"] for c in result["candidates"]] == [1] * MAX_CANDIDATES
    assert "skipped" in layer(result, 2)
    assert "skipped" in layer(result, 3)
    assert layer(result, 1)["moreMatches"] is False


def test_layer_one_beats_layer_two_beats_layer_three_whatever_the_recency():
    run_with_notes({"sessionKey": "zeppelin-work"})  # identity, oldest
    run_with_notes({"sessionKey": "in-notes"}, "Checked the zeppelin mooring code.")
    run_with_notes({"sessionKey": "deep-only"}, "Zeppelin!", long_notes("a"), long_notes("b"), long_notes("c"))
    run_with_notes({"sessionKey": "newest"}, "Something else.")

    result = resume_session(query="zeppelin")

    assert keys(result) == ["zeppelin-work", "in-notes", "deep-only"]
    assert [c["layer"] for c in result["candidates"]] == [1, 2, 3]
    assert [c["score"] for c in result["candidates"]] == sorted(
        (c["score"] for c in result["candidates"]), reverse=True
    )


# --- limits, order, tips, read-only -------------------------------------------------------------------------------


def test_at_most_five_candidates_and_the_rest_is_reported():
    for number in range(7):
        run_with_notes({"sessionKey": f"many-{number}"})
    result = resume_session(query="many")
    assert len(result["candidates"]) == MAX_CANDIDATES
    assert keys(result) == [f"many-{n}" for n in (6, 5, 4, 3, 2)]  # same tier: most recent first
    assert layer(result, 1)["moreMatches"] is True
    assert result["searched"]["entries"] == 7


def test_the_same_inputs_give_the_same_order_and_ties_go_to_session_then_run():
    for number in range(4):
        run_with_notes({"sessionKey": f"tie-{number}"}, "Same notes.")
    SearchEntry.objects.update(updated_at=timezone.now())  # a perfect tie on tier and recency
    expected = [key for key, _ in sorted(Session.objects.values_list("session_key", "pk"), key=lambda kp: kp[1])]

    first = resume_session(query="same notes")

    assert keys(first) == expected
    for _ in range(3):
        assert json.dumps(resume_session(query="same notes")) == json.dumps(first)


def test_one_candidate_per_run_and_it_is_the_latest_tip_after_a_fork():
    start = run_with_notes({"sessionKey": "forked"})
    first = continue_workflow(
        stateToken=start["stateToken"], ackToken=start["ackToken"], output={"notesMarkdown": "First try."}
    )
    second = continue_workflow(
        stateToken=first["stateToken"], ackToken=first["ackToken"], output={"notesMarkdown": "Going on."}
    )
    rewound = continue_workflow(stateToken=start["stateToken"])  # the chat was rewound
    fork = continue_workflow(
        stateToken=start["stateToken"], ackToken=rewound["ackToken"], output={"notesMarkdown": "Another approach."}
    )

    result = resume_session(query="forked")

    (candidate,) = result["candidates"]
    assert candidate["stateToken"] == fork["stateToken"]
    assert candidate["stateToken"] not in (start["stateToken"], first["stateToken"], second["stateToken"])
    assert candidate["pendingStepId"] == fork["pending"]["stepId"]
    resumed = continue_workflow(stateToken=candidate["stateToken"])
    assert resumed["pending"]["stepId"] == fork["pending"]["stepId"]
    assert "branches" not in resumed  # a tip has no branches below it
    assert resumed["ackToken"] == fork["ackToken"]


def test_resume_session_only_reads():
    started = run_with_notes({"ticketId": "RO-1"}, "Token refresh notes.")
    observe(started, branch="feature/ro", sha="abc1234def", workspace="/src/ro")
    checkpoint_only("ro-notes", "Read only", notes=["Some notes."])
    events = Event.objects.count()
    entries = list(SearchEntry.objects.values())
    calls = [
        {"query": "RO-1"},
        {"query": "token refresh"},
        {"query": "nothing matches this"},
        {"gitBranch": "feature/ro"},
        {},
    ]
    with CaptureQueriesContext(connection) as captured:
        for arguments in calls:
            resume_session(**arguments)
    statements = [q["sql"].lstrip().split()[0].upper() for q in captured.captured_queries]
    assert set(statements) == {"SELECT"}
    assert Event.objects.count() == events
    assert list(SearchEntry.objects.values()) == entries


# --- git -------------------------------------------------------------------------------------------------------------


def test_git_branch_and_sha_boost_within_a_layer():
    on_branch = run_with_notes({"sessionKey": "on-branch"}, "Fixing the token refresh.")
    observe(on_branch, branch="feature/x", sha="1111111aaaa", workspace="/src/app")
    on_head = run_with_notes({"sessionKey": "on-head"}, "Fixing the token refresh too.")
    observe(on_head, branch="main", sha="2222222bbbb", workspace="/src/app")
    run_with_notes({"sessionKey": "elsewhere"}, "Token refresh again.")  # the most recent

    assert keys(resume_session(query="token refresh")) == ["elsewhere", "on-head", "on-branch"]
    boosted = resume_session(query="token refresh", gitBranch="feature/x")
    assert keys(boosted) == ["on-branch", "elsewhere", "on-head"]
    assert boosted["candidates"][0]["whyMatched"] == ["notes mention 'token refresh'", "same git branch feature/x"]
    by_head = resume_session(query="token refresh", gitBranch="feature/x", gitHeadSha="2222222")
    assert keys(by_head) == ["on-head", "on-branch", "elsewhere"]  # a HEAD match outweighs a branch match
    assert "same git HEAD 2222222bbbb" in by_head["candidates"][0]["whyMatched"]
    by_workspace = resume_session(query="token refresh", workspacePath="/src/app/")
    assert by_workspace["query"]["workspacePath"] == "/src/app"
    assert keys(by_workspace) == ["on-head", "on-branch", "elsewhere"]
    assert "same workspace /src/app" in by_workspace["candidates"][0]["whyMatched"]


def test_a_git_boost_never_lifts_a_candidate_into_a_better_layer():
    in_notes = run_with_notes({"sessionKey": "notes-only"}, "The kestrel importer.")
    run_with_notes({"sessionKey": "kestrel"})
    observe(in_notes, branch="feature/k", sha="abcdef0", workspace="/src/k")
    result = resume_session(query="kestrel", gitBranch="feature/k", gitHeadSha="abcdef0", workspacePath="/src/k")
    assert keys(result) == ["kestrel", "notes-only"]
    assert [c["layer"] for c in result["candidates"]] == [1, 2]


def test_git_inputs_alone_select_runs():
    branch_only = run_with_notes({"sessionKey": "branch-only"})
    head = run_with_notes({"sessionKey": "head"})
    other = run_with_notes({"sessionKey": "other"})
    observe(branch_only, branch="feature/x", sha="aaaa1111")
    observe(head, branch="feature/x", sha="bbbb2222")
    observe(other, branch="main", sha="cccc3333")
    run_with_notes({"sessionKey": "never-observed"})

    result = resume_session(gitBranch="feature/x", gitHeadSha="BBBB")

    assert keys(result) == ["head", "branch-only"]
    assert result["candidates"][0]["whyMatched"] == ["same git branch feature/x", "same git HEAD bbbb2222"]
    assert [c["layer"] for c in result["candidates"]] == [1, 1]
    assert result["query"]["gitHeadSha"] == "bbbb"
    assert keys(resume_session(gitBranch="feature/none")) == []


def test_the_latest_observation_is_the_one_that_counts():
    started = run_with_notes({"sessionKey": "moved"})
    observe(started, branch="feature/old")
    observe(started, branch="feature/new")
    assert keys(resume_session(gitBranch="feature/new")) == ["moved"]
    assert keys(resume_session(gitBranch="feature/old")) == []


# --- checkpoint-only sessions ------------------------------------------------------------------------------------


def test_checkpoint_only_sessions_resume_with_a_session_token():
    session = checkpoint_only(
        "spike-ws", "Spike: websocket backpressure", tags=["spike", "Realtime"], notes=["Tried a bounded queue."]
    )
    run_with_notes({"sessionKey": "a-run"}, "A bounded queue is not enough.")

    by_identity = resume_session(query="websocket")
    (candidate,) = by_identity["candidates"]
    assert candidate["sessionId"] == session.public_id
    assert candidate["runId"] is None
    assert candidate["workflowId"] is None
    assert candidate["status"] is None
    assert candidate["stateToken"] is None
    assert candidate["pendingStepId"] is None
    assert candidate["isComplete"] is False
    assert candidate["sessionToken"].startswith("ss1_")
    parsed = tokens.parse(settings.WORKRAIL_HOME, candidate["sessionToken"], TokenKind.SESSION)
    assert parsed.id == session_token_id(session)
    assert candidate["snippet"] == "Tried a bounded queue."

    by_tag = resume_session(query="realtime")
    assert by_tag["candidates"][0]["whyMatched"] == ["tag 'Realtime' contains 'realtime'"]
    by_notes = resume_session(query="bounded queue")
    assert keys(by_notes) == ["a-run", "spike-ws"]
    assert [c["layer"] for c in by_notes["candidates"]] == [2, 2]


def test_checkpoint_only_notes_are_found_deep_too():
    checkpoint_only(
        "deep-notes", "Notes", notes=["The osprey cache stampede.", long_notes("x"), long_notes("y"), long_notes("z")]
    )
    entry = SearchEntry.objects.get()
    assert "osprey" not in entry.notes_text
    (candidate,) = resume_session(query="osprey")["candidates"]
    assert candidate["layer"] == 3
    assert candidate["sessionToken"] is not None
    assert candidate["whyMatched"] == ["older notes (a checkpoint) mention 'osprey'"]


# --- no input, empty store, odd queries -------------------------------------------------------------------


def test_no_inputs_give_the_five_most_recently_updated_tips():
    for number in range(6):
        run_with_notes({"sessionKey": f"recent-{number}"})
    result = resume_session()
    assert keys(result) == [f"recent-{n}" for n in (5, 4, 3, 2, 1)]
    assert all(c["whyMatched"] == ["among the most recently updated"] for c in result["candidates"])
    assert result["query"] == {"query": None, "words": [], "gitBranch": None, "gitHeadSha": None, "workspacePath": None}
    assert keys(resume_session(query="   ", gitBranch="", gitHeadSha=None)) == keys(result)


def test_an_empty_store_answers_with_no_candidates_and_says_why():
    for arguments in ({}, {"query": "anything"}, {"gitBranch": "main"}):
        result = resume_session(**arguments)
        assert result["candidates"] == []
        assert result["searched"]["entries"] == 0
        assert result["searched"]["noCandidates"]


def test_query_normalization_and_punctuation_only_queries():
    run_with_notes({"sessionKey": "c++-port"}, "Moved the build to C++20!")
    result = resume_session(query="  Build   TO,  c++20 ")
    assert result["query"]["query"] == "build to, c++20"
    assert result["query"]["words"] == ["build", "to", "c", "20"]
    assert keys(result) == ["c++-port"]
    assert keys(resume_session(query="++")) == ["c++-port"]  # no words: the phrase itself is searched
    assert keys(resume_session(query="%")) == []  # LIKE wildcards are escaped


# --- layer 4: most words, ticket ids first ----------------------------------------------------------------


def test_a_ticket_id_and_words_of_the_task_find_the_run_even_when_some_words_are_not_in_its_notes():
    run_with_notes({"ticketId": "ACME-42"}, "Intake: ticket ACME-42, rate limit login attempts per IP.")
    run_with_notes({"ticketId": "ACME-43"}, "Rate limiting of the login endpoint is out of scope here.")
    assert keys(resume_session(query="ACME-42")) == ["ticket:ACME-42"]
    for query in ("ACME-42 rate limiting", "acme-42 login endpoint", "ACME-42: throttle brute force"):
        result = resume_session(query=query)
        assert keys(result) == ["ticket:ACME-42"], query  # never ACME-43: every ticket id must match
        assert result["candidates"][0]["layer"] == 4
    why = resume_session(query="ACME-42 rate limiting")["candidates"][0]["whyMatched"]
    assert why == ["key/title/tags/workflow mention ticket acme-42; notes mention 'rate'; not found: 'limiting'"]


def test_a_ticket_id_in_the_title_ranks_above_one_only_mentioned_in_notes_then_more_words_found():
    run_with_notes({"ticketId": "OPS-7"}, "Disk alerts.")  # title, no other word
    run_with_notes({"sessionKey": "notes-only"}, "Related to OPS-7: rotate the disk logs weekly.")
    run_with_notes({"ticketId": "OPS-8"}, "Rotate disk logs.")  # another ticket: never
    result = resume_session(query="OPS-7 rotate logs nightly")
    assert keys(result) == ["ticket:OPS-7", "notes-only"]
    assert [c["layer"] for c in result["candidates"]] == [4, 4]


def test_most_words_match_without_a_ticket_id_but_not_a_single_word():
    run_with_notes({"sessionKey": "most"}, "The refund webhook retries on 502.")
    run_with_notes({"sessionKey": "one-word"}, "The refund screen is slow.")
    result = resume_session(query="refund webhook idempotency")
    assert keys(result) == ["most"]
    assert result["candidates"][0]["whyMatched"] == ["notes mention 'refund', 'webhook'; not found: 'idempotency'"]
    assert layer(result, 4)["candidates"] == 1
    assert "skipped" in layer(resume_session(query="refund idempotency"), 4)  # two words: all of them, as before
    run_with_notes({"sessionKey": "every-word"}, "Refund webhook idempotency key added.")
    assert keys(resume_session(query="refund webhook idempotency")) == ["every-word"]  # no ticket id: all words win


def test_the_snippet_shows_the_newest_note_that_mentions_the_query():
    run_with_notes(
        {"sessionKey": "evolving"},
        "Token refresh: first suspicion was the cache. " + "Checked the logs again. " * 12,
        "Token refresh: fixed by taking a lock around the refresh.",
    )
    [candidate] = resume_session(query="token refresh")["candidates"]
    assert "fixed by taking a lock" in candidate["snippet"]
    assert "first suspicion" not in candidate["snippet"]


def test_a_candidate_names_the_other_branch_tips_a_rewind_left_behind():
    first = start_workflow(WORKFLOW, {"sessionKey": "forked"})
    abandoned = continue_workflow(
        stateToken=first["stateToken"], ackToken=first["ackToken"], output={"notesMarkdown": "Reproduced on 3.12."}
    )
    rewound = continue_workflow(stateToken=first["stateToken"])  # the chat went back to the start
    newest = continue_workflow(
        stateToken=first["stateToken"], ackToken=rewound["ackToken"], output={"notesMarkdown": "Reproduced on 3.13."}
    )
    [candidate] = resume_session(query="forked")["candidates"]
    assert candidate["stateToken"] == newest["stateToken"]
    assert candidate["otherTipCount"] == 1
    [other] = candidate["otherTips"]
    assert other["stateToken"] == abandoned["stateToken"]
    assert (other["pendingStepId"], other["isComplete"]) == (abandoned["pending"]["stepId"], False)
    text = texts.resume_text(resume_session(query="forked"))
    assert "The run has 1 other branch tip(s), from a rewind" in text
    assert abandoned["stateToken"] in text
    run_with_notes({"sessionKey": "straight"}, "Reproduced on 3.11.")
    [straight] = resume_session(query="straight")["candidates"]
    assert straight.get("otherTips") is None  # a run never rewound has one tip

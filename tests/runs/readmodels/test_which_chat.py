"""Which of a person's agent chats a copied message goes to (agent_message.which_chat, friction22a B2): said
beside every copy button on a session's pages, one sentence with its verb (friction27a 1), the client in
people's words, else the workspace the session recorded."""

from __future__ import annotations

from pathlib import Path

import pytest

from runs.readmodels.agent_message import product, which_chat


def test_a_repository_under_home_is_said_from_the_home_directory_with_its_branch():
    path = str(Path.home() / "src" / "shop")
    assert which_chat(path, "main") == "Paste it into the chat working in ~/src/shop (git branch main)."


def test_a_repository_without_a_branch_is_said_alone():
    # git named no branch (a detached HEAD): the directory is still the chat's.
    assert which_chat(str(Path.home() / "shop"), "") == "Paste it into the chat working in ~/shop."


def test_a_repository_elsewhere_is_said_in_full():
    assert (
        which_chat("/srv/repos/shop", "feature/x")
        == "Paste it into the chat working in /srv/repos/shop (git branch feature/x)."
    )
    assert which_chat(str(Path.home()), "main") == f"Paste it into the chat working in {Path.home()} (git branch main)."


def test_nothing_recorded_says_nothing():
    # friction27a 1: "Any chat with WorkRail connected can take it." beside "It hears only its chat" contradicted
    # it; the panel's own line says whose chat.
    assert which_chat("", "") == ""
    assert which_chat("", "main") == ""  # a branch without its directory names no chat


def test_a_declared_client_is_said_by_its_product_name():
    assert product("claude-code") == "Claude Code"
    assert product("Cursor") == "Cursor"
    assert product("codex-mcp-client") == "Codex"
    assert product("windsurf") == "Windsurf"
    assert product("my-agent") == "my-agent"  # unknown: as given
    # an MCP library's default name names no product a person knows: unknown
    assert product("mcp") == product("python-mcp") == product("") == ""


def test_a_folded_message_is_summed_up_in_plain_words():
    # friction61b 4: the fold's summary was the message's opening, developer words ("continue_workflow",
    # "stateToken") in plain view; it says what the fold holds, the message itself stays inside.
    from django.template.loader import render_to_string

    html = render_to_string(
        "dashboard/_agent_message.html",
        {"message": 'call continue_workflow with stateToken "st1"', "id": "m", "fold": True},
    )
    summary = html.split("<summary", 1)[1].split("</summary>", 1)[0]
    assert summary.endswith(">The message it copies") and "stateToken" not in summary
    assert "stateToken" in html.split("</summary>", 1)[1]


def test_the_chat_is_named_by_its_client_where_one_was_recorded():
    from runs.readmodels.agent_message import Chat

    known, unknown = Chat("Claude Code", None, None, ""), Chat("", None, None, "")
    assert (known.the_chat, unknown.the_chat) == ("the chat (Claude Code)", "the chat")


def _summary(run_id: str):
    from runs.models import Run
    from runs.readmodels import run_view

    return run_view.summary_of(Run.objects.select_related("session", "parent_run").get(public_id=run_id))


@pytest.mark.django_db
def test_a_run_started_elsewhere_is_not_said_to_be_started_by_a_chat_here(service_catalog):
    # The chat that started a run is named by the client recorded on its start; once its session was imported
    # here, that chat is on another machine: only what was recorded here since is said.
    from exports.bundles import export_session_bundle, import_session_bundle
    from runs.models import Run
    from runs.readmodels.agent_message import chat
    from runs.store.actors import Actor, Door, acting_as
    from tests.exports.bundle.support import empty_the_store
    from tests.support.mcp_calls import start_workflow

    with acting_as(Actor("", Door.STDIO, client_name="claude-code")):
        start = start_workflow("wr.routine-focused_plan")
    session_id, run_id = start["session"]["sessionId"], start["session"]["runId"]
    here = chat(_summary(run_id), "", "")
    assert (here.client, here.started is not None) == ("Claude Code", True)
    data = export_session_bundle(session_id, via="api")
    empty_the_store()
    import_session_bundle(data, via="api")
    # The run's row keeps who started it (the bundle carries the client) and when it came here.
    row = Run.objects.get(public_id=run_id)
    assert row.client_name == "claude-code" and row.imported_at is not None
    imported = chat(_summary(run_id), "", "")
    assert (imported.client, imported.started, imported.last_at) == ("", None, None)


@pytest.mark.django_db
def test_the_chat_is_read_from_the_run_row_without_a_query(service_catalog, django_assert_num_queries):
    # The run's pages read which chat started it from its row (Run.client_name, Run.imported_at), kept by the
    # projector: no lookup of its run_started event, its session's import, nor its tool calls.
    from runs.readmodels.agent_message import chat
    from runs.store.actors import Actor, Door, acting_as
    from tests.support.mcp_calls import start_workflow

    with acting_as(Actor("", Door.STDIO, client_name="cursor")):
        start = start_workflow("wr.routine-focused_plan")
    summary = _summary(start["session"]["runId"])
    with django_assert_num_queries(0):
        said = chat(summary, "/srv/shop", "main")
    assert (said.client, said.started, said.workspace) == ("Cursor", summary.created_at, "")

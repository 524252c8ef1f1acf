"""Which of a person's agent chats a copied message goes to (agent_message.which_chat, friction22a B2): said
beside every copy button on a session's pages, from the workspace the session recorded."""

from __future__ import annotations

from pathlib import Path

from runs.readmodels.agent_message import ANY_CHAT, which_chat


def test_a_repository_under_home_is_said_from_the_home_directory_with_its_branch():
    path = str(Path.home() / "src" / "shop")
    assert which_chat(path, "main") == "Workspace: ~/src/shop (branch main)."


def test_a_repository_without_a_branch_is_said_alone():
    # git named no branch (a detached HEAD): the directory is still the chat's.
    assert which_chat(str(Path.home() / "shop"), "") == "Workspace: ~/shop."


def test_a_repository_elsewhere_is_said_in_full():
    assert which_chat("/srv/repos/shop", "feature/x") == "Workspace: /srv/repos/shop (branch feature/x)."
    assert which_chat(str(Path.home()), "main") == f"Workspace: {Path.home()} (branch main)."


def test_nothing_recorded_says_any_chat_can_take_it():
    assert which_chat("", "") == ANY_CHAT == "Any chat with WorkRail connected can take it."
    assert which_chat("", "main") == ANY_CHAT  # a branch without its directory names no chat


def test_a_folded_message_is_shown_by_its_opening_cut_at_a_word():
    # friction26a 12: the fold's summary says what the button copies, its first line cut with "…".
    from runs.readmodels.agent_message import opening, text

    said = opening(text("st1abc", "step 2 of 3 (Draft)"))
    assert said == "Resume the WorkRail workflow: call continue_workflow with stateToken…"
    assert opening("Go on.") == "Go on."  # all of it: no "…"
    assert opening("First line\nsecond line") == "First line…"


def test_the_chat_is_named_by_its_client_where_one_was_recorded():
    from runs.readmodels.agent_message import Chat

    known, unknown = Chat("claude-code", None, "", None, ANY_CHAT), Chat("", None, "", None, ANY_CHAT)
    assert known.lead == "The claude-code chat that started this run at"
    assert unknown.lead == "The chat that started this run at"
    assert (known.paste_into, unknown.paste_into) == ("the claude-code chat", "the agent's chat")

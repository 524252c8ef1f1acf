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

"""A group heading of the sessions list in plain words (runs/readmodels/session_groups.py)."""

from __future__ import annotations

from runs.contract.dashboard import SessionGroupHeading
from runs.readmodels.session_groups import GroupWords, all_in_one, where_it_works, words


def heading(path: str, branch: str | None) -> SessionGroupHeading:
    name = path.rsplit("/", 1)[-1] if path else ""
    return SessionGroupHeading(
        label="", first_index=0, count=4, workspace_path=path, repository_name=name, git_branch=branch
    )


def test_sessions_seen_outside_git_are_outside_any_repository():
    assert words(heading("", None), 4) == GroupWords("No repository recorded", "", "", 4)
    assert words(heading("", ""), 4) == GroupWords("No repository recorded", "", "", 4)  # grouped by branch too


def test_a_repository_is_named_by_its_directory_and_its_branch_in_words():
    assert words(heading("/src/blog", "feature/x"), 2) == GroupWords("blog", "feature/x", "/src/blog", 2)
    assert words(heading("/src/blog", None), 3) == GroupWords("blog", "", "/src/blog", 3)  # grouped by repository
    assert words(heading("/src/blog", ""), 1).branch == "no branch seen"  # a detached HEAD


def test_a_list_in_one_group_says_so_in_one_line():
    # In place of a lone heading row (friction11 6).
    assert all_in_one(words(heading("", None), 6)) == "None of the 6 sessions recorded a repository"
    assert all_in_one(words(heading("", None), 1)) == "The one session recorded no repository"
    in_blog = "All 2 sessions are in the repository blog, git branch main"
    assert all_in_one(words(heading("/src/blog", "main"), 2)) == in_blog
    assert all_in_one(words(heading("/src/blog", None), 3)) == "All 3 sessions are in the repository blog"


def test_a_sessions_head_names_where_its_agent_works_as_the_list_groups_it():
    # friction13 7: the repository and git branch, from the recorded workspace, in the list's words.
    assert where_it_works("/src/shop", "main") == GroupWords("shop", "main", "/src/shop", 1)
    assert where_it_works("/src/shop", "").branch == ""  # a detached HEAD: the head names no branch
    assert where_it_works("", "") == GroupWords("No repository recorded", "", "", 1)

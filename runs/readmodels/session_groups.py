"""A group of the sessions list in plain words: the repository (and branch) its sessions share, or that they
recorded none. The list's group headings say these words (sessions.html). A session records no repository when
its agent worked outside git, or reached WorkRail over HTTP (nothing of the client's machine is recorded): "No
repository recorded" is true of both, where "Not in a repository" claimed more than is known (friction14)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath

from runs.contract.dashboard import SessionGroupHeading

OUTSIDE_ANY_REPOSITORY = "No repository recorded"
NO_BRANCH = "no branch seen"  # in a repository, but git named no branch (a detached HEAD)


@dataclass(frozen=True)
class GroupWords:
    name: str  # "blog", or OUTSIDE_ANY_REPOSITORY
    branch: str  # "feature/x", NO_BRANCH; "" when the list is not grouped by branch, or outside git
    path: str  # the repository's root, to tell two repositories of one name apart; "" outside git
    count: int  # the group's sessions on this page


def words(heading: SessionGroupHeading, count: int) -> GroupWords:
    if not heading.workspace_path:
        return GroupWords(OUTSIDE_ANY_REPOSITORY, "", "", count)
    branch = "" if heading.git_branch is None else heading.git_branch or NO_BRANCH
    return GroupWords(heading.repository_name, branch, heading.workspace_path, count)


def all_in_one(group: GroupWords) -> str:
    """The note beside the list's "Group by" control when all its sessions share one group, in place of a
    lone heading row: the grouping visibly applies without a bar that reads like a row ("All 5 sessions are in
    the repository shop, git branch main", "None of the 6 sessions recorded a repository")."""
    if not group.path:
        if group.count > 1:
            return f"None of the {group.count} sessions recorded a repository"
        return "The one session recorded no repository"
    many = f"All {group.count} sessions are" if group.count > 1 else "The one session is"
    branch = f", git branch {group.branch}" if group.branch else ""
    return f"{many} in the repository {group.name}{branch}"


def where_it_works(workspace_path: str, git_branch: str) -> GroupWords:
    """Where a session's agent works, in the words of the list's groups, for the session's head: the
    repository by its name (its root in `path`, to tell two of one name apart) and git branch, or outside any
    repository. `git_branch` is the recorded one ('' when git named none: a detached HEAD)."""
    if not workspace_path:
        return GroupWords(OUTSIDE_ANY_REPOSITORY, "", "", 1)
    return GroupWords(PurePath(workspace_path).name, git_branch, workspace_path, 1)

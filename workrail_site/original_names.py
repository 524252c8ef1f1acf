"""The TypeScript WorkRail's environment variables, answered with what to write here instead.

Someone moving from the original copies its client configuration: its names (WORKFLOW_GIT_REPOS, ...)
would be silently ignored, and the workflows they point at missing. Each one set stops the program at
start with the exact replacement, the value converted where there is an equivalent (the original's
names and meanings: its docs/configuration.md).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping

from django.core.exceptions import ImproperlyConfigured

REPOS = "WORKRAIL_WORKFLOW_REPOS"
# The original reads a repository's workflows from its workflows/ directory.
ORIGINAL_DIRECTORY = "workflows"


def _repo_entries(environ: Mapping[str, str]) -> list[str]:
    """The original's repositories as WORKRAIL_WORKFLOW_REPOS entries (URL#BRANCH:workflows)."""
    branch = environ.get("WORKFLOW_GIT_REPO_BRANCH", "").strip()
    found: list[tuple[str, str]] = []
    text = environ.get("WORKFLOW_GIT_REPOS", "").strip()
    try:
        listed = json.loads(text) if text.startswith("[") else None
    except ValueError:
        listed = None
    if isinstance(listed, list):
        for item in listed:
            if isinstance(item, dict) and isinstance(item.get("repositoryUrl"), str):
                found.append((item["repositoryUrl"], str(item.get("branch") or branch)))
    else:
        found += [(url.strip(), branch) for url in text.split(",") if url.strip()]
    single = environ.get("WORKFLOW_GIT_REPO_URL", "").strip()
    if single:
        found.append((single, branch))
    return [f"{url}#{ref}:{ORIGINAL_DIRECTORY}" for url, ref in found]


def _repos(environ: Mapping[str, str]) -> str:
    entries = _repo_entries(environ)
    value = " ".join(entries) if entries else "URL#BRANCH:workflows"
    return f"write {REPOS}={value!r} instead (each entry URL#BRANCH:DIRECTORY, separated by spaces)"


def _paths(environ: Mapping[str, str]) -> str:
    return f"write WORKRAIL_WORKFLOW_PATHS={environ.get('WORKFLOW_STORAGE_PATH', '').strip()!r} instead (same form)"


def _fixed(text: str) -> Callable[[Mapping[str, str]], str]:
    return lambda _environ: text


# name -> what to do instead, given the whole environment (a value may need another variable's).
RENAMES: dict[str, Callable[[Mapping[str, str]], str]] = {
    "WORKFLOW_GIT_REPOS": _repos,
    "WORKFLOW_GIT_REPO_URL": _repos,
    "WORKFLOW_GIT_REPO_BRANCH": _fixed(f"remove it: the branch goes in each {REPOS} entry, after '#'"),
    "WORKFLOW_STORAGE_PATH": _paths,
    "WORKFLOW_GIT_SYNC_INTERVAL": _fixed(
        "remove it: repositories stay at a pinned commit until `workrail-py sync` (manage.py sync_workflows) moves them"
    ),
    "WORKFLOW_GIT_AUTH_TOKEN": _fixed(
        "remove it: git authenticates itself (its credential helper, an SSH key, or a token in the entry's URL)"
    ),
    "WORKFLOW_INCLUDE_BUNDLED": _fixed("remove it: the bundled workflows are always listed"),
    "WORKFLOW_INCLUDE_USER": _fixed("remove it: WORKRAIL_HOME/workflows is always read"),
    "WORKFLOW_INCLUDE_PROJECT": _fixed("remove it: the project's .workrail/workflows is always read"),
    "WORKRAIL_CACHE_DIR": _fixed(
        "write WORKRAIL_HOME instead: repositories are cloned under WORKRAIL_HOME/workflow-repos"
    ),
    "WORKRAIL_LOG_FORMAT": _fixed("remove it: logs are plain lines on stderr (WORKRAIL_LOG_LEVEL sets how many)"),
}


def reject_original_names(environ: Mapping[str, str] | None = None) -> None:
    """Raises ImproperlyConfigured naming each of the original's variables that is set, and its replacement."""
    environ = os.environ if environ is None else environ
    found = [name for name in RENAMES if environ.get(name, "").strip()]
    if not found:
        return
    lines = [f"{name} is the TypeScript WorkRail's setting: {RENAMES[name](environ)}." for name in found]
    raise ImproperlyConfigured(" ".join(lines))

"""`WORKRAIL_WORKFLOW_REPOS`: the git repositories workflows are read from, parsed strictly.

One line holds every repository, entries separated by spaces or commas. An entry is

    [NAME=]URL[#[REF][:DIR]]

`REF` (a branch, a tag or a full commit) and `DIR` (the directory of the workflows inside the
repository) follow git's own `<rev>:<path>` notation, so WorkRail's library is
`https://github.com/EtienneBBeaulac/workrail.git#main:workflows`. Without a ref the repository's default
branch is used; without a directory, the whole repository. `NAME` (what `sync_workflows --repo` and the
pins call it) defaults to the URL's last path segment without `.git`.

A malformed entry stops the program at start (ImproperlyConfigured, like every other setting) with a
message naming the entry, what is wrong and how to write it. Nothing here runs git.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit, urlunsplit

from django.core.exceptions import ImproperlyConfigured

SETTING = "WORKRAIL_WORKFLOW_REPOS"
SYNTAX = "[NAME=]URL[#[REF][:DIR]], e.g. https://github.com/EtienneBBeaulac/workrail.git#main:workflows"

# Transports git may use for these repositories (GIT_ALLOW_PROTOCOL): never `ext::`, which runs a command.
SCHEMES = ("https", "http", "ssh", "git", "file")
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
_NAME_PREFIX = re.compile(r"([A-Za-z0-9_-]+)=(.*)", re.DOTALL)
_SCP_LIKE = re.compile(r"[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^/].*")  # git@github.com:team/flows.git
# git check-ref-format, in short: no control characters, space, ~ ^ : ? * [ \, no '..', no '@{'.
_REF_CHARS = re.compile(r"[^\x00-\x20\x7f~^:?*\[\\]+")


@dataclass(frozen=True)
class WorkflowRepo:
    """One entry of WORKRAIL_WORKFLOW_REPOS."""

    name: str
    url: str  # as written, credentials included: only ever passed to git
    ref: str | None  # None: the repository's default branch (its HEAD)
    directory: str  # "" for the repository's root
    entry: str = field(compare=False)  # the entry as written, credentials hidden: for messages

    @property
    def display_url(self) -> str:
        """The URL without credentials (user info of http(s), any password, the query): what people see."""
        return display_url(self.url)

    @property
    def key(self) -> str:
        """Names this repository, ref and directory together: a pin belongs to exactly one of them, so
        changing any of the three in the setting starts from a fresh fetch instead of a stale pin."""
        text = "\n".join([self.display_url, self.ref or "", self.directory])
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    @property
    def folder(self) -> str:
        """The folder of its clone under $WORKRAIL_HOME/workflow-repos: readable, and unique by key."""
        return f"{self.name}-{self.key}"

    @property
    def written(self) -> str:
        """The entry in its full form (NAME=URL#REF:DIR), credentials included: parsed, it gives this repository."""
        fragment = (self.ref or "") + (f":{self.directory}" if self.directory else "")
        return f"{self.name}={self.url}" + (f"#{fragment}" if fragment else "")

    @property
    def ref_label(self) -> str:
        return self.ref or "the default branch"


def display_url(url: str) -> str:
    if _SCP_LIKE.fullmatch(url):
        return url  # `git@host:path`: the user is the transport's, not a secret
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    if parts.scheme == "ssh" and parts.username and not parts.password:
        host = f"{parts.username}@{host}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def parse_workflow_repos(text: str | None) -> list[WorkflowRepo]:
    """Every repository of the setting's value, in order; raises ImproperlyConfigured on the first
    malformed entry, or on two entries with one name."""
    if not text or not text.strip():
        return []
    entries = [part for part in re.split(r"[\s,]+", text.strip()) if part]
    repos = [_parse_entry(index, entry) for index, entry in enumerate(entries, start=1)]
    seen: dict[str, WorkflowRepo] = {}
    for repo in repos:
        if repo.name in seen:
            first = seen[repo.name]
            same = first.key == repo.key
            raise ImproperlyConfigured(
                f"{SETTING}: '{first.entry}' and '{repo.entry}' are both named '{repo.name}'. "
                + (
                    "Remove the second: it is the same repository, ref and directory."
                    if same
                    else f"Name one of them: write it as OTHERNAME={repo.entry}."
                )
            )
        seen[repo.name] = repo
    return repos


def _problem(index: int, entry: str, what: str, fix: str) -> ImproperlyConfigured:
    return ImproperlyConfigured(
        f"{SETTING}: entry {index} ('{hide_credentials(entry)}') {what} {fix} Each entry is {SYNTAX}; entries are "
        "separated by spaces or commas."
    )


# Credentials in text: the user info of a URL (`scheme://user:token@host`), its query (`?private_token=...`),
# and a parameter named like a secret anywhere (`access_token=...`, `password: ...`), for what git prints.
_URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/@\s'\"<>]*@")
_URL_QUERY = re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://[^\s?'\"<>]*)\?[^\s#'\"<>]*")
_SECRET_PARAMETER = re.compile(
    r"(?i)\b([a-z0-9_-]*(?:token|password|passwd|secret|credential|api[_-]?key|auth)[a-z0-9_-]*)(\s*[=:]\s*)"
    r"(?!\*\*\*)[^\s&;,'\"<>]+"
)
SHORTEST_SECRET = 4  # shorter parts of a URL (a user named `git`) are not hidden wherever they appear


def hide_credentials(text: str, url: str | None = None) -> str:
    """`text` with every credential hidden: what any message, page, log line or command output shows of a
    repository entry, a URL or git's own words (which quote the URL they were given, query included).

    Hidden: the user info and the query of every URL in the text, each parameter named like a secret, and,
    when `url` is given, each secret part of it (user, password, query values) wherever it appears in the
    text, decoded or not (a server may echo it back in its own words)."""
    for secret in sorted(_secrets_of(url), key=len, reverse=True) if url else ():
        text = text.replace(secret, "***")
    text = _URL_USERINFO.sub(r"\1***@", text)
    text = _URL_QUERY.sub(r"\1?***", text)
    return _SECRET_PARAMETER.sub(r"\1\2***", text)


def _secrets_of(url: str) -> set[str]:
    if _SCP_LIKE.fullmatch(url) or "://" not in url:
        return set()
    try:
        parts = urlsplit(url)
        username, password = parts.username, parts.password
    except ValueError:
        return set()
    found = {parts.query} if parts.query else set()
    found |= {value for pair in parts.query.split("&") for value in pair.split("=", 1)[1:]}
    if password:
        found |= {password}
    if username and (password or parts.scheme != "ssh"):  # an ssh user alone is the transport's, not a secret
        found |= {username}
    found |= {unquote(secret) for secret in found}
    return {secret for secret in found if len(secret) >= SHORTEST_SECRET}


def _parse_entry(index: int, entry: str) -> WorkflowRepo:
    name: str | None = None
    rest = entry
    prefixed = _NAME_PREFIX.fullmatch(entry)
    if prefixed and "://" not in prefixed.group(1) and "@" not in prefixed.group(1):
        name, rest = prefixed.group(1), prefixed.group(2)
        if not _NAME.fullmatch(name):
            raise _problem(
                index,
                entry,
                f"has the name '{name}', which is not a valid repository name.",
                "Use lowercase letters, digits, '-' and '_' (at most 40, starting with a letter or digit).",
            )
    url, hash_sign, fragment = rest.partition("#")
    if hash_sign and "#" in fragment:
        raise _problem(index, entry, "has more than one '#'.", "Write one '#' between the URL and REF:DIR.")
    if not hash_sign:
        _check_colon_without_hash(index, entry, name, url)
    _check_url(index, entry, url)
    ref_text, _colon, directory = fragment.partition(":")
    ref = ref_text or None
    if ref is not None:
        _check_ref(index, entry, ref)
    directory = _check_directory(index, entry, directory)
    return WorkflowRepo(name or _default_name(url), url, ref, directory, hide_credentials(entry))


def _check_colon_without_hash(index: int, entry: str, name: str | None, url: str) -> None:
    """`URL:workflows` (or `URL:main:workflows`): a directory (and ref) written without the '#' before them.
    git would be asked for a repository whose path ends in ':workflows'; the answer is the entry rewritten."""
    scp = _SCP_LIKE.fullmatch(url)
    path = url.split(":", 1)[1] if scp else urlsplit(url).path if "://" in url else ""
    if ":" not in path:
        return
    repository_path, _colon, after = path.partition(":")
    repository = url[: len(url) - len(path)] + repository_path
    fragment = after if ":" in after else f":{after}"
    fixed = (f"{name}=" if name else "") + f"{repository}#{fragment}"
    raise _problem(
        index,
        entry,
        f"has ':{after}' after the repository's path, without the '#' that introduces REF:DIR.",
        f"Write it as '{hide_credentials(fixed)}'.",
    )


def _check_url(index: int, entry: str, url: str) -> None:
    if not url:
        raise _problem(index, entry, "has no URL.", "Put the repository's URL first.")
    if url.startswith("-"):
        raise _problem(index, entry, "starts with '-', which git would read as an option.", "Give a URL.")
    if _SCP_LIKE.fullmatch(url):
        return
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme not in SCHEMES:
        raise _problem(
            index,
            entry,
            f"has the URL '{hide_credentials(url)}', which is not a repository URL WorkRail accepts.",
            "Use https://, ssh://, git://, file:// (a local repository: file:///abs/path/repo.git) or user@host:path.",
        )
    parts = urlsplit(url)
    shown = hide_credentials(url)
    if scheme != "file" and not parts.hostname:
        raise _problem(index, entry, f"has the URL '{shown}' without a host.", "Write scheme://host/path.")
    if not parts.path.strip("/"):
        raise _problem(index, entry, f"has the URL '{shown}' without a path.", "Name the repository's path.")


def _check_ref(index: int, entry: str, ref: str) -> None:
    bad = (
        not _REF_CHARS.fullmatch(ref)
        or ref.startswith(("-", "/", "."))
        or ref.endswith(("/", ".", ".lock"))
        or ".." in ref
        or "@{" in ref
        or "//" in ref
        or "/." in ref
        or ref == "@"
    )
    if bad:
        raise _problem(
            index,
            entry,
            f"has the ref '{ref}', which is not a branch, tag or commit name git accepts.",
            "Name a branch (main), a tag (v1.2.0) or a full 40-character commit.",
        )


def _check_directory(index: int, entry: str, directory: str) -> str:
    cleaned = directory.strip("/") if not directory.startswith("/") else directory
    if not cleaned:
        return ""
    parts = cleaned.split("/")
    if (
        cleaned.startswith("/")
        or "\\" in cleaned
        or any(part in ("", ".", "..") or part.startswith("-") for part in parts)
        or re.search(r"[\x00-\x1f\x7f]", cleaned)
    ):
        raise _problem(
            index,
            entry,
            f"has the directory '{directory}', which is not a plain path inside the repository.",
            "Write it relative to the repository's root, without '..' (e.g. workflows or lib/workflows).",
        )
    return cleaned


def _default_name(url: str) -> str:
    path = url.split(":", 1)[1] if _SCP_LIKE.fullmatch(url) else urlsplit(url).path
    last = path.rstrip("/").rsplit("/", 1)[-1]
    last = last.removesuffix(".git").lower()
    name = re.sub(r"[^a-z0-9_-]+", "-", last).strip("-_")[:40]
    return name or "repo"

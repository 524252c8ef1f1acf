"""How to connect an agent to this installation: printed by `make run` and shown on the dashboard.

The agent's client launches its own MCP server (`manage.py mcp` in a checkout, the `workrail-py mcp`
console script where the wheel is installed) with the client's environment, not the dashboard's.
So the instructions carry the settings that decide which data the server sees whenever they differ from
what a server started without them would get; otherwise the agent would write to a store the dashboard
does not show.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit
from urllib.request import url2pathname

import dj_database_url
from django.conf import settings

from workrail_site.settings_file import FILE_NAME, read_settings_file
from workrail_site.workflow_repos import hide_credentials

SERVER_NAME = "workrail"
HIDDEN_PASSWORD = "********"


# The installed console script (pyproject.toml's [project.scripts]).
CONSOLE_SCRIPT = "workrail-py"
DISTRIBUTION = "workrail-py"  # its name on PyPI: the console script's package


@dataclass(frozen=True)
class ConnectionInstructions:
    command: list[str]  # what the client runs: the program, then its arguments
    env: dict[str, str]  # what the agent's server needs to see this dashboard's data; empty with the defaults
    claude_code: str
    json_config: str
    password_hidden: bool  # DATABASE_URL's password was replaced by HIDDEN_PASSWORD
    settings_file: SettingsFileShown


@dataclass(frozen=True)
class SettingsFileShown:
    """WORKRAIL_HOME/config.toml as the connect page shows it: where, whether it is there, what it sets."""

    path: str  # as a person reads it: "~/.workrail/config.toml" under their home (`home_relative`)
    exists: bool
    keys: list[str]  # the keys whose values are in use (the environment sets none of them)
    overridden: list[str]  # keys the environment overrides, as variable names
    # The sample line, with the retention this dashboard keeps sessions for, as the not-found page says it
    # (lost.py): a literal 30 beside that page's 60 read as two rules (friction62b 18).
    retention_example: str = ""


def settings_file_shown(home: Path) -> SettingsFileShown:
    """The settings file of `home`, the WORKRAIL_HOME the commands give: the page names the very file their
    server reads. It is the file this process read at start unless the home was changed since (settings
    overridden in a running process, as tests do): then the file in `home` is read now, the environment
    winning over it as at start."""
    path = home / FILE_NAME
    started = settings.WORKRAIL_SETTINGS_FILE
    if started.path is not None and started.path.resolve() == path:
        file, used = started, set(settings.WORKRAIL_SETTINGS_FROM_FILE)
    else:
        file = read_settings_file(home)
        used = {name for name in file.values if name not in os.environ}
    return SettingsFileShown(
        path=home_relative(path),
        exists=file.exists,
        keys=sorted(file.keys[name] for name in used),
        overridden=sorted(name for name in file.values if name not in used),
        retention_example=f"retention_days = {settings.WORKRAIL_RETENTION_DAYS}",
    )


def home_relative(path: Path) -> str:
    """`path` as its user knows it: "~/..." under their home, else whole (friction62a 12: a home's long absolute
    path read as alarming). Only for a path a person reads or opens by hand: a "~" works in a shell and an
    editor's "open file", not in a JSON config, so the commands keep the whole path."""
    home = Path.home()
    return f"~/{path.relative_to(home)}" if path.is_relative_to(home) and path != home else str(path)


def connection_instructions(*, reveal_password: bool = False) -> ConnectionInstructions:
    """The Claude Code command and the `mcpServers` JSON for this installation.

    DATABASE_URL's password is shown only with `reveal_password` (the terminal of whoever ran `make run`);
    the dashboard page, which any local user can open, gets HIDDEN_PASSWORD in its place.
    """
    home = Path(settings.WORKRAIL_HOME).resolve()  # the one value both the commands and the file shown follow
    command = server_command()
    env = server_env(home)
    shown = dict(env)
    password_hidden = False
    if "DATABASE_URL" in shown and not reveal_password:
        shown["DATABASE_URL"] = hide_password(shown["DATABASE_URL"])
        password_hidden = shown["DATABASE_URL"] != env["DATABASE_URL"]
    if "WORKRAIL_WORKFLOW_REPOS" in shown and not reveal_password:
        shown["WORKRAIL_WORKFLOW_REPOS"] = hide_credentials(shown["WORKRAIL_WORKFLOW_REPOS"])
        password_hidden = password_hidden or shown["WORKRAIL_WORKFLOW_REPOS"] != env["WORKRAIL_WORKFLOW_REPOS"]
    server: dict[str, object] = {"command": command[0], "args": command[1:]}
    if shown:
        server["env"] = shown
    return ConnectionInstructions(
        command=command,
        env=shown,
        claude_code=claude_code_command(command, shown),
        json_config=json.dumps({"mcpServers": {SERVER_NAME: server}}, indent=2),
        password_hidden=password_hidden,
        settings_file=settings_file_shown(home),
    )


def server_command() -> list[str]:
    """How a client starts this installation's MCP server: with this Python and the checkout's manage.py
    when there is one, else with the console script installed beside this Python (a pipx or uvx
    environment, a venv)."""
    manage_py = Path(settings.BASE_DIR) / "manage.py"
    if manage_py.is_file():
        return [sys.executable, str(manage_py), "mcp"]
    if run_by_uvx():
        # Its environment is a cache entry, which uv may replace: name what uvx needs to make it again.
        return ["uvx", *uvx_source(), CONSOLE_SCRIPT, "mcp"]
    script = Path(sys.executable).parent / CONSOLE_SCRIPT
    return [str(script) if script.is_file() else CONSOLE_SCRIPT, "mcp"]


def uvx_source() -> list[str]:
    """uvx's options that make this very installation again. Installed from a local directory or wheel
    (`uvx --from ./clone`: PEP 610's direct_url.json says so), the package's name alone would find
    nothing before a release, or the published one instead of this: `--from` names the path. The
    interpreter running now is named too, as uv may not find a Python 3.12 by itself (and would try to
    download one)."""
    options = ["--python", os.path.realpath(sys.executable)]
    try:
        raw = metadata.distribution(DISTRIBUTION).read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        raw = None
    try:
        url = str(json.loads(raw).get("url", "")) if raw else ""
    except (ValueError, AttributeError):
        url = ""
    if url.startswith("file://"):
        options += ["--from", url2pathname(urlsplit(url).path)]
    return options


def run_by_uvx() -> bool:
    """Whether this process runs in a throwaway environment of `uvx` (a heuristic over uv's own layout:
    uv sets UV to its binary for what it runs, and uvx's environments live in its cache's archive-v*
    folders). A pipx or venv install has a stable path instead."""
    return "UV" in os.environ and any(part.startswith("archive-v") for part in Path(sys.prefix).parts)


def claude_code_command(command: list[str], env: Mapping[str, str]) -> str:
    words = ["claude", "mcp", "add", SERVER_NAME]
    # `-e KEY=value` goes after the server name: Claude Code's -e/--env takes several values, so a name
    # written after it would be read as one more variable ("Invalid environment variable format").
    for name, value in env.items():
        words += ["-e", f"{name}={value}"]
    words += ["--", *command]
    return " ".join(shlex.quote(word) for word in words)


def server_env(home: Path) -> dict[str, str]:
    """The variables an agent's `manage.py mcp` must get to share this process's data, `home` being this
    process's WORKRAIL_HOME, resolved. Settings that came from WORKRAIL_HOME/config.toml are left out: a
    server with the same WORKRAIL_HOME reads the same file."""
    env: dict[str, str] = {}
    from_file = set(settings.WORKRAIL_SETTINGS_FROM_FILE)
    if home != Path(settings.WORKRAIL_HOME_DEFAULT).resolve():
        # The SQLite database, the secret key and the user workflows live here.
        env["WORKRAIL_HOME"] = str(home)
    database_url = portable_database_url(settings.DATABASE_URL_SECRET)
    if database_url and "DATABASE_URL" not in from_file:
        # Needed, or the server opens the SQLite file in WORKRAIL_HOME instead. It may contain a password,
        # which then sits in the client's config file (and, for Claude Code, in the shell history).
        env["DATABASE_URL"] = database_url
    if settings.WORKRAIL_WORKFLOW_PATHS and "WORKRAIL_WORKFLOW_PATHS" not in from_file:
        # Not the store, but the dashboard lists these workflows: the agent should be able to start them.
        env["WORKRAIL_WORKFLOW_PATHS"] = os.pathsep.join(str(path) for path in settings.WORKRAIL_WORKFLOW_PATHS)
    if settings.WORKRAIL_WORKFLOW_REPOS and "WORKRAIL_WORKFLOW_REPOS" not in from_file:
        # Their workflows are listed here too; the pins are shared through WORKRAIL_HOME.
        env["WORKRAIL_WORKFLOW_REPOS"] = " ".join(repo.written for repo in settings.WORKRAIL_WORKFLOW_REPOS)
    # WORKRAIL_PROJECT_DIR is left out on purpose: it defaults to the directory the agent's client starts
    # the server in, which is the agent's project, and should stay that.
    return env


def portable_database_url(url: str) -> str:
    """`url`, with a relative SQLite path made absolute: the agent's server runs in another directory."""
    if not url:
        return url
    database = dj_database_url.parse(url)  # settings already refused a URL this cannot parse
    if database.get("ENGINE") != "django.db.backends.sqlite3":
        return url
    name = str(database.get("NAME") or "")
    if not name or name == ":memory:" or name.startswith("file:") or Path(name).is_absolute():
        return url
    query = urlsplit(url).query
    return f"sqlite:///{quote(str(Path(name).resolve()))}" + (f"?{query}" if query else "")


def hide_password(url: str) -> str:
    """`url` with its password (in the user info or a `password` query parameter) replaced."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if parts.password is not None:
        userinfo, _, hostinfo = netloc.rpartition("@")
        user = userinfo.partition(":")[0]
        netloc = f"{user}:{HIDDEN_PASSWORD}@{hostinfo}"
    query = parts.query
    pairs = parse_qsl(query, keep_blank_values=True)
    if any(key == "password" for key, _ in pairs):
        query = urlencode([(key, HIDDEN_PASSWORD if key == "password" else value) for key, value in pairs], safe="*")
    if (netloc, query) == (parts.netloc, parts.query):
        return url
    return urlunsplit(parts._replace(netloc=netloc, query=query))

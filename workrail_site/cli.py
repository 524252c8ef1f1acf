"""`workrail-py`: the installed command (the wheel's console script), one subcommand per thing users run.

Each subcommand is a management command under a short name, with its own options and --help; `manage`
reaches every other management command (Django's own included), as `manage.py` does in a checkout.
`mcp` takes the same fast path as `manage.py mcp`: the handshake is answered before Django loads its apps.
Commands that use the store apply its pending migrations first (runs/store/setup.py), so a new machine
needs no `migrate` step.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

PROG = "workrail-py"


@dataclass(frozen=True)
class Subcommand:
    command: str  # the management command it runs
    summary: str  # one line for `workrail-py --help`


SUBCOMMANDS = {
    "mcp": Subcommand("mcp", "the MCP server on stdio, for an agent's client; --http serves a team (docs/http.md)"),
    "dashboard": Subcommand("dashboard", "the dashboard on http://127.0.0.1:8765/ and how to connect an agent"),
    "sync": Subcommand("sync_workflows", "fetch the workflow repositories and move their pins"),
    "validate": Subcommand("validate_workflow", "check workflow files against the schema and the engine's rules"),
    "export": Subcommand("export_session", "write a session as a bundle another machine can import"),
    "import": Subcommand("import_bundle", "import a session bundle as a new session"),
    "report": Subcommand("export_report", "write a session's report as Markdown or PDF"),
    "cleanup": Subcommand("cleanup", "delete sessions idle for longer than the retention period"),
}


def usage() -> str:
    width = max(len(name) for name in SUBCOMMANDS)
    lines = [
        f"usage: {PROG} <command> [options]   ({PROG} <command> --help for a command's options)",
        "",
        "WorkRail for Python: an MCP server that keeps an agent on a multi-step workflow, and its dashboard.",
        "",
        "commands:",
        *(f"  {name.ljust(width)}  {sub.summary}" for name, sub in SUBCOMMANDS.items()),
        f"  {'version'.ljust(width)}  print the version",
        f"  {'manage'.ljust(width)}  any other management command (Django's too), e.g. {PROG} manage create_api_token",
        "",
        "Settings: environment variables or WORKRAIL_HOME/config.toml (docs/configuration.md).",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    sys.exit(run(args))


def run(args: list[str]) -> int:
    if not args or args[0] in ("-h", "--help", "help"):
        print(usage())
        return 0 if args else 2
    name, rest = args[0], args[1:]
    if name in ("version", "--version"):
        from workrail_site.version import VERSION

        print(f"{PROG} {VERSION}")
        return 0
    if name != "manage" and name not in SUBCOMMANDS:
        print(f"{PROG}: unknown command {name!r}.\n\n{usage()}", file=sys.stderr)
        return 2
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "workrail_site.settings")
    from django.core.exceptions import ImproperlyConfigured

    try:
        if name == "mcp":
            from runs.mcp.entry import main as mcp_main

            return mcp_main(rest, prog=f"{PROG} mcp")
        from django.core.management import execute_from_command_line

        if name == "manage":
            execute_from_command_line([f"{PROG} manage", *rest])
        else:
            execute_from_command_line([PROG, SUBCOMMANDS[name].command, *rest])
    except ImproperlyConfigured as exc:
        print(f"workrail: configuration error: {exc}", file=sys.stderr)
        return 2
    return 0

"""`manage.py sync_workflows [--repo NAME] [--check]`: fetch each workflow repository, check it and move its pin."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser, DjangoHelpFormatter
from django.core.management.color import Style, no_style

from workflows_app.management.commands.validate_workflow import file_lines
from workflows_app.repos.store import RepoStore
from workflows_app.repos.sync import SyncReport, sync
from workflows_app.terminal import printable
from workrail_site.workflow_repos import SETTING, SYNTAX

HELP = f"""\
Fetch each repository of {SETTING} (its branch, tag or commit), check its workflows with the
checks of validate_workflow, and move its pin to the commit fetched. The catalog reads a repository
only at its pinned commit, so nothing changes for the MCP server or the dashboard until this runs
(a repository never pinned is also fetched by the MCP server when it starts). A run already started
keeps the workflow it started with.

For each repository it prints the pinned commit and the new one (old -> new), the workflows added,
changed (their workflowHash) and removed, and the diagnostics of the files that have any.

The pin does not move when a workflow file at the new commit has an error it did not have at the
pinned commit: everything loaded from the repository stays loaded, and the report says what to fix.
Other repositories still move. A repository never pinned is pinned even with broken files (those are
left out, as in any workflow source).

Errors (each with its fix): REPO_FETCH_FAILED (the URL cannot be fetched: unreachable, not a
repository, access refused; git never asks for a password here), REPO_REF_NOT_FOUND (no such branch,
tag or commit), REPO_DIR_NOT_FOUND (no such directory, or no *.json file in it),
REPO_INVALID_WORKFLOW (pin kept, see above), REPO_TOO_LARGE (more workflow files or bytes than
one repository may write out, or git past its memory limit), and per file REPO_FILE_SKIPPED (larger
than 1 MiB, too deep or too long a path: not written out). Names are printed with control
characters escaped; credentials in a URL are never printed.

Exit status: 0 when every repository synced and its workflows are valid; 1 when one failed or holds
a workflow with an error; 2 on bad usage (no repository configured, an unknown --repo).

Each entry of {SETTING} is {SYNTAX}.
"""


class _HelpFormatter(DjangoHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Django's option order, and the description's paragraphs kept as written."""


class Command(BaseCommand):
    help = HELP
    requires_system_checks: list[str] = []  # no database: runs anywhere the settings load

    def create_parser(self, prog_name: str, subcommand: str, **kwargs: Any) -> CommandParser:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        return super().create_parser(prog_name, subcommand, **kwargs)

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--repo",
            action="append",
            dest="names",
            metavar="NAME",
            help="Sync only this repository (its name, or its URL); repeat for several. Default: all.",
        )
        parser.add_argument(
            "--check", action="store_true", help="Fetch and report what would change, without moving any pin."
        )

    def handle(self, *args: Any, names: list[str] | None, check: bool, **options: Any) -> None:
        repos = list(settings.WORKRAIL_WORKFLOW_REPOS)
        if not repos:
            raise CommandError(
                f"{SETTING} is empty: no workflow repository to sync. Set it to one or more entries, {SYNTAX}.",
                returncode=2,
            )
        if names:
            known = {repo.name: repo for repo in repos} | {repo.display_url: repo for repo in repos}
            unknown = [name for name in names if name not in known]
            if unknown:
                raise CommandError(
                    f"No repository named {', '.join(unknown)} in {SETTING}. "
                    f"Known: {', '.join(repo.name for repo in repos)}.",
                    returncode=2,
                )
            chosen = list(dict.fromkeys(known[name] for name in names))
            repos = [repo for repo in repos if repo in chosen]
        home = Path(settings.WORKRAIL_HOME)
        store = RepoStore(home)
        style = self.style if options["force_color"] or self.stdout.isatty() else no_style()
        reports = []
        for repo in repos:
            report = sync(repo, store, user_dir=home / "workflows", check=check)
            reports.append(report)
            self.stdout.write("\n".join(report_lines(report, style)) + "\n")
        failed = [report for report in reports if not report.ok]
        moved = sum(report.moved for report in reports)
        counted = f"{len(reports)} repositor{'y' if len(reports) == 1 else 'ies'}"
        if check:
            summary = f"{counted} checked (--check: no pin moved)"
        else:
            summary = f"{counted} synced: {moved} pin{'' if moved == 1 else 's'} moved"
        summary += f", {len(failed)} with problems." if failed else "."
        self.stdout.write((style.ERROR if failed else style.SUCCESS)(summary))
        if failed:
            sys.exit(1)


def report_lines(report: SyncReport, style: Style) -> list[str]:
    repo = report.repo
    where = repo.ref_label + (f", directory {repo.directory}" if repo.directory else "")
    lines = [style.MIGRATE_HEADING(printable(f"{repo.name}: {repo.display_url} ({where})"))]
    old = short(report.old_commit)
    new = short(report.new_commit)
    if report.new_commit is not None:
        if report.old_commit == report.new_commit:
            lines.append(f"  {old}: up to date")
        else:
            lines.append(f"  {old} -> {new}")
    for label, items in (("added", report.added), ("removed", report.removed)):
        if items:
            lines.append(f"  {label}: {', '.join(items)}")
    for change in report.changed:
        hashes = f"{short_hash(change.old_hash)} -> {short_hash(change.new_hash)}"
        lines.append(f"  changed: {change.workflow_id} ({hashes})")
    lines += file_lines(report.files, 0, style, indent="  ")
    if report.failure is not None:
        failure = report.failure
        lines.append("  " + style.ERROR(printable(f"{failure.code.value}: {failure.message}")))
        lines.append(f"    fix: {printable(failure.fix)}")
        if report.old_commit is not None:
            lines.append(f"  pin kept at {old}")
        else:
            lines.append("  not pinned: none of its workflows are loaded")
    elif report.moved:
        left_out = len(report.invalid_files)
        note = f"; {left_out} file{'' if left_out == 1 else 's'} with errors left out" if left_out else ""
        lines.append("  " + style.SUCCESS(f"pinned at {new}{note}"))
    elif report.checked_only and report.old_commit != report.new_commit:
        lines.append(f"  --check: the pin would move to {new}; it stays at {old}")
    return lines


def short(commit: str | None) -> str:
    return commit[:7] if commit else "(not pinned)"


def short_hash(workflow_hash: str) -> str:
    return workflow_hash.removeprefix("sha256:")[:12]

"""`manage.py validate_workflow PATH...`: check workflow files as the catalog would load them, for authors and CI.

The checks are the catalog's own: every file goes through `loader.load_file` and the lot through
`catalog.assemble` (duplicates, routine templates, compilation), beside the bundled workflows so that
calls to bundled routines resolve. Nothing is written and the database is never opened.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser, DjangoHelpFormatter
from django.core.management.color import Style, no_style

from workflows_app.catalog import Catalog, CatalogLoader
from workflows_app.diagnostics import Severity
from workflows_app.file_checks import FileReport, PathsProblem, configured_reports, summarize, validate
from workflows_app.repos.store import RepoStore
from workflows_app.sources import SourceKind, configured_sources
from workflows_app.terminal import printable

HELP = """\
Check workflow files exactly as the catalog loads them: size and encoding, JSON, id, schema,
structure, references, output contracts and compilation (routine templates included). Each PATH
is a workflow file or a directory searched recursively for *.json (hidden files and directories
are skipped, as in the catalog). Files are reported in sorted order, each with its status and
every diagnostic (severity, code, JSON pointer, message, fix), then a summary. Nothing is
written and no database is needed.

Source kind (decides the id rules and the namespace a legacy id is told to take): a file in the
bundled directory (workflows_app/bundled) is bundled and must use the reserved wr. namespace; a
file under $WORKRAIL_HOME/workflows is user (suggests user.); a file under any .workrail/workflows
directory is project (suggests project.); anything else is extra, like a WORKRAIL_WORKFLOW_PATHS
entry (suggests team.); a file under $WORKRAIL_HOME/workflow-repos is git, like a repository of
WORKRAIL_WORKFLOW_REPOS. --source sets the kind of every file instead. Outside the bundled directory
and git repositories, a wr. id is a RESERVED_NAMESPACE error; a repository's wr. id that a bundled
workflow also has gives a DUPLICATE_ID warning (the bundled one is used).

Routines called through templateCall are looked up among the bundled workflows and the files
checked, not in your configured sources, so the result does not depend on the machine. Two files
with the same id give a DUPLICATE_ID warning on the one the catalog would ignore. Likewise, a
parallel step delegating to a workflow that is neither bundled nor among the files checked gives an
UNKNOWN_DELEGATION warning (check the delegated workflows along with it to be sure).

--configured checks nothing given: it reports the problems of the sources this WorkRail is configured
with (WORKRAIL_HOME, the project, WORKRAIL_WORKFLOW_PATHS, and the repositories of
WORKRAIL_WORKFLOW_REPOS at their pinned commits), the ones list_workflows counts for an agent; with
--workflow ID, only that workflow's file (a former id works too).

Advice (not an error, not a warning: status and exit status stay as they are): for each step that asks
for context variables only in its prompt's words ("Capture: `a`", "set context `x`"), which the server
reads by a best-effort guess, how to declare them instead: promptBlocks.outputRequired with one
"context.<name>" key each, and an example to paste. Shown from -v 1 on, and in --json.

-v 0 lists only the files with diagnostics, and the summary. The summary counts files, valid
files (no error; those with warnings among them), invalid files, errors and warnings.

Exit status: 0 when no file has an error (warnings alone pass, unless --strict); 1 when a file has
an error (or, with --strict, a warning); 2 on bad usage: no PATH, a PATH that does not exist, or a
directory without any *.json file.
"""

# Same order as the catalog's own sources (workflows_app.sources.configured_sources): when two
# files define one id, the copy the catalog would keep is kept here too.
SOURCE_CHOICES = (
    "auto",
    SourceKind.USER.value,
    SourceKind.PROJECT.value,
    SourceKind.EXTRA.value,
    SourceKind.GIT.value,
)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


class _HelpFormatter(DjangoHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Django's option order, and the description's paragraphs kept as written."""


class Command(BaseCommand):
    help = HELP
    requires_system_checks: list[str] = []  # no database, no models: runs anywhere the settings load

    def create_parser(self, prog_name: str, subcommand: str, **kwargs: Any) -> CommandParser:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        return super().create_parser(prog_name, subcommand, **kwargs)

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "paths", nargs="*", type=Path, metavar="PATH", help="A workflow file, or a directory of them."
        )
        parser.add_argument(
            "--configured",
            action="store_true",
            help="Instead of PATHs, report the problems of the workflow sources this WorkRail is configured with "
            "(its settings, pinned repositories included): what list_workflows counts.",
        )
        parser.add_argument(
            "--workflow",
            metavar="ID",
            help="With --configured, only the file of this workflow (its id, or a former one).",
        )
        parser.add_argument(
            "--json",
            action="store_true",
            dest="as_json",
            help='Print one JSON document instead: {"files": [{"path", "workflowId", "status", "diagnostics", '
            '"advice"}], "summary": {...}}; status is "ok", "warnings" or "errors".',
        )
        parser.add_argument("--strict", action="store_true", help="Fail (exit status 1) on warnings too.")
        parser.add_argument(
            "--source",
            choices=SOURCE_CHOICES,
            default="auto",
            help="Check every file as coming from this kind of source (default: auto, from its location).",
        )

    def handle(self, *args: Any, paths: list[Path], as_json: bool, strict: bool, source: str, **options: Any) -> None:
        kind = None if source == "auto" else SourceKind(source)
        if options["configured"] == bool(paths) or (options["workflow"] and not options["configured"]):
            raise CommandError("Give PATHs, or --configured (with --workflow ID, optionally).", returncode=2)
        if options["configured"]:
            catalog = configured_catalog()
            wanted = options["workflow"]
            if wanted and catalog.resolve(wanted) is None and wanted not in catalog.invalid:
                raise CommandError(f"No configured workflow has the id '{options['workflow']}'.", returncode=2)
            reports = configured_reports(catalog, options["workflow"])
        else:
            try:
                reports = validate(paths, kind=kind, user_dir=Path(settings.WORKRAIL_HOME) / "workflows")
            except PathsProblem as exc:
                raise CommandError(printable(str(exc)), returncode=2) from None
        summary = summarize(reports)
        if as_json:
            document = {"files": [r.as_dict() for r in reports], "summary": summary}
            self.stdout.write(json.dumps(document, indent=2))
        else:
            # Colour only on a terminal: self.style follows sys.stdout, not the stream given to call_command.
            style = self.style if options["force_color"] or self.stdout.isatty() else no_style()
            self.stdout.write("\n".join(self._text(reports, summary, strict, options["verbosity"], style)))
        if summary["errors"] or (strict and summary["warnings"]):
            sys.exit(1)

    def _text(
        self, reports: list[FileReport], summary: dict[str, int], strict: bool, verbosity: int, style: Style
    ) -> list[str]:
        paint = painter(style)
        lines = file_lines(reports, verbosity, style)
        failed = summary["invalid"] or (strict and summary["warnings"])
        overall = "errors" if failed else "warnings" if summary["warnings"] else "ok"
        text = (
            f"{_plural(summary['files'], 'file')} checked: {summary['valid']} valid "
            f"({summary['withWarnings']} with warnings), {summary['invalid']} invalid; "
            f"{_plural(summary['errors'], 'error')}, {_plural(summary['warnings'], 'warning')}."
        )
        if strict and summary["warnings"]:
            text += " Warnings fail the check (--strict)."
        return [*lines, *([""] if lines else []), paint[overall](text)]


def configured_catalog() -> Catalog:
    """The catalog as this WorkRail's settings configure it (the MCP server's), repositories at their pins."""
    home = Path(settings.WORKRAIL_HOME)
    sources = configured_sources(
        workrail_home=home,
        project_dir=settings.WORKRAIL_PROJECT_DIR,
        extra_paths=list(settings.WORKRAIL_WORKFLOW_PATHS),
    )
    repos = list(settings.WORKRAIL_WORKFLOW_REPOS)
    if not repos:
        return CatalogLoader(sources).load()
    store = RepoStore(home)
    return CatalogLoader(sources, lambda: store.sources(repos, first_precedence=len(sources))).load()


def painter(style: Style) -> dict[str, Callable[[str], str]]:
    return {
        "ok": style.SUCCESS,
        "warnings": style.WARNING,
        "errors": style.ERROR,
        Severity.WARNING.value: style.WARNING,
        Severity.ERROR.value: style.ERROR,
    }


def file_lines(reports: list[FileReport], verbosity: int, style: Style, indent: str = "") -> list[str]:
    """Each file's status line and its diagnostics, as validate_workflow prints them (sync_workflows too)."""
    paint = painter(style)
    lines = []
    for report in reports:
        if verbosity == 0 and not report.diagnostics:
            continue
        status = {
            "ok": "ok",
            "warnings": f"ok with {_plural(report.warnings, 'warning')}",
            "errors": _plural(report.errors, "error")
            + (f", {_plural(report.warnings, 'warning')}" if report.warnings else ""),
        }[report.status]
        name = f"{report.path} ({report.workflow_id})" if report.workflow_id else report.path
        lines.append(f"{indent}{printable(name)}: {paint[report.status](status)}")
        for d in report.diagnostics:
            where = printable(f" at {d.pointer}" if d.pointer else "")
            severity = paint[d.severity.value](d.severity.value)
            lines.append(f"{indent}  {severity} {d.code.value}{where}: {printable(d.message)}")
            lines.append(f"{indent}    fix: {printable(d.fix)}")
        for advice in report.advice if verbosity > 0 else ():
            lines.append(f"{indent}  advice at step '{printable(advice.step_id)}': {printable(advice.message)}")
            lines.append(f"{indent}    declare: {printable(advice.example)}")
    return lines

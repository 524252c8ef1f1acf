"""Only the heuristics read prose: a module of workflows_app, runs or exports that applies a regex (`re`,
`re2`, `regex`) must be the heuristics package over authors' prose (workflows_app/prose) or be listed here
with what its patterns match. None of those reasons is reading meaning out of a prompt, a description or
an answer: the project reads structure, and never parses text it wrote itself (issue 31).

A new module that imports a regex library fails here: move its reading of prose into workflows_app/prose,
read a structured field instead, or, when it matches something that is not prose (an id, a token, a
syntax), add it below with that reason. An entry whose module no longer uses a regex fails too, so that
the list stays the truth.
"""

from __future__ import annotations

import ast

from tests.support.paths import REPO

PACKAGES = ("workflows_app", "runs", "exports")
REGEX_MODULES = {"re", "re2", "regex"}
HEURISTICS = "workflows_app/prose/"  # the one labelled place that reads authors' prose

ALLOWED: dict[str, str] = {
    # ids, tokens, names and digests: shapes of values, not meaning in words
    "exports/bundle/document.py": "the timestamps a bundle document carries",
    "runs/templatetags/dashboard.py": "the dots and underscores inside an id, where a narrow screen may break it",
    "exports/bundle/export.py": "token tails in exported bytes, to strip secrets",
    "exports/bundle/ids.py": "ses_/run_ ids and the mentions of them",
    "exports/bundle/importing.py": "the ' (copy N)' suffix an import gives a session key",
    "exports/bundle/rules.py": "sha256 digests",
    "runs/readmodels/naming.py": "characters unsafe in a file name",
    "runs/readmodels/artifact_fields.py": "an artifact's camelCase keys, split into words for a label",
    "runs/store/api_tokens.py": "the names of API tokens",
    "runs/store/tokens.py": "the shape of a state or ack token",
    "runs/migrations/0011_api_tokens.py": "the names of API tokens, in a migration",
    "runs/mcp/subscriptions.py": "resource URIs",
    "workflows_app/ids.py": "workflow ids",
    "workflows_app/tags.py": "tag ids",
    "workflows_app/examples.py": "the ids of example workflows",
    "workflows_app/repos/git.py": "git commit ids",
    "runs/readmodels/commits.py": "commit ids, and the counts in git's own `diff --shortstat` line",
    # the user's own words: what they search for
    "runs/execution/catalog.py": "the user's search query and the catalog text it is matched with, folded the "
    "same way (punctuation as spaces), and ids compared without their punctuation",
    "runs/execution/resume.py": "the user's resume query: ticket ids and words",
    # syntaxes the workflow format declares, parsed as syntax
    "workflows_app/compiler.py": "`{{wr.bindings.<slot>}}` binding tokens",
    "workflows_app/builtins/templates.py": "a routine template's `{{arg}}` arguments",
    "workflows_app/engine/templating.py": "`{{placeholder}}` context templates",
    "workflows_app/conditions.py": "an author's own pattern for the `matches` operator (re2)",
    "workflows_app/engine/validation.py": "an author's own pattern in a validation rule",
    "exports/bundle/schemas.py": "the `pattern` keywords of the bundle's JSON schemas (re2)",
    "workflows_app/sources.py": "JSON string literals, skipped when measuring a file's nesting depth",
    "runs/execution/placeholders.py": "the `<fill in ...>` blank this project writes, recognised when an agent "
    "sends it back unfilled (a form of its own, never read for meaning)",
    # safe output: what a terminal, a Markdown page or a PDF may hold
    "workflows_app/terminal.py": "control characters, kept off a terminal",
    "exports/reports/branch_tree.py": "control characters, kept out of a report",
    "exports/reports/safe_markdown.py": "Markdown syntax characters, escaped",
    "exports/reports/note_budget.py": "Markdown table borders, when measuring notes",
    "exports/reports/paper_budget.py": "HTML tags and line starts, when measuring a page",
    # the agent's own words, never ours: the labelled guesses at a verdict it wrote in its notes
    "runs/readmodels/agent_prose.py": "a 'Verdict:' line in an agent's notes (HEURISTICS over agents' prose)",
}


def _uses_regex(source: str) -> bool:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import) and any(alias.name.split(".")[0] in REGEX_MODULES for alias in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in REGEX_MODULES and not node.level:
            return True
    return False


def _modules_using_regex() -> set[str]:
    found = set()
    for package in PACKAGES:
        for path in (REPO / package).rglob("*.py"):
            if _uses_regex(path.read_text(encoding="utf-8")):
                found.add(path.relative_to(REPO).as_posix())
    return found


def test_only_the_heuristics_and_listed_modules_apply_regexes():
    unlisted = sorted(
        module for module in _modules_using_regex() if not module.startswith(HEURISTICS) and module not in ALLOWED
    )
    assert unlisted == [], (
        f"{unlisted} apply regexes: read structure instead, move a reading of authors' prose into {HEURISTICS}, "
        "or list what the patterns match in ALLOWED"
    )


def test_every_listed_module_still_uses_a_regex():
    using = _modules_using_regex()
    assert sorted(module for module in ALLOWED if module not in using) == []


def test_the_heuristics_package_is_labelled_as_such():
    assert "HEURISTICS" in (REPO / HEURISTICS / "__init__.py").read_text(encoding="utf-8").split("\n", 1)[0]


def test_the_guard_sees_every_form_of_import():
    assert _uses_regex("import re")
    assert _uses_regex("import re2 as fast")
    assert _uses_regex("from re import compile")
    assert not _uses_regex("from . import re")  # a sibling module named re is not the library
    assert not _uses_regex("import requests")

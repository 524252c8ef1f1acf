"""The one line a folded section of the run page shows while closed: how many, and of what kind. The findings
("3 findings" · "1 critical, 2 minor") and the changed files ("5 changed files" · "1 high risk, 4 low risk";
files no one gave a risk, as a hand-off's, by their names: "2 changed files" · "orders.py, test_orders.py") fold
to this line on every screen size and open in place (dashboard/_run.html), so a long review page is a few
screens on a phone; the state panel and the pending step never fold. The branch they were recorded on is named
("on branch 2") only when the run has more than one: a single branch has nothing to be told apart from."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import PurePosixPath

from runs.contract.dashboard import ArtifactTables
from runs.readmodels.artifact_tables import RISK_WORDS, SEVERITIES, files_heading

# Risk levels worst first; a level the agent spelled its own way follows them, in the order it first appears.
RISK_ORDER = tuple(reversed(RISK_WORDS.values()))
# Files named on the folded line when none has a risk to count them by; the rest are "and N more".
NAMED_FILES = 3


@dataclass(frozen=True)
class FoldLine:
    """The folded section's heading ("3 findings") and its parts counted by kind ("1 critical, 2 minor");
    `parts` is empty when no item says its kind; `where` names the shown branch ("on branch 2"), empty when
    the run never forked."""

    heading: str
    parts: str
    where: str = ""
    # friction18a 24, 18b 14: the fold is open from the start when it holds something to act on (a critical or
    # major finding), and a critical finding's title is said on the line itself, for when it is closed again.
    open: bool = False
    critical: str = ""


def findings(tables: ArtifactTables, branch: int | None = None) -> FoldLine:
    """The findings counted by severity, worst first (they are sorted so: runs/readmodels/artifact_tables.py);
    `branch` is the shown branch's number when the run has several, else None."""
    counts: Counter[str] = Counter(f.severity for f in tables.findings)
    parts = [f"{counts[s]} {s}" for s in SEVERITIES if counts[s]]
    critical = next((f.title for f in tables.findings if f.severity == "critical"), "")
    return FoldLine(
        _count(len(tables.findings), "finding"),
        ", ".join(parts),
        _where(branch),
        open=bool(counts["critical"] or counts["major"]),
        critical=critical,
    )


def changed_files(tables: ArtifactTables, branch: int | None = None) -> FoldLine:
    """The changed files counted by risk, highest first; files without a risk are in the total only. When no
    file has a risk (a coding hand-off lists paths alone), the first files by name instead, so that the folded
    line still says something past its count (friction12 15); `branch` as for findings()."""
    counts = Counter(f.risk for f in tables.changed_files if f.risk)
    levels = [r for r in RISK_ORDER if counts[r]] + [r for r in counts if r not in RISK_ORDER]
    parts = [f"{counts[r]} {r} risk" for r in levels] or _names([f.path for f in tables.changed_files])
    return FoldLine(files_heading(len(tables.changed_files)), ", ".join(parts), _where(branch))


def _names(paths: list[str]) -> list[str]:
    """The first NAMED_FILES files by their names ("orders.py"), by their paths where two share a name, then
    "and N more"."""
    shown = paths[:NAMED_FILES]
    names = [PurePosixPath(p).name or p for p in shown]
    said = [name if names.count(name) == 1 else path for name, path in zip(names, shown, strict=True)]
    more = len(paths) - len(shown)
    return said + ([f"and {more} more"] if more else [])


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _where(branch: int | None) -> str:
    return f"on branch {branch}" if branch is not None else ""

"""Artifacts as a reader wants them: one table of changed files, one of findings, the rest as they are.

Agents report the same file or finding several times along a run (a coding handoff, then a review
listing the files again). Here files are de-duplicated by path (the latest report of a path wins,
the table is sorted by path), and findings are ordered by severity, each with a review comment that
can be pasted as is. Pure: the dashboard, the API and the reports build the same tables.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from runs.contract.dashboard import ArtifactEntry, ArtifactTables, ChangedFile, Finding
from workflows_app.engine.jsontypes import JsonObject

SEVERITIES = ("critical", "major", "minor", "nit")
RISK_WORDS = {"L": "low", "M": "medium", "H": "high"}


def tables(artifacts: Iterable[tuple[str | None, JsonObject]]) -> ArtifactTables:
    """`artifacts` are (step id, artifact) pairs in the order they were recorded; an artifact is the
    agent's own JSON, read defensively (any field may be missing or of another type)."""
    files: dict[str, ChangedFile] = {}
    findings: list[Finding] = []
    others: list[ArtifactEntry] = []
    for step_id, artifact in artifacts:
        if not isinstance(artifact, dict):
            continue
        kind = str(artifact.get("kind", ""))
        if kind == "mr_review.changed_files":
            for entry in _dicts(artifact.get("changedFiles")):
                path = _text(entry.get("path"))
                if path:
                    risk = _text(entry.get("risk"))
                    files[path] = ChangedFile(
                        path=path, summary=_text(entry.get("summary")), risk=RISK_WORDS.get(risk, risk)
                    )
        elif kind == "wr.coding_handoff" and isinstance(artifact.get("filesChanged"), list):
            for path in artifact["filesChanged"]:
                if isinstance(path, str) and path and path not in files:
                    files[path] = ChangedFile(path=path, summary="", risk="")
        if kind in ("mr_review.findings", "wr.review_verdict"):
            findings.extend(_finding(entry) for entry in _dicts(artifact.get("findings")))
        if kind not in ("mr_review.changed_files", "mr_review.findings"):
            others.append(ArtifactEntry(kind=kind or "(no kind)", step_id=step_id, data=artifact))
    findings.sort(key=lambda f: SEVERITIES.index(f.severity))  # stable: same severity keeps its order
    return ArtifactTables(
        changed_files=[files[path] for path in sorted(files)],
        findings=findings,
        others=others,
    )


def _finding(entry: JsonObject) -> Finding:
    severity = _text(entry.get("severity")).lower()
    if severity not in SEVERITIES:
        severity = "minor"
    title = _text(entry.get("title")) or _text(entry.get("summary")) or "(untitled finding)"
    location = _location(entry)
    rationale = _text(entry.get("rationale"))
    suggestion = _text(entry.get("suggestion"))
    comment = [f"**{severity.capitalize()}**: {title}" + (f" ({location})" if location else "")]
    if rationale:
        comment.append(rationale)
    if suggestion:
        comment.append(f"Suggestion: {suggestion}")
    return Finding(
        severity=severity,
        title=title,
        location=location,
        rationale=rationale,
        suggestion=suggestion,
        comment="\n\n".join(comment),
    )


def _location(entry: JsonObject) -> str:
    where = entry.get("location")
    if isinstance(where, dict):
        file, line = _text(where.get("file")), where.get("line")
    else:
        file, line = _text(entry.get("file")), entry.get("line")
    if not file:
        return ""
    return f"{file}:{line}" if isinstance(line, int) and not isinstance(line, bool) else file


def _dicts(value: Any) -> list[JsonObject]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""

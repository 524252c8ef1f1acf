"""Artifacts as a reader wants them: one table of changed files, one of findings, the rest as they are.

Agents report the same file or finding several times along a run (a coding handoff, then a review
listing the files again). Here files are de-duplicated by path (the latest report of a path wins,
the table is sorted by path), and findings are ordered by severity, each with the review comment the
agent wrote for it (a `mr_review.findings` artifact's `mrComments` entry at the finding's location),
to paste as it is; none is made up from the finding. Other artifacts keep their JSON and are said as
fields (artifact_fields.py). Pure: the dashboard, the API and the reports build the same tables.

A loop-control artifact (`wr.loop_control`) is the agent telling the engine whether a loop runs
again: a signal the engine consumed when the step was acknowledged, not work that stands. It is left
out of "other artifacts" (where it was raw JSON, noise), and shown with the step that sent it as the
sentence it means (`loop_decision`): "Loop decision: stop (All checks pass.)".
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from runs.contract.dashboard import HANDOFF_KIND, ArtifactEntry, ArtifactField, ArtifactTables, ChangedFile, Finding
from runs.readmodels.artifact_fields import fields_of, label_of, title_of
from workflows_app.engine.decisions import LOOP_CONTROL_KIND
from workflows_app.engine.jsontypes import JsonObject

SEVERITIES = ("critical", "major", "minor", "nit")
FILES_CHANGED = "filesChanged"
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
        elif kind == HANDOFF_KIND and isinstance(artifact.get(FILES_CHANGED), list):
            for path in artifact[FILES_CHANGED]:
                if isinstance(path, str) and path and path not in files:
                    files[path] = ChangedFile(path=path, summary="", risk="")
        if kind in ("mr_review.findings", "wr.review_verdict"):
            findings.extend(_commented(_dicts(artifact.get("findings")), _dicts(artifact.get("mrComments"))))
        if kind not in ("mr_review.changed_files", "mr_review.findings", LOOP_CONTROL_KIND):
            others.append(
                ArtifactEntry(
                    kind=kind or "(no kind)",
                    step_id=step_id,
                    data=artifact,
                    title=title_of(kind) if kind else "An artifact without a kind",
                    fields=[] if kind == HANDOFF_KIND else fields_of(artifact),  # below, once the files are read
                )
            )
    findings.sort(key=lambda f: SEVERITIES.index(f.severity))  # stable: same severity keeps its order
    listed = [files[path] for path in sorted(files)]
    heading = files_heading(len(listed))  # a hand-off points to the files by it: known once all are read
    others = [
        entry.model_copy(update={"fields": _handoff_fields(entry.data, heading)})
        if entry.kind == HANDOFF_KIND
        else entry
        for entry in others
    ]
    return ArtifactTables(
        changed_files=listed,
        findings=findings,
        others=others,
        # A hand-off lists paths only: a column nobody filled is left out rather than shown empty.
        files_have_summary=any(f.summary for f in listed),
        files_have_risk=any(f.risk for f in listed),
    )


def files_heading(count: int) -> str:
    """The changed-files section's heading, "2 changed files": the one name a hand-off points to it by."""
    return f"{count} changed file{'' if count == 1 else 's'}"


def _handoff_fields(artifact: JsonObject, heading: str) -> list[ArtifactField]:
    """A hand-off's fields, its changed files said once: they are rows of the changed-files table, so the
    hand-off counts them and points there by that section's own `heading` ("2 files, listed under 2 changed
    files", friction24b 18: "Changed files" named no heading on the page), a link where the page has the section
    (ArtifactField.link) instead of listing them a second time."""
    paths = [p for p in artifact.get(FILES_CHANGED) or [] if isinstance(p, str) and p]
    if not isinstance(artifact.get(FILES_CHANGED), list) or not paths:
        return fields_of(artifact)
    before = f"{len(paths)} file{'s' if len(paths) != 1 else ''}, listed under "
    counted = ArtifactField(label=label_of(FILES_CHANGED), text=before + heading)
    counted._link = (before, heading)
    return [counted if f.label == counted.label else f for f in fields_of(artifact)]


def loop_decision(artifact: Any) -> str | None:
    """What a loop-control artifact means, as a sentence; None for any other artifact."""
    if not isinstance(artifact, dict) or artifact.get("kind") != LOOP_CONTROL_KIND:
        return None
    decision = {"continue": "continue (run another iteration)", "stop": "stop (leave the loop)"}.get(
        _text(artifact.get("decision")), _text(artifact.get("decision")) or "(none given)"
    )
    metadata = artifact.get("metadata")
    reason = _text(metadata.get("reason")) if isinstance(metadata, dict) else ""
    return f"Loop decision: {decision}" + (f" — {reason}" if reason else "")


def _commented(entries: list[JsonObject], comments: list[JsonObject]) -> list[Finding]:
    """The findings of one artifact, each with the review comment the agent wrote beside it
    (`mrComments`: location, title, body), each comment given once: first to the finding at the same
    location with the same title, then at the same location, then with the same title."""
    found = [_finding(entry) for entry in entries]
    titles = [_text(entry.get("title")) for entry in entries]
    left = [(_location(c), _text(c.get("title")), _text(c.get("body"))) for c in comments]
    left = [comment for comment in left if comment[2]]
    given: dict[int, str] = {}
    passes = (
        lambda f, t, c: bool(f.location) and c[0] == f.location and c[1] == t,
        lambda f, t, c: bool(f.location) and c[0] == f.location,
        lambda f, t, c: bool(t) and c[1] == t,
    )
    for fits in passes:
        for index, (finding, title) in enumerate(zip(found, titles, strict=True)):
            if index in given:
                continue
            match = next((c for c in left if fits(finding, title, c)), None)
            if match is not None:
                left.remove(match)
                given[index] = match[2]
    return [f.model_copy(update={"comment": given.get(i, "")}) for i, f in enumerate(found)]


def _finding(entry: JsonObject) -> Finding:
    severity = _text(entry.get("severity")).lower()
    if severity not in SEVERITIES:
        severity = "minor"
    title = _text(entry.get("title")) or _text(entry.get("summary")) or "(untitled finding)"
    return Finding(
        severity=severity,
        title=title,
        location=_location(entry),
        rationale=_text(entry.get("rationale")),
        suggestion=_text(entry.get("suggestion")),
        comment="",
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

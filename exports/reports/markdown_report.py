"""A report as one Markdown document, byte-identical for the same store state.

Deterministic by construction: no clock (the document is dated by the session's own last activity,
statuses are the stored ones: see data.py), every list in a stored order, times in UTC to the second,
JSON with sorted keys, and "\n" line ends. Every piece of store text goes through safe_markdown, so
the report's own headings and tables are the only structure in it (see safe_markdown's docstring for
how agent notes are embedded).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from exports.reports import branch_tree
from exports.reports.data import Report
from exports.reports.safe_markdown import cell, code_block, code_cell, code_span, inline, notes
from runs.contract.dashboard import ArtifactTables, CheckpointEntry, RunDetail, RunSummary, StepEntry
from runs.readmodels.branches import RunBranches

STATUS_WORDS = {
    "in_progress": "in progress",
    "blocked": "blocked",
    "complete": "complete",
    "canceled": "canceled",
    "notes": "notes only",
}


def render(report: Report) -> str:
    parts: list[str] = [*_header(report)]
    if report.run_id is None:
        parts += _runs_table(report.detail.runs)
    for number, run in enumerate(report.runs, start=1):
        parts += _run(run, report.branches[run.run.run_id], number if report.run_id is None else None)
    if report.session_notes:
        parts += _session_notes(report.session_notes)
    return "\n\n".join(part.rstrip("\n") for part in parts if part) + "\n"


# --- small helpers -----------------------------------------------------------------------------------


def stamp(moment: datetime | str | None) -> str:
    if isinstance(moment, str):
        text = moment
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            return inline(text)
    if moment is None:
        return "—"
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def status(value: str) -> str:
    return STATUS_WORDS.get(value, value.replace("_", " "))


def _plural(count: int, word: str, plural: str | None = None) -> str:
    return f"{count} {word if count == 1 else (plural or word + 's')}"


def _table(headings: list[str], rows: Iterable[list[str]]) -> str:
    lines = ["| " + " | ".join(headings) + " |", "|" + "---|" * len(headings)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _json(value: Any) -> str:
    return code_block(json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=str), "json")


def _seconds(value: float) -> str:
    if value < 60:
        return f"{value:.1f} s"
    minutes, secs = divmod(round(value), 60)
    return f"{minutes} min {secs} s" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"


# --- sections ----------------------------------------------------------------------------------------


def _header(report: Report) -> list[str]:
    session = report.session
    title = session.title or session.session_id
    what = "Run report" if report.run_id else "Session report"
    rows = [
        ["Session", code_cell(session.session_id)],
        ["Status", status(session.status)],
        ["Workflows", ", ".join(code_cell(w) for w in session.workflow_ids) or "—"],
        ["Git branch", code_cell(session.git_branch) if session.git_branch else "—"],
        ["Workspace", code_cell(session.workspace_path) if session.workspace_path else "—"],
        ["Session key", code_cell(session.session_key) if session.session_key else "—"],
        ["Started", stamp(session.created_at)],
        ["Last activity", stamp(session.last_activity)],
        [
            "Runs",
            f"{_plural(session.run_count, 'run')}, {_plural(session.branch_count, 'branch', 'branches')}",
        ],
    ]
    if report.run_id:
        rows.insert(1, ["Run", code_cell(report.run_id)])
    intro = (
        f"As of the session's last activity, {stamp(report.last_activity)}. Statuses are as stored: a run "
        "in progress may have gone quiet since."
    )
    return [f"# {what}: {inline(title)}", _table(["", ""], rows), intro]


def _runs_table(runs: list[RunSummary]) -> list[str]:
    if not runs:
        return ["## Runs", "_No runs: a notes-only session._"]
    rows = [
        [
            str(number),
            cell(run.workflow_name) + f" ({code_cell(run.workflow_id)})",
            code_cell(run.run_id),
            status(run.status),
            str(run.node_count),
            str(run.branch_count),
            stamp(run.created_at),
            stamp(run.updated_at),
            code_cell(run.delegated_by) if run.delegated_by else "—",
        ]
        for number, run in enumerate(runs, start=1)
    ]
    headings = ["#", "Workflow", "Run", "Status", "Nodes", "Branches", "Started", "Last activity", "Handed out by"]
    return ["## Runs", _table(headings, rows)]


def _run(run: RunDetail, tree: RunBranches, number: int | None) -> list[str]:
    summary = run.run
    heading = f"## Run {number}: " if number is not None else "## Run: "
    meta = [
        f"- Workflow: {inline(summary.workflow_name)} ({code_span(summary.workflow_id)}, "
        f"hash {code_span(summary.workflow_hash)})",
        f"- Run: {code_span(summary.run_id)}, {status(summary.status)}",
        f"- {_plural(summary.node_count, 'node')}, {_plural(summary.branch_count, 'branch', 'branches')}",
        f"- Started {stamp(summary.created_at)}, last activity {stamp(summary.updated_at)}",
    ]
    if summary.delegated_by:
        meta.append(f"- Handed out by run {code_span(summary.delegated_by)}")
    if run.pending_step_id:
        meta.append(f"- Pending step: {inline(run.pending_title or '')} ({code_span(run.pending_step_id)})")
    parts = [heading + inline(summary.workflow_name), "\n".join(meta), "### Branch graph"]
    graph = branch_tree.lines(run, tree)
    parts.append(code_block("\n".join(graph), "text") if graph else "_No nodes yet._")
    parts += _steps(run)
    parts += _tables(run.tables)
    parts += _gaps_and_warnings(run)
    parts += _synthesis(run)
    if run.delegations:
        parts.append("### Delegations")
        parts.append(
            "\n".join(f"- {inline(d.workflow_name)} {code_span(d.run_id)}: {status(d.status)}" for d in run.delegations)
        )
    return parts


def _steps(run: RunDetail) -> list[str]:
    where = f" (the branch ending at node {run.branch_tip})" if run.branch_tip else ""
    parts = [f"### Steps{where}"]
    if not run.steps:
        return [*parts, "_No step recorded on this branch yet._"]
    for number, step in enumerate(run.steps, start=1):
        parts += _step(number, step)
    return parts


def _step(number: int, step: StepEntry) -> list[str]:
    label = "Checkpoint: " if step.kind == "checkpoint" and not step.title.startswith("Checkpoint") else ""
    heading = f"#### {number}. {label}{inline(step.title or step.step_id or 'Untitled step')}"
    meta = f"Step {code_span(step.step_id)}" if step.step_id else "No step"
    meta += f" · node {step.node_id} · recorded {stamp(step.recorded_at)} · took {_seconds(step.seconds)}"
    parts = [heading, meta]
    body = notes(step.notes_markdown)
    parts.append(body or "_No notes._")
    if step.artifacts:
        kinds = []
        for artifact in step.artifacts:
            kind = str(artifact.get("kind") or "(no kind)") if isinstance(artifact, dict) else "(not an object)"
            if kind not in kinds:
                kinds.append(kind)
        parts.append("Artifacts: " + ", ".join(code_span(kind) for kind in kinds))
    return parts


def _tables(tables: ArtifactTables) -> list[str]:
    parts: list[str] = []
    if tables.changed_files:
        rows = [[code_cell(f.path), cell(f.summary), cell(f.risk)] for f in tables.changed_files]
        parts += ["### Changed files", _table(["Path", "Summary", "Risk"], rows)]
    if tables.findings:
        parts.append("### Findings")
        for number, finding in enumerate(tables.findings, start=1):
            where = f" ({code_span(finding.location)})" if finding.location else ""
            lines = [f"{number}. **{finding.severity}**: {inline(finding.title)}{where}"]
            if finding.rationale:
                lines.append(f"   {inline(finding.rationale)}")
            if finding.suggestion:
                lines.append(f"   Suggestion: {inline(finding.suggestion)}")
            parts.append("\\\n".join(lines) if len(lines) > 1 else lines[0])
    if tables.others:
        parts.append("### Other artifacts")
        for entry in tables.others:
            source = f" from {code_span(entry.step_id)}" if entry.step_id else ""
            parts.append(f"{code_span(entry.kind)}{source}")
            fields = {key: value for key, value in entry.data.items() if key != "kind"}
            parts.append(_json(fields) if fields else "_No fields besides its kind._")
    return parts


def _gaps_and_warnings(run: RunDetail) -> list[str]:
    parts: list[str] = []
    if run.gaps:
        rows = [
            [code_cell(g.step_id) if g.step_id else "—", cell(g.reason), cell(g.description), stamp(g.created_at)]
            for g in run.gaps
        ]
        parts += ["### Gaps", _table(["Step", "Reason", "Description", "When"], rows)]
    if run.warnings:
        rows = [[code_cell(w.code), cell(w.message), w.node_id or "—", stamp(w.created_at)] for w in run.warnings]
        parts += ["### Warnings", _table(["Code", "Message", "Node", "When"], rows)]
    return parts


def _synthesis(run: RunDetail) -> list[str]:
    synthesis = run.synthesis
    if not synthesis:
        return []
    parts = ["### Synthesis", f"Completed {stamp(synthesis.get('completedAt'))}."]
    steps = [s for s in synthesis.get("steps") or [] if isinstance(s, dict)]
    if steps:
        lines = []
        for number, step in enumerate(steps, start=1):
            label = inline(str(step.get("title") or step.get("stepId") or "Untitled step"))
            kind = " (checkpoint)" if step.get("kind") == "checkpoint" else ""
            lines.append(f"{number}. {label}{kind}")
        parts += ["The path to completion (its notes are under Steps when it is the listed branch):", "\n".join(lines)]
    final = [a for a in synthesis.get("artifacts") or [] if isinstance(a, dict) and a.get("final")]
    if final:
        parts.append("Artifacts that stand:")
        parts.append(
            "\n".join(f"- {code_span(str(a.get('kind')))} from {code_span(str(a.get('stepId') or ''))}" for a in final)
        )
    return parts


def _session_notes(checkpoints: list[CheckpointEntry]) -> list[str]:
    parts = ["## Session notes"]
    for number, checkpoint in enumerate(checkpoints, start=1):
        parts.append(f"### {number}. Recorded {stamp(checkpoint.created_at)}")
        parts.append(notes(checkpoint.notes_markdown) or "_No notes._")
        if checkpoint.artifacts:
            parts.append(_json(checkpoint.artifacts))
    return parts

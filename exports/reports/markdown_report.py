"""A report as one Markdown document, byte-identical for the same store state.

What a tech lead reads first comes first: a summary of every run's branches (outcome or verdict,
findings by severity, open gaps and questions, changed files); then each run with its branch graph in
words, every branch (finished ones first: branch_sections.py), each with its own steps, notes, findings
and changed files; a timeline of the run's steps with their durations and confirmations; and an
appendix of the full ids the text names by their first characters (short_ids.py).

Deterministic by construction: no clock (the document is dated by the session's own last activity,
statuses are the stored ones: see data.py), every list in a stored order, times absolute in UTC to the
second, JSON with sorted keys, and "\n" line ends. The agent's notes are embedded as written
(verbatim.py decides where each one ends); every other piece of store text (titles, step ids, artifact
fields, messages) goes through safe_markdown's `inline` or `cell`, so the report's own headings and
tables are the only structure around the notes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from exports.reports import branch_tree, places, wording
from exports.reports.branch_sections import BranchSection, Confirmation
from exports.reports.data import Report
from exports.reports.limits import Checked
from exports.reports.safe_markdown import cell, code_block, code_cell, code_span, inline
from exports.reports.short_ids import ShortIds
from exports.reports.verbatim import embed as notes
from exports.reports.wording import CONFIRMED_BY, branch_label, open_items, seconds, severities, status
from exports.reports.wording import outcome as outcome_words
from runs.contract.dashboard import (
    ArtifactEntry,
    ArtifactTables,
    CheckpointEntry,
    GraphNode,
    RunDetail,
    RunSummary,
    StepEntry,
)
from runs.readmodels import people
from runs.readmodels.checkpoints import on_their_steps


def render(report: Report) -> str:
    ids = report.ids
    parts: list[str] = [*_header(report, ids)]
    parts += _summary(report, ids)
    if report.run_id is None:
        parts += _runs_table(report.detail.runs, ids)
    for number, run in enumerate(report.runs, start=1):
        run_id = run.run.run_id
        parts += _run(
            run,
            report.sections[run_id],
            report.confirmations[run_id],
            lines=branch_tree.lines(run, report.branches[run_id]),
            number=number if report.run_id is None else None,
            ids=ids,
        )
    if report.session_notes:
        parts += _session_notes(report.session_notes)
    parts += _appendix(ids)
    return "\n\n".join(part.rstrip("\n") for part in parts if part) + "\n"


# --- small helpers -----------------------------------------------------------------------------------


def stamp(moment: datetime | str | None) -> str:
    """An absolute time with its time zone, "2026-03-01 14:02:09 UTC" (never "3 minutes ago"); store
    text that is not a time is shown as text."""
    text = wording.stamp(moment)
    return text if text is not None else inline(str(moment))


def outcome(branch: BranchSection) -> str:
    return outcome_words(branch)


def _plural(count: int, word: str, plural: str | None = None) -> str:
    return f"{count} {word if count == 1 else (plural or word + 's')}"


def _table(headings: list[str], rows: Iterable[list[str]]) -> str:
    lines = ["| " + " | ".join(headings) + " |", "|" + "---|" * len(headings)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _json(value: Any) -> str:
    return code_block(json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=str), "json")


# --- sections ----------------------------------------------------------------------------------------


def _header(report: Report, ids: ShortIds) -> list[str]:
    session = report.session
    title = session.title or ids.short(session.session_id)
    what = "Run report" if report.run_id else "Session report"
    rows = [
        ["Session", code_cell(ids.short(session.session_id))],
        ["Status", status(session.status)],
        ["Workflows", ", ".join(code_cell(w) for w in session.workflow_ids) or "—"],
        ["Git branch", code_cell(session.git_branch) if session.git_branch else "—"],
        ["Workspace", code_cell(session.workspace_path) if session.workspace_path else "—"],
        ["Session key", code_cell(session.session_key) if session.session_key else "—"],
        ["Started", stamp(session.created_at) + (f", by {inline(session.owner)}" if session.owner else "")],
        ["Last activity", stamp(session.last_activity)],
        [
            "Runs",
            f"{_plural(session.run_count, 'run')}, {_plural(session.branch_count, 'branch', 'branches')}",
        ],
    ]
    if report.run_id:
        rows.insert(1, ["Run", code_cell(ids.short(report.run_id))])
    intro = (
        f"As of the session's last activity, {stamp(report.last_activity)}. Statuses are as stored: a run "
        f"in progress may have gone quiet since. {wording.IDS_NOTE}"
    )
    return [f"# {what}: {inline(title)}", *_conclusions(report), _table(["", ""], rows), intro]


def _conclusions(report: Report) -> list[str]:
    """What the reader wants first: each run's outcome in a sentence, and why a blocked one is held."""
    said = [
        inline(wording.conclusion(run.run.workflow_name or run.run.workflow_id, report.sections[run.run.run_id]))
        for run in report.runs
    ]
    if not said:
        notes_count = len(report.session_notes)
        return [f"**Conclusion:** no runs; a notes-only session with {_plural(notes_count, 'note')}."]
    if len(said) == 1:
        return [f"**Conclusion:** {said[0]}"]
    return ["**Conclusion:**", "\n".join(f"- Run {number}: {text}" for number, text in enumerate(said, start=1))]


def _summary(report: Report, ids: ShortIds) -> list[str]:
    parts = ["## Summary"]
    if line := people.people_line(report.detail.people):  # who worked on it, when someone other than this machine did
        parts.append(inline(line))
    if not report.runs:
        return [*parts, "_No runs: a notes-only session._"]
    for number, run in enumerate(report.runs, start=1):
        summary = run.run
        listed = report.sections[summary.run_id]
        label = f"Run {number}: " if report.run_id is None else "Run: "
        parts.append(
            f"### {label}{inline(summary.workflow_name)}\n\n"
            f"{code_span(ids.short(summary.run_id))}, {status(summary.status)}, "
            f"{_plural(len(listed), 'branch', 'branches')}"
        )
        if not listed:
            parts.append("_No nodes yet._")
            continue
        rows = [
            [
                branch_label(branch),
                cell(outcome(branch)),
                severities(branch),
                str(len(branch.tables.changed_files)),
                str(open_items(branch)) if open_items(branch) else "none",
                stamp(branch.last_activity),
            ]
            for branch in listed
        ]
        headings = ["Branch", "Outcome or verdict", "Findings", "Changed files", "Open gaps", "Last activity"]
        parts.append(_table(headings, rows))
        notes_on = [
            f"- Branch {b.number}: the verdict is from {inline(b.verdict.source)}." for b in listed if b.verdict
        ]
        if notes_on:
            parts.append("\n".join(notes_on))
    return parts


def _runs_table(runs: list[RunSummary], ids: ShortIds) -> list[str]:
    if not runs:
        return []
    rows = [
        [
            str(number),
            cell(run.workflow_name) + f" ({code_cell(run.workflow_id)})",
            code_cell(ids.short(run.run_id)),
            status(run.status),
            str(run.node_count),
            str(run.branch_count),
            stamp(run.created_at),
            stamp(run.updated_at),
            code_cell(ids.short(run.delegated_by)) if run.delegated_by else "—",
        ]
        for number, run in enumerate(runs, start=1)
    ]
    headings = ["#", "Workflow", "Run", "Status", "Nodes", "Branches", "Started", "Last activity", "Handed out by"]
    return ["## Runs", _table(headings, rows)]


def _run(
    run: RunDetail,
    listed: list[BranchSection],
    asked: dict[str, Confirmation],
    *,
    lines: list[str],
    number: int | None,
    ids: ShortIds,
) -> list[str]:
    summary = run.run
    heading = f"## Run {number}: " if number is not None else "## Run: "
    meta = [
        f"- Workflow: {inline(summary.workflow_name)} ({code_span(summary.workflow_id)}, "
        f"hash {code_span(summary.workflow_hash)})",
        f"- Run: {code_span(ids.short(summary.run_id))}, {status(summary.status)}",
        f"- {_plural(summary.node_count, 'node')}, {_plural(summary.branch_count, 'branch', 'branches')}",
        f"- Started {stamp(summary.created_at)}, last activity {stamp(summary.updated_at)}",
    ]
    if summary.delegated_by:
        meta.append(f"- Handed out by run {code_span(ids.short(summary.delegated_by))}")
    parts = [heading + inline(summary.workflow_name), "\n".join(meta), "### Branch graph"]
    parts.append(code_block("\n".join(lines), "text") if lines else "_No nodes yet._")
    for branch in listed:
        parts += _branch(branch, asked, branched=summary.branched)
    parts += _timeline(listed, asked)
    if run.warnings:
        drawn = {node.node_id: node for node in run.graph.nodes}
        rows = [
            [code_cell(w.code), cell(w.message), _where(drawn.get(w.node_id or "")), stamp(w.created_at)]
            for w in run.warnings
        ]
        parts += ["### Warnings", _table(["Code", "Message", "Where", "When"], rows)]
    if run.delegations:
        parts.append("### Delegations")
        parts.append(
            "\n".join(
                f"- {inline(d.workflow_name)} {code_span(ids.short(d.run_id))}: {status(d.status)}"
                for d in run.delegations
            )
        )
    return parts


def _where(node: GraphNode | None) -> str:
    """Where a node stands, as its card on the dashboard's graph says it ("step 2 of 8"); its id is for the
    appendix."""
    return places.words(node.place, node.step_number) if node is not None else "—"


def _branch(branch: BranchSection, asked: dict[str, Confirmation], *, branched: bool) -> list[str]:
    parts = [f"### {branch_label(branch)}: {inline(outcome(branch))}"]
    facts = [f"- Last activity {stamp(branch.last_activity)}"]
    if branch.forked:
        facts.append(f"- {inline(branch.forked[:1].upper() + branch.forked[1:])}")
    if branch.verdict is not None:
        facts.append(f"- Verdict: {inline(branch.verdict.said)} (from {inline(branch.verdict.source)})")
    facts.append(f"- Findings: {severities(branch)}; changed files: {len(branch.tables.changed_files)}")
    parts.append("\n".join(facts))

    parts.append("#### Steps")
    if branch.shared_steps:
        where = f"Branch {branch.shared_with}" if branch.shared_with else "an earlier branch"
        parts.append(
            f"The steps up to {branch.shared_until} are the same as {where}'s, listed under it above; "
            f"this branch's own steps follow."
        )
    if not branch.steps:
        parts.append("_No step of its own recorded yet._")
    steps = branch.steps
    # Formatting stops between two steps when the report's bounds are reached (produce.watched).
    listing = on_their_steps(steps)
    for listed in Checked(listing, steps.watch) if isinstance(steps, Checked) else listing:
        parts += _step(listed.step, asked.get(listed.step.node_id))
        for saved in listed.checkpoints:
            parts += _checkpoint_mark(saved)
    if branch.pending is not None:
        waiting = "Blocked at" if branch.status == "blocked" else "Pending"
        where = places.words(branch.pending.place, branch.pending.step_number)
        parts.append(f"{waiting} {where}: {inline(branch.pending.title)} ({code_span(branch.pending.step_id or '')})")
        if branch.blocked is not None:
            parts.append(f"Why: {inline(wording.why_blocked(branch.blocked))}.")
    parts += _tables(branch.tables)
    parts += _open_items(branch)
    parts += _synthesis(branch, branched=branched)
    return parts


def _step(step: StepEntry, confirmed: Confirmation | None) -> list[str]:
    # A checkpoint whose step is not answered yet (else it is a mark after the answer: _checkpoint_mark) has
    # no place of its own: it was saved while that step was pending.
    heading = (
        f"##### {inline(wording.step_title(step))} (while {places.words(step.place, step.step_number)} was pending)"
        if step.kind == "checkpoint"
        else f"##### {places.heading(step.place, step.step_number)} · {inline(wording.step_title(step))}"
    )
    meta = f"Step {code_span(step.step_id)}" if step.step_id else "No step"
    meta += f" · recorded {stamp(step.recorded_at)} · took {seconds(step.seconds)}"
    if step.by:
        meta += f" · {inline(step.by)}"
    if confirmed is not None and step.kind == "step":
        meta += f" · confirmation: {CONFIRMED_BY[confirmed]}"
    parts = [heading, meta, notes(step.notes_markdown) or "_No notes._"]
    if step.answers_note:  # the step is shared with another branch, which answered it otherwise: after the answer
        parts.append(f"_{inline(step.answers_note)}_")
    return parts + _artifacts_line(step)


def _tables(tables: ArtifactTables) -> list[str]:
    parts: list[str] = []
    if tables.findings:
        rows = [
            [
                str(number),
                f"**{finding.severity}**",
                cell(finding.title),
                code_cell(finding.location) if finding.location else "—",
                cell(finding.rationale),
                cell(finding.suggestion),
            ]
            for number, finding in enumerate(tables.findings, start=1)
        ]
        parts += ["#### Findings", _table(["#", "Severity", "Finding", "Where", "Why", "Suggestion"], rows)]
    else:
        parts += ["#### Findings", "_No findings recorded on this branch._"]
    if tables.changed_files:
        headings = [
            "Path",
            *(["Summary"] if tables.files_have_summary else []),
            *(["Risk"] if tables.files_have_risk else []),
        ]
        rows = [
            [
                code_cell(f.path),
                *([cell(f.summary)] if tables.files_have_summary else []),
                *([cell(f.risk)] if tables.files_have_risk else []),
            ]
            for f in tables.changed_files
        ]
        parts += ["#### Changed files", _table(headings, rows)]
    else:
        parts += ["#### Changed files", "_No changed files recorded on this branch._"]
    if tables.others:
        parts.append("#### Other artifacts")
        for entry in tables.others:
            parts += _artifact(entry)
    return parts


def _artifact(entry: ArtifactEntry) -> list[str]:
    """An artifact as its fields, each a bold label with its text or list (artifact_fields.py)."""
    source = f" from {code_span(entry.step_id)}" if entry.step_id else ""
    parts = [f"##### {inline(entry.title)} ({code_span(entry.kind)}){source}"]
    if not entry.fields:
        return [*parts, "_No fields besides its kind._"]
    for field in entry.fields:
        if field.items:
            parts.append(f"**{inline(field.label)}**\n\n" + "\n".join(f"- {inline(item)}" for item in field.items))
        elif field.json_text:
            parts.append(f"**{inline(field.label)}**\n\n" + code_block(field.json_text, "json"))
        else:
            parts.append(f"**{inline(field.label)}**: " + ("_none_" if field.empty else inline(field.text)))
    return parts


def _open_items(branch: BranchSection) -> list[str]:
    parts: list[str] = []
    if branch.gaps:
        rows = [
            [code_cell(g.step_id) if g.step_id else "—", cell(g.reason), cell(g.description), stamp(g.created_at)]
            for g in branch.gaps
        ]
        parts += [
            "#### Open gaps and questions",
            wording.GAPS_INTRO,
            _table(["Step", "Reason", "Question", "When"], rows),
        ]
    if branch.limitations:
        if not parts:
            parts.append("#### Open gaps and questions")
        parts += ["Known limitations the agent stated:", "\n".join(f"- {inline(item)}" for item in branch.limitations)]
    return parts


def _synthesis(branch: BranchSection, *, branched: bool) -> list[str]:
    synthesis = branch.synthesis
    if not synthesis:
        return []
    heading = wording.summary_heading(branch, branched=branched)
    parts = [f"#### {heading}", f"Completed {stamp(str(synthesis.get('completedAt')))}."]
    artifacts = synthesis.get("artifacts")
    final = [a for a in artifacts if isinstance(a, dict) and a.get("final")] if isinstance(artifacts, list) else []
    if final:
        parts.append("Artifacts that stand:")
        parts.append(
            "\n".join(f"- {code_span(str(a.get('kind')))} from {code_span(str(a.get('stepId') or ''))}" for a in final)
        )
    return parts


def _checkpoint_mark(saved: StepEntry) -> list[str]:
    """A checkpoint saved while a step was pending, after that step's answer, as the run page marks it: no
    heading, no place of its own."""
    meta = f"**Checkpoint** saved before the step was answered · recorded {stamp(saved.recorded_at)}"
    meta += f" · took {seconds(saved.seconds)}" + (f" · {inline(saved.by)}" if saved.by else "")
    return [meta, notes(saved.notes_markdown) or "_No notes._", *_artifacts_line(saved)]


def _artifacts_line(step: StepEntry) -> list[str]:
    """The kinds of the step's artifacts in one line, or nothing when it recorded none."""
    kinds = wording.artifact_kinds(step)
    return ["Artifacts: " + ", ".join(code_span(kind) for kind in kinds)] if kinds else []


def _timeline(listed: list[BranchSection], asked: dict[str, Confirmation]) -> list[str]:
    entries = sorted(
        ((step.recorded_at, branch.number, step.step_number, step) for branch in listed for step in branch.steps),
        key=lambda entry: (entry[0], entry[1], entry[2]),
    )
    if not entries:
        return []
    rows = []
    for recorded, branch_number, number, step in entries:
        where = places.words(step.place, number)
        confirmed = asked.get(step.node_id) if step.kind == "step" else None
        rows.append(
            [
                stamp(step.started_at),
                stamp(recorded),
                seconds(step.seconds),
                f"Branch {branch_number}, {'during ' if step.kind == 'checkpoint' else ''}{where}",
                cell(wording.step_title(step)),
                CONFIRMED_BY[confirmed] if confirmed else "—",
            ]
        )
    headings = ["Started", "Recorded", "Took", "Where", "Step", "Confirmation"]
    intro = "Every step recorded in this run, in the order it was recorded (a step shared by branches once)."
    return ["### Timeline", intro, _table(headings, rows)]


def _session_notes(checkpoints: list[CheckpointEntry]) -> list[str]:
    parts = ["## Session notes"]
    for number, checkpoint in enumerate(checkpoints, start=1):
        parts.append(f"### {number}. Recorded {stamp(checkpoint.created_at)}")
        parts.append(notes(checkpoint.notes_markdown) or "_No notes._")
        if checkpoint.artifacts:
            parts.append(_json(checkpoint.artifacts))
    return parts


def _appendix(ids: ShortIds) -> list[str]:
    rows = [[code_cell(short) if short else "—", code_cell(full), cell(what)] for short, full, what in ids.appendix()]
    if not rows:
        return []
    return [f"## {wording.APPENDIX}", _table(["In the text", "Full id", "What it names"], rows)]

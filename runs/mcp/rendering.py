"""Plain-text renderings of tool results: what an agent (or a person) reads first.

Each reads the answer's model (runs/contract), the one the structured answer is dumped from: the text
and the JSON an agent receives are two views of one value. A part the model leaves unset is absent
from both (Shape.dump leaves unset parts out)."""

from __future__ import annotations

import json
from typing import Any

from runs.contract import features
from runs.contract.catalog import (
    CatalogOverview,
    StepOutline,
    WorkflowDetails,
    WorkflowInspection,
    WorkflowList,
    WorkflowSource,
    WorkflowSummary,
)
from runs.contract.errors import WorkRailError
from runs.contract.execution import (
    Branch,
    BranchTip,
    ExecutionResult,
    ExpectedContext,
    Progress,
    Recap,
    ReferenceView,
)
from runs.contract.features import Feature
from runs.contract.inputs import SESSION_ID_KEYS
from runs.contract.sessions import ResumeResult, SessionResult
from runs.execution.placeholders import CURRENT_SHOWN
from runs.mcp import delegation_text
from workflows_app.condition_words import describe
from workflows_app.prose.descriptions import when_to_use


def error_text(error: WorkRailError) -> str:
    retry = "Retrying may help." if error.retryable else "Retrying the same call will not help."
    return f"Error {error.code.value}: {error.message}\nNext: {error.suggestion}\n{retry}"


def workflow_list_text(result: WorkflowList) -> str:
    """Without a filter, the overview (tags, sources, how to filter); with one, a line per workflow."""
    overview = result.overview
    lines = _overview_lines(result.count, overview) if overview else _listed_lines(result)
    problems = result.problems
    if problems and overview:  # said once, with the overview; the structured answer always has it
        counted = [
            f"{problems.errors} file{'s' if problems.errors != 1 else ''} failed to load" if problems.errors else "",
            f"{problems.warnings} authoring warning{'s' if problems.warnings != 1 else ''}"
            if problems.warnings
            else "",
        ]
        lines += [
            "",
            f"Problems: {', '.join(c for c in counted if c)}; `{problems.command}` shows each with its fix.",
        ]
        for name in problems.not_loaded or []:
            lines.append(
                f"Repository {name} is not loaded yet, so its workflows are missing: the server fetches it once "
                f"started (`python manage.py sync_workflows --repo {name}` does it by hand)."
            )
    return "\n".join(lines)


def _overview_lines(count: int, overview: CatalogOverview) -> list[str]:
    hidden = overview.examples_hidden
    left_out = f" ({hidden} examples and tests left out: includeExamples lists them)" if hidden else ""
    lines = [
        f"{count} workflows and routines{left_out}.",
        'By tag; list_workflows {"tags": ["<id>"]} lists a tag\'s workflows:',
    ]
    for tag in overview.tags:
        when = f": {'; '.join(tag.when)}" if tag.when else ""
        name = f" ({tag.name})" if tag.name != tag.id else ""
        lines.append(f"- {tag.id}{name}, {tag.count}{when}")
    lines.append("By source: " + ", ".join(f"{item.source} {item.count}" for item in overview.sources) + ".")
    lines.append(
        'Or search: list_workflows {"query": "<words>"} (id, title, description and tags, case and punctuation '
        "ignored); with tags too, both must match."
    )
    return lines


def _listed_lines(result: WorkflowList) -> list[str]:
    filters = result.filters
    asked = []
    if filters.tags:
        asked.append(f"tag {' or '.join(filters.tags)}")
    if filters.query:
        asked.append(f'"{filters.query}"')
    for key, value in (("kind", filters.kind), ("namespace", filters.namespace)):
        if value:
            asked.append(f"{key} {value}")
    count = result.count
    lines = [f"{count} workflow{'s' if count != 1 else ''} for {', '.join(asked)}:"]
    if not count:
        lines[0] = f"No workflow for {', '.join(asked)}."
        lines.append("list_workflows without arguments shows the tags; a shorter query finds more.")
        return lines
    shown: list[str] = []
    paired: set[frozenset[str]] = set()  # a pair doing the same job is said once, under the first listed
    for index, item in enumerate(result.workflows):
        item_lines = _workflow_lines(item, paired)
        if len("\n".join([*lines, *shown, *item_lines])) > LISTED_TEXT_BUDGET:
            shown.append(
                f"{count - index} more not shown here (the structured answer has every one): add words with "
                "query, or ask for fewer tags, to narrow the list."
            )
            break
        shown += item_lines
    return [
        *lines,
        *shown,
        "",
        'Next: start_workflow {"workflowId": "<id>", "goal": "<the task>"}, or inspect_workflow to see its steps.',
    ]


# A filtered answer's text stays within about 3,000 characters: past this many in its lines, the count of
# the workflows left out and how to narrow the list.
LISTED_TEXT_BUDGET = 2700


def _workflow_lines(item: WorkflowSummary, paired: set[frozenset[str]]) -> list[str]:
    """One line for the workflow, and one per workflow here doing the same job (unless said already)."""
    source = item.source
    repository = source.repository
    flags = [
        ", ".join(item.tags) or "untagged",
        _step_count_text(item),
        f"git:{repository.name}" if repository else source.kind,
    ]
    if item.example:
        flags.append("example")
    lines = [f"- {item.id}: {item.name} [{'; '.join(flags)}]. {when_to_use(item.description)}"]
    for other in item.same_job_as or []:
        pair = frozenset((item.id, other.workflow_id))
        if pair in paired:
            continue
        paired.add(pair)
        lines.append(
            f"  Same job as {other.workflow_id}: take this for {other.take_this_for}; "
            f"take {other.workflow_id} for {other.take_other_for}."
        )
    return lines


def _source_text(source: WorkflowSource) -> str:
    repository = source.repository
    if repository:
        return f"git: {repository.name} at {repository.commit[:7]}"
    return source.kind


def workflow_details_text(result: WorkflowInspection) -> str:
    """Mode metadata: what the workflow is for, what it needs, its outline. Mode preview: the outline
    with each step's prompt, and nothing metadata says (an agent reads metadata first, then previews)."""
    workflow = result.workflow
    renamed = result.renamed_from
    lines = [f"'{renamed}' is the former id of {workflow.id}: use the new id."] if renamed else []
    if renamed and result.look_alike:
        lines[-1] += f" {result.look_alike}"
    if result.mode == "preview":
        call = json.dumps({"workflowId": workflow.id})
        lines.append(
            f"{workflow.name} ({workflow.id}, version {workflow.version}): each step's prompt. What the "
            f"workflow is for and what it needs from the user: inspect_workflow {call}."
        )
    else:
        lines += _metadata_lines(workflow)
    lines += ["", "Steps:"]
    lines += _outline_lines(result.steps, indent="")
    if result.mode != "preview":
        for other in workflow.same_job_as or []:
            lines += [
                "",
                f"Same job as {other.workflow_id}: take this for {other.take_this_for}; take "
                f"{other.workflow_id} for {other.take_other_for}.",
            ]
        command = workflow.validate_command
        if command:
            count = workflow.warning_count
            plural = "s" if count != 1 else ""
            lines += ["", f"{count} authoring warning{plural} about its file: `{command}` shows them."]
    start = {"workflowId": workflow.id, "goal": "<the task, in the user's words>"}
    lines += [
        "",
        f"Next: start_workflow {json.dumps(start, ensure_ascii=False)}; add context.ticketId (or "
        "context.sessionKey) to keep the runs of one ticket in one session.",
    ]
    return "\n".join(lines)


def _metadata_lines(workflow: WorkflowDetails) -> list[str]:
    lines = [
        f"{workflow.name} ({workflow.id}, version {workflow.version}, {workflow.kind})",
        workflow.description,
        f"workflowHash: {workflow.workflow_hash}",
    ]
    about = workflow.about
    if about:
        lines += ["", about]
    for items, title in (
        (workflow.preconditions, "Preconditions"),
        (workflow.clarification_prompts, "Questions to clarify first"),
    ):
        if items:
            lines += ["", f"{title}:"] + [f"- {item}" for item in items]
    rules = workflow.meta_guidance
    if rules:  # said in full once per run: with the first step, where the agent acts on them
        lines += ["", f"Guidance: {len(rules)} rule(s) for every step, given in full with the first step."]
    asked = workflow.from_the_user
    if asked:
        lines += ["", "Needs from the user (send it as context with start_workflow when you have it):"]
        lines += [f"- context.{item.context_key}: {item.description} (asked at '{item.step_title}')" for item in asked]
    return lines


def _outline_lines(steps: list[StepOutline], indent: str, prefix: str = "") -> list[str]:
    """The outline numbered as progress reports it: 4, then 4.1 and 4.2 inside the loop at 4."""
    lines = []
    for number, step in enumerate(steps, 1):
        label = f"{prefix}{number}"
        notes = []
        if step.run_condition is not None:
            notes.append(f"only if {describe(step.run_condition)}")
        rule = step.require_confirmation
        if rule is True:
            notes.append("asks the user to confirm")
        elif isinstance(rule, dict):
            condition = rule.get("condition") if "kind" in rule else rule
            notes.append(f"asks the user to confirm when {describe(condition)}")
        loop = step.loop
        if step.kind == "loop" and loop is not None:  # a loop's outline always has both
            notes.append(f"{loop['type']} loop, at most {loop['maxIterations']} iterations")
        suffix = f" ({'; '.join(notes)})" if notes else ""
        lines.append(f"{indent}{label}. {step.title} [{step.id}]{suffix}")
        prompt = step.prompt
        if prompt is not None:
            lines += [f"{indent}   {line}" for line in prompt.splitlines()]
        if step.kind == "loop":
            lines += _outline_lines(step.body or [], indent + "   ", f"{label}.")
    return lines


def _step_count_text(item: WorkflowSummary) -> str:
    """One rule for every workflow: the outline's length (what progress counts against), and when loops hold
    steps, the count with them (what inspect_workflow numbers: 4, then 4.1 and 4.2 inside the loop at 4)."""
    outline, inside = item.outline_length, item.loop_body_steps
    if not inside:
        return f"{outline} step{'s' if outline != 1 else ''}"
    return f"{outline} outline steps, {outline + inside} with the steps inside loops"


GOAL_CHANGED = "GOAL_CHANGED"  # its message shows the new goal whole
# Codes that inform rather than warn: nothing is wrong, the agent should just know.
NOTES = {
    "PREFERENCES_FOLLOW_RECOMMENDATION",
    "BRANCH_STARTED",
    "UNKNOWN_WORKFLOW_IDS",
    "ARGUMENT_DECODED",
    "WORKFLOW_RENAMED",
    GOAL_CHANGED,
}


def execution_text(result: ExecutionResult) -> str:
    """The deterministic text an agent follows: the step, what to send back, the tokens."""
    lines: list[str] = []
    replayed = [w for w in result.warnings if w.code == "REPLAY_OUTPUT_IGNORED"]
    if replayed:  # the answer below is an old one: say so where it cannot be skimmed past
        lines += ["NOT RECORDED: " + replayed[0].message, *_replay_choice(result.branch_tip), ""]
        lines.append("The answer recorded then:")
    for warning in result.warnings:
        if warning.code != "REPLAY_OUTPUT_IGNORED":
            label = "Note" if warning.code in NOTES else "Warning"
            lines.append(f"{label} {warning.code}: {warning.message}")
    blocked = result.blocked
    if blocked:
        lines.append("Blocked: the step is not done yet.")
        lines += [f"- {issue.code}: {issue.message}" for issue in blocked.issues]
        lines.append(blocked.retry)
    full = result.says_everything
    goal = result.goal
    lines += delegation_text.linked_start_lines(result)
    if result.rehydrated:
        lines += delegation_text.brief_lines(result)
        lines += _rehydrated_lines(result, goal if full else None)
    checkpoint = result.checkpoint
    if checkpoint:
        lines.append(checkpoint.note)
    lines += reference_lines(result.references)
    pending = result.pending
    if pending is None:
        lines += completion_lines(result)
        return "\n".join(lines)
    loop = pending.loop
    where = f" (loop {loop.loop_id}, iteration {loop.iteration} of at most {loop.max_iterations})" if loop else ""
    lines += _guidance_lines(result)
    if goal and not any(w.code == GOAL_CHANGED for w in result.warnings):  # a change shows it whole there
        lines.append(f"Goal: {goal.strip()}" if full else "Goal: as shown in full before.")
    lines.append(f"Step: {pending.title} [{pending.step_id}]{where}")
    lines.append(f"Progress: {progress_text(result.progress)}")
    if pending.agent_role:
        lines.append(f"Role: {pending.agent_role}")
    lines += ["", pending.prompt, ""]
    lines += delegation_text.delegation_lines(pending)
    lines += delegation_text.linked_lines(pending)
    if pending.require_confirmation:
        lines.append(CONFIRM_IN_FULL if full else CONFIRM_IN_A_LINE)
    elif pending.confirmation:
        lines.append(f"Confirmation ({result.mode} mode): {pending.confirmation}.")
    lines += [context_line(expected) for expected in pending.expected_context or []]
    if loop and loop.decision_due:
        lines.append(
            f"This step decides loop '{loop.loop_id}': send its wr.loop_control artifact with decision continue "
            "(another iteration) or stop (leave the loop), as the step's own rule says."
        )
    for dep in pending.user_dependencies or []:
        state = "provided" if dep.met else "MISSING"
        lines.append(f"Needs from the user ({dep.reason}, {state}): {dep.description} -> context.{dep.context_key}")
    call = result.next_call
    if call is not None:
        lines.append(call.instructions)
        lines.append(f"continue_workflow {json.dumps(call.arguments.dump(), ensure_ascii=False)}")
    if full and not result.rehydrated and not replayed:  # said once: with the run's first step
        lines.append(
            "To come back to a step later (a rewound chat, another approach), keep its stateToken: "
            "continue_workflow with only that stateToken shows the step again with a fresh ackToken, and "
            "acknowledging it starts a new branch; the later work stays on its own branch."
        )
    return "\n".join(lines)


CONFIRM_IN_FULL = (
    "Before continuing, ask the user to confirm, and wait for their answer. WorkRail cannot hear the user: "
    "it takes your word, so write their actual answer in output.notesMarkdown (it is recorded as the "
    "confirmation). If they cannot be asked, write 'Assumed:' and the answer you assume, with why, so the "
    "record shows it was not theirs."
)
CONFIRM_IN_A_LINE = (
    "Before continuing, ask the user to confirm and wait; write their actual answer in output.notesMarkdown "
    "('Assumed:', the answer you assume and why, if they cannot be asked)."
)


def _rehydrated_lines(result: ExecutionResult, goal_shown: str | None) -> list[str]:
    """What a chat starting here needs besides the step: the context so far (the goal said apart), the
    notes on the way here and, on a rewind, each branch that already grew from this point, once."""
    lines = []
    link = result.delegated_by
    brief = set(link.brief) if link else set()  # a delegated run's brief: shown whole just above
    run_context = {
        k: v for k, v in (result.run_context or {}).items() if k not in brief and not (k == "goal" and v == goal_shown)
    }
    if run_context:
        # A chat starting here has nothing else to read them from (a text client shows no structured
        # answer): each value whole, one a line, up to a bound only a document-sized value reaches.
        lines.append("Context so far (what earlier steps set):")
        for key, value in run_context.items():
            text = _clipped(value, CONTEXT_VALUE_SHOWN)
            cut = " (cut here; runContext in the structured answer has it whole)" if text.endswith(CUT) else ""
            lines.append(f"- {key} = {text}{cut}")
    lines += _recap_lines("Recap of earlier notes", _given(result.recap))
    branches = result.branches
    if branches:
        lines.append(_given(result.fork))
        for number, branch in enumerate(branches, 1):
            lines += _branch_lines(number, branch)
        downstream = result.downstream_recap
        if downstream:
            # What a rewound chat lost: the newest branch's notes, once, within the recap's budget.
            lines += _recap_lines(
                "Notes of the newest branch (not your current state; return to it only with its tip's stateToken)",
                downstream,
                numbered=False,  # positions on another path than this one: numbers would mislead
            )
        lines.append("  (Another branch's notes in full: continue_workflow with its tip's stateToken shows them.)")
    return lines


def _guidance_lines(result: ExecutionResult) -> list[str]:
    """The workflow's rules, in full where a chat may start; a rewind view (a point branches grew from,
    which a chat reaches by going back) names them in a line, as the chat has read them already."""
    guidance = result.guidance
    if not guidance:
        return []
    if result.branches:
        return [
            f"Guidance for every step: the {len(guidance)} rule(s) given at start (continue_workflow with a "
            "branch tip's stateToken shows them again).",
            "",
        ]
    # An item's own sub-points stay under it: indented, they cannot read as rules of their own.
    items = ("- " + item.replace("\n", "\n  ") for item in guidance)
    return ["Guidance for every step of this workflow:", *items, ""]


def _replay_choice(tip: BranchTip | None) -> list[str]:
    """What to do after a replay with other output: go on where that branch stands, or fork from the point."""
    same = "Choose: if this was the same work sent again (a retry, or a chat rewound before this call), "
    fork = "If you meant to record different work from that point, make the rehydrate call above first"
    if tip is None:
        return [f"{same}go on with the step below, on the branch recorded then. {fork}; do not use the tokens below."]
    where = "the run is complete there" if tip.is_complete else f"its tip is at step {tip.pending_step_id}"
    call = {"stateToken": tip.state_token}
    if tip.ack_token:
        call["ackToken"] = tip.ack_token
    how = "" if tip.ack_token or tip.is_complete else " (it shows that step with a fresh ackToken)"
    return [
        f"{same}it is recorded already, and the branch recorded then has moved on since: {where}. Go on there "
        f"with continue_workflow {json.dumps(call)}{how}. {fork}.",
        "Either way, do not use the tokens below: the step below was acknowledged since.",
    ]


def reference_lines(references: list[ReferenceView] | None) -> list[str]:
    """The documents the workflow points to (shown at start): open one when a step needs it."""
    if not references:
        return []
    lines = ["References (documents this workflow points to; open them yourself when a step needs them):"]
    for reference in references:
        strict = ", authoritative: follow it strictly" if reference.authoritative else ""
        where = reference.path if reference.found else f"NOT FOUND at {reference.path}; go on without it"
        lines.append(f"- {reference.title} ({reference.source}{strict}): {reference.purpose} [{where}]")
    lines.append("")
    return lines


def _given[T](part: T | None) -> T:
    """A part of the answer that is always there when the part that names it is (a rehydrate's recap;
    a fork's text with its branches)."""
    assert part is not None
    return part


def progress_text(progress: Progress) -> str:
    """One sentence: where the step is in the outline, and how many steps were acknowledged."""
    if progress.summary:
        return progress.summary
    return f"{progress.completed_steps} step(s) acknowledged so far."


CUT = "…"
CONTEXT_VALUE_SHOWN = 4000  # characters of one context value a rehydrate shows


def _clipped(value: Any, limit: int = 120) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + CUT


def context_line(expected: ExpectedContext) -> str:
    details: list[str] = [expected.type]
    values = expected.values
    if values:
        details.append("compared with " + ", ".join(json.dumps(v, ensure_ascii=False) for v in values))
    choices = expected.choices
    if choices:
        details.append("the prompt offers " + " / ".join(choices))
    allowed = expected.allowed
    if allowed:
        details.append(f"one of {' | '.join(str(v) for v in allowed)}, as {expected.allowed_by} allows")
    if expected.key in SESSION_ID_KEYS:
        details.append("optional: only the user's own, never made up; not in the call below")
    elif expected.why.startswith("WorkRail:"):
        details.append("optional")  # the goal: the step may read it, nothing requires it
    elif expected.set_by_this_step:
        details.append("this step asks for it")
    elif expected.mentioned_by_this_step:
        details.append("this step's prompt names it")
    else:
        details.append("needed next")
    if expected.has_current:
        now = _clipped(expected.current, CURRENT_SHOWN)
        details.append(f"now {now}" + (" (cut short; whole in pending.expectedContext)" if now.endswith(CUT) else ""))
    why = expected.why
    read = why if why.startswith(("nothing later", "no later", "WorkRail:")) else f"read by {why}"
    return f"Context to send: {expected.key} ({'; '.join(details)}; {read})"


def completion_lines(result: ExecutionResult) -> list[str]:
    """A finished run says so, and what can come next."""
    key = result.session.session_key or ""
    if key.startswith("ticket:"):
        grouping = f'send the same context.ticketId ("{key.removeprefix("ticket:")}") to keep it in this session.'
    elif key:
        grouping = f'send the same context.sessionKey ("{key}") to keep it in this session.'
    else:
        grouping = "a context.ticketId or context.sessionKey groups the runs of one piece of work into one session."
    done = [
        f"Workflow {result.workflow.id} is complete. {progress_text(result.progress)}",
        f"stateToken: {result.state_token}",
        "",
    ]
    if result.delegated_by:  # what comes next is the parent's step, not new work
        return done + delegation_text.parent_lines(result)
    lines = [*done, "What next:"]
    if features.enabled(Feature.CHECKPOINT):  # named only where this server offers it
        lines.append(
            "- Follow-up work on this task (fixes after review, extra checks): record it with checkpoint_workflow "
            f'{{"stateToken": "{result.state_token}", "output": {{"notesMarkdown": "..."}}}}, so it survives a '
            "rewind and shows on the dashboard."
        )
    lines.append(f"- A new piece of work: list_workflows, then start_workflow; {grouping}")
    return lines


def _branch_lines(number: int, branch: Branch) -> list[str]:
    """One existing branch: how it began, where its tip stands, and the call that returns there."""
    after = branch.completed_step_id or "a checkpoint"
    said = "its notes are below" if branch.notes_below else branch.notes_preview
    lines = [f"  Branch {number}: after {after}: {said}"]
    token = branch.tip_state_token or branch.state_token
    if branch.tip_state_token:
        done = branch.tip_is_complete
        where = "complete" if done else f"pending {branch.tip_pending_step_id}"
    else:
        where = "complete" if branch.is_complete else f"pending {branch.pending_step_id}"
    call = json.dumps({"stateToken": token})
    lines.append(f"    its tip: {where}; to return to this branch: continue_workflow {call}")
    return lines


def _recap_lines(title: str, recap: Recap, *, numbered: bool = True) -> list[str]:
    """The kept entries in path order, numbered by position, with a marker where entries were left out
    and how to read them."""
    total = recap.total_entries
    kept = len(recap.entries)
    counted = f" ({kept} of {total} entries)" if recap.truncated and total is not None else ""
    lines = [f"{title}{counted}:"]
    gap = recap.omitted
    marker = _omitted_line(recap)
    placed = marker is None
    previous: int | None = None
    for item in recap.entries:
        position = item.position
        if marker is not None and not placed and (gap is None or position is None or position > gap.from_position):
            lines.append(marker)
            placed = True
        elif placed and recap.truncated and previous is not None and position is not None and position > previous + 1:
            # a further hole (the entries kept for what the pending step works through sit between two)
            lines.append(f"  … [positions {previous + 1} to {position - 1} left out too; the same resource has them]")
        previous = position
        label = f"[{position}] " if position is not None and numbered else ""
        why = f" (kept: {item.kept_because})" if item.kept_because else ""
        lines.append(f"  - {label}{item.title or item.step_id}{why}: {item.notes_markdown}")
    if marker is not None and not placed:
        lines.append(marker)
    if not recap.entries:
        lines.append("  (nothing recorded yet)")
    return lines


def _omitted_line(recap: Recap) -> str | None:
    if not recap.truncated:
        return None
    omitted = recap.omitted_entries
    gap = recap.omitted
    count = "some" if omitted is None else str(omitted)
    if gap is None:
        return f"  … ({count} earlier entries left out; {recap.policy})"
    if omitted:
        here = gap.to_position - gap.from_position + 1
        where = f"positions {gap.from_position} to {gap.to_position}"
        # An entry kept for what the pending step works through splits what was left out in two or more.
        what = (
            f"{count} entries left out ({where})"
            if here == omitted
            else f"{count} entries left out in all ({where} here)"
        )
    else:
        what = "long entries cut"
    return f"  … [{what}; {recap.policy}. To see them, {gap.how_to_read}.]"


def checkpoint_text(result: ExecutionResult | SessionResult) -> str:
    return session_text(result) if isinstance(result, SessionResult) else execution_text(result)


def session_text(result: SessionResult) -> str:
    session = result.session
    lines = [f"Notes session {session.title} ({session.session_id})."]
    checkpoint = result.checkpoint
    if checkpoint:
        lines.append(f"Checkpoint recorded ({checkpoint.checkpoint_count} so far).")
    call = result.next_call
    lines.append(call.instructions)
    lines.append(f"{call.tool} {json.dumps(call.arguments.dump(), ensure_ascii=False)}")
    return "\n".join(lines)


def resume_text(result: ResumeResult) -> str:
    candidates = result.candidates
    if not candidates:
        return "No earlier work matched. Start a workflow with start_workflow, or try other words."
    lines = [f"{len(candidates)} candidate(s), best first:"]
    for number, item in enumerate(candidates, 1):
        label = item.workflow_id or "notes session"
        if item.is_complete:
            label += ", complete"
        lines.append(f"{number}. {item.title or item.session_id} [{label}] — {'; '.join(item.why_matched)}")
        lines.append(f"   {item.snippet}")
        if item.state_token:
            lines.append(f"   continue_workflow {json.dumps({'stateToken': item.state_token})}")
        other_tips = item.other_tips
        if other_tips:
            lines.append(
                f"   The run has {item.other_tip_count} other branch tip(s), from a rewind (newest first); "
                "the call above resumes the newest branch:"
            )
            for tip in other_tips:
                where = "complete" if tip.is_complete else f"at step {tip.pending_step_id}"
                lines.append(
                    f"   - {where}, {tip.updated_at[:16]}: "
                    f"continue_workflow {json.dumps({'stateToken': tip.state_token})}"
                )
        elif item.session_token:
            lines.append(f"   checkpoint_workflow with sessionToken {item.session_token}")
    return "\n".join(lines)

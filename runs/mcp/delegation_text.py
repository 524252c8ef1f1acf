"""Delegations in the text an agent reads, from both ends (runs/execution/delegations.py builds both):

- the parallel step that hands them out: per delegation, what runs and why, its whole brief (the
  context its run receives), the call that works on it, and what its run recorded so far;
- a step whose prompt asks the agent to delegate: how to start a run linked to it (start_workflow's
  parentStateToken), and per linked run its status, the call that works on it and what it recorded;
- a delegated run: when opened, which step handed it out and its whole brief; when complete, which
  parent step waits, and the call that goes back there.

A brief is never cut in the middle: when the briefs of a step do not all fit in the text's bound,
the ones that do not are left out whole, each with the call that shows it in full (its run's own
first answer)."""

from __future__ import annotations

import json

from runs.contract.execution import DelegatedBy, DelegationView, ExecutionResult, LinkedRunView, Pending, Recap
from workflows_app.engine.jsontypes import JsonObject

# The briefs a parallel step shows in its text (shared context included), in characters; whole briefs
# only. A delegated run shows its own brief whole up to OWN_BRIEF_CHARS.
BRIEFS_CHARS = 16_000
OWN_BRIEF_CHARS = 48_000


def delegation_lines(pending: Pending) -> list[str]:
    """A parallel step's delegations, one block each: what runs, why, with which context (whole), whether
    it can run, the call that works on its run, and what the run recorded. Context every delegation
    receives is listed once."""
    delegations = pending.delegations
    if not delegations:
        return []
    done = all(d.status == "complete" or not d.runs for d in delegations)
    if done and any(d.status == "complete" for d in delegations):
        lines = [f"Delegations ({len(delegations)}), whose runs are complete; what each recorded:"]
    else:
        lines = [
            f"Delegations ({len(delegations)}), each carried out as a run of its own (subagents may take one each):"
        ]
    room = BRIEFS_CHARS
    shared = pending.shared_context or {}
    if shared:
        text = context_text(shared)
        if len(text) <= room:
            gap = "" if text.startswith("\n") else " "
            lines.append(f"Shared context, which every delegated run receives:{gap}{text}")
            room -= len(text)
        else:
            room = 0
            lines.append(
                f"Shared context, which every delegated run receives: {', '.join(shared)} ({len(text)} characters, "
                f"more than this answer shows; each run's own first answer shows it whole)."
            )
    for number, delegation in enumerate(delegations, 1):
        lines += _delegation_block(number, delegation, pending.title, room)
        if delegation.runs:
            size = len(context_text(delegation.context))
            room = room - size if size <= room else 0  # the bound is reached: the briefs after are left out too
    lines.append("")
    return lines


def _delegation_block(number: int, delegation: DelegationView, step_title: str, room: int) -> list[str]:
    name = f" ({delegation.workflow_name})" if delegation.workflow_name else ""
    if not delegation.runs:
        state = "skipped: its runCondition does not hold, nothing to do."
    elif delegation.run_id:
        state = f"runs as {delegation.run_id} ({str(delegation.status or '').replace('_', ' ')})."
    elif not delegation.available:
        state = "CANNOT RUN HERE: this WorkRail has no workflow with that id."
    else:
        state = "not started."
    lines = [f"{number}. {delegation.workflow_id}{name}: {state}"]
    lines.append(f"   Why: {delegation.goal or 'part of ' + repr(step_title) + ' (no goal given)'}")
    call = json.dumps({"stateToken": delegation.state_token}) if delegation.state_token else None
    if delegation.status == "complete":  # done: what it recorded matters now, not its brief
        return [*lines, *recorded_lines(delegation.recorded)]
    if delegation.runs:
        own = delegation.context
        extra = " (besides the shared context)" if delegation.receives_shared_context else ""
        text = context_text(own)
        if len(text) <= room:
            shown = text if own else "nothing more" if extra else "none"
            lines.append(f"   Context{extra}:{'' if shown.startswith(chr(10)) else ' '}{shown}")
        elif call is not None:
            lines.append(
                f"   Context{extra}: {', '.join(own)} ({len(text)} characters; this answer's bound is reached, so "
                "this brief is left out whole: its run's first answer, from the call below, shows it in full)"
            )
        else:
            lines.append(f"   Context{extra}: {', '.join(own)} ({len(text)} characters; pending.delegations has it)")
    if delegation.fix:
        lines.append(f"   Fix: {delegation.fix}")
    if call is not None and delegation.runs:
        lines.append(f"   Work on it, to the end: continue_workflow {call}")
    return [*lines, *recorded_lines(delegation.recorded)]


def linked_lines(pending: Pending) -> list[str]:
    """A step that asks for delegation: how to start a run linked to it; then the runs linked to it so far,
    one block each (status, the call that works on it, what it recorded)."""
    lines = []
    how = pending.delegate_with
    if how:
        call = {"workflowId": "<its id>", "goal": "<what it is to do>", "parentStateToken": how.parent_state_token}
        # Short: the linked run's own answers say the rest (the link when it starts, the call back when done).
        routines = json.dumps({"kind": "routine"})
        lines.append(
            f"To delegate as this step asks, start each run with start_workflow {json.dumps(call)}: it is linked to "
            f"this step, which then shows what it recorded (list_workflows {routines} lists the routines to run, "
            "and inspect_workflow shows the context one reads)."
        )
    runs = pending.linked_runs
    if runs:
        total = pending.linked_run_count or len(runs)
        newest = f", the newest {len(runs)} shown" if total > len(runs) else ""
        lines.append(f"Runs linked to this step ({total}{newest}), started with its parentStateToken:")
        for number, run in enumerate(runs, total - len(runs) + 1):
            lines += _linked_block(number, run)
    return [*lines, ""] if lines else []


def _linked_block(number: int, run: LinkedRunView) -> list[str]:
    status = run.status.replace("_", " ")
    lines = [f"{number}. {run.workflow_id} ({run.workflow_name}): runs as {run.run_id} ({status})."]
    if run.status != "complete":
        lines.append(f"   Work on it, to the end: continue_workflow {json.dumps({'stateToken': run.state_token})}")
    return [*lines, *recorded_lines(run.recorded)]


def recorded_lines(recorded: Recap | None) -> list[str]:
    """What a delegated run recorded, under its block: each kept entry, then what was left out and where."""
    if recorded is None:
        return []
    total = recorded.total_entries
    kept = len(recorded.entries)
    counted = f" ({kept} of {total} entries)" if recorded.truncated and total is not None else ""
    lines = [f"   What its run recorded{counted}:"]
    for item in recorded.entries:
        written = item.notes_markdown.strip().splitlines()
        notes = "\n".join(f"       {line}" if line.strip() else "" for line in written).lstrip()
        lines.append(f"     - {item.title or item.step_id}: {notes}")
    gap = recorded.omitted
    if recorded.truncated and gap is not None:
        left = recorded.omitted_entries
        what = f"{left} entries left out" if left else "long entries cut"
        lines.append(f"     … [{what}; to read them all, {gap.how_to_read}]")
    return lines


ONE_LINE_CHARS = 300  # context this short, in one line, is written `key = value; key = value`


def context_text(context: JsonObject, indent: str = "   ") -> str:
    """Each value whole: on one line when short (`key = "value"; key = 3`), else one key per line, a text
    of several lines as the block it is (its lines indented under the key, not escaped as JSON)."""
    inline = "; ".join(f"{key} = {json.dumps(value, ensure_ascii=False)}" for key, value in context.items())
    if len(inline) <= ONE_LINE_CHARS and not any(isinstance(v, str) and "\n" in v for v in context.values()):
        return inline
    lines = []
    for key, value in context.items():
        if isinstance(value, str) and "\n" in value:
            body = "\n".join(f"{indent}    {line}" if line.strip() else "" for line in value.splitlines())
            lines.append(f"{indent}- {key} (text):\n{body}")
        else:
            lines.append(f"{indent}- {key} = {json.dumps(value, ensure_ascii=False)}")
    return "\n" + "\n".join(lines)


def brief_lines(result: ExecutionResult) -> list[str]:
    """On a delegated run, when a chat opens it: the step that handed it out, why, and its whole brief."""
    link = result.delegated_by
    if link is None:
        return []
    lines = [_handed_out_by(link) + (f" Why: {link.goal}" if link.goal else "")]
    context = result.run_context or {}
    brief = {key: context[key] for key in link.brief if key in context}
    if not brief:
        return [*lines, "Its brief is empty: the parent handed this run no context.", ""]
    lines.append("Your brief (the context the parent handed to this run, in full):")
    room = OWN_BRIEF_CHARS
    for key, value in brief.items():
        text = context_text({key: value}, indent="").lstrip("\n")
        if len(text) > room:
            lines.append(f"- {key}: {len(text)} characters, more than this answer shows; runContext.{key} has it")
            continue
        room -= len(text)
        lines.append(text if text.startswith("- ") else f"- {text}")
    lines.append("")
    return lines


def parent_lines(result: ExecutionResult) -> list[str]:
    """On a delegated run that is complete: which parent step waits for it, and the call that goes back."""
    link = result.delegated_by
    if link is None:
        return []
    lines = [_handed_out_by(link)]
    open_runs = link.unfinished or []
    token = link.parent_state_token
    if token is None:
        lines.append("That step is no longer pending on the parent's branch: nothing waits for this run there.")
        return lines
    kind = "run(s) linked to it" if link.linked else "delegated run(s)"
    if open_runs:
        lines.append(
            f"That step still waits for {len(open_runs)} other {kind}: {', '.join(open_runs)}. "
            "Finish them too (each with the stateToken the step gave for it)."
        )
    elif link.linked:
        # The agent starts linked runs one at a time: "every run" would be said after the first of four.
        lines.append(
            "No run linked to that step is open now. If the step asks for more runs, start the next one with "
            "its parentStateToken; else go back to it."
        )
    else:
        lines.append("Every delegation of that step is complete now.")
    call = json.dumps({"stateToken": token})
    lines.append(
        "Go back to the parent step (it shows what each delegation recorded and gives the ackToken to acknowledge "
        f"it): continue_workflow {call}"
    )
    return lines


def linked_start_lines(result: ExecutionResult) -> list[str]:
    """On the first answer of a run started with parentStateToken: the link it made, and what ends it."""
    link = result.delegated_by
    if link is None or not link.linked or result.rehydrated or result.pending is None:
        return []
    return [_handed_out_by(link) + " When this run is complete, its last answer gives the call back to that step.", ""]


def _handed_out_by(link: DelegatedBy) -> str:
    if link.linked:
        return (
            f"This run is linked to run {link.run_id}'s step '{link.step_title}' [{link.step_id}] (run "
            f"{link.number} of the {link.count} linked to it so far)."
        )
    return (
        f"This run is delegation {link.number} of {link.count} handed out by run {link.run_id} at its step "
        f"'{link.step_title}' [{link.step_id}]."
    )

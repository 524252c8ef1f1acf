"""Why a node's step was chosen, in plain words: the trace the engine recorded when it moved there
(workflows_app/engine/trace.py), one line per decision.

"Skipped Phase 0b: it runs only if task complexity is 'Small', and task complexity is 'Large'.", "Started loop
Verify slices: 3 rounds because slice count is 3; this is round 1.", "Went on to Phase 1, the next step in the
workflow (it has no condition)." Each line is words a developer reads at a glance; the conditions the line
speaks of are kept beside it as code (`conditions`), for a page to set apart and a test or a report to read.
The words come from the conditions the trace kept (a trace stored before they were kept takes them from the
run's pinned workflow), said by workflows_app/condition_words.py; the text of a condition is only ever shown,
never read back. A node without a trace says why it has none.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from runs.models import Ack, Checkpoint, Event, EventKind, Node, PinnedWorkflow
from runs.readmodels.run_view import parse_node_id
from runs.store.pinned import steps_by_id
from workflows_app.condition_words import PEOPLE, describe, is_simple, spoken_name
from workflows_app.engine.loops import LoopSpec
from workflows_app.engine.model import is_loop
from workflows_app.engine.trace import MAX_ENTRIES, Check, Entry, LoopState, Trace, TraceError, check_of

CHECKPOINT = (
    "A checkpoint made this node: the agent saved its notes and stayed on the same step, so no workflow rule "
    "was evaluated."
)
NOT_RECORDED = (
    "Not recorded: this node was made before WorkRail kept why each step is chosen (conditions, loops and decisions)."
)
STARTED_BY_HAND = (
    "This branch was started by hand, so no workflow rule chose this step: it is the step the branch was started "
    "from, with the inputs as edited then."
)  # "from", not "the step that was pending": a person can branch from a step that was already done; "inputs",
# as the branch form names them (friction61a 4)
NOT_BY_AN_ADVANCE = "No step the agent acknowledged led here, so no workflow rule chose this step."
UNREADABLE = "The record of why this step was chosen could not be read."


@dataclass(frozen=True)
class TraceLine:
    tone: str  # selected | skipped | loop | completed: how a page marks the line
    words: str
    conditions: tuple[str, ...] = ()  # the conditions the words speak of, as written (code)

    @property
    def text(self) -> str:
        """The line as text, its conditions after it in backticks."""
        if not self.conditions:
            return self.words
        shown = ", ".join(f"`{code}`" for code in self.conditions)
        return f"{self.words} [condition{'s' if len(self.conditions) > 1 else ''}: {shown}]"


@dataclass(frozen=True)
class TraceView:
    recorded: bool
    lines: tuple[TraceLine, ...] = ()
    omitted: str = ""  # what was left out, in words, when the trace hit its cap
    missing: str = ""  # when not recorded: why there is none

    @property
    def text(self) -> str:
        return "\n".join(line.text for line in self.lines) or self.missing

    @property
    def decided(self) -> bool:
        """Whether something chose this step beyond the workflow's own order: a condition, a loop, a skip.
        A trace that only went on to the next step (or finished the run) says nothing a page needs to show;
        a node without a trace keeps its reason (a checkpoint, a branch started by hand, not recorded)."""
        if not self.recorded:
            return True
        return any(line.conditions or line.tone not in ("selected", "completed") for line in self.lines)


def node_trace(node_id: str | int) -> TraceView:
    """The trace of the node with this public id (the caller has already found the node)."""
    public_id = parse_node_id(node_id)
    row = Node.objects.filter(public_id=public_id).values_list("pk", "parent_id", "trace", "run__pinned_id").first()
    if row is None:
        return TraceView(False, missing=NOT_RECORDED)
    pk, parent, stored, workflow_hash = row
    if stored is not None:
        return trace_view(stored, workflow_hash)
    if Checkpoint.objects.filter(child_id=pk).exists():
        return TraceView(False, missing=CHECKPOINT)
    if parent is None or Ack.objects.filter(child_id=pk).exists():  # a start or an advance, before traces
        return TraceView(False, missing=NOT_RECORDED)
    if Event.objects.filter(kind=EventKind.OPERATOR_FORKED, data__childNodeId=public_id).exists():
        return TraceView(False, missing=STARTED_BY_HAND)
    return TraceView(False, missing=NOT_BY_AN_ADVANCE)


def trace_view(stored: object, workflow_hash: str | None = None) -> TraceView:
    """The words of a stored trace (its JSON); `workflow_hash` names the run's pinned workflow, where
    a trace stored before traces kept their conditions finds them."""
    try:
        trace = Trace.from_json(stored)
    except TraceError:
        return TraceView(False, missing=UNREADABLE)
    if workflow_hash is not None:
        trace = with_conditions(trace, workflow_hash)
    omitted = ""
    if trace.omitted:
        omitted = (
            f"{trace.omitted} more decision{'s' if trace.omitted != 1 else ''} taken before the last one "
            f"{'were' if trace.omitted != 1 else 'was'} not kept (at most {MAX_ENTRIES} are kept per step)."
        )
    return TraceView(True, tuple(_line(entry) for entry in trace.entries), omitted)


def _line(entry: Entry) -> TraceLine:
    if entry.kind == "completed":
        return TraceLine("completed", "Finished: no step was left, so the run is complete.")
    if entry.loop is not None:
        return _loop_line(entry, entry.loop)
    verdict = "Went on to" if entry.kind == "selected" else "Skipped"
    if entry.check is None:
        return TraceLine(entry.kind, f"{verdict} {entry.title}, the next step in the workflow (it has no condition).")
    return TraceLine(entry.kind, f"{verdict} {entry.title}: {_runs_only_if(entry.check)}.", (entry.check.expression,))


def passed_over(entry: Entry) -> str | None:
    """Why an entry's step was passed over, for a list of steps to say it where the step would stand: a step
    skipped by its runCondition ("it runs only if riskLevel is 'high', and riskLevel is 'low'"), a loop that
    ran no round ("it repeats while polishRounds is more than 0, and polishRounds is 0"); None for any other
    entry."""
    if entry.kind == "skipped":
        return _runs_only_if(entry.check) if entry.check is not None else "its condition did not hold"
    if entry.kind == "loop_not_run" and entry.loop is not None:
        return _not_run(entry.loop)
    return None


# --- traces stored before they kept their conditions ----------------------------------------------------


def with_conditions(trace: Trace, workflow_hash: str) -> Trace:
    """`trace` with each check that has no condition given the one its step declares in the pinned
    workflow, when that condition is the one the check was written from (the same text)."""
    if all(_kept(entry) for entry in trace.entries):
        return trace
    try:
        steps = steps_by_id(workflow_hash)
    except PinnedWorkflow.DoesNotExist:
        return trace
    entries = []
    for entry in trace.entries:
        step = steps.get(entry.step_id)
        if step is not None and not _kept(entry):
            check = _given(entry.check, step.get("runCondition"))
            loop = entry.loop
            if loop is not None and loop.check is not None and is_loop(step):
                loop = replace(loop, check=_given(loop.check, LoopSpec.of(step).condition))
            entry = replace(entry, check=check, loop=loop)
        entries.append(entry)
    return replace(trace, entries=tuple(entries))


def _kept(entry: Entry) -> bool:
    checks = (entry.check, entry.loop.check if entry.loop is not None else None)
    return all(check is None or check.condition is not None for check in checks)


def _given(check: Check | None, condition: object) -> Check | None:
    if check is None or check.condition is not None or not isinstance(condition, dict):
        return check
    same = check_of(condition, {}, check.result).expression == check.expression
    return replace(check, condition=condition) if same else check


# --- conditions in words ------------------------------------------------------------------------------


def _values(check: Check) -> str:
    """What the condition read: "task complexity is 'Large'", "touches docs is not set", "a is 1 and b is 2": each
    name said as words, as the rule before it says it (its code, beside the line, keeps the name as written)."""
    said = [
        f"{spoken_name(name)} is not set" if shown is None else f"{spoken_name(name)} is {shown}"
        for name, shown in check.values
    ]
    if len(said) <= 1:
        return "".join(said)
    return ", ".join(said[:-1]) + " and " + said[-1]


def _held(check: Check, *, how: str = "runs only if") -> str:
    """'it runs only if X, and <values>': the rule, then what the context held. `how` says how the
    condition is used (runs only if, repeats while, repeats until). The rule is said from the condition
    the trace kept; a trace stored before conditions were kept (or one too long to keep) says "its
    condition holds", and the page shows its code beside the words."""
    values = _values(check)
    if check.condition is not None and is_simple(check.condition):
        words = describe(check.condition, PEOPLE)
        return f"it {how} {words}, and {values}" if values else f"it {how} {words}, which was {_truth(check)}"
    words = describe(check.condition, PEOPLE) if check.condition is not None else "its condition holds"
    rule = f"it {how} {words}, which was {_truth(check)}"
    return f"{rule} ({values})" if values else rule


def _runs_only_if(check: Check) -> str:
    return _held(check)


def _truth(check: Check) -> str:
    return "true" if check.result else "false"


# --- loops ----------------------------------------------------------------------------------------------


def _rounds(count: int) -> str:
    return f"{count} round{'s' if count != 1 else ''}"


def _loop_line(entry: Entry, loop: LoopState) -> TraceLine:
    title = entry.title
    codes: list[str] = []
    if loop.check is not None:
        codes.append(loop.check.expression)
    if entry.kind in ("loop_started", "loop_repeated"):
        words = _running(entry.kind == "loop_started", title, loop)
    elif entry.kind == "loop_not_run":
        words = f"Skipped loop {title}: {_not_run(loop)}."  # "Skipped", as a skipped step's line says it
    else:
        words = _ended(title, loop)
    if entry.check is not None:  # the loop's own runCondition, which let it be entered
        codes.append(entry.check.expression)
        rule = _runs_only_if(entry.check)
        words += f" {rule[0].upper()}{rule[1:]}."
    return TraceLine("loop", words, tuple(codes))


def _running(starting: bool, title: str, loop: LoopState) -> str:
    round_no = loop.iteration
    # The round in the one format the dashboard names rounds in ("round 1 of 3"; "round 1" when open-ended).
    of = f" of {loop.total}" if loop.total is not None else ""
    if starting:
        head, tail = f"Started loop {title}: ", f"this is round {round_no}{of}"
    else:
        head, tail = f"Next round of loop {title}: ", f"this is round {round_no}{of}"
    if loop.loop_type == "for":
        total = loop.total or 0
        because = (
            f"{_rounds(total)} because {spoken_name(loop.source)} is {total}"
            if loop.source
            else f"{_rounds(total)} in all"
        )
        return f"{head}{because}; {tail}." if starting else f"{head}{tail} ({because})."
    if loop.loop_type == "forEach":
        items = f"{loop.total} item{'s' if loop.total != 1 else ''}" if loop.total is not None else "its items"
        of_what = f" of {spoken_name(loop.source)}" if loop.source else ""
        item = f", for the item {loop.item}" if loop.item is not None else ""
        if starting:
            return f"{head}one round per item{of_what} ({items}); {tail}{item}."
        return f"{head}{tail}{item}."
    if loop.check is not None:
        how = "repeats until" if loop.loop_type == "until" else "repeats while"
        return f"{head}{_held(loop.check, how=how)}; {tail}."
    if loop.decision is not None:
        return f"{head}{tail}; the agent asked for another round." if not starting else f"{head}{tail}."
    if starting:
        return f"{head}{tail}; the agent says after each round whether to go on."
    return f"{head}{tail}; the agent did not ask to stop."


def _not_run(loop: LoopState) -> str:
    if loop.ended_by == "count":
        return (
            f"{spoken_name(loop.source)} is {loop.total or 0}, so it has no rounds" if loop.source else "its count is 0"
        )
    if loop.ended_by == "items":
        return f"{spoken_name(loop.source)} has no items" if loop.source else "it has no items"
    if loop.ended_by == "decision":
        return "the agent asked to stop"
    if loop.ended_by == "max_iterations":
        return f"its limit is {_rounds(loop.max_iterations)}"
    if loop.check is not None:
        return _held(loop.check, how="repeats until" if loop.loop_type == "until" else "repeats while")
    return "nothing asked for a round"


def _ended(title: str, loop: LoopState) -> str:
    done = loop.iteration
    if loop.ended_by == "max_iterations":
        return f"Stopped loop {title} after {_rounds(done)}: that is its limit, although it would have gone on."
    if loop.ended_by == "count":
        source = f" ({spoken_name(loop.source)} is {loop.total or 0})" if loop.source else ""
        return f"Finished loop {title}: all {_rounds(loop.total or 0)} done{source}."
    if loop.ended_by == "items":
        of_what = f" of {spoken_name(loop.source)}" if loop.source else ""
        return f"Finished loop {title}: all {loop.total} items{of_what} done."
    if loop.ended_by == "decision":
        return f"Finished loop {title} after {_rounds(done)}: the agent asked to stop."
    if loop.check is not None:
        how = "repeats until" if loop.loop_type == "until" else "repeats while"
        return f"Finished loop {title} after {_rounds(done)}: {_held(loop.check, how=how)}."
    return f"Finished loop {title} after {_rounds(done)}."

"""The steps a branch passed over, said where they would stand in the run page's list of steps instead of
missing from it without a word: "Step 3 of 8 skipped · Trace the Impact: it runs only if complexity is
'complex', and complexity is 'simple'", "Step 6 of 7 not run · Polish: it repeats while ...".

Read from the traces the engine keeps with each node (workflows_app/engine/trace.py: the advance that made a
node notes every step it skipped on the way, and every loop it left without a round), in trace.py's words (a
condition in the people's style of workflows_app/condition_words.py). A step is numbered as the workflow page's
outline numbers it (3; 2.1 inside the loop at entry 2), as step_places.py places the steps taken. One query
for the nodes asked about, whose traces are read once each.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from runs.models import Node
from runs.readmodels import trace
from runs.store.pinned import compiled_workflow
from workflows_app.engine.model import CompiledStep, is_loop
from workflows_app.engine.trace import Trace, TraceError
from workflows_app.engine.tree import top_steps


@dataclass(frozen=True, slots=True)
class SkippedStep:
    number: str  # as the outline numbers it: "3", "2.1"
    length: int  # the outline's length: its top-level entries, a loop counted once
    title: str  # the step's title as the trace kept it
    how: str  # "skipped" (its runCondition did not hold) or "not run" (a loop that ran no round)
    why: str  # "it runs only if complexity is 'complex', and complexity is 'simple'"

    @property
    def place(self) -> str:
        """ "step 3 of 8, skipped", said after the step's name as every step is; a step the outline does not
        hold (a workflow changed since): "skipped"."""
        return f"step {self.number} of {self.length}, {self.how}" if self.number else self.how

    @property
    def words(self) -> str:
        return f"{self.title} · {self.place}: {self.why}"


def outline_numbers(steps: list[CompiledStep]) -> dict[str, str]:
    """Each step's number in the outline, by id: its entry's ("3"), and inside a loop the loop's entry and its
    place in the body ("2.1"), as the workflow page prints them (dashboard/_outline.html)."""
    numbers: dict[str, str] = {}

    def walk(sequence: list[CompiledStep], prefix: str) -> None:
        for index, step in enumerate(sequence, 1):
            number = f"{prefix}{index}"
            numbers.setdefault(str(step["id"]), number)
            if is_loop(step):
                walk(step["body"], f"{number}.")

    walk(steps, "")
    return numbers


def into_nodes(node_ids: Iterable[str]) -> dict[str, list[SkippedStep]]:
    """By node public id: the steps passed over on the way into that node (by the start or the advance that
    made it), in the order the engine passed them; nodes with none are left out."""
    ids = [int(node_id) for node_id in node_ids if str(node_id).isdigit()]
    found: dict[str, list[SkippedStep]] = {}
    outlines: dict[str, tuple[dict[str, str], int]] = {}
    rows = Node.objects.filter(public_id__in=ids, trace__isnull=False).values_list(
        "public_id", "trace", "run__pinned_id"
    )
    for public_id, stored, workflow_hash in rows:
        try:
            kept = Trace.from_json(stored)
        except TraceError:
            continue
        passed = [entry for entry in kept.entries if trace.passed_over(entry) is not None]
        if not passed:
            continue
        if workflow_hash not in outlines:
            steps = top_steps(compiled_workflow(workflow_hash))
            outlines[workflow_hash] = (outline_numbers(steps), len(steps))
        numbers, length = outlines[workflow_hash]
        worded = trace.with_conditions(Trace(tuple(passed)), workflow_hash).entries
        found[str(public_id)] = [
            SkippedStep(
                number=numbers.get(entry.step_id, ""),
                length=length,
                title=entry.title,
                how="skipped" if entry.kind == "skipped" else "not run",
                why=trace.passed_over(entry) or "",
            )
            for entry in worded
        ]
    return found

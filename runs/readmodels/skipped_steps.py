"""The steps a branch passed over, said where they would stand in the run page's list of steps instead of
missing from it without a word: "Step 3 of 8 skipped · Trace the Impact: it runs only if complexity is
'complex', and complexity is 'simple'", "Step 6 of 7 skipped · Polish: it repeats while ..."
(a loop that ran no round: the same word, friction63b 12).

Read from the traces the engine keeps with each node (workflows_app/engine/trace.py: the advance that made a
node notes every step it skipped on the way, and every loop it left without a round), in trace.py's words (a
condition in the people's style of workflows_app/condition_words.py). A step is placed as step_places.py places
the steps taken: its outline entry (3), inside a loop its loop's entry ("step 5 of 7", never the outline's "5a":
the run pages say no outline letters, friction19a 8); its name tells a loop's steps apart. One query for the nodes
asked about, whose traces are read once each.
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
    number: str  # its outline entry: "3" (inside a loop, the loop's); "" when the outline does not hold it
    length: int  # the outline's length: its top-level entries, a loop counted once
    title: str  # the step's title as the trace kept it
    # One word for a step its condition skipped and a loop that ran no round (friction63b 12: "skipped" beside
    # "not run" for one thing, the workflow passing over a step by its own rule); `why` says which rule.
    how: str  # "skipped"
    why: str  # "it runs only if complexity is 'complex', and complexity is 'simple'"

    @property
    def place(self) -> str:
        """ "step 3 of 8, skipped", "step 5 of 7, skipped" for a step of the loop at entry 5 too (no outline
        letter), said after the step's name as every step is; a step the outline does not hold (a workflow
        changed since): "skipped"."""
        if not self.number:
            return self.how
        return f"step {self.number} of {self.length}, {self.how}"

    @property
    def short(self) -> str:
        """What the graph's dashed placeholder between two cards says: "step 3 skipped"."""
        if not self.number:
            return self.how
        return f"step {self.number} {self.how}"

    @property
    def words(self) -> str:
        return f"{self.title} · {self.place}: {self.why}"


def outline_places(steps: list[CompiledStep]) -> dict[str, str]:
    """Each step's place in the outline, by id, as step_places.py says it: its top-level entry, a loop's steps
    their loop's."""
    places: dict[str, str] = {}
    for entry, step in enumerate(steps, 1):
        places.setdefault(str(step["id"]), str(entry))
        if is_loop(step):
            for inner in step["body"]:
                places.setdefault(str(inner["id"]), str(entry))
    return places


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
            outlines[workflow_hash] = (outline_places(steps), len(steps))
        places, length = outlines[workflow_hash]
        worded = trace.with_conditions(Trace(tuple(passed)), workflow_hash).entries
        found[str(public_id)] = [
            SkippedStep(
                number=places.get(entry.step_id, ""),
                length=length,
                title=entry.title,
                how="skipped",
                why=trace.passed_over(entry) or "",
            )
            for entry in worded
        ]
    return found

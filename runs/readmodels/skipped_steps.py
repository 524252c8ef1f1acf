"""The steps a branch passed over, said where they would stand in the run page's list of steps instead of
missing from it without a word: "Step 3 of 8 skipped · Trace the Impact: it runs only if complexity is
'complex', and complexity is 'simple'", "Step 6 of 7 not run · Polish: it repeats while ...".

Read from the traces the engine keeps with each node (workflows_app/engine/trace.py: the advance that made a
node notes every step it skipped on the way, and every loop it left without a round), in trace.py's words (a
condition in the people's style of workflows_app/condition_words.py). A step is placed as step_places.py places
the steps taken: its outline entry (3), inside a loop of several steps its loop's entry and its part's letter
("step 2a of 7", as the workflow page's outline labels it). One query for the nodes asked about, whose traces
are read once each.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from runs.contract.dashboard import part_letter
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
    how: str  # "skipped" (its runCondition did not hold) or "not run" (a loop that ran no round)
    why: str  # "it runs only if complexity is 'complex', and complexity is 'simple'"
    part: tuple[int, int] | None = None  # inside a loop of several steps: which of them, of how many

    @property
    def place(self) -> str:
        """ "step 3 of 8, skipped", "step 5a of 7, skipped" for the first of a loop's two steps (its part
        lettered as StepPlace.label letters the steps taken), said after the step's name as every step is; a
        step the outline does not hold (a workflow changed since): "skipped"."""
        if not self.number:
            return self.how
        letter = part_letter(self.part[0]) if self.part is not None else ""
        return f"step {self.number}{letter} of {self.length}, {self.how}"

    @property
    def short(self) -> str:
        """What the graph's dashed placeholder between two cards says: "step 3 skipped", "step 5a not run"."""
        if not self.number:
            return self.how
        letter = part_letter(self.part[0]) if self.part is not None else ""
        return f"step {self.number}{letter} {self.how}"

    @property
    def words(self) -> str:
        return f"{self.title} · {self.place}: {self.why}"


def outline_places(steps: list[CompiledStep]) -> dict[str, tuple[str, tuple[int, int] | None]]:
    """Each step's place in the outline, by id, as step_places.py says it: its top-level entry, and inside a
    loop of several steps which of them it is and of how many (a loop of one step has no part to tell)."""
    places: dict[str, tuple[str, tuple[int, int] | None]] = {}
    for entry, step in enumerate(steps, 1):
        places.setdefault(str(step["id"]), (str(entry), None))
        if is_loop(step):
            body = step["body"]
            for index, inner in enumerate(body, 1):
                places.setdefault(str(inner["id"]), (str(entry), (index, len(body)) if len(body) > 1 else None))
    return places


def into_nodes(node_ids: Iterable[str]) -> dict[str, list[SkippedStep]]:
    """By node public id: the steps passed over on the way into that node (by the start or the advance that
    made it), in the order the engine passed them; nodes with none are left out."""
    ids = [int(node_id) for node_id in node_ids if str(node_id).isdigit()]
    found: dict[str, list[SkippedStep]] = {}
    outlines: dict[str, tuple[dict[str, tuple[str, tuple[int, int] | None]], int]] = {}
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
                number=places.get(entry.step_id, ("", None))[0],
                part=places.get(entry.step_id, ("", None))[1],
                length=length,
                title=entry.title,
                how="skipped" if entry.kind == "skipped" else "not run",
                why=trace.passed_over(entry) or "",
            )
            for entry in worded
        ]
    return found

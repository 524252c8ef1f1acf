"""Where a step sits, in the words the dashboard uses (runs/readmodels/step_places.py): "step 2 of 3,
round 2" against the workflow's outline, never the count of steps taken, which runs past the outline's
length as soon as a loop repeats. Only when the place is not known (a node the engine's cursor does not
place) does a report fall back to that count: "step 4"."""

from __future__ import annotations

from runs.contract.dashboard import StepPlace


def words(place: StepPlace | None, counted: int) -> str:
    """ "step 2 of 8", "step 2 of 3, round 2"; "step N" (the count along the branch) without a place."""
    return place.words if place is not None else f"step {counted}"


def heading(place: StepPlace | None, counted: int) -> str:
    """The same, to open a heading or a sentence: "Step 2 of 8"."""
    said = words(place, counted)
    return said[:1].upper() + said[1:]

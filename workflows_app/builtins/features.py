"""Features a workflow turns on with `"features": ["wr.features.<name>"]`.

The ids are WorkRail's (its feature registry); what each adds is ours: one piece of workflow-level
guidance (`metaGuidance`), which every step of a run is given. WorkRail appends its feature content
to the constraints, procedure and verify blocks of steps written with promptBlocks only; we give it
to every step, whichever way its prompt is written (docs/workflows.md).
"""

from __future__ import annotations

from workflows_app.builtins.refs import REFS

FEATURES: dict[str, str] = {
    "wr.features.capabilities": (
        "Capabilities: before relying on an optional ability (delegating to subagents, browsing the web, "
        "running commands), check that you actually have it. If you do not, say so in your notes and use "
        "the closest fallback instead of pretending. Check that what you produced matches what you could "
        "really do."
    ),
    "wr.features.subagent_guidance": (
        "Subagents: delegate only self-contained work with a precise brief (goal, inputs, expected output) "
        "and its own area. You keep the strategy, the decisions and the final outputs: review what comes "
        "back yourself and combine it; a delegated result is evidence, not a verdict.\n"
        + REFS["wr.refs.parallelize_cognition_serialize_synthesis"]
    ),
    "wr.features.memory_context": "Memory: " + REFS["wr.refs.memory_usage"],
}

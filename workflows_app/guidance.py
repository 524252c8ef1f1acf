"""The rules a workflow gives every step of a run: its own `metaGuidance`, then what its features add.

The compiler appends each feature's guidance after the workflow's own items, in the order of its
`features` list (workflows_app/compiler.py), so which item came from which feature is known from the
compiled structure alone. A feature's advice on delegating to subagents is kept only where the
workflow delegates, that is where a step of it is a `parallel` step: a workflow that turns the
feature on but hands nothing out would otherwise tell the agent about delegations it never meets.
"""

from __future__ import annotations

from workflows_app.engine.model import CompiledWorkflow, is_parallel
from workflows_app.engine.tree import top_steps, walk

DELEGATION_FEATURES = frozenset({"wr.features.subagent_guidance"})


def delegates(compiled: CompiledWorkflow) -> bool:
    """Whether a step of the workflow (at any depth) hands work out to runs of its own."""
    return any(is_parallel(step) for step in walk(top_steps(compiled)))


def guidance(compiled: CompiledWorkflow) -> list[str]:
    """The workflow's rules for every step, without advice about what the workflow never does."""
    items = [str(item) for item in compiled.get("metaGuidance") or []]
    features = [str(f) for f in compiled.get("features") or []][: len(items)]  # each added one item
    own, added = items[: len(items) - len(features)], items[len(items) - len(features) :]
    kept = [*own, *(text for feature, text in zip(features, added, strict=True) if _applies(feature, compiled))]
    return [item for item in kept if item.strip()]


def _applies(feature: str, compiled: CompiledWorkflow) -> bool:
    return feature not in DELEGATION_FEATURES or delegates(compiled)

"""Facts that depend only on a compiled workflow (where variables are read, which artifact kinds it
knows, how many steps it has), worked out once per workflow instead of on every advance.

Keyed by the workflow object's identity, and holding the object itself so that the key cannot be
reused while the entry lives: callers keep one compiled object per workflow (the service caches one
per pinned hash, the catalog one per entry), so the same object comes back on every call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from workflows_app.engine.model import CompiledWorkflow

MAX_WORKFLOWS = 64

_facts: dict[int, tuple[CompiledWorkflow, dict[str, Any]]] = {}


def per_workflow[T](compiled: CompiledWorkflow, name: str, build: Callable[[CompiledWorkflow], T]) -> T:
    entry = _facts.get(id(compiled))
    if entry is None or entry[0] is not compiled:
        if len(_facts) >= MAX_WORKFLOWS:
            _facts.pop(next(iter(_facts)))
        entry = (compiled, {})
        _facts[id(compiled)] = entry
    known = entry[1]
    if name not in known:
        known[name] = build(compiled)
    value: T = known[name]
    return value

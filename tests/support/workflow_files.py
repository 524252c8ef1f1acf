"""A small workflow document to start from, and JSON files written where a catalog will find them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def workflow_doc(workflow_id: str = "project.sample", **overrides: Any) -> dict[str, Any]:
    document: dict[str, Any] = {
        "id": workflow_id,
        "name": "Sample",
        "description": "A small workflow used by the tests.",
        "version": "1.0.0",
        "steps": [
            {"id": "first-step", "title": "First", "prompt": "Do the first thing."},
            {"id": "second-step", "title": "Second", "prompt": "Do the second thing."},
        ],
    }
    document.update(overrides)
    return document


def write_json(path: Path, document: Any, **dump_options: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, **dump_options), encoding="utf-8")
    return path


def step_doc(step_id: str, title: str, prompt: str, **fields: Any) -> dict[str, Any]:
    """A step as a workflow file writes it: id, title and prompt, plus `fields`."""
    return {"id": step_id, "title": title, "prompt": prompt, **fields}


def loop_doc(
    step_id: str, title: str, loop: dict[str, Any], body: str | list[dict[str, Any]], **fields: Any
) -> dict[str, Any]:
    """A loop step: `loop` is its configuration, `body` its steps or the id of the one step it repeats."""
    return {"id": step_id, "type": "loop", "title": title, "loop": loop, "body": body, **fields}


def parallel_doc(step_id: str, title: str, delegations: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    """A parallel step that delegates to other workflows."""
    return {"id": step_id, "type": "parallel", "title": title, "parallelDelegations": delegations, **fields}

"""Workflow files the campaigns and benchmarks install in a project's .workrail/workflows."""

from __future__ import annotations

from typing import Any

LONG_LOOP_ITERATIONS = 1000  # the most a loop may declare


def long_loop(workflow_id: str, name: str, description: str) -> dict[str, Any]:
    """One step repeated by a while loop LONG_LOOP_ITERATIONS times: a run with as many nodes as a
    workflow can give it."""
    return {
        "id": workflow_id,
        "name": name,
        "description": description,
        "version": "1.0.0",
        "steps": [
            {
                "id": "work-loop",
                "type": "loop",
                "title": "Work through the items",
                "loop": {
                    "type": "while",
                    "condition": {"var": "item", "lte": LONG_LOOP_ITERATIONS},
                    "iterationVar": "item",
                    "maxIterations": LONG_LOOP_ITERATIONS,
                },
                "body": [
                    {
                        "id": "work",
                        "title": "Item {{item}}",
                        "prompt": "Handle item {{item}} and record what you found.",
                    }
                ],
            }
        ],
    }

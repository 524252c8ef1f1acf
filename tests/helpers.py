"""Small builders shared by the tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "workrail"
CORPUS_WORKFLOWS = CORPUS / "workflows"
REPO = Path(__file__).resolve().parents[1]


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

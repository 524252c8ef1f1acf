"""`wr.workflow_draft` artifacts: a workflow an agent is writing (with `wr.workflow_authoring`), checked
with exactly the checks `manage.py validate_workflow` runs, as a file in the project's
`.workrail/workflows` would be. A draft that would not load keeps the step pending, each problem
pointing into the draft; warnings do not block (the file would load)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from runs.contract.execution import IssueDict
from workflows_app.diagnostics import Diagnostic, Severity
from workflows_app.engine.codes import IssueCode
from workflows_app.engine.jsontypes import JsonObject
from workflows_app.file_checks import validate
from workflows_app.sources import SourceKind

KIND = "wr.workflow_draft"


def draft_issues(artifacts: Any, prefix: str = "/output/artifacts") -> list[IssueDict]:
    found: list[IssueDict] = []
    for index, artifact in enumerate(artifacts if isinstance(artifacts, list) else []):
        if not isinstance(artifact, dict) or artifact.get("kind") != KIND:
            continue
        workflow = artifact.get("workflow")
        if not isinstance(workflow, dict):
            continue  # the contract's schema says what is wrong with its shape
        for diagnostic in _errors_of(workflow):
            message = f"The draft would not load ({diagnostic.code}): {diagnostic.message} Fix: {diagnostic.fix}"
            pointer = f"{prefix}/{index}/workflow{diagnostic.pointer}"
            found.append({"code": IssueCode.ARTIFACT_INVALID.value, "message": message, "pointer": pointer})
    return found


def _errors_of(workflow: JsonObject) -> list[Diagnostic]:
    with tempfile.TemporaryDirectory(prefix="workrail-draft-") as scratch:
        root = Path(scratch)
        path = root / ".workrail" / "workflows" / "draft.json"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(workflow, ensure_ascii=False), encoding="utf-8")
        [report] = validate([path], kind=SourceKind.PROJECT, user_dir=root / "home")
    return [d for d in report.diagnostics if d.severity is Severity.ERROR]

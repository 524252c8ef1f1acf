"""Has the workflow file a run was pinned from changed or gone? Runs never follow the file; they say so.

A stat of one file on the hot path; the catalog is consulted only when the stat differs from the
one recorded at pin time (and then the catalog's own cache keeps it cheap).
"""

from __future__ import annotations

import os
from pathlib import Path

from runs.contract.execution import WarningDict
from runs.execution.catalog import current_catalog
from runs.models import Run


def source_stat(path: Path | str) -> str:
    try:
        stat = os.stat(path)
    except OSError:
        return ""
    return f"{stat.st_mtime_ns}:{stat.st_size}"


def drift_warnings(run: Run) -> list[WarningDict]:
    if not run.source_path or source_stat(run.source_path) == run.source_stat:
        return []
    entry = current_catalog().resolve(run.workflow_id)
    if entry is None:
        # No file path here: an agent's answer never names a path (a git source's lives in WORKRAIL_HOME).
        return [
            {
                "code": "WORKFLOW_SOURCE_MISSING",
                "message": f"Workflow '{run.workflow_id}' is no longer in the catalog (its file was moved or "
                "removed); this run continues on the snapshot it was started with. Nothing to do for this run.",
            }
        ]
    if entry.id != run.workflow_id:  # renamed since: the run goes on as it was, new runs use the new id
        return [
            {
                "code": "WORKFLOW_CHANGED_ON_DISK",
                "message": f"Workflow '{run.workflow_id}' is '{entry.id}' now; this run continues on its pinned "
                f"snapshot {run.pinned_id[:19]}…. Nothing to do for this run; start new ones with '{entry.id}'.",
            }
        ]
    if entry.workflow_hash != run.pinned_id:
        return [
            {
                "code": "WORKFLOW_CHANGED_ON_DISK",
                "message": f"Workflow '{run.workflow_id}' changed on disk (now {entry.workflow_hash[:19]}…); this run "
                f"continues on its pinned snapshot {run.pinned_id[:19]}…. Start a new run to use the new "
                "version.",
            }
        ]
    return []

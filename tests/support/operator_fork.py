"""A workflow whose path depends on its context, for the operator fork's tests: after `prepare`, the
release goes to staging or to production depending on `target`, and every prompt names the `service`.
A fork at `prepare` with another target takes the other deployment step."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.workflow_files import loop_doc, step_doc, workflow_doc, write_json

RELEASE = "team.release"
START_CONTEXT = {"service": "billing", "target": "staging", "ticketId": "REL-7"}


def release_doc() -> dict[str, Any]:
    return workflow_doc(
        RELEASE,
        name="Release",
        steps=[
            step_doc("prepare", "Prepare", "Prepare the release of {{service}} to {{target}}."),
            step_doc(
                "deploy-staging",
                "Deploy to staging",
                "Deploy {{service}} to staging.",
                runCondition={"var": "target", "equals": "staging"},
            ),
            step_doc(
                "deploy-production",
                "Deploy to production",
                "Deploy {{service}} to production behind a canary.",
                runCondition={"var": "target", "equals": "production"},
            ),
            loop_doc(
                "verify",
                "Verify",
                {"type": "for", "count": 1, "maxIterations": 2},
                [step_doc("check", "Check {{currentIteration}}", "Check {{service}} after the deployment.")],
            ),
            step_doc("announce", "Announce", "Announce the release of {{service}}."),
        ],
    )


def install_release(directory: Path) -> Path:
    """The release workflow as a file in `directory` (a catalog's extra dir, or WORKRAIL_HOME/workflows)."""
    return write_json(directory / "release.json", release_doc())

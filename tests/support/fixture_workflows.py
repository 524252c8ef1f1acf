"""Our own fixture workflows (tests/fixtures/workflows): together they use every format feature the
loader, compiler and engine support, so the suite covers the format without WorkRail's corpus."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.paths import FIXTURE_WORKFLOWS


def fixture_paths() -> list[Path]:
    return sorted(FIXTURE_WORKFLOWS.rglob("*.json"))


def fixture_documents() -> dict[Path, dict[str, Any]]:
    """Each fixture file as written (before the loader drops legacy fields)."""
    return {path: json.loads(path.read_text(encoding="utf-8")) for path in fixture_paths()}


def fixture_ids() -> list[str]:
    return sorted(document["id"] for document in fixture_documents().values())


# What a user would give up front so that every branch, loop and dependency of a fixture is used.
# The engine and end-to-end runs start each fixture with this context.
START_CONTEXTS: dict[str, dict[str, Any]] = {
    "fixture.conditions": {
        "release": {"channel": " Stable ", "risk": 7, "tags": ["security", "ui"], "owner": "platform-team"},
        "approvals": "2",
        "reviewers": ["ana", "bo"],
        "hotfix": "true",
        "dryRun": False,
    },
    "fixture.confirmation": {"deployTarget": "production", "changeSize": 3},
    "fixture.loops_while_until": {
        "topic": "API versioning",
        "audience": "public",
        "keepReviewing": True,
        "translate": False,
    },
    "fixture.loops_for_foreach": {
        "services": [{"name": "billing", "owner": "payments-team"}, {"name": "search", "owner": "discovery-team"}],
        "upgrade": {"labels": ["runtime-3", "needs-restart"]},
        "retryCount": "3",
    },
    "fixture.validation": {"deployTarget": "production"},
    "fixture.prompt_blocks": {
        "audience": {"role": "executive"},
        "topic": "response caching",
        "options": ["in-process", "shared", "none"],
        "round": 2,
    },
    "fixture.user_dependencies": {
        "runbookPath": "ops/runbooks/rotate.md",
        "serviceName": "billing",
        "rotationWindow": "Tuesday 06:00 UTC",
        "vaultAccess": "granted",
        "newCredentialRef": "vault:billing/db#v7",
        "ownerApproval": "approved by the billing owner",
    },
    "fixture.parallel": {"parallelAllowed": True, "delegationBudget": 0, "modules": ["parser", "renderer"]},
    "fixture.routine_calls": {"includeWorker": True, "risky": True},
    "fixture.routine-release_checks": {"component": "docs-site", "ref": "main", "risky": False},
    "fixture.routine-cause_review": {"failingCheck": "nightly-integration", "findingsFile": "notes/cause-review.md"},
    "fixture.delegated_checks": {"failingJob": "nightly-integration"},
}

# The step instances a run of each fixture goes through, from its start context, with an agent that
# sends loop_control decisions continue, continue, then stop (tests/workflows_app/engine/scripted_run.py).
_ROUTINE = ["verify-build", "rehearse-rollback", "smoke-loop#1/{p}.smoke-test", "smoke-loop#2/{p}.smoke-test"]
EXPECTED_PATHS: dict[str, list[str]] = {
    "fixture-legacy-format": ["list-branches", "delete-branches"],
    "fixture.assessments": ["gather-evidence", "assess-readiness", "ship-decision"],
    "fixture.conditions": [
        "open-checklist", "channel-equals", "channel-not-equals", "risk-gt", "approvals-gte", "reviewers-lte",
        "first-reviewer", "tags-contain", "owner-contains", "channel-in", "owner-starts-with", "owner-ends-with",
        "owner-matches", "combined", "freeze-not-equals", "risk-in-range", "empty-condition",
    ],  # not: risk-lt, channel-not-in, dry-run-only, freeze-equals
    "fixture.confirmation": [
        "prepare-deploy", "confirm-plan", "no-confirmation", "confirm-production", "confirm-large-change",
        "human-approval-gate", "coordinator-gate", "finish-deploy",
    ],
    "fixture.functions": ["choose-approach", "assess-risks", "rehearsal-loop#1/rehearse", "rehearsal-loop#2/rehearse"],
    "fixture.loop_control": [
        "collect-feedback",
        *[f"revise-loop#{i}/{step}" for i in (1, 2, 3) for step in ("revise-draft", "decide-another-round")],
        "cleanup-loop#1/tidy-pass",
        "publish-revision",
    ],  # the agent decides continue, continue, stop; then stop at once
    "fixture.loops_for_foreach": [
        "list-services",
        *[f"service-loop#{i}/{step}" for i in (1, 2) for step in ("check-service", "record-service")],
        "label-loop#1/apply-label", "label-loop#2/apply-label",
        "warmup-loop#1/send-warmup", "warmup-loop#2/send-warmup",
        "retry-loop#1/retry-check", "retry-loop#2/retry-check", "retry-loop#3/retry-check",
        "sign-off",
    ],
    "fixture.loops_while_until": [
        "outline-essay",
        "draft-loop#1/write-draft", "draft-loop#2/write-draft",
        "polish-loop#1/polish-pass", "polish-loop#2/polish-pass",
        "proofread-loop#1/proofread", "proofread-loop#2/proofread",
        "capped-loop#1/review-pass", "capped-loop#2/review-pass",
        "publish-essay",
    ],  # the translation loop's runCondition is false
    "fixture.delegated_checks": [
        "locate-cause", "locate-cause.audit", "revert-suspect", "revert-suspect.verify",
        "report-cause", "report-cause.verify",
    ],
    "fixture.output_contracts": [
        "list-changed-files", "record-findings", "extra-findings", "release-summary", "tag-release",
    ],
    "fixture.parallel": [
        "scope-upgrade", "split-research", "split-research.synthesis",
        "module-loop#1/module-fanout", "module-loop#1/module-verdict",
        "module-loop#2/module-fanout", "module-loop#2/module-verdict",
    ],
    "fixture.prompt_blocks": ["frame-problem", "compare-options", "tailor-advice"],
    "fixture.routine-cause_review": ["retrace-failure", "write-findings"],
    "fixture.routine-release_checks": ["verify-build", "smoke-loop#1/smoke-test", "smoke-loop#2/smoke-test"],
    "fixture.routine_calls": [
        "prepare-release",
        *[f"check-api.{step.format(p='check-api')}" for step in _ROUTINE],
        *[f"check-worker.{step.format(p='check-worker')}" for step in _ROUTINE],
        "plan-follow-up.clarify-goal", "plan-follow-up.draft-plan", "plan-follow-up.self-check-plan",
        "announce-release",
    ],
    "fixture.step_fields": ["read-failure", "locate-cause", "locate-cause.audit", "rerun-job", "rerun-job.verify"],
    "fixture.user_dependencies": ["read-runbook", "choose-window", "rotate-credential"],
    "fixture.validation": ["write-summary", "plan-rollback", "record-decision", "structured-notes"],
    "fixture.workflow_metadata": ["collect-changes", "draft-notes"],
    "fixture.workrail_artifacts": [
        "discover", "differentiate", "shape", "signal-progress", "code", "assess", "review", "gate", "draft-runbook",
    ],
}  # fmt: skip


# fixture.confirmation from its start context: whether each step asks for confirmation.
CONFIRMATIONS = {
    "prepare-deploy": False,
    "confirm-plan": True,
    "no-confirmation": False,
    "confirm-production": True,
    "confirm-large-change": False,
    "human-approval-gate": True,
    "coordinator-gate": True,
    "finish-deploy": False,
}

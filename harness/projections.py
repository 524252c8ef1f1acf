"""A comparable picture of every projection row, keyed by public ids (not database pks)."""

from __future__ import annotations

from typing import Any

from runs import models


def snapshot() -> dict[str, Any]:
    return {
        "sessions": sorted(
            (
                s.public_id,
                s.session_key,
                s.title,
                s.kind,
                repr(s.tags),
                repr(s.preferences),
                s.last_seq,
                s.status,
                s.workflow_ids,
                s.run_count,
                s.branch_count,
                s.waiting_for_user,
                s.git_branch,
                s.workspace_path,
                s.owner,
            )
            for s in models.Session.objects.all()
        ),
        "checkpoints": sorted(
            (
                c.session.public_id,
                c.node.public_id if c.node else None,
                c.child.public_id if c.child else None,
                c.output_digest,
                c.notes_markdown,
                repr(c.artifacts),
                c.response_json,
                c.created_at,
            )
            for c in models.Checkpoint.objects.select_related("session", "node", "child")
        ),
        "observations": sorted(
            (
                o.session.public_id,
                o.run.public_id if o.run else "",
                o.git_branch,
                o.git_head_sha,
                o.workspace_path,
                o.created_at,
            )
            for o in models.Observation.objects.select_related("session", "run")
        ),
        "gaps": sorted(
            (g.run.public_id, g.node.public_id, g.step_id, g.reason, g.description, g.created_at)
            for g in models.Gap.objects.select_related("run", "node")
        ),
        "syntheses": sorted(
            (s.run.public_id, s.node.public_id, repr(s.synthesis), s.created_at)
            for s in models.RunSynthesis.objects.select_related("run", "node")
        ),
        "search": sorted(
            (
                e.session.public_id,
                e.run.public_id if e.run else "",
                e.tip.public_id if e.tip else None,
                e.identity_text,
                e.notes_text,
                e.git_branch,
                e.git_head_sha,
                e.workspace_path,
                e.updated_at,
            )
            for e in models.SearchEntry.objects.select_related("session", "run", "tip")
        ),
        "runs": sorted(
            (
                r.public_id,
                r.session.public_id,
                r.workflow_id,
                r.pinned_id,
                r.status,
                r.source_path,
                r.source_stat,
                repr(r.announced),
                r.node_count,
                r.branch_count,
                r.start_commit,
                r.end_commit,
                r.waits_for_user,
                r.client_name,
                r.imported_at,
                r.created_at,
                r.updated_at,
            )
            for r in models.Run.objects.select_related("session")
        ),
        "nodes": sorted(
            (
                n.public_id,
                n.run.public_id,
                n.parent.public_id if n.parent else None,
                n.latest_child.public_id if n.latest_child else None,
                n.depth,
                n.notes_on_path,
                repr(n.engine_state),
                repr(n.preferences),
                n.pending_step_id,
                n.is_complete,
                repr(n.trace),
                n.created_at,
            )
            for n in models.Node.objects.select_related("run", "parent", "latest_child")
        ),
        "attempts": sorted(
            (a.public_id, a.node.public_id, a.created_at) for a in models.Attempt.objects.select_related("node")
        ),
        "acks": sorted(
            (
                a.attempt.public_id,
                a.node.public_id,
                a.child.public_id if a.child else None,
                a.outcome,
                a.output_digest,
                a.response_json,
                a.created_at,
            )
            for a in models.Ack.objects.select_related("attempt", "node", "child")
        ),
        "outputs": sorted(
            (
                o.node.public_id,
                o.child.public_id,
                o.step_id,
                o.step_title,
                o.notes_markdown,
                repr(o.artifacts),
                o.created_at,
            )
            for o in models.Output.objects.select_related("node", "child")
        ),
    }

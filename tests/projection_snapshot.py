"""A comparable picture of every projection row, keyed by public ids (not database pks)."""

from __future__ import annotations

from typing import Any

from runs.models import Ack, Attempt, Node, Output, Run, Session


def snapshot() -> dict[str, Any]:
    return {
        "sessions": sorted((s.public_id, s.session_key, s.title, s.last_seq) for s in Session.objects.all()),
        "runs": sorted(
            (
                r.public_id,
                r.session.public_id,
                r.workflow_id,
                r.pinned_id,
                r.status,
                r.source_path,
                r.source_stat,
                r.created_at,
                r.updated_at,
            )
            for r in Run.objects.select_related("session")
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
                n.created_at,
            )
            for n in Node.objects.select_related("run", "parent", "latest_child")
        ),
        "attempts": sorted(
            (a.public_id, a.node.public_id, a.created_at) for a in Attempt.objects.select_related("node")
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
            for a in Ack.objects.select_related("attempt", "node", "child")
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
            for o in Output.objects.select_related("node", "child")
        ),
    }

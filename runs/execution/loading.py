"""What a token names, loaded: the node of a stateToken, the attempt of an ackToken, both at once.

An id that names nothing here (or a session an import is still writing) is a TOKEN_UNKNOWN error, an
ackToken paired with another node's stateToken is TOKEN_SCOPE_MISMATCH, and a token of a session another
owner started is NOT_YOUR_SESSION (ownership.py), each with what to send instead. Every use case that takes
a stateToken or an ackToken resolves it here, so the owner is checked in this one place."""

from __future__ import annotations

from runs.contract.errors import ErrorCode, WorkRailError
from runs.contract.features import find_lost_run
from runs.models import Attempt, Node
from runs.store.call_notes import saw_run
from runs.store.ownership import require_mine
from runs.store.statements import SelectOne

_node_by_id = SelectOne(lambda node_id: Node.objects.select_related("run__session").filter(public_id=node_id))

# An ack's attempt with its node, run, session and (when it was used) its ack, in one compiled query.
_attempt_by_id = SelectOne(
    lambda attempt_id: Attempt.objects.select_related("node__run__session", "ack").filter(public_id=attempt_id)
)


def load_node(node_id: int) -> Node:
    node = _node_by_id.get(node_id)
    # A node an import is still writing keeps the bundle's id: a token minted for that id here before
    # (a session exported, deleted, then imported back) must not reach it until it is published.
    if node is None or node.run.session.importing:
        raise WorkRailError(
            ErrorCode.TOKEN_UNKNOWN,
            "This stateToken names a snapshot this store does not have.",
            f"Use a stateToken from this machine's WorkRail, or {find_lost_run()}.",
        )
    saw_run(node.run.public_id, node.run.session.public_id)  # for the call's timing row (call_notes.py)
    require_mine(node.run.session)
    return node


def load_attempt(node_id: int, attempt_id: int) -> Attempt:
    try:
        attempt = Attempt.objects.select_related("node", "ack").get(public_id=attempt_id)
    except Attempt.DoesNotExist:
        raise WorkRailError(
            ErrorCode.TOKEN_UNKNOWN,
            "This ackToken names an attempt this store does not have.",
            "Call continue_workflow with only the stateToken to get a valid ackToken.",
        ) from None
    if attempt.node.public_id != node_id:
        node = Node.objects.filter(public_id=node_id).only("run_id").first()
        same_run = node is not None and node.run_id == attempt.node.run_id
        where = "another step of the same run" if same_run else "another run"
        raise WorkRailError(
            ErrorCode.TOKEN_SCOPE_MISMATCH,
            f"This ackToken belongs to {where}, not to the snapshot named by the stateToken.",
            "Send the stateToken and ackToken that were returned together, or call continue_workflow with only "
            "the stateToken to get a matching ackToken.",
        )
    return attempt


def load_pair(node_id: int, attempt_id: int) -> tuple[Node, Attempt]:
    """The node and attempt an ack names, in one query when they match (the usual case); otherwise the
    separate lookups say which token is unknown or out of scope."""
    attempt = _attempt_by_id.get(attempt_id)
    if attempt is not None and attempt.node.public_id == node_id:
        saw_run(attempt.node.run.public_id, attempt.node.run.session.public_id)
        require_mine(attempt.node.run.session)
        return attempt.node, attempt
    node = load_node(node_id)  # raises when the stateToken names nothing
    return node, load_attempt(node_id, attempt_id)  # raises: unknown, or another node's ack

"""continue_workflow without an ackToken: nothing advances. The pending step again, the recap of what
was recorded before it, and the branches that already grew from that point."""

from __future__ import annotations

from django.conf import settings

from runs.contract.execution import Branch, ExecutionResult, WarningDict
from runs.execution.answer import AnswerAt, AnswerSays, chat_opening, node_response
from runs.execution.loading import load_node
from runs.execution.recording import issue_attempt
from runs.execution.responses import AnswerParts
from runs.models import Attempt, Checkpoint, Node, Output
from runs.readmodels import forks, recap
from runs.readmodels.recap import branch_tip
from runs.store import tokens
from runs.store.journal import Journal, write
from runs.store.pinned import compiled_workflow
from runs.store.statements import Select
from runs.store.tokens import TokenKind
from workflows_app import engine

FILES_NOT_BRANCHED = (
    "Branches hold WorkRail's state and notes only: files changed in the project on another branch are "
    "still changed, so check the working tree (git status) and undo what this branch should not build on."
)

MAX_BRANCHES_LISTED = 10

# The newest branches only: a point rewound to a thousand times must not make a huge answer.
_newest_children = Select(
    lambda pk: Node.objects.filter(parent_id=pk).order_by("-created_at", "-pk")[:MAX_BRANCHES_LISTED]
)
# What made a branch's first node: a step's output, or else a checkpoint (else an operator fork).
_output_into = Select(lambda pk: Output.objects.filter(child_id=pk).order_by("pk")[:1])
_checkpoint_into = Select(lambda pk: Checkpoint.objects.filter(child_id=pk).order_by("pk")[:1])
# The newest attempt of a node whose ack is unused, if any.
_open_attempt = Select(
    lambda pk: Attempt.objects.filter(node_id=pk, ack__isnull=True).order_by("-created_at", "-pk")[:1]
)


def rehydrate(node_id: int, *, ignored_input: bool = False) -> ExecutionResult:
    """Without an ackToken: nothing advances. The pending step again, what was recorded before it,
    and, when the node already has children, the branches that grew from it."""
    notices: list[WarningDict] = []
    if ignored_input:
        notices.append(
            {
                "code": "IGNORED_WITHOUT_ACK",
                "message": "context, output and preferences are only used "
                "with an ackToken; nothing was recorded. Send them again with the ackToken below.",
            }
        )
    with write() as now:
        node = load_node(node_id)
        run = node.run
        notices += _forked_here(node)
        journal = Journal(run.session, now)
        journal.projector.know(run, node)
        children = _branches(node)
        attempt = None
        if not node.is_complete:
            attempt = _open_attempt.first(node.pk)
            if attempt is None:  # every ack of this node was used: mint a fresh one (it will fork)
                attempt = issue_attempt(journal, run, node)
        compiled = compiled_workflow(run.pinned_id)
        pending = engine.pending_view(compiled, node.engine_state)
        # Over budget, the recap keeps the notes of the steps that set what the pending step works through.
        sources = engine.worked_through(compiled, node.engine_state)
        extra: AnswerParts = {
            "recap": recap.path_recap(node, sources=sources),
            "rehydrated": True,
            **chat_opening(compiled),
        }
        if node.engine_state.get("context"):
            extra["runContext"] = node.engine_state["context"]  # what a new chat needs besides the notes
        if children:
            total = len(children) if len(children) < MAX_BRANCHES_LISTED else node.children.count()
            tips = [branch_tip(child) for child in children]
            extra["branches"] = [branch_summary(child, tip) for child, tip in zip(children, tips, strict=True)]
            extra["branchCount"] = total
            preferred = next((i for i, c in enumerate(children) if c.pk == node.latest_child_id), len(children) - 1)
            extra["downstreamRecap"] = recap.downstream_recap(node, tips[preferred])
            # Its notes are said there, in full and bounded: the branch's own line does not repeat them.
            newest = extra["branches"][preferred]
            extra["branches"][preferred] = newest.model_copy(update={"notes_preview": "", "notes_below": True})
            listed = "" if total == len(children) else f" (the newest {len(children)} are listed)"
            extra["fork"] = (
                f"This point already has {total} branch(es){listed}. Acknowledging with the ackToken "
                "below starts a new branch beside them; nothing on the existing branches is lost. " + FILES_NOT_BRANCHED
            )
        kind = "complete" if node.is_complete else "step"
        response = node_response(journal, AnswerAt(run, node, attempt, pending), AnswerSays(kind, notices, extra))
        journal.flush()
        return response


def _branches(node: Node) -> list[Node]:
    """The node's newest children, oldest first. A node without a latest child has none (a child is
    made its parent's latest at once, and nodes are only ever deleted with their whole session)."""
    if node.latest_child_id is None:
        return []
    children = _newest_children.all(node.pk)[::-1]
    for child in children:
        child.run = node.run  # a branch grows in its parent's run
    return children


def _forked_here(node: Node) -> list[WarningDict]:
    """A branch a developer started by hand (an operator fork): the agent is told why, and what changed."""
    if node.latest_child_id is not None:  # said to an agent about to go on from there, not on a rewind to it
        return []
    fork = forks.fork_into(node)
    if fork is None:
        return []
    where = "from the dashboard" if fork.via == "dashboard" else "through the HTTP API"
    return [
        {
            "code": "OPERATOR_FORK",
            "message": f"The user started this branch by hand ({where}), at this step, with edited context "
            f"({fork.change}; runContext has the values). Their reason: “{fork.reason}”. Earlier branches are kept "
            "unchanged. " + FILES_NOT_BRANCHED,
        }
    ]


def branch_summary(child: Node, tip: Node) -> Branch:
    """A branch that grew from a node: its first node `child` and where it stands now, `tip`."""
    output = _output_into.first(child.pk)
    checkpoint = None if output else _checkpoint_into.first(child.pk)
    fork = forks.fork_into(child) if output is None and checkpoint is None else None
    notes = output.notes_markdown if output else (checkpoint.notes_markdown if checkpoint else "")
    notes = fork.reason if fork is not None else notes
    return Branch(
        state_token=tokens.mint(settings.WORKRAIL_HOME, TokenKind.STATE, child.public_id),
        completed_step_id=output.step_id if output else None,
        via="fork" if fork is not None else ("step" if output else "checkpoint"),
        notes_preview=notes[:280] + ("…" if len(notes) > 280 else ""),
        created_at=child.created_at.isoformat(),
        is_complete=child.is_complete,
        pending_step_id=child.pending_step_id or None,
        tip_state_token=tokens.mint(settings.WORKRAIL_HOME, TokenKind.STATE, tip.public_id),
        tip_pending_step_id=tip.pending_step_id or None,
        tip_is_complete=tip.is_complete,
    )

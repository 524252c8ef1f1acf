"""An ack sent again: the answer recorded the first time, with a warning first when the output sent
this time differs (nothing of it is recorded). Acks are idempotent; a replay never advances twice."""

from __future__ import annotations

import hashlib
import json

from django.conf import settings

from runs.contract.execution import BranchTip, RecordedAnswer, WarningDict
from runs.contract.inputs import StepOutputDict
from runs.models import Ack, Attempt
from runs.readmodels.recap import branch_tip
from runs.store import tokens
from runs.store.statements import Select
from runs.store.tokens import TokenKind

# The newest attempt of a node whose ack is unused, if any (read only: a replay writes nothing).
_open_attempt = Select(
    lambda pk: Attempt.objects.filter(node_id=pk, ack__isnull=True).order_by("-created_at", "-pk")[:1]
)


def output_digest(output: StepOutputDict) -> str:
    """Same output, same digest, whatever the key order: tells a true replay from a changed one."""
    return "sha256:" + hashlib.sha256(json.dumps(output, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def replay(ack: Ack, output: StepOutputDict) -> RecordedAnswer:
    if output_digest(output) == ack.output_digest:
        return RecordedAnswer(ack.response_json)
    state = tokens.mint(settings.WORKRAIL_HOME, TokenKind.STATE, ack.node.public_id)
    again = json.dumps({"stateToken": state})
    # First: an answer shaped like success must not hide that nothing new was kept.
    ignored: WarningDict = {
        "code": "REPLAY_OUTPUT_IGNORED",
        "message": "Nothing you sent with this call was recorded (output, context, preferences). "
        "This stateToken and ackToken were acknowledged "
        "before, so this is a replay: the answer below is the one recorded then, on the branch that "
        "acknowledgement started. To record this different work as a new branch from that point, "
        f"call continue_workflow {again} (no ackToken) for a fresh ackToken, then send your output "
        "with it.",
    }
    return RecordedAnswer(ack.response_json, warnings_first=(ignored,), branch_tip=_moved_on(ack))


def _moved_on(ack: Ack) -> BranchTip | None:
    """Where the branch this ack started stands now, if it has moved past the answer recorded then
    (its step acknowledged since): the recorded answer's tokens would only replay again."""
    answered = ack.child or ack.node  # a blocked ack answered on its own node
    tip = branch_tip(answered)
    if tip.pk == answered.pk:
        return None
    attempt = None if tip.is_complete else _open_attempt.first(tip.pk)
    home = settings.WORKRAIL_HOME
    return BranchTip(
        state_token=tokens.mint(home, TokenKind.STATE, tip.public_id),
        ack_token=tokens.mint(home, TokenKind.ACK, attempt.public_id) if attempt is not None else None,
        pending_step_id=tip.pending_step_id or None,
        is_complete=tip.is_complete,
    )

"""An ack sent again: the answer recorded the first time, with a warning first when the output sent
this time differs (nothing of it is recorded). Acks are idempotent; a replay never advances twice."""

from __future__ import annotations

import hashlib
import json

from django.conf import settings

from runs.contract.execution import RecordedAnswer, WarningDict
from runs.contract.inputs import StepOutputDict
from runs.models import Ack
from runs.store import tokens
from runs.store.tokens import TokenKind


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
    return RecordedAnswer(ack.response_json, warnings_first=(ignored,))

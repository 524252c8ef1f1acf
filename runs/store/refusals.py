"""The operator's record of every refusal: one line on the `workrail.refusals` logger (the server's stderr,
where an operator reads its log) for each request refused for who it is or what it would cost: another
owner's session (runs/store/ownership.py), a bound of the HTTP transport or of subscriptions, a revoked or
unknown token.

It says who asked (the owner, and the name of the token they came with), through which door, from which
address (as the transport saw it: a proxy's word only when WORKRAIL_MCP_FORWARDED_ALLOW_IPS trusts it), what
was refused and what was asked. Never the token itself, never the refusal's text (it may quote the input).

Light on purpose (no Django): the MCP server's transport and subscriptions call it before the apps load.
"""

from __future__ import annotations

import logging

from runs.store import actors

logger = logging.getLogger("workrail.refusals")


def record(code: str, what: str, actor: actors.Actor | None = None) -> None:
    actor = actor or actors.current()
    asked = actors.asked()
    logger.warning(
        "refused %s: %s (token %s) through %s from %s: %s%s",
        code,
        actor.owner or "a local process",
        actor.token or "-",
        actor.door or "-",
        actor.client or "-",
        what[:300],
        f" [{asked}]" if asked else "",
    )

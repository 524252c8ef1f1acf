"""The one message a person pastes into an agent's chat to set it going at a node: the stalled, left-behind
and blocked panels, a node's page and a branch started by hand all hand over this same sentence, behind the
same "Copy the message for the agent" button (templates/dashboard/_agent_message.html). A workflow's page
hands over the message that starts it (`to_start`), behind the same button.

The sentence carries the node's stateToken: given to continue_workflow without an ackToken, it shows the
agent the step pending there again, with a fresh ackToken, and records nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePath

from django.conf import settings

from runs.contract.dashboard import StepPlace
from runs.store import tokens
from runs.store.tokens import TokenKind


def text(token: str, where: str) -> str:
    """The message, with the token: what the agent is to call, and what it gets."""
    return (
        f'Resume the WorkRail workflow: call continue_workflow with stateToken "{token}" and no ackToken; it '
        f"gives you {where} again with a fresh ackToken, then carry on from there."
    )


def to_start(workflow_id: str, name: str) -> str:
    """The message that starts a workflow: pasted into an agent's chat, with the person's task after it."""
    return (
        f'Run the WorkRail workflow "{name}" on the task below: call start_workflow with workflowId '
        f'"{workflow_id}", then follow the steps it gives you.\n\nTask: '
    )


def where(place: StepPlace | None, title: str) -> str:
    """ "step 4 of 9 (Review api)", as the message names the step."""
    words = place.words if place is not None else ""
    return f"{words} ({title})" if words and title else words or title or "its step"


# When the session recorded no workspace (outside git, or over HTTP): the message carries its step's token, so
# any agent with WorkRail on this store can take it up.
ANY_CHAT = "Any chat with WorkRail connected can take it."


def which_chat(workspace_path: str, git_branch: str) -> str:
    """Which of a person's agent chats the message goes to, said beside its copy button (friction22a B2: with
    several agent windows open, "its chat" named none): the workspace the session last recorded, its directory
    (under the home directory as ~/…) and git branch, "Workspace: ~/src/shop (branch main)". The
    MCP client's name is not recorded, so it is not said. Nothing recorded: any chat can take it (ANY_CHAT)."""
    if not workspace_path:
        return ANY_CHAT
    path, home = PurePath(workspace_path), Path.home()
    shown = f"~/{path.relative_to(home)}" if path != home and path.is_relative_to(home) else workspace_path
    return f"Workspace: {shown}" + (f" (branch {git_branch})." if git_branch else ".")


def at_node(node_id: str | int, place: StepPlace | None, title: str) -> str:
    """The message that sets an agent going at a node (its public id)."""
    return text(tokens.mint(settings.WORKRAIL_HOME, TokenKind.STATE, int(node_id)), where(place, title))


@dataclass(frozen=True)
class Replies:
    """What a person pastes into the agent's chat to answer a step that waits for their confirmation: the
    dashboard cannot confirm by itself (the agent hears it in its chat), so it gives the two answers ready to
    paste (friction15): the confirmation, and a reply asking for changes with a blank for what to change.
    The latter is kept in its three parts (before, blank, after), so that the page can put what the person
    types under it in the blank's place (friction18b 12) without reading its own words back."""

    confirmed: str
    changes_parts: tuple[str, str, str]

    @property
    def changes(self) -> str:
        return "".join(self.changes_parts)


# Where the reply asking for changes says what to change, until the person writes it.
CHANGES_BLANK = "…"


def replies(step_title: str) -> Replies:
    named = f"“{step_title}”" if step_title else "this step"
    return Replies(
        f"Confirmed: go on with {named}.", ("Not yet: change ", CHANGES_BLANK, f" before you go on with {named}.")
    )

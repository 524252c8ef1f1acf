"""The one message a person pastes into an agent's chat to set it going at a node: the stalled, left-behind
and blocked panels, a node's page and a branch started by hand all hand over this same sentence, behind one copy
button (templates/dashboard/_agent_message.html) named by what it does (actions.COPY: "Copy the resume message"). A
workflow's page hands over the message that starts it (`to_start`), behind the same button ("Copy the start
message").

The sentence carries the node's stateToken: given to continue_workflow without an ackToken, it shows the
agent the step pending there again, with a fresh ackToken, and records nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePath

from django.conf import settings

from runs.contract.dashboard import RunSummary, StepPlace
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


# The summary of the fold that holds a message under its copy button: what the fold holds, in plain words.
# Not the message's opening (friction26a 12's fix): that put "call continue_workflow with stateToken…", developer
# words, in plain view on every resume panel, cut off on a phone (friction61a 8, 61b 4).
FOLD_SUMMARY = "The message it copies"


def which_chat(workspace_path: str, git_branch: str) -> str:
    """Which of a person's agent chats the message goes to where the run's start is not known (friction22a B2:
    with several agent windows open, "its chat" named none), one sentence with its verb (friction27a 1): the
    workspace the session last recorded, its directory (under the home directory as ~/…) and git branch,
    "Paste it into the chat working in ~/src/shop (git branch main)."; nothing recorded, "" (the panel's own line
    says whose chat)."""
    if not workspace_path:
        return ""
    path, home = PurePath(workspace_path), Path.home()
    shown = f"~/{path.relative_to(home)}" if path != home and path.is_relative_to(home) else workspace_path
    return f"Paste it into the chat working in {shown}" + (f" (git branch {git_branch})." if git_branch else ".")


# The MCP clients people know by a product name, by the name they declare (clientInfo.name, lower case): said
# "Claude Code", not "claude-code" (friction27a 1). A name not here is said as given.
CLIENT_NAMES = {
    "claude-code": "Claude Code",
    "claude-ai": "Claude",
    "claude desktop": "Claude Desktop",
    "cursor": "Cursor",
    "cursor-vscode": "Cursor",
    "codex": "Codex",
    "codex-mcp-client": "Codex",
    "windsurf": "Windsurf",
    "windsurf-client": "Windsurf",
    "cline": "Cline",
    "goose": "Goose",
    "vscode": "VS Code",
    "visual studio code": "VS Code",
    "zed": "Zed",
    "continue": "Continue",
    "gemini-cli": "Gemini CLI",
}

# Names an MCP library declares by default, which name no product a person would recognise: said as unknown.
SDK_NAMES = frozenset({"mcp", "python-mcp", "mcp-client", "mcp-python", "fastmcp", "typescript-mcp", "test-client"})


def product(client_name: str) -> str:
    """A declared MCP client name in people's words: "Claude Code" for "claude-code"; "" for none or an SDK's
    default ("mcp")."""
    key = client_name.strip().lower()
    if not key or key in SDK_NAMES:
        return ""
    return CLIENT_NAMES.get(key, client_name.strip())


@dataclass(frozen=True)
class Chat:
    """How a person tells which of their agent chats a copied message goes to (friction26b 6: "paste it into the
    agent's chat" named none of several open windows), said under every copy-for-the-agent button of a run's
    pages, one sentence with its verb (friction27a 1), and in its Copied line: the MCP client that started the run,
    in people's words (client: "" when unknown, events from before it was recorded, the HTTP API, an SDK's
    default name), when that was (started: None for a run started before its session was imported here, by a chat
    on another machine), for such a run when it last moved here since (last_at), and the workspace (which_chat)
    where neither is known. Where the message is for a new chat (a branch left behind beside a working one, a
    paused run), the page says none of it (AttentionPanel.new_chat)."""

    client: str
    started: datetime | None
    last_at: datetime | None
    workspace: str

    @property
    def the_chat(self) -> str:
        """ "the chat (Claude Code)", else "the chat": the Copied line's name for it (it says none when the client
        is unknown: _agent_message.html). Always "the chat", the client after it in brackets, as the panel's
        sentence says it ("the chat that started this run (Claude Code, …)"): "the Claude Code chat" on one run
        and "the chat" on another read as two places (friction62a 5, 62b 14a)."""
        return f"the chat ({self.client})" if self.client else "the chat"


def chat(run: RunSummary | None, workspace_path: str, git_branch: str) -> Chat:
    """The Chat of a session's run, from its row as the run's pages read it (Run.client_name, Run.imported_at: no
    query of its own); with no run, the workspace alone."""
    workspace = which_chat(workspace_path, git_branch)
    if run is None:
        return Chat("", None, None, workspace)
    if run.imported_at is None:
        started, last_at = run.created_at, None
    else:
        # A run started before its session was imported here was started by a chat on another machine: not one
        # of this person's chats here, so it is not named; only a step recorded here since is said.
        started, last_at = None, run.updated_at if run.updated_at > run.imported_at else None
    # Known by when it started or last moved, the chat needs no workspace beside it: the page's head names the
    # repository and git branch, said once (friction13 7).
    if started is not None or last_at is not None:
        workspace = ""
    return Chat(product(run.client_name) if started is not None else "", started, last_at, workspace)


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

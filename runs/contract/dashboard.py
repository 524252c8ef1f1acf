"""What the developer's side reads: sessions, runs, their graphs, nodes, events and tool timings.

The dashboard's templates and the HTTP API (/api/v1/) render the same objects, built by the read
services in runs/readmodels/overview.py, runs/readmodels/run_view.py and runs/readmodels/timings.py.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal, NamedTuple

from pydantic import Field, PrivateAttr

from runs.contract.base import Shape
from runs.contract.fork import OperatorForkNote
from runs.contract.inputs import ModeName, Preferences
from workflows_app.engine.jsontypes import JsonObject


class Timed(NamedTuple):
    """Words that hold a moment: the words `before` and `after` it, and the `when` form the page prints the
    moment in (runs/templatetags/dashboard.py WHEN_FORMS): "for" how long a state has lasted ("stalled for 45
    min"), "ago" when something happened ("refused 5 min ago"), "in" when something will happen ("your move in
    28 min"), "time" the day and the clock. One time language (friction17a 4): relative, the exact moment in the
    tooltip."""

    before: str
    after: str = ""
    form: str = "time"


SessionStatusName = Literal["in_progress", "stalled", "blocked", "complete", "canceled", "notes"]
RunStatusName = Literal["in_progress", "stalled", "blocked", "complete", "canceled"]
BranchStatusName = Literal["complete", "open", "blocked", "canceled"]
SessionSort = Literal["activity", "-activity", "created", "-created", "title", "-title"]
SessionGroup = Literal["none", "branch", "workspace"]
# Where a run stands, as a person reads it (runs/readmodels/attention.py): whose move it is.
StateName = Literal[
    "needs_you", "blocked", "paused", "stalled", "running", "superseded", "left_behind", "done", "canceled", "notes"
]
PlaceName = Literal["working", "waiting_for_user", "blocked", "paused", "stalled", "completed", "canceled", "notes"]
PanelName = Literal["stalled", "paused", "waiting_for_user", "canceled", "left_behind"]
HANDOFF_KIND = "wr.coding_handoff"  # a coding hand-off: the artifact a coding step ends with


def plural(noun: str) -> str:
    """A loop's item word counted several times: "slices", "classes", "entries"."""
    if noun.endswith(("s", "x", "z", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "i", "o", "u"):
        return noun[:-1] + "ies"
    return noun + "s"


class StepPlace(Shape):
    """Where a pending step sits in its workflow's outline (runs/readmodels/step_places.py): "step 3 of 7",
    and inside a loop "step 3 of 7, round 2" (the loop at entry 3, its second round). Never a count of the steps
    taken."""

    # The docstring above is the API's description (pinned by tests/snapshots/surface/openapi.json). People read
    # "step 3 of 7 (round 2 of 4)" after the step's name (brief): never the outline's "3.2 of 7", read as a version
    # number or a bug (friction24a 10, 24b 3).

    position: int = Field(description="The outline entry it is (1 for the first; a loop's body steps are its loop's).")
    length: int = Field(description="The outline's length: its top-level entries, a loop counted once.")
    round: int | None = Field(default=None, description="The round of the loop it is in (1 for the first).")
    inner: int | None = Field(
        default=None,
        description="Inside a loop, which of the loop's own steps it is (1 for the first), as the outline numbers "
        "them: step 2.1 is the first step of the loop at entry 2.",
    )

    # The loop around it as the workflow declares it (step_places.py reads both from the compiled workflow and
    # the cursor's loop frame): its title, how many rounds it runs when that was fixed on entering it (a `for`
    # loop's count, a `forEach` loop's items). For people's words only: kept off the wire.
    _loop: str = PrivateAttr(default="")
    _rounds: int | None = PrivateAttr(default=None)
    # What one round is in the workflow's own word, when a `forEach` loop declares its item (step_places.noun:
    # `itemVar` "currentSlice" names a round "slice"); "" says "round".
    _noun: str = PrivateAttr(default="")
    # The item a `forEach` loop is on, when it is a short text its step's title does not already name
    # (step_places.item): "api" in "area 2 of 2: api"; "" for none.
    _item: str = PrivateAttr(default="")
    # How many steps its loop's body holds (0 off a loop): a body of two or more letters its steps ("step 2a of 3",
    # "step 2b of 3") so two steps of one round never share a locator (friction61a 6, 61b 1).
    _parts: int = PrivateAttr(default=0)

    @property
    def number(self) -> str:
        """The step's number as the workflow page's outline prints it: "2", or "2.1" for a loop's first step."""
        return f"{self.position}.{self.inner}" if self.inner is not None else str(self.position)

    @property
    def loop(self) -> str:
        return self._loop

    @property
    def unit(self) -> str:
        """What one round of its loop is called, the same word on every view (graph cards, lists, the run card,
        the workflow's outline): the loop's own item word when its workflow declares one (a `forEach` loop's
        `itemVar`: "slice", "area"), else "round" (friction26b 4: "area 1 of 2" in one place, "rounds" in
        another)."""
        return self._noun or "round"

    def loop_words(self, *, total: bool = True, item: bool = True) -> str:
        """Its place in its loop: "round 2 of 3", "area 2 of 2: api" (the item a `forEach` loop is on, when its
        step's title does not say it); "round 5" when the loop's length is open; "" off a loop. No "part 2 of
        2" (friction60a 4, 60b 2: "round" and "part" needed the glossary): the step's title says which step of
        the round it is. `total`, `item`: False leaves the round's length or the item out (a graph card's short
        form)."""
        if self.round is None:
            return ""
        said = f"{self.unit} {self.round}"
        if total and self._rounds:
            said += f" of {self._rounds}"
        return f"{said}: {self._item}" if item and self._item else said

    @property
    def brief(self) -> str:
        """The one locator, after the step's name on every view (list rows, headings, chips, branch lines, the run
        card, the timeline, the step's page, graph cards: `short`): the loop's entry in the outline, lettered by
        the step's place in the loop's body when the body holds more than one step, then in brackets its place in
        the loop: "step 4a of 8 (area 1 of 2)", "step 2b of 3 (round 2 of 3)", "step 2 of 3 (round 2 of 3)" for a
        body of one step. One format everywhere, made here alone (friction60a 4, 60b 2; friction61a 6, 61b 1: two
        steps of one round both read "step 2 of 3 (round 1 of 3)"). The loop's name waits in `words`."""
        return self._said(self.step_words, self.loop_words())

    @property
    def letter(self) -> str:
        """The step's letter in its loop's body ("a" for the first, "b", ... "z", then "aa"); "" off a loop or in
        a body of one step, where the entry's number alone says which step it is."""
        if self.inner is None or self._parts < 2 or self.inner < 1:
            return ""
        index, said = self.inner, ""
        while index:
            index, rest = divmod(index - 1, 26)
            said = chr(ord("a") + rest) + said
        return said

    @property
    def entry(self) -> str:
        """The loop's entry in the outline without the step's letter ("step 2 of 3"): for a span of its body's
        steps (a graph's collapsed stretch)."""
        return f"step {self.position} of {self.length}"

    @staticmethod
    def _said(step: str, loop: str) -> str:
        return f"{step} ({loop})" if loop else step

    @property
    def step_words(self) -> str:
        """Its step alone, lettered in a loop's body of several steps: "step 2b of 3"."""
        return f"step {self.position}{self.letter} of {self.length}"

    def short(self, limit: int = 0) -> str:
        """The locator within `limit` characters (a graph card's step line): `brief` whole when it fits; else the
        same words with the item, then the round's total left out: "step 2 of 3 (round 149)". The step keeps its
        total (friction61a 6, 61b 1: "step 2 (round 149 of 150)" beside "step 3 of 3" read as another notation).
        When none fits, the step's place alone ("step 2b of 3"). Never the round without its step (friction60a 4);
        the tooltip says it whole."""
        said = self.brief
        if not limit or len(said) <= limit or self.round is None:
            return said
        step = self.step_words
        shorter = [
            self._said(step, self.loop_words(item=False)),
            self._said(step, self.loop_words(total=False, item=False)),
        ]
        return next((w for w in shorter if len(w) <= limit), step)

    def rounds_words(self, last: int) -> str:
        """A span of rounds of this place's loop, from its round to `last`, in the round's format: "rounds 5-149 of
        150", "rounds 5-149" when the loop's length is open; "" off a loop."""
        if self.round is None:
            return ""
        span = f"{plural(self.unit)} {self.round}-{last}"
        return f"{span} of {self._rounds}" if self._rounds else span

    @property
    def words(self) -> str:
        """In full, the locator (`brief`) then the loop named as its workflow names it: "step 2 of 3 (round 2 of 3)
        in “Verify each slice”" (tooltips, reports, the agent's message)."""
        said = self.brief
        return f"{said} in “{self._loop}”" if self.round is not None and self._loop else said


# What the person does about a replaced branch whose agent may still work, right after the pill that names it: the
# run card's (Whereabouts.also_after_pill) and that branch's step page's (step_state.StepState.also_after_pill), one
# include (_also.html), so the two pages say it alike (round 64: the step page said nothing).
STOP_ITS_AGENT = "tell its agent to stop"
STOP_THEIR_AGENTS = "tell their agents to stop"


class Whereabouts(Shape):
    """Where a session is, in a few words, and the run that is there (runs/readmodels/attention.py)."""

    place: PlaceName = Field(
        description="working (the agent is on a step), waiting_for_user (a step asks for the user's confirmation), "
        "blocked, stalled (in progress, quiet too long, not waiting for anyone), completed, canceled, notes (a "
        "session of checkpoints only)."
    )
    words: str = Field(
        description="The same in a few words: 'step 4 of 9, waiting for your confirmation', 'step 2 of 9, blocked: "
        "missing mr_review.changed_files artifact', 'step 3 of 9, stalled since 14:02 UTC', 'done'."
    )
    run_id: str | None = Field(description="The run in that state (null for a session without runs).")
    run_name: str = Field(description="Its workflow's name.")
    run_number: int = Field(description="Its place among the session's runs (1 for the first).")
    since: datetime | None = Field(description="Since when it is in that state, when known.")
    state: StateName = Field(
        default="running", description="The place in the dashboard's vocabulary (states.py), as its badge says it."
    )
    # Whose move it is (runs/readmodels/states.py: yours, agents, nobody), with the clock applied: the dashboard's
    # tag beside the badge. Kept off the wire: the API's `state` and `since` say the same to a program.
    _move: str = PrivateAttr(default="")
    # When `words` end with the moment `since` ("stalled since 14:02 UTC"): the words around it, for the
    # dashboard to print the moment as a <time> in the reader's own time zone. Kept off the wire too.
    _timed: Timed | None = PrivateAttr(default=None)
    # A blocked step that waits for something only the person can give (not an agent that stopped). Off the wire.
    _held_by_you: bool = PrivateAttr(default=False)
    # Where its step sits in full ("step 2 of 3, round 2 of 3, part 2 of 2 in “Verify each slice”") when `words`
    # say it short (StepPlace.brief): the row's tooltip. Off the wire.
    _place_words: str = PrivateAttr(default="")
    # A blocked step's words split for a list row (friction17b 17): its step, then its reason on a muted line of
    # its own ("the agent did not attach the list of changed files"); ("", "") otherwise. Off the wire.
    _reason: tuple[str, str] = PrivateAttr(default=("", ""))
    # The id of the run page's panel that says what to do ("blocked-2", "stalled-1"), "" when none. Off the wire.
    _panel: str = PrivateAttr(default="")
    # A blocked step the agent was to resend: what follows its reason in the list (when it becomes yours, or
    # why it is yours), the words around the moment, and the moment (attention._blocked_then). Off the wire.
    _then: tuple[str, Timed | None, datetime | None] = PrivateAttr(default=("", None, None))
    # A paused run: how it came here, around its moment ("imported " … " · no agent has it yet"), for the run
    # card's line (status_line). Off the wire.
    _came: Timed | None = PrivateAttr(default=None)
    # How many branches the run it names has (1 + its forks): what the sessions list counts beside that run's
    # name, not the session's total (friction27a 4: "run 2 of 2 · 4 branches" for a run of one). Off the wire.
    _branches: int = PrivateAttr(default=1)
    # The branch its step is on (its newest open branch), where the run has several; 0 else. Off the wire.
    _branch: int = PrivateAttr(default=0)
    # While the move is the agent's: what the person is to do all the same, "tell branch 1's agent to stop" (a
    # branch started by hand replaced one whose agent may still work: attention.stop_words), "" else. Off the wire.
    _also: str = PrivateAttr(default="")
    # The numbers of those replaced branches: the pill names them ("Your move · Branch 1 replaced", states.pill),
    # the run card says what to do after it without naming them again (also_after_pill). Off the wire.
    _replaced: tuple[int, ...] = PrivateAttr(default=())

    # A paused run: how it came here without an agent ("imported", "by_hand": paused.How), "" else. Off the wire.
    _paused_how: str = PrivateAttr(default="")
    # Where its step sits, short ("step 2 of 3": StepPlace.brief), "" when not known: the shown run's card in the
    # runs column says only this, since the run's own card beside it names the step in full (friction64). Off the wire.
    _brief: str = PrivateAttr(default="")

    @property
    def brief(self) -> str:
        return self._brief

    @property
    def paused_how(self) -> str:
        return self._paused_how

    @property
    def also(self) -> str:
        return self._also

    @property
    def replaced(self) -> tuple[int, ...]:
        return self._replaced

    @property
    def also_after_pill(self) -> str:
        """What to do about the replaced branches right after the pill that names them (friction63a 4, 63b 5: the
        branch said once): "tell its agent to stop", "tell their agents to stop"; "" for none."""
        if not self._replaced:
            return ""
        return STOP_ITS_AGENT if len(self._replaced) == 1 else STOP_THEIR_AGENTS

    @property
    def came(self) -> Timed | None:
        return self._came

    @property
    def branches(self) -> int:
        return self._branches

    @property
    def branch_words(self) -> str:
        """ "branch 2", after the step a row of a branched run names: which branch that step is on (friction62b 16:
        "(2 branches): Review storage · step 4 of 8" did not say); "" for a run of one branch."""
        return f"branch {self._branch}" if self._branch else ""

    @property
    def move(self) -> str:
        return self._move

    @property
    def panel(self) -> str:
        return self._panel

    @property
    def then_words(self) -> str:
        return self._then[0]

    @property
    def then_around(self) -> Timed | None:
        return self._then[1]

    @property
    def then_at(self) -> datetime | None:
        return self._then[2]

    @property
    def place_words(self) -> str:
        return self._place_words

    @property
    def reason_head(self) -> str:
        return self._reason[0]

    @property
    def reason(self) -> str:
        return self._reason[1]

    @property
    def held_by_you(self) -> bool:
        return self._held_by_you

    @property
    def timed(self) -> Timed | None:
        return self._timed


class AttentionPanel(Shape):
    """A state of a branch a person may have to act on, beside the blocked one (BlockedStep): what it is,
    since when, and what to do."""

    kind: PanelName
    state: StateName = Field(default="running", description="The panel's state, as its badge says it (states.py).")
    branch: int = Field(description="The branch's number (BranchOutcomeEntry.number).")
    title: str = Field(
        description="The verdict in one short line: 'Stalled since 14:02 UTC: resume the agent if it stopped', "
        "'Waiting for your confirmation since 14:02 UTC'."
    )
    for_you: str = Field(description="Why, in a few sentences: the details a person reads after the verdict.")
    step: StepPlace | None = Field(default=None, description="Where the branch's step sits in the outline.")
    step_title: str = Field(default="", description="That step's title, as the agent was given it.")
    next_move: str = Field(
        default="", description="What to do, in one sentence: 'Copy a reply and paste it into the agent's chat.'"
    )
    since: datetime
    node_id: str | None = Field(description="The branch's latest node.")
    state_token: str | None = Field(
        default=None, description="The stateToken that resumes the agent at that node (stalled, left behind)."
    )
    sentence: str | None = Field(
        default=None, description="The exact sentence to give the agent to resume there (stalled, left behind)."
    )
    asks: str | None = Field(
        default=None,
        description="What the step asks the user to confirm: its prompt as the agent was given it (markdown).",
    )
    to_approve: str | None = Field(
        default=None,
        description=(
            "Waiting for the user: the agent's own latest notes on the branch (markdown), what it asks the user "
            "to approve; null when it recorded none."
        ),
    )
    to_approve_from: str | None = Field(
        default=None, description="The step (or 'Checkpoint') whose notes toApprove holds, as the agent saw it."
    )
    # When `title` holds the moment `since` ("Stalled since 14:02 UTC: resume the agent..."): the words before and
    # after it, for the dashboard to print the moment in the reader's own time zone. Kept off the wire.
    _timed: Timed | None = PrivateAttr(default=None)
    # The node the notes in `to_approve` led to (their step's or checkpoint's child), by id: the run page links
    # that step to them instead of showing them twice. Kept off the wire.
    _to_approve_node: str | None = PrivateAttr(default=None)
    # A step waiting for the user's confirmation: the two replies to paste into the agent's chat (confirmed, asking
    # for changes), the dashboard's copy buttons (agent_message.replies). Kept off the wire.
    # The latter in its three parts (before, blank, after): the page fills the blank with what the person types.
    _replies: tuple[str, tuple[str, str, str]] | None = PrivateAttr(default=None)
    # A branch left behind: what resuming it does, in short lines under `next_move`, each on its own line on the
    # page (attention.resuming_left_behind). Kept off the wire.
    _then: tuple[str, ...] = PrivateAttr(default=())
    # The message is for a new chat, as the panel's own line says (a branch left behind while another branch's
    # agent works, a paused run nobody has): no line naming the chat that started the run under its button
    # (friction27a 2). Kept off the wire.
    _new_chat: bool = PrivateAttr(default=False)

    @property
    def timed(self) -> Timed | None:
        return self._timed

    @property
    def new_chat(self) -> bool:
        return self._new_chat

    @property
    def then(self) -> tuple[str, ...]:
        return self._then

    @property
    def to_approve_node(self) -> str | None:
        return self._to_approve_node

    @property
    def reply_confirmed(self) -> str:
        return self._replies[0] if self._replies else ""

    @property
    def reply_changes(self) -> str:
        return "".join(self.reply_changes_parts)

    @property
    def reply_changes_parts(self) -> tuple[str, str, str]:
        return self._replies[1] if self._replies else ("", "", "")


class DiffSummary(Shape):
    files_changed: int
    insertions: int
    deletions: int


class RunCommits(Shape):
    """The commits a run started and ended on, and the change between them (runs/readmodels/commits.py)."""

    repository: str = Field(description="The session's repository (its root), as observed.")
    start_commit: str = Field(description="HEAD when the run started; '' when not seen.")
    end_commit: str = Field(
        description="HEAD when the run completed; while it is not complete, HEAD as last observed ('' if never)."
    )
    ended: bool = Field(description="Whether end_commit is where the run completed (else where it is so far).")
    change: DiffSummary | None = Field(description="git's count of the change between the two, when it could tell.")
    change_note: str = Field(description="Why no change is given, when none is ('' when it is).")


class SessionSummary(Shape):
    session_id: str
    title: str
    session_key: str | None
    status: SessionStatusName
    workflow_ids: list[str]
    run_count: int
    branch_count: int
    git_branch: str
    workspace_path: str
    created_at: datetime
    last_activity: datetime
    status_summary: str | None = Field(
        default=None,
        description="The status in words, branch by branch, when a run of the session forked (the status alone "
        "would hide a finished branch behind an open one), the newest branch first: 'Branch 2 open at step 4 "
        "(newest, where the agent works) · branch 1 finished earlier: Request changes'. Null when no run forked: "
        "`status` says it all. The session page gives it for every session.",
    )
    owner: str = Field(
        default="",
        description="Who started it: the API token's owner, or the dashboard user; empty for a session made on "
        "this machine (its own agent, a command) or before owners were recorded. Anyone on the store may use those.",
    )
    where: Whereabouts | None = Field(
        default=None, description="Where it is in a few words, and which run is there (the sessions list gives it)."
    )
    state: StateName = Field(
        default="running",
        description="The dashboard's word for it: the state of its most urgent run (needs_you, blocked, stalled, "
        "running, then done, canceled), as its badge shows it.",
    )

    @property
    def branched(self) -> bool:
        """Whether a run of it branched: each run starts as one branch, so only more branches than runs say
        anything (the sessions list counts branches only then: friction19b 13, "1" on almost every row)."""
        return self.branch_count > self.run_count


class SessionGroupHeading(Shape):
    """Where a group of the current page starts, when the list is grouped by branch or workspace."""

    label: str
    first_index: int
    count: int
    workspace_path: str = Field(
        default="", description="The group's repository (its root), '' for sessions observed outside git."
    )
    repository_name: str = Field(
        default="", description="The repository's directory name (the last part of workspacePath), '' outside git."
    )
    git_branch: str | None = Field(
        default=None,
        description="The group's branch when grouped by branch ('' when none was observed); a branch's group is "
        "within one repository: 'main' of two repositories is two groups.",
    )


class SessionPage(Shape):
    items: list[SessionSummary]
    total: int = Field(description="Sessions matching the filters, across all pages.")
    page: int
    pages: int
    per_page: int
    query: str
    status: SessionStatusName | None
    sort: SessionSort
    group: SessionGroup
    groups: list[SessionGroupHeading]
    status_counts: dict[str, int] = Field(description="Sessions per status among those matching the search.")
    state: StateName | None = Field(default=None, description="Only sessions in this state (states.py).")
    state_counts: dict[str, int] = Field(
        default_factory=dict,
        description="Sessions per state among those matching the search, most urgent first: the list's chips.",
    )
    has_owners: bool = Field(
        default=False, description="Whether any session on the store has an owner (a team's shared store)."
    )
    # Sessions whose move is yours among those matching the search (states.move, clock applied): the
    # dashboard's "Your move" filter. Kept off the wire, as Whereabouts' move is.
    _yours: int = PrivateAttr(default=0)

    @property
    def yours(self) -> int:
        return self._yours


class RunSummary(Shape):
    run_id: str
    session_id: str
    workflow_id: str
    workflow_name: str
    workflow_hash: str
    status: RunStatusName
    node_count: int
    branch_count: int
    delegated_by: str | None = Field(description="The run that handed this one out (a parallel step), if any.")
    created_at: datetime
    updated_at: datetime
    status_summary: str | None = Field(
        default=None,
        description="The status in words, telling finished branches from open ones, the newest branch (where "
        "the agent works) first: 'Branch 2 open at step 4 (newest, where the agent works) · branch 1 finished "
        "earlier: Request changes'; one branch: 'open at step 4: Review api', 'blocked at step 2 (...) since ...'. "
        "`status` keeps its values (it follows the run's latest answer); only these words changed.",
    )
    state: StateName = Field(
        default="running",
        description="The dashboard's word for it: needs_you when its step waits for the user's confirmation, "
        "else its shown status in the dashboard's vocabulary (running, blocked, stalled, done, canceled).",
    )
    # Which of a person's agent chats it belongs to, from its row (Run.client_name, Run.imported_at): the MCP
    # client that started it, by its declared name, and when its session was imported here if it started before
    # (agent_message.chat). Kept off the wire.
    _client_name: str = PrivateAttr(default="")
    _imported_at: datetime | None = PrivateAttr(default=None)

    @property
    def branched(self) -> bool:
        """Whether it has a second branch: only then do its pages name the shown one ("Summary of branch 1"); a
        run that never forked says "Summary" (friction63a 11, 63b 4)."""
        return self.branch_count > 1

    @property
    def client_name(self) -> str:
        return self._client_name

    @property
    def imported_at(self) -> datetime | None:
        return self._imported_at


class CheckpointEntry(Shape):
    run_id: str | None
    node_id: str | None
    step_id: str | None
    notes_markdown: str
    artifacts: list[JsonObject]
    created_at: datetime
    step_title: str | None = Field(default=None, description="The step it was made at, as the agent saw its title.")
    workflow_name: str | None = Field(default=None, description="The name of its run's workflow.")


class TimelineLane(Shape):
    run_id: str
    label: str
    points: list[float] = Field(description="When each node was created, as a fraction of the session's span.")
    first_at: datetime | None = Field(default=None, description="When the run's first node was created.")
    last_at: datetime | None = Field(default=None, description="When the run's newest node was created.")


class SessionDetail(Shape):
    session: SessionSummary
    preferences: dict[str, str]
    mode: str
    runs: list[RunSummary]
    checkpoints: list[CheckpointEntry]
    timeline: list[TimelineLane]
    last_seq: int
    people: list[str] = Field(
        default_factory=list,
        description="Everyone who did something in the session (API token owners, dashboard users), in the order "
        "they first did; empty when all of it was done on this machine.",
    )
    mode_applies: bool = Field(
        default=True,
        description="Whether a change of mode would reach any run: false once every run completed or was canceled.",
    )
    run_lines: list[Whereabouts] = Field(
        default_factory=list,
        description="Where each of the session's own runs is, one short line each, oldest first: the page's head.",
    )


class GraphNode(Shape):
    node_id: str = Field(description="The node id as a string (64-bit: JavaScript cannot hold it as a number).")
    parent_id: str | None
    step_id: str | None
    title: str
    depth: int
    lane: int
    is_complete: bool
    is_tip: bool = Field(description="The newest node: where the run most recently stands.")
    is_leaf: bool
    via: Literal["start", "step", "checkpoint", "fork"] = Field(
        description="What made the node: the run's start, a step taken, a checkpoint, or an operator fork (a "
        "branch a developer started by hand)."
    )
    step_number: int = Field(
        description="The step of the workflow the node stands at, counted along its path: step N is the Nth "
        "step taken there (a checkpoint or an operator fork keeps its parent's number; a completed node is one "
        "past the last step)."
    )
    is_blocked: bool = Field(
        default=False, description="The tip of a blocked branch: the answer to its step was refused."
    )
    created_at: datetime
    iteration: int | None = Field(
        default=None, description="The iteration (1 for the first) of the innermost loop the node's pending step is in."
    )
    loop_title: str = Field(default="", description="That loop's title; empty outside a loop.")
    place: StepPlace | None = Field(
        default=None, description="Where its pending step sits in the outline ('step 2 of 3, round 2'); null at an end."
    )


class GraphEdge(Shape):
    source: str
    target: str


class RunGraph(Shape):
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    lanes: int
    depth: int
    tip: str | None


class ChangedFile(Shape):
    path: str
    summary: str
    risk: str


class Finding(Shape):
    severity: Literal["critical", "major", "minor", "nit"]
    title: str
    location: str
    rationale: str
    suggestion: str
    comment: str = Field(
        description="The review comment the agent wrote for this finding (its mrComments entry at the same "
        "location), as written; empty when it wrote none."
    )


class ArtifactField(Shape):
    """One field of an artifact as a reader sees it: its name in words and its value as text, a list, or
    (nested deeper than words can say) JSON."""

    label: str = Field(description="The field's name in words: keyDecisions -> 'Key decisions'.")
    text: str = Field(default="", description="A single value; empty for a list.")
    items: list[str] = Field(default_factory=list, description="A list's entries, each in words.")
    json_text: str = Field(default="", description="A value nested too deep for words, as JSON.")
    empty: bool = Field(default=False, description="The agent recorded the field with nothing in it.")
    # A field that points to a section of the run page (a hand-off's files: "2 files, listed under " then "2
    # changed files", the changed-files section's own heading, friction24b 18): the words before the link and the
    # link's words, `text` being the two together. Off the wire.
    _link: tuple[str, str] = PrivateAttr(default=("", ""))

    @property
    def link(self) -> tuple[str, str]:
        return self._link


class ArtifactEntry(Shape):
    kind: str
    step_id: str | None
    data: JsonObject  # the artifact as the agent recorded it
    title: str = Field(default="", description="What the artifact is, in words: 'Coding hand-off'.")
    fields: list[ArtifactField] = Field(
        default_factory=list, description="The artifact's fields besides its kind, in the order recorded."
    )


class ArtifactTables(Shape):
    changed_files: list[ChangedFile]
    findings: list[Finding]
    others: list[ArtifactEntry]
    files_have_summary: bool = Field(default=False, description="Some changed file has a summary.")
    files_have_risk: bool = Field(default=False, description="Some changed file has a risk level.")

    # The dashboard shows a coding hand-off as its own section, apart from the other artifacts.
    @property
    def handoffs(self) -> list[ArtifactEntry]:
        return [entry for entry in self.others if entry.kind == HANDOFF_KIND]

    @property
    def not_handoffs(self) -> list[ArtifactEntry]:
        return [entry for entry in self.others if entry.kind != HANDOFF_KIND]


class BlockedIssue(Shape):
    """One problem the refusal named, as the agent was told it."""

    code: str
    message: str
    for_people: str = Field(
        default="",
        description="The message as a developer reads it: without the pointers into the agent's own answer "
        "(pending.outputContract), since the page shows the expected artifact itself.",
    )
    pointer: str | None = Field(description="A JSON pointer into the continue_workflow arguments to fix.")
    reason: str | None


class RefusedAnswer(Shape):
    """What the agent sent in the refused call, in short (kept with the refusal)."""

    notes_preview: str = Field(description="The start of its notes (empty when it sent none).")
    artifact_kinds: list[str]
    artifact_count: int
    context_keys: list[str] = Field(description="The context keys it sent (not applied: the step was refused).")


class ExpectedArtifact(Shape):
    """The artifact the refused step's contract asks for, as the agent was given it."""

    kind: str
    contract_ref: str
    required_fields: list[str] = Field(description="Its required fields besides kind: 'changedFiles (a list; ...)'.")
    example: str | None = Field(description="The contract's example as JSON text: an illustration, invented.")


class ResendItem(Shape):
    """One part of the call to resend, and why it is there."""

    part: str = Field(description="'output.notesMarkdown', 'output.artifacts (mr_review.changed_files)', 'context.x'.")
    listed: bool = Field(description="Whether an issue of the refusal names it (the issues say why).")
    why: str


class BlockedStep(Shape):
    """Why a branch is blocked: the refused answer that holds it (runs/readmodels/blocked.py)."""

    node_id: str = Field(description="The node whose step was refused.")
    step_id: str
    step_title: str
    since: datetime = Field(description="The oldest refusal that still stands at this step.")
    last_refused_at: datetime
    refusals: int = Field(description="How many answers were refused here since the last step taken.")
    reason: str = Field(description="The first issue in a sentence.")
    issues: list[BlockedIssue] = Field(description="The newest refusal's issues (at most 20; see issueCount).")
    issue_count: int
    resend: list[str] = Field(
        description="The parts of continue_workflow the agent must send again (with the same stateToken and the "
        "fresh ackToken the refusal gave): 'output.artifacts (mr_review.changed_files)', 'context: reviewAreas'."
    )
    retry: str = Field(description="What the refusal told the agent to do.")
    whose_move: Literal["agent", "user", "delegations"] = Field(
        default="agent",
        description="Who must act for the step to go on: the agent (its answer fell short), the user "
        "(something only they can give), or the delegated runs (a parallel step waits for them).",
    )
    verdict: str = Field(
        default="",
        description="The panel's first line, in one sentence: whose move it is and what it takes ('Refused: "
        "the agent must resend Review the diff (step 2) with a ... artifact.').",
    )
    for_you: str = Field(
        default="",
        description="The developer's first line: whether to act, and what the agent must resend: 'Nothing for "
        "you to do unless the agent has stopped: it must resend Review the diff (step 2) with a ... artifact. ...'",
    )
    call: str | None = Field(
        default=None,
        description="The exact call to give a stuck agent, as JSON text: the refusal's nextCall, with the same "
        "stateToken and the fresh ackToken the refusal gave (the agent fills in each '<fill in ...>').",
    )
    sent: RefusedAnswer | None = Field(
        default=None, description="What the refused call sent; null when it was not kept (recorded before it was)."
    )
    expected_artifact: ExpectedArtifact | None = Field(
        default=None, description="When the refusal is about the step's artifact: the shape its contract asks for."
    )
    resend_items: list[ResendItem] = Field(default_factory=list, description="Each part of the call, and why.")


class BranchOutcomeEntry(Shape):
    """How one branch of a run ended, or where it stands (runs/readmodels/outcomes.py)."""

    number: int = Field(description="Branch 1 is the run's first; then in the graph's lane order.")
    status: BranchStatusName
    tip_node_id: str = Field(description="The branch's latest node: `?tip=` on the run page shows the branch.")
    is_newest: bool = Field(description="Its tip is the run's newest node.")
    awaiting_agent: bool = Field(
        default=False,
        description="The newest branch was started by hand and no agent has answered on it yet: nobody works "
        "there until someone gives an agent its continue_workflow call.",
    )
    left_behind: bool = Field(
        default=False,
        description="Unfinished and not the newest, and no agent works on it any more: the agent rewound, or a "
        "branch started by hand replaced it and nothing was recorded on it for WORKRAIL_STALL_MINUTES since (until "
        "then its `state` is superseded: its agent may still be working).",
    )
    state: StateName = Field(
        default="running",
        description="Its badge in the dashboard's vocabulary: done, canceled, superseded, left_behind, blocked; the "
        "newest open branch takes the run's state (running, needs_you, paused, stalled).",
    )
    verdict: str | None = Field(
        description="A completed branch's verdict: from a standing artifact's verdict, else a 'Verdict:' line of "
        "its notes; null when it has none."
    )
    verdict_source: str | None
    findings: dict[str, int] = Field(description="A completed branch's standing findings, by severity.")
    step_number: int | None = Field(description="An unfinished branch's pending step: its number on the branch.")
    step_id: str | None
    step_title: str | None
    at: datetime = Field(description="When it completed, was blocked (since), or last moved.")
    headline: str = Field(description="The same in one sentence: 'Branch 1 completed: Request changes, ...'.")
    blocked: BlockedStep | None
    line: str = Field(
        default="",
        description="The dashboard's line for it beside its state's badge: 'Branch 2 · step 4 of 9 (Review api)', "
        "'Branch 1 · Request changes, 1 critical finding' (set by the dashboard's pages only).",
    )
    # Its step's place in full where `line` says it short (step_places.full_words): the line's tooltip. Off the wire.
    _place_words: str = PrivateAttr(default="")
    # Its pending step as the dashboard names it ("Prepare · step 1 of 5", step_places.named); "" when finished.
    _step_named: str = PrivateAttr(default="")

    @property
    def place_words(self) -> str:
        return self._place_words

    @property
    def step_named(self) -> str:
        return self._step_named


class OtherAnswer(Shape):
    """Another branch's answer to the same step at the same node (the agent rewound and answered again)."""

    branch: int = Field(description="The branch whose path took that answer.")
    notes_preview: str = Field(description="The first line of its notes.")
    recorded_at: datetime
    earlier: bool = Field(description="Whether it was answered before this one.")
    # The public id of that branch's tip, for a link to it on the run page (run_view.step_entries). Off the wire.
    _tip: int = PrivateAttr(default=0)

    @property
    def tip(self) -> int:
        return self._tip


class StepEntry(Shape):
    node_id: str = Field(description="The node where the step was pending.")
    child_id: str | None = Field(description="The node the step's acknowledgement led to.")
    kind: Literal["step", "checkpoint"]
    step_id: str
    step_number: int = Field(
        description="The step of the workflow it was recorded at, counted along the path (a checkpoint is "
        "recorded at a step and does not move the count)."
    )
    title: str
    prompt: str
    notes_markdown: str
    artifacts: list[JsonObject]
    started_at: datetime
    recorded_at: datetime
    seconds: float
    place: StepPlace | None = Field(default=None, description="Where the step sits in the workflow's outline.")
    other_answers: list[OtherAnswer] = Field(
        default_factory=list,
        description="Other branches' answers to this step at the same node: the graph draws it once, but a branch "
        "that redid the step has its own answer.",
    )
    owner: str = Field(
        default="", description="Who recorded it: an API token's owner or a dashboard user; empty on this machine."
    )
    door: str = Field(default="", description="How it came: stdio, http (an agent over HTTP), api, dashboard, command.")
    by: str = Field(
        default="",
        description="The same in words: 'by alice's agent (over HTTP)', 'by bob (dashboard)'; empty "
        "for work of this machine's own agent.",
    )
    answers_note: str = Field(
        default="",
        description="The same in words: '↺ redone here; branch 1 had answered: ...'; empty when none.",
    )
    # The same, one (words, branch tip's public id) per other answer, for the run page's linked footnote line
    # (run_view._footnotes). Off the wire.
    _footnotes: list[tuple[str, int]] = PrivateAttr(default_factory=list)

    @property
    def footnotes(self) -> list[tuple[str, int]]:
        return self._footnotes


class GapEntry(Shape):
    node_id: str
    step_id: str
    reason: str
    description: str
    created_at: datetime


class WarningEntry(Shape):
    node_id: str | None
    code: str
    message: str
    created_at: datetime


class RunDetail(Shape):
    run: RunSummary
    graph: RunGraph
    branch_tip: str | None = Field(description="The leaf whose path the steps show.")
    steps: list[StepEntry]
    tables: ArtifactTables
    gaps: list[GapEntry]
    warnings: list[WarningEntry]
    synthesis: JsonObject | None  # published as an open object: the synthesis recorded when the run completed
    delegations: list[RunSummary]
    pending_step_id: str | None
    pending_title: str | None
    where: Whereabouts | None = Field(
        default=None,
        description="Where the run is, in the dashboard's words: its page's head ('step 4 of 9, running').",
    )
    pending_is_live: bool = Field(
        default=False,
        description="Someone's move is pending at the shown tip: false on a canceled run and on a branch left "
        "behind, whose pending step nobody works on (their panels say so).",
    )
    operator_forks: list[OperatorForkNote] = Field(
        default_factory=list, description="The branches a developer started by hand on the shown branch's path."
    )
    canceled_by: str = Field(
        default="", description="Who canceled the run, in words ('by bob (dashboard)'); empty if not said."
    )
    branch: BranchOutcomeEntry | None = Field(
        default=None, description="The shown branch (the one ending at branchTip): its status, and why if blocked."
    )
    other_branches: list[BranchOutcomeEntry] = Field(
        default_factory=list, description="Every other branch of the run: how it ended or where it stands."
    )
    pending_needs_user: bool = Field(
        default=False, description="The pending step waits for the user's confirmation (not for the agent)."
    )
    panels: list[AttentionPanel] = Field(
        default_factory=list,
        description="The states a person may have to act on: the shown branch's (stalled, waiting for the user, "
        "canceled, left behind), then each other branch left behind. A blocked branch has `branch.blocked`.",
    )
    commits: RunCommits | None = Field(
        default=None, description="Where in git the run started and ended; null when no commit was seen."
    )
    place: StepPlace | None = Field(
        default=None, description="Where the shown branch's pending step sits in the outline; null at its end."
    )


class NodeRef(Shape):
    """A node as a page names it: the step pending there ("step 2 · Deploy to staging"), its id aside."""

    node_id: str
    step_number: int | None = Field(description="Its pending step's number on its branch; null at a branch's end.")
    title: str = Field(description="Its pending step's title as the agent saw it; 'Complete' at a branch's end.")
    place: StepPlace | None = Field(default=None, description="Where that step sits in the outline.")


class BranchEntry(Shape):
    node_id: str
    state_token: str
    via: Literal["step", "checkpoint", "fork"] = Field(description="fork: a developer started it by hand.")
    step_id: str | None
    notes_preview: str
    is_complete: bool
    pending_step_id: str | None
    created_at: datetime
    step_number: int | None = Field(default=None, description="The child's pending step's number on its branch.")
    title: str = Field(default="", description="The child's pending step's title; 'Complete' at a branch's end.")
    place: StepPlace | None = Field(default=None, description="Where that step sits in the outline.")
    by: str = Field(default="", description="Who made it, in words ('by bob (dashboard)'); empty on this machine.")
    branch: int | None = Field(default=None, description="The branch the child is on, as the run's graph numbers it.")
    verdict: str | None = Field(
        default=None, description="The verdict the answer gave (its artifacts', else a 'Verdict:' line of its notes)."
    )
    answer_start: str = Field(
        default="",
        description="The answer's first words, when other answers to the same step sit beside it (the agent "
        "rewound and answered again): what tells them apart besides their time and author.",
    )


class NodeDetail(Shape):
    node_id: str
    run: RunSummary
    session_name: str = Field(description="The session as people name it: its key, else its title, else its id.")
    parent_id: str | None
    parent: NodeRef | None = Field(default=None, description="The node before this one on its branch.")
    depth: int
    step_number: int | None = Field(
        default=None,
        description="The pending step's number on this node's branch (steps acknowledged on the way here, plus "
        "one; a checkpoint or a branch started by hand redoes the same step); null once complete.",
    )
    steps_taken: int = Field(default=0, description="How many steps were acknowledged on the way to this node.")
    place: StepPlace | None = Field(
        default=None, description="Where the pending step sits in the outline: 'step 3 of 7, round 2'."
    )
    made_by: Literal["start", "step", "checkpoint", "fork"] = Field(
        default="step",
        description="What made this node: the run's start, a step the agent acknowledged, a checkpoint (the same "
        "step), or a developer's fork (a branch started by hand at the same step).",
    )
    step_id: str | None
    title: str
    prompt: str
    is_complete: bool
    preferences: dict[str, str]
    created_at: datetime
    state_token: str = Field(description="Pass to continue_workflow to resume (or fork) from this node.")
    by: str = Field(
        default="", description="Who made this node, in words ('by alice's agent (over HTTP)'); empty on this machine."
    )
    recorded: list[StepEntry] = Field(description="Notes and artifacts recorded on this node.")
    recap: JsonObject = Field(description="The notes on the path to this node, as a rehydrating agent reads them.")
    branches: list[BranchEntry]
    context: JsonObject = Field(default_factory=dict, description="The run's context at this node.")
    operator_fork: OperatorForkNote | None = Field(
        default=None, description="When a developer started this node's branch here by hand: from where, and why."
    )
    on_branch: BranchOutcomeEntry | None = Field(
        default=None, description="The branch of the run this node is on (the graph's lane): how it stands."
    )
    on_branches: list[BranchOutcomeEntry] = Field(
        default_factory=list,
        description="Every branch whose path passes through this node (a node before a fork is on several).",
    )
    on_branches_words: str = Field(
        default="", description="The same in words: 'On branches 1 and 2 (branch 2 branched here)', 'On branch 1'."
    )
    other_branches: list[BranchOutcomeEntry] = Field(
        default_factory=list, description="The run's branches that do not pass through this node."
    )
    blocked: BlockedStep | None = Field(
        default=None, description="When this node's step is the one refused: why, what to resend, since when."
    )

    @property
    def work_goes_on_elsewhere(self) -> bool:
        """Its branch is left behind or replaced: the run's other branches are where the work goes on, so a phone
        shows their list open rather than folded to its count (_branches.html, friction28b 11)."""
        mine = self.on_branch
        return mine is not None and bool(self.other_branches) and (mine.left_behind or mine.state == "superseded")


class EventEntry(Shape):
    seq: int
    kind: str
    data: JsonObject  # the event's payload as stored in the log
    created_at: datetime
    actor: str = Field(
        default="", description="Who made it: an API token's owner or a dashboard user; empty on this machine."
    )
    door: str = Field(
        default="", description="How it came: stdio, http, api, dashboard, command; empty before doors were recorded."
    )


class EventPage(Shape):
    session_id: str
    items: list[EventEntry]
    next_after: int | None = Field(description="Pass as `after` for the next page; null on the last page.")


class ToolCallEntry(Shape):
    tool: str
    outcome: str
    duration_ms: float
    started_at: datetime


class ToolStats(Shape):
    tool: str
    calls: int
    errors: int = Field(description="Calls that failed inside the server: INTERNAL_ERROR, or no error code.")
    refused: int = Field(
        description="Calls answered with any other error code, which told the agent why (a bad workflow id, a stale "
        "token, a run that ended: RUN_CANCELED, NODE_COMPLETE): not the server's failures."
    )
    p50_ms: float
    p95_ms: float
    max_ms: float


class ToolTimings(Shape):
    recent: list[ToolCallEntry]
    stats: list[ToolStats]
    kept: int = Field(description="How many recent calls the store keeps (WORKRAIL_TOOL_TIMINGS_KEPT).")


class PreferencesChange(Shape):
    """A change of mode or preferences from the dashboard or the API (the same closed set as the tools)."""

    mode: ModeName | None = None
    preferences: Preferences | None = None


class PreferencesChangeResult(Shape):
    session_id: str
    preferences: dict[str, str]
    mode: str
    runs_changed: list[str] = Field(description="Runs whose open tips take the new preferences at their next step.")


class CancelResult(Shape):
    run_id: str
    status: RunStatusName

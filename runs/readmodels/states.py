"""The dashboard's one vocabulary of states: every badge, chip, where-line, panel and header names a
state with these words, and only these (docs/dashboard.md lists them).

The stored statuses (in_progress, blocked, complete, canceled), the clock's "stalled", a step that waits
for the user's confirmation, a run no agent holds and a branch set aside all map here, so a person learns
these words once:

- Working: the agent's move, and it moved recently;
- Confirm: the step waits for your confirmation;
- Refused (state blocked): the agent's answer was refused, it must send another. Its pill says the stage, not
  "Refused" again (friction28a 2; friction62a 1, 62b 5: three-part pills): "Retrying" while the agent is expected
  to resend (its move), "Agent stopped" once it has gone quiet (the person's); the where-line and panel say
  it was refused and why. A step that waits for something only the person gives is another situation under the
  same stored state: its pill reads "Needs your input" (friction26a 4: one word over two situations left the row
  to guess which);
- No agent yet (state paused): no agent has touched the run since it came here (imported, or its branch started
  by hand: paused.py): resume the agent (actions.py); friction62a 1: "Paused" read as if someone paused it;
- Stalled: the agent was working, but nothing was recorded for WORKRAIL_STALL_MINUTES: resume it;
- Replaced (state superseded): a branch set aside for a newer one while its agent may still be working on it
  (something was recorded there within WORKRAIL_STALL_MINUTES: clock.py; friction19b 2: a branch called left
  behind the moment a person branched, while the form had just warned an agent works there). The person's move
  (friction22a B9: "Agent's move · Superseded" right after the person took over read wrong; friction23a A1,
  23b 2: filed under "Nothing to do", its own line asked the person to act): its line tells the person to stop
  that agent in its chat; it becomes Left behind, nobody's move, once quiet that long;
- Left behind: a branch no agent works on any more, quiet for WORKRAIL_STALL_MINUTES (it can be resumed by hand);
- Done: finished;
- Canceled: stopped for good by a person.

Each state also says whose move it is (MOVES: yours for confirm, paused, stalled and replaced, the agent's for working
and blocked, nobody's for done, canceled, left behind and notes only), kept as data for the API and the pills.
One case reads more than the state (move): a blocked step quiet for WORKRAIL_STALL_MINUTES (the agent has
stopped: restarting it is yours), or one that waits for something only the person gives.

Every row, run card, branch and page head shows ONE pill (pill): its colour is its tone (tone: whose move it is,
amber for yours, blue for the agent's, a grey outline for nobody's; friction19a 6: a routine "approve the plan" in red
read as alarming as a broken run; friction65b 2: a stopped agent's red beside Stalled's amber), and its words ALWAYS
lead with whose move when it is someone's ("Your move · Confirm", "Your move · Stalled", "Agent's move · Working",
"Agent's move · Retrying"; two parts at most, friction62a 1), the state alone when it is nobody's ("Done", "Left
behind"): the pills of one move read as one thing, as the filters name it (friction16a 8: "Needs you" beside "Your
move · …" read as two schemes). The move itself ("resume the agent") is said by the row's where-line and the state's
panel, never inside the pill (friction14 1: four rounds of two-part chips read as two things).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from django.conf import settings

from runs.contract.dashboard import PlaceName, StateName
from runs.readmodels import actions, listing

LABELS: dict[StateName, str] = {
    "needs_you": "Confirm",
    "blocked": "Refused",
    "paused": "No agent yet",  # friction62a 1: "Paused" read as if someone paused it; nobody had it yet
    "stalled": "Stalled",
    "running": "Working",
    "superseded": "Replaced",
    "left_behind": "Left behind",
    "done": "Done",
    "canceled": "Canceled",
    "notes": "Notes only",
}
# Most urgent first: a session shows the state of its most urgent run, and the chips come in this order.
ORDER: tuple[StateName, ...] = get_args(StateName)
# The states in which nobody has anything left to do: the sessions list dims their rows.
SETTLED: frozenset[StateName] = frozenset({"left_behind", "done", "canceled"})
# The states of a run that is over for good: a session whose runs all are has nothing left to update live.
FINISHED: frozenset[StateName] = frozenset({"done", "canceled"})
# Where the sessions list puts a session within its group, most urgent first (then by last activity): each
# state to act on in ORDER's place, and from the first settled state on one shared place, so that finished,
# canceled and notes-only sessions come after the others by activity alone. One place, RETRYING, sits just
# before running's: a blocked step the agent is still resending (urgency), so it is never above one of yours
# nor below a running session, whatever their activity (friction15b 4: it moved between screens).
_QUIET_FROM = min(ORDER.index(state) for state in SETTLED)
RETRYING = ORDER.index("running")
URGENCY: dict[StateName, int] = {
    state: ORDER.index(state) if ORDER.index(state) < RETRYING else min(ORDER.index(state), _QUIET_FROM) + 1
    for state in ORDER
}

Move = Literal["yours", "agents", "nobody"]
MOVES: dict[StateName, Move] = {
    "needs_you": "yours",
    "blocked": "agents",
    "paused": "yours",
    "stalled": "yours",
    "running": "agents",
    "superseded": "yours",
    "left_behind": "nobody",
    "done": "nobody",
    "canceled": "nobody",
    "notes": "nobody",
}
# A refused step while the agent is expected to resend it, one plain word after whose move (friction62a 1, 62b 5:
# "Refused · to resend" was three parts and read as a to-do for the person); its meaning and where-line say the
# answer was refused and why, and its countdown says what is known, "if no corrected answer comes", never a
# doubt of the pill (friction61b 3: "retrying" beside "if the agent does not retry").
RETRYING_WORD = "Retrying"

NEXT_MOVE_WORDS: dict[Move, str] = {"yours": "Your move", "agents": "Agent's move"}
YOUR_MOVE = NEXT_MOVE_WORDS["yours"]

# The colour family a state is drawn in, the one table every pill, panel, dot, chip and step banner reads (data-tone,
# dashboard.css): whose move it is, and nothing else. Every move of yours is the one calm amber, the filter chip's
# "Your move" dot too: a refused step whose agent stopped, or that waits for what only you give, asks what Stalled
# asks (give the agent its message, or your input), and its red read as worse while the "Your move" chip counting it
# was amber (friction65b 2). That it was refused is said by its "!" mark (the progress strip's and the timeline's),
# its words and its panel, not a colour of its own; routine moves stay apart from an alarm (friction19a 6: a plan to
# approve in red read as alarming as a broken run), as no state of yours is drawn as one.
Tone = Move


def tone(state: str, move: Move) -> Tone:
    """The colour family of a state whose move is `move`: whose move it is (Tone)."""
    return move


@dataclass(frozen=True)
class Pill:
    """A row's one status pill: its words, and whose move it is, which gives its colour (tone, dashboard.css:
    amber for yours, blue for the agent's, a grey outline for nobody's). The move itself ("resume the agent") is
    not in it: the row's where-line and the state's panel say it (friction14 1)."""

    state: StateName
    move: Move
    words: str
    means: str = ""  # its one-line meaning (MEANINGS): the pill's tooltip
    cause: Cause | None = None  # why a refused step is yours (CAUSES), said in its words

    @property
    def tone(self) -> Tone:
        """Its colour family (tone): whose move it is."""
        return tone(self.state, self.move)


# The states whose move is their own whatever the source said: the settled ones are nobody's, and a replaced
# branch is the person's even while its agent still records there (that agent is what the person is to stop).
FIXED_MOVE: frozenset[StateName] = frozenset(state for state, move in MOVES.items() if move == "nobody") | {
    "superseded"
}


# One step that is done was answered: the run's "Done" (finished) on a step's pill and in the Progress strip read as
# the run's end (round 64). A single step says "Answered", the timeline's word (timeline_marks.ANSWERED); runs and
# branches keep Done (and a finished branch's end, which is no step, its Complete).
STEP_DONE = "Answered"
STEP_DONE_MEANS = "The agent answered this step; its branch went on from it."


def step_word(state: str, move: Move) -> str:
    """A single step's state as one word: STEP_DONE for an answered one, else the state's word (word)."""
    return STEP_DONE if state == "done" else word(state, move)


def pill(
    state: str, move: Move, *, held_by_you: bool = False, branches: tuple[int, ...] = (), step: bool = False
) -> Pill:
    """The pill of a state whose move is `move` (states.move, or a where-line's): whose move first, then the
    state ("Your move · Confirm", "Agent's move · Working"); the state alone where nobody has a move ("Done").
    A refused step that is yours says its cause (cause: `held_by_you`, it waits for what only you give).
    `branches`: the branches the state is theirs, where the line under the pill is about another branch of the
    run (replaced_word: "Your move · Branch 1 replaced"). `step`: the pill of one answered step, not of a run or
    branch (STEP_DONE)."""
    name: StateName = state if state in LABELS else "running"
    if name in FIXED_MOVE:  # a settled state is nobody's move, a replaced branch the person's, whatever its source said
        move = MOVES[name]
    found = cause(name, move, held_by_you=held_by_you)
    if move == "nobody":
        if step and name == "done":
            return Pill(name, move, STEP_DONE, STEP_DONE_MEANS)
        return Pill(name, move, label(name), meaning(name, move))
    said = replaced_word(branches) if name == "superseded" and branches else word(name, move, found)
    return Pill(name, move, f"{NEXT_MOVE_WORDS[move]} · {said}", meaning(name, move, found), found)


def replaced_word(branches: tuple[int, ...]) -> str:
    """A run's pill over replaced branches whose agents may still work, while the line under it is about the
    branch at work: the state named with its branches, "Branch 1 replaced", "Branches 1 and 3 replaced"
    (friction63a 4, 63b 5: "Your move · Replaced" over "… · branch 2 · agent working" read as branch 2's)."""
    numbers = listing.joined([str(n) for n in branches])
    return f"Branch{'es' if len(branches) > 1 else ''} {numbers} {label('superseded').lower()}"


# Why a refused step (state blocked) is the person's move, the two situations one state covers (friction26a 4, 26b
# 10: each needs another act: paste a resume message, or give what the step waits for), each its pill's whole word
# after whose move and one line of the legend, from typed data (the step's held_by, the clock), never from its
# text. Waiting for the person's input is not a refusal to them: it has its own name, no "Refused" (friction28a 2).
Cause = Literal["stopped", "needs_input"]
# friction62a 1, 62b 5: "Refused · agent stopped" was three parts; the red and the line say it was refused.
CAUSES: dict[Cause, str] = {"stopped": "Agent stopped", "needs_input": "Needs your input"}


# A one-state filter's chip (an older link's ?status=stalled), named as its rows' pills are: whose move first, then
# the pill's word ("Your move · Stalled"; the state alone when it is nobody's, "Done"), not the state's family name
# (friction63a 2, 63b 4: a chip "Refused 1" over a row pilled "Agent's move · Retrying", and no pill says "Refused").
# A refused step's rows are of two moves (friction64: one chip "Retrying, Agent stopped or Needs your input" mixed the
# agent's move with yours, while the pills and the filters group by whose move): it has one chip per move, each its
# own ?status= value (SPLIT_FILTERS), worded as those rows' pills (FILTER_WORDS).
FILTER_WORDS: dict[tuple[StateName, Move], str] = {
    ("blocked", "agents"): RETRYING_WORD,
    ("blocked", "yours"): f"{CAUSES['stopped']} or {CAUSES['needs_input']}",
}
SPLIT_FILTERS: dict[str, tuple[StateName, Move]] = {
    "retrying": ("blocked", "agents"),
    "blocked-yours": ("blocked", "yours"),
}


def filter_words(state: StateName, move: Move | None = None) -> str:
    """The chip of the sessions list's filter by one state, given whose move its rows are (the state's usual one
    by default): the words of its rows' pills (FILTER_WORDS), whose move first."""
    move = move or MOVES[state]
    said = FILTER_WORDS.get((state, move), label(state))
    return f"{NEXT_MOVE_WORDS[move]} · {said}" if move in NEXT_MOVE_WORDS else said


def split_filters(state: StateName) -> dict[str, Move]:
    """A state's filters by move ({?status= value: move}), where its rows' pills lead with more than one move."""
    return {value: move for value, (name, move) in SPLIT_FILTERS.items() if name == state}


def cause(state: str, move: Move, *, held_by_you: bool = False) -> Cause | None:
    """Why a state is the person's move when the state alone does not say it: a refused step whose agent
    stopped resending, or that waits for something only the person gives (`held_by_you`); None otherwise."""
    if state != "blocked" or move != "yours":
        return None
    return "needs_input" if held_by_you else "stopped"


def word(state: str, move: Move, found: Cause | None = None) -> str:
    """A state's one word, given whose move it is: the label, or a refused step's stage in its place (RETRYING_WORD
    while the agent is expected to resend it); a cause (CAUSES) in its place when one is given ("Agent stopped",
    "Needs your input")."""
    if state == "blocked" and move == "agents":
        return RETRYING_WORD
    if found is not None:
        return CAUSES[found]
    return label(state)


# What the person does when the move is theirs and the row's where-line does not already say it ("waiting for
# something only you can give" does): the sessions list ends the line with it, a link to the run's panel, the
# one place a row tells the move, now that the pill says only whose it is (friction14 1). A confirmation's row
# links its panel too (friction25a 10: the commonest "your move" had the least direct path).
YOUR_ACTIONS: dict[StateName, actions.ActionName] = {
    "paused": "resume",
    "stalled": "resume",
    "blocked": "resume",
    "needs_you": "reply",
}


def your_action(state: str, move: str, *, held_by_you: bool = False) -> str:
    """The move a row's where-line ends with, as what its link gets the person ("get the resume message":
    actions.LINKS), "" where the move is not yours or the line says it already. A paused branch
    started by hand, which no agent has had, gets a resume's message and words too (friction62a 5)."""
    name = YOUR_ACTIONS.get(state)  # type: ignore[call-overload]
    if move != "yours" or name is None or held_by_you:
        return ""
    return actions.link(name)


_OF_STATUS: dict[str, StateName] = {
    "in_progress": "running",
    "stalled": "stalled",
    "paused": "paused",
    "blocked": "blocked",
    "complete": "done",
    "canceled": "canceled",
    "notes": "notes",
}
_OF_PLACE: dict[PlaceName, StateName] = {
    "working": "running",
    "waiting_for_user": "needs_you",
    "blocked": "blocked",
    "paused": "paused",
    "stalled": "stalled",
    "completed": "done",
    "canceled": "canceled",
    "notes": "notes",
}


def of_status(shown_status: str, waiting: bool = False, paused: bool = False) -> StateName:
    """A shown status (overview.shown_status: stored, or "stalled") as a state; an in-progress run whose
    step waits for the user's confirmation needs you; one no agent has touched since it came here
    (`paused`: paused.py) is paused, however long it has been quiet (nobody stalled: nobody had it)."""
    if waiting and shown_status == "in_progress":
        return "needs_you"
    if paused and shown_status in ("in_progress", "stalled"):
        return "paused"
    return _OF_STATUS.get(shown_status, "running")


def of_place(place: PlaceName) -> StateName:
    return _OF_PLACE[place]


def of_branch(status: str, left_behind: bool, run_state: StateName) -> StateName:
    """A branch's state: its own when it ended (done, canceled, blocked), left behind when set aside,
    else the run's (the newest open branch is where the run stands)."""
    if status == "complete":
        return "done"
    if status == "canceled":
        return "canceled"
    if left_behind:
        return "left_behind"
    if status == "blocked":
        return "blocked"
    return run_state


def label(state: str) -> str:
    return LABELS.get(state, state.replace("_", " ").capitalize())  # type: ignore[call-overload]


def move(state: str, *, stopped: bool = False) -> Move:
    """Whose move a state is. `stopped`: nothing was recorded for WORKRAIL_STALL_MINUTES, so a blocked step's
    agent has stopped and restarting it is yours."""
    found = MOVES.get(state, "nobody")  # type: ignore[call-overload]
    if found == "agents" and stopped and state == "blocked":
        return "yours"
    return found


# How loud the message that resumes the agent is, by whose move it is (actions.Weight, friction16): solid where
# resuming is the person's move, the quiet outline where it is not (a branch left behind, the agent at work).
WEIGHTS: dict[Move, actions.Weight] = {"yours": "primary", "nobody": "quiet", "agents": "quiet"}


def weight(move: Move) -> actions.Weight:
    return WEIGHTS[move]


def urgency(state: StateName, move: Move) -> int:
    """Where a row sorts in the sessions list, by the state and the move its pill shows (pill): the moves that
    are yours first (confirm, blocked once yours, paused, stalled), then a blocked step the agent is still
    resending (RETRYING: after every one that is yours, friction11 7, and always before the working ones,
    friction15b 4), then running, then the settled states; recency only orders the rows of one place. The
    list's SQL order (overview) reads this one rule."""
    if state == "blocked" and move == "agents":
        return RETRYING
    return URGENCY[state]


# The states that are always the person's move (MOVES): the sessions list counts each inside its "Your move"
# filter's tooltip, the one place the breakdown is said.
YOURS_ALWAYS: tuple[StateName, ...] = tuple(state for state in ORDER if MOVES[state] == "yours")
# The sessions list's filters by whose move, in its order, and what each gathers (its tooltip): the rows whose
# pill has that colour.
MOVE_FILTERS: dict[Move, str] = {"yours": YOUR_MOVE, "agents": NEXT_MOVE_WORDS["agents"], "nobody": "Nothing to do"}
# In the same words at every size (friction28a 14, 28b 17: a phone's "Yours 3 / Nothing 1" read unlike the
# desktop's); a phone's flatter chips wrap to a second line when they do not fit.
MOVE_FILTER_MEANS: dict[Move, str] = {
    "yours": "The sessions waiting for you: to confirm a step, to give a step your input, or to resume a"
    " paused, stalled or stopped agent",
    "agents": "The sessions whose agent is working, or resending a refused step",
    "nobody": "The sessions done, canceled or holding notes only",
}


@dataclass(frozen=True)
class Meaning:
    """One state's meaning in one line, as a person reads its pill (`word`: "Retrying" for a refused
    step the agent resends), under the filter that counts it (`move`)."""

    state: StateName
    move: Move
    text: str  # "{stall}" stands for WORKRAIL_STALL_MINUTES, the one threshold the states turn on
    cause: Cause | None = None  # a refused step's cause (CAUSES): one line each

    @property
    def word(self) -> str:
        return word(self.state, self.move, self.cause)

    @property
    def anchor(self) -> str:
        """Its id on the Words page, its pill's word ("/words/#agent-stopped", "/words/#left-behind")."""
        return self.word.lower().replace(" ", "-")

    @property
    def means(self) -> str:
        """The line as read: with the threshold's minutes, as the rows that count them say it ("stalled for 45
        min"), not "too long" or "stopped trying" (friction20b 6: the refused line never said when)."""
        return self.text.replace("{stall}", str(settings.WORKRAIL_STALL_MINUTES))


# "{stall} min or more" where a line sets a threshold: a pill beside it says how long it has been ("stalled for 45
# min"), which read as a contradiction of a bare "for 30 min" (friction61b 9).
# Every state's one line, the one table of them (friction18b 9, friction18a 11: nine words and no glossary): each
# pill's tooltip, the sessions list's "What the states mean" fold and the Words page's states (friction65b 16: the
# glossary defined some states again in other words, and left the others out), grouped by the filter that counts them.
MEANINGS: tuple[Meaning, ...] = (
    Meaning("needs_you", "yours", "The agent waits in its chat for you to confirm its step."),
    Meaning(
        "blocked",
        "yours",
        "The agent's answer was refused and it has not resent it for {stall} min or more: it has probably stopped."
        " Resume it.",
        "stopped",
    ),
    Meaning("blocked", "yours", "The step waits for something only you can give.", "needs_input"),
    Meaning("paused", "yours", "No agent has the run yet: it was imported, or a branch was started by hand."),
    Meaning(
        "stalled",
        "yours",
        "The agent went quiet mid-step: nothing was recorded for {stall} min or more, and no answer was refused. It"
        " may have stopped.",
    ),
    Meaning(
        "superseded",
        "yours",
        "A newer branch replaced this one, but its agent recorded something in the last {stall} min: it may still"
        " be working (quiet {stall} min, it reads Left behind). Tell it in its chat to stop.",
    ),
    Meaning("running", "agents", "The agent is on the step and recorded something in the last {stall} min."),
    Meaning(
        "blocked",
        "agents",
        "The agent's answer was refused. It was told what to fix and should resend it. If it has not after {stall}"
        " min, it becomes your move.",
    ),
    Meaning("left_behind", "nobody", "A branch no agent works on any more. The run goes on along another."),
    Meaning("done", "nobody", "Finished."),
    Meaning("canceled", "nobody", "Stopped for good by a person."),
    Meaning("notes", "nobody", "A session that holds notes only, no workflow run."),
)


def meaning(state: str, move: Move, found: Cause | None = None) -> str:
    """A state's one line (MEANINGS), by whose move it is where that changes it (a refused step), and by
    its cause (a refused step of yours: its agent stopped, or it needs your input)."""
    lines = [m for m in MEANINGS if m.state == state]
    mine = [m for m in lines if m.move == move]
    return next((m.means for m in mine if m.cause == found), mine[0].means if mine else lines[0].means if lines else "")


def glossary() -> list[tuple[str, list[Meaning]]]:
    """The states' legend, the sessions list's fold and the Words page's (dashboard/_state_meanings.html): each
    filter's words (MOVE_FILTERS), then the states it counts, in its order."""
    return [(words, [m for m in MEANINGS if m.move == move]) for move, words in MOVE_FILTERS.items()]

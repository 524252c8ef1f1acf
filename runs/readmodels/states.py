"""The dashboard's one vocabulary of states: every badge, chip, where-line, panel and header names a
state with these words, and only these (docs/dashboard.md lists them).

The stored statuses (in_progress, blocked, complete, canceled), the clock's "stalled", a step that waits
for the user's confirmation, a run no agent holds and a branch set aside all map here, so a person learns
eight words once:

- Running: the agent's move, and it moved recently;
- Needs you: the step waits for your confirmation;
- Blocked: the agent's answer was refused, it must send another;
- Paused: no agent has touched the run since it came here (imported, or its branch started by hand:
  paused.py): resume the agent (actions.py);
- Stalled: the agent's move, but nothing was recorded for WORKRAIL_STALL_MINUTES;
- Left behind: a branch no agent works on any more (it can be resumed by hand);
- Done: finished;
- Canceled: stopped for good by a person.

Each state also says whose move it is (MOVES: yours for needs you, paused and stalled, the agent's for running
and blocked, nobody's for done, canceled and left behind), kept as data for the API and the "Your move" chip.
One case reads more than the state (move): a blocked step quiet for WORKRAIL_STALL_MINUTES (the agent has
stopped: restarting it is yours). Every badge a person may act on has one short label beside it (next_move: the
one mapping every page reads) saying whose move it is and the move itself in one to three words ("Your move:
confirm", "Agent's move: resend the step"), so that it adds the action to its badge and never echoes or
contradicts it. Pages draw the badge and that label as ONE chip ("Blocked · agent's
move: resend the step", "Needs you · your move: confirm"): the state, then whose move and the move, in one
pattern for every state (NextMove.chip_words).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from runs.contract.dashboard import PlaceName, StateName
from runs.readmodels import actions

LABELS: dict[StateName, str] = {
    "needs_you": "Needs you",
    "blocked": "Blocked",
    "paused": "Paused",
    "stalled": "Stalled",
    "running": "Running",
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
# canceled and notes-only sessions come after the others by activity alone.
_QUIET_FROM = min(ORDER.index(state) for state in SETTLED)
URGENCY: dict[StateName, int] = {state: min(ORDER.index(state), _QUIET_FROM) for state in ORDER}

Move = Literal["yours", "agents", "nobody"]
MOVES: dict[StateName, Move] = {
    "needs_you": "yours",
    "blocked": "agents",
    "paused": "yours",
    "stalled": "yours",
    "running": "agents",
    "left_behind": "nobody",
    "done": "nobody",
    "canceled": "nobody",
    "notes": "nobody",
}
# Why a move is not its state's usual one (MOVES): a blocked step's agent has stopped; or why a blocked step is
# the person's as usual: it waits for something only they give.
Why = Literal["usual", "stopped", "held"]
NEXT_MOVE_WORDS: dict[Move, str] = {"yours": "Your move", "agents": "Agent's move"}
YOUR_MOVE = NEXT_MOVE_WORDS["yours"]
# Whose move inside the one chip, after the state's own label ("Blocked · agent's move: resend the step").
CHIP_MOVE_WORDS: dict[Move, str] = {"yours": "your move", "agents": "agent's move"}
# The move itself, after whose it is (next_move), by state and why: one to three words a person can act on. A
# state without a row here is said by whose move alone ("Agent's move": a running agent needs nothing).
# Each move in the one phrase every page gives its action (actions.py).
MOVE_ACTIONS: dict[tuple[StateName, Why], str] = {
    ("needs_you", "usual"): actions.verb("confirm"),
    ("paused", "usual"): actions.verb("resume"),
    ("stalled", "usual"): actions.verb("resume"),
    ("blocked", "usual"): actions.verb("resend"),
    ("blocked", "stopped"): actions.verb("resume"),
    ("blocked", "held"): actions.verb("tell"),
}


@dataclass(frozen=True)
class NextMove:
    """The label beside a state's badge: whose move it is, in words, drawn in the state's colour."""

    state: StateName
    move: Move
    words: str
    # The same move inside the state's one chip, after its label: whose (unless the label says it) and the move.
    chip_words: str
    # The chip's move where a line is narrow (a run card): whose move alone, the move itself told in the body
    # ("agent's move", not "agent's move: resend the step" broken inside its pill).
    short_words: str

    @property
    def css(self) -> str:
        """The classes that draw it: the move label's shape, the state's colour (dashboard.css)."""
        return f"move state-{self.state}"


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


def urgency(state: StateName, move: Move) -> int:
    """Where a row sorts in the sessions list, by the state and the move its chip shows (next_move): its state's
    place (URGENCY), but a blocked step that is still the agent's to resend sorts with the running sessions,
    after every one that is yours (friction11 7); once yours (its agent stopped, or it waits for something only
    you give), it sorts as blocked, up front. The list's SQL order (overview) reads this one rule."""
    if state == "blocked" and move == "agents":
        return URGENCY["running"]
    return URGENCY[state]


def next_move(state: str, move: Move, *, held_by_you: bool = False) -> NextMove | None:
    """The label beside a state's badge, None where nobody has a move (done, canceled, left behind): whose
    move, then the move (MOVE_ACTIONS), so that "Needs you" reads beside "Your move: confirm", an action,
    not an echo. `held_by_you`: a blocked step waits for something only the person can give (theirs as
    usual, not because the agent stopped)."""
    if move == "nobody" or state not in LABELS:
        return None
    if held_by_you:
        why: Why = "held"
    elif move == MOVES[state]:
        why = "usual"
    else:
        why = "stopped"
    action = MOVE_ACTIONS.get((state, why))
    # One pattern for every state (friction13 1): whose move, then the move; "Needs you · your move: confirm"
    # too, rather than a bare "confirm" that read as a different kind of chip beside "your move: resend…".
    whose = NEXT_MOVE_WORDS[move]
    chip = f"{CHIP_MOVE_WORDS[move]}: {action}" if action else CHIP_MOVE_WORDS[move]
    return NextMove(state, move, f"{whose}: {action}" if action else whose, chip, CHIP_MOVE_WORDS[move])


# The states that are always the person's move (MOVES): the sessions list draws their chips inside its "Your move"
# chip, as its reasons, so that "Needs you" reads as one kind of your move and not as a second chip beside it.
YOURS_ALWAYS: tuple[StateName, ...] = tuple(state for state in ORDER if MOVES[state] == "yours")
# What the sessions list's "Your move" chip gathers (its tooltip): the rows whose chip says it is yours.
YOUR_MOVE_MEANS = (
    f"{YOUR_MOVE}: the sessions waiting for your confirmation, paused (no agent has it), stalled, or blocked"
    " and stopped"
)

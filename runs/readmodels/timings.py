"""Recent MCP tool calls and their p50/p95 per tool, from the bounded table runs/mcp/timings.py fills: as the
HTTP API gives them (tool_timings) and as the dashboard says them (recent_calls, tool_lines). Both count a
call's outcome by the one classification, classify_call."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from enum import Enum, StrEnum

from django.conf import settings

from runs.contract.dashboard import ToolCallEntry, ToolStats, ToolTimings
from runs.contract.errors import ErrorCode
from runs.models import Run, Session, ToolCall
from runs.readmodels import naming, time_axis
from runs.readmodels.states import LABELS
from runs.store.pinned import compiled_workflow

RECENT_SHOWN = 100
_CODES = {code.value: code for code in ErrorCode}
# Refusals that are the right answer to a run that ended: going on with a canceled run, or answering on a
# branch already complete. The contract working: counted apart, by their code, never as failures.
ENDED_RUN_REFUSALS = frozenset({ErrorCode.RUN_CANCELED.value, ErrorCode.NODE_COMPLETE.value})


class CallOutcome(StrEnum):
    """What a recorded call's outcome (its error code, or "ok"/"blocked") amounts to."""

    OK = "ok"
    BLOCKED = "blocked"  # a held answer: the contract working, not a failure
    REFUSED = "refused"  # a code in ENDED_RUN_REFUSALS: the right answer to a run that ended
    REJECTED = "rejected"  # any other WorkRail code: the agent was told what was wrong (a bad id, a stale token)
    ERROR = "error"  # INTERNAL_ERROR, or no code at all: the call failed inside the server

    @property
    def turned_away(self) -> bool:
        """The server said no and told the agent why, in a code of its contract: the page counts these apart
        from the server's own failures, never red (friction26b 13: a bad workflow id and a crash read as one
        red "2 (100%)")."""
        return self in (CallOutcome.REFUSED, CallOutcome.REJECTED)


def classify_call(outcome: str) -> CallOutcome:
    """The one split of recorded outcomes, for the timings page and the HTTP API alike."""
    if outcome == CallOutcome.OK or outcome == CallOutcome.BLOCKED:
        return CallOutcome(outcome)
    if outcome in ENDED_RUN_REFUSALS:
        return CallOutcome.REFUSED
    known = _CODES.get(outcome)
    return CallOutcome.REJECTED if known is not None and known is not ErrorCode.INTERNAL_ERROR else CallOutcome.ERROR


# What a failed call's code means, for the timings page (a call's outcome is its error code; the message
# itself is not kept). Codes not listed here are said by their own words.
_ERROR_WORDS = {
    ErrorCode.INVALID_INPUT: "the call's arguments were not valid",
    ErrorCode.NOT_FOUND: "what it named does not exist",
    ErrorCode.WORKFLOW_NOT_FOUND: "no workflow has that id",
    ErrorCode.WORKFLOW_INVALID: "the workflow file has errors",
    ErrorCode.TOKEN_MALFORMED: "the code the agent sent for its step is not one WorkRail makes",
    ErrorCode.TOKEN_VERSION_UNSUPPORTED: "the agent sent a code from another version of WorkRail",
    ErrorCode.TOKEN_BAD_SIGNATURE: "the agent sent a code this server did not make",
    ErrorCode.TOKEN_UNKNOWN: "the agent sent a code for a step this store does not have",
    ErrorCode.TOKEN_SCOPE_MISMATCH: "the agent sent an old or wrong answer code: it belongs to another step",
    ErrorCode.RUN_CANCELED: "the run was canceled",
    ErrorCode.NODE_COMPLETE: "that branch is already complete",
    ErrorCode.ARTIFACT_INVALID: "an artifact sent did not fit its contract",
    ErrorCode.CONTEXT_CHANGE_INVALID: "a context change was not allowed",
    ErrorCode.NOT_YOUR_SESSION: "the session belongs to someone else",
    ErrorCode.STORE_BUSY: "the store was busy",
}
# The codes whose message is written for the agent in the MCP's own terms ("This ackToken belongs to another step
# of the same run, not to the snapshot named by the stateToken."): the row says the code's words above instead,
# and the message waits in the row's "For developers" fold (friction64 A1: "stateToken" in a row's words). Every
# other code's message is a sentence for anyone ("There is no workflow 'wr.nope' here.") and stays the row's why.
TOLD_IN_MCP_TERMS = frozenset(
    {
        ErrorCode.TOKEN_MALFORMED,
        ErrorCode.TOKEN_VERSION_UNSUPPORTED,
        ErrorCode.TOKEN_BAD_SIGNATURE,
        ErrorCode.TOKEN_UNKNOWN,
        ErrorCode.TOKEN_SCOPE_MISMATCH,
    }
)
# Where a server's failures are written out (settings.LOGGING: stderr, no file): a stdio client keeps the server's
# stderr in its MCP log. Said where the failure is (friction26b 13: "the server's error output" named no place).
SERVER_ERRORS = "the stderr of manage.py mcp (the agent's client keeps it in its MCP log)"
# What a call kept before this server recorded reasons (or sessions) says in their place (friction22b A3: "failed
# before this server kept each call's reason" and "unknown (older call)" read as a broken page).
NOT_RECORDED_REASON = "Reason not recorded."


class Unlinked(Enum):
    """Why a call's Session cell links to no session, each case with what the cell says (`words`), its tooltip
    (`title`) and what the note under the table calls it (`kind`): one table, not the reasons and a separate
    table of their words (friction24b 6). Two truths had two near-synonyms, "no session" and "not recorded",
    side by side (friction23a A7): a call without a session is a bare "—", its reason in its tooltip, and "not
    recorded" is kept for the older call whose session was not kept; the page's note says which is which, once
    (session_note). A "—" is a call that names none by nature (list_workflows) or one that failed before it had
    one (a failed start_workflow, a refused token: friction24b 6, the note spoke only of the first)."""

    LINKED = ("", "", "")
    NONE_NAMED = ("—", "A call about no session, as list_workflows is.", "a call such as list_workflows")
    FAILED = ("—", "It failed before it named a session or made one.", "a call that failed before it had one")
    NOT_RECORDED = (  # an accepted call of a tool that always names a run, from before calls were noted
        "not recorded",
        "Made before this server kept which session a call was about.",
        "an older call, made before this server kept which session a call was about",
    )
    DELETED = ("session deleted", "", "")

    def __init__(self, words: str, title: str, kind: str) -> None:
        self.words = words
        self.title = title
        self.kind = kind


HELD = "the answer was refused: it lacked something"  # a held answer: the contract working
# A call the server answered with an error code the agent was told (a bad id, a run that ended), in the page's
# words (friction15 8: "Refused" is also a refused answer on the run pages, a different thing; friction62a 7,
# 62b 5: "Turned away" beside "Refused" still needed the glossary; friction63a 2: "Rejected call" still read as a
# third word for a refused answer): named by what was wrong, the call itself, beside "Server error" where the
# server was. The API's field names keep "refused".
CALL_ERROR = "Call error"
CALL_ERRORS = "Call errors"  # the Per tool table's column
# The one line under the Per tool table that tells its column apart from a refused answer (friction62a 7).
CALL_ERROR_NOTE = (
    "A call error is a call that was itself wrong (a bad token, an unknown workflow, a run that already ended): the"
    " server told the agent why; not a refused answer, nor a server error."
)
# A call's outcome tag, capitalised as every other tag (a held answer is "Refused", as states.py says it).
OUTCOME_LABELS = {
    CallOutcome.OK: "OK",
    # friction60a/60b: "Refused" beside "Turned away" read as two words for one thing; the tag names what was
    # refused, the answer, in the run pages' word for it.
    CallOutcome.BLOCKED: f"Answer {LABELS['blocked'].lower()}",
    CallOutcome.REFUSED: CALL_ERROR,
    CallOutcome.REJECTED: CALL_ERROR,
    CallOutcome.ERROR: "Server error",
}


def call_words(tool: str, outcome: str, exception: str = "", message: str = "") -> str:
    """What happened to one call, in words: "" when it went well, why the step was held when it was
    blocked, and for a failure which tool failed and why: the error's own message as the agent was told
    it when it was recorded, else its code's meaning (or the code itself, for one this server does not
    know), else the kind of the exception that broke it, else that its reason was not recorded (rows kept
    before codes were; friction22b A3: where to look for it is the page's "For developers" fold, not the row)."""
    if outcome == "ok":
        return ""
    if outcome == "blocked":
        return HELD
    code = _CODES.get(outcome)
    if code is ErrorCode.INTERNAL_ERROR or (code is None and exception):
        broke = f" on an unexpected {exception}" if exception else ""
        return f"{tool} failed inside the server{broke}; the details are in {SERVER_ERRORS}"
    if outcome in ENDED_RUN_REFUSALS:  # the expected answer, not a failure
        why = message.strip() or _ERROR_WORDS[_CODES[outcome]]
        return f"{tool} was told no, as it should be: {why}"
    if code is None:
        if outcome.lower() == "error" and not message.strip():
            return NOT_RECORDED_REASON
        return f"{tool} failed: {message.strip()}" if message.strip() else f"{tool} failed with the code {outcome}"
    said = _ERROR_WORDS.get(code, code.value.lower().replace("_", " "))
    why = said if code in TOLD_IN_MCP_TERMS else message.strip() or said
    # "told no", as the column's tooltip says it: no "rejected" beside a refused answer (friction63a 2).
    return f"{tool} was told no: {why}"


@dataclass(frozen=True)
class CallLine:
    """One recent tool call as the timings page shows it (the HTTP API's ToolCallEntry stays as it is)."""

    tool: str
    badge: CallOutcome
    label: str  # the badge in words: OUTCOME_LABELS
    code: str  # the error code, "" when the call did not fail or kept none
    words: str  # call_words
    told: str  # what the agent was told, for the developers' fold, when the words leave it out (TOLD_IN_MCP_TERMS)
    duration_ms: float
    started_at: datetime
    session_id: str  # the session and run the call was about, "" when not known or deleted since
    session_name: str
    run_id: str
    run_title: str
    why_unlinked: Unlinked = Unlinked.LINKED  # why the call links to no session (unlinked_why)

    @property
    def unlinked(self) -> str:
        """The Session cell's words when it links to none (Unlinked.words)."""
        return self.why_unlinked.words

    @property
    def unlinked_title(self) -> str:
        """Why it links to none, for the cell's tooltip (Unlinked.title)."""
        return self.why_unlinked.title


def recent_calls(*, recent: int = RECENT_SHOWN) -> list[CallLine]:
    """The newest calls, each said in words and linked to the session and run it was about when that is
    known (runs/store/call_notes.py) and still stored."""
    fields = ("tool", "outcome", "duration_ms", "started_at", "run_id", "session_id", "exception", "message")
    rows = list(ToolCall.objects.order_by("-pk").values_list(*fields)[: max(0, recent)])
    stored = Run.objects.select_related("session").filter(session__importing=False)
    runs = {run.public_id: run for run in stored.filter(public_id__in={row[4] for row in rows if row[4]})}
    named = Session.objects.filter(importing=False, public_id__in={row[5] for row in rows if row[5]})
    sessions = {session.public_id: session for session in named}
    titles: dict[str, str] = {}  # a pinned workflow's name, read once per version
    lines = []
    for tool, outcome, duration, at, run_id, session_id, exception, message in rows:
        run = runs.get(run_id)
        session = run.session if run is not None else sessions.get(session_id)
        badge = classify_call(outcome)
        lines.append(
            CallLine(
                tool=tool,
                badge=badge,
                label=OUTCOME_LABELS[badge],
                code=outcome if outcome in _CODES else "",
                words=call_words(tool, outcome, exception, message),
                told=message.strip() if _CODES.get(outcome) in TOLD_IN_MCP_TERMS else "",
                duration_ms=round(duration, 3),
                started_at=at,
                session_id=session.public_id if session else "",
                session_name=naming.session_name(session.session_key, session.title, session.public_id)
                if session
                else "",
                run_id=run.public_id if run else "",
                run_title=_title(run, titles) if run else "",
                why_unlinked=Unlinked.LINKED
                if session
                else unlinked_why(tool, badge, noted=bool(run_id or session_id)),
            )
        )
    return lines


# The tools whose accepted call always names a run (its token's): one noted without it came from before this
# server noted what each call was about (runs/store/call_notes.py).
RUN_TOOLS = frozenset({"continue_workflow", "checkpoint_workflow"})


def unlinked_why(tool: str, badge: CallOutcome, *, noted: bool) -> Unlinked:
    """Why a call's Session cell links to nothing (friction16b 10: an OK continue_workflow with a bare "—" read
    as a data bug, so that one says "not recorded"): the session it named was deleted since; an accepted call of
    a tool that always names a run came before calls were noted; any other accepted call named none
    ("list_workflows"); one that did not go through failed before it had one (a failed start, a refused token)."""
    # friction17a 19: under "Session", "none named" and "not noted (an older call)" read as internal states.
    if noted:
        return Unlinked.DELETED
    if badge is CallOutcome.OK:
        return Unlinked.NOT_RECORDED if tool in RUN_TOOLS else Unlinked.NONE_NAMED
    return Unlinked.FAILED


def session_note(lines: list[CallLine]) -> str:
    """The one line under the recent calls that says what the Session column's "—" and "not recorded" mean,
    each only when a row shows it, a "—" by the kinds of call the rows show ("a call such as list_workflows, or
    a call that failed"; each row's tooltip says which it is)."""
    shown = {line.why_unlinked for line in lines}
    said = []
    no_session = [why.kind for why in (Unlinked.NONE_NAMED, Unlinked.FAILED) if why in shown]
    if no_session:
        said.append(f"“{Unlinked.NONE_NAMED.words}”: no session ({', or '.join(no_session)})")
    if Unlinked.NOT_RECORDED in shown:
        said.append(f"“{Unlinked.NOT_RECORDED.words}”: {Unlinked.NOT_RECORDED.kind}")
    return f"Session {'; '.join(said)}." if said else ""


def _title(run: Run, titles: dict[str, str]) -> str:
    if run.pinned_id not in titles:
        titles[run.pinned_id] = str(compiled_workflow(run.pinned_id).get("name") or run.workflow_id)
    return titles[run.pinned_id]


# Below this many calls a median is one of them, or two averaged: the page shows no median for the tool rather
# than call a single call's time one (friction16a 18); its Calls and Slowest say the rest.
MEDIAN_MIN_CALLS = 3
# Below this many calls a tool's 95th percentile is its slowest call or next to it: the page leaves it out
# rather than print a figure that looks measured, and says so once (the API still gives it, with `calls`).
P95_MIN_CALLS = 20


@dataclass(frozen=True)
class ToolLine:
    """One tool's figures as the timings page says them (the HTTP API's ToolStats gives the same counts)."""

    tool: str
    calls: int
    errors: int  # calls that failed inside the server (CallOutcome.ERROR): the only red figure
    refused: int  # calls rejected with a code the agent was told (CallOutcome.turned_away)
    median: str  # "41 ms", "1.8 s" (time_axis.milliseconds); "" below MEDIAN_MIN_CALLS calls
    p95: str  # "" below P95_MIN_CALLS calls
    slowest: str

    @property
    def error_share(self) -> str:
        """ "0", or "2 (5%)" of its calls."""
        if not self.errors:
            return "0"
        share = 100 * self.errors / self.calls
        return f"{self.errors} ({share:.0f}%)" if share >= 1 else f"{self.errors} (<1%)"


@dataclass(frozen=True)
class ToolLines:
    lines: list[ToolLine]
    kept: int

    @property
    def kept_said(self) -> str:
        """How many calls are kept, as a person reads a count ("5,000")."""
        return f"{self.kept:,}"


@dataclass(frozen=True)
class _Tool:
    """One tool's kept calls: their durations, ascending, and how many came to each outcome."""

    tool: str
    ordered: list[float]
    outcomes: Counter[CallOutcome]


def _per_tool(rows: list[tuple[str, str, float]]) -> list[_Tool]:
    """(tool, outcome, duration) rows gathered per tool, by tool name."""
    durations: dict[str, list[float]] = {}
    outcomes: dict[str, Counter[CallOutcome]] = {}
    for tool, outcome, duration in rows:
        durations.setdefault(tool, []).append(duration)
        outcomes.setdefault(tool, Counter())[classify_call(outcome)] += 1
    return [_Tool(tool, sorted(durations[tool]), outcomes[tool]) for tool in sorted(durations)]


def tool_lines() -> ToolLines:
    """Each tool's calls, failures, refusals and times, for the timings page."""
    lines = []
    for each in _per_tool(list(ToolCall.objects.values_list("tool", "outcome", "duration_ms"))):
        tool, ordered = each.tool, each.ordered
        enough = len(ordered) >= P95_MIN_CALLS
        lines.append(
            ToolLine(
                tool=tool,
                calls=len(ordered),
                errors=each.outcomes[CallOutcome.ERROR],
                refused=each.outcomes[CallOutcome.REFUSED] + each.outcomes[CallOutcome.REJECTED],
                median=time_axis.milliseconds(median(ordered)) if len(ordered) >= MEDIAN_MIN_CALLS else "",
                p95=time_axis.milliseconds(percentile(ordered, 0.95)) if enough else "",
                slowest=time_axis.milliseconds(ordered[-1]),
            )
        )
    # The Median and p95 columns are always there, "—" until a tool has enough calls (friction18a 2).
    return ToolLines(lines, settings.WORKRAIL_TOOL_TIMINGS_KEPT)


def percentile(ordered: list[float], fraction: float) -> float:
    """Nearest-rank percentile of an ascending list (0 for an empty one)."""
    if not ordered:
        return 0.0
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def median(ordered: list[float]) -> float:
    """The true median (0 for an empty list): the midpoint of the middle two for an even count, so that two
    calls of 3 ms and 1.8 s read as 902 ms, not as the faster one (friction15 8)."""
    return statistics.median(ordered) if ordered else 0.0


def tool_timings(*, recent: int = RECENT_SHOWN) -> ToolTimings:
    rows = list(ToolCall.objects.order_by("-pk").values_list("tool", "outcome", "duration_ms", "started_at"))
    stats = []
    for each in _per_tool([(tool, outcome, duration) for tool, outcome, duration, _ in rows]):
        ordered = each.ordered
        stats.append(
            ToolStats(
                tool=each.tool,
                calls=len(ordered),
                errors=each.outcomes[CallOutcome.ERROR],
                refused=each.outcomes[CallOutcome.REFUSED] + each.outcomes[CallOutcome.REJECTED],
                p50_ms=round(median(ordered), 3),
                p95_ms=round(percentile(ordered, 0.95), 3),
                max_ms=round(ordered[-1], 3),
            )
        )
    return ToolTimings(
        recent=[
            ToolCallEntry(tool=tool, outcome=outcome, duration_ms=round(duration, 3), started_at=at)
            for tool, outcome, duration, at in rows[: max(0, recent)]
        ],
        stats=stats,
        kept=settings.WORKRAIL_TOOL_TIMINGS_KEPT,
    )

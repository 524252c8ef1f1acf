"""Filters and drawing tags of the dashboard templates: `{% load dashboard %}`.

Everything returned here is plain data or plain text: the templates escape it. One exception: a run's
branch graph is drawn as SVG text by runs/readmodels/graph_drawing.py (the PDF draws it too), which
escapes every text it puts in it. The session's timeline is laid out by runs/readmodels/timeline_page.py
and drawn by its template. Both use attributes and classes only: the CSP forbids styles.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any, TypedDict

from django import template
from django.template import Context
from django.urls import reverse
from django.utils import timezone
from django.utils.html import conditional_escape, format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from runs.contract.dashboard import (
    ArtifactTables,
    AttentionPanel,
    BlockedStep,
    BranchOutcomeEntry,
    RunDetail,
    SessionDetail,
    SessionSummary,
    Timed,
    Whereabouts,
)
from runs.readmodels import (
    actions,
    agent_message,
    artifact_tables,
    attention,
    branch_summary,
    clock,
    fold_lines,
    folds,
    fork_point,
    glossary,
    graph_drawing,
    graph_page,
    markdown,
    naming,
    outline_words,
    overview,
    produced,
    states,
    step_places,
    synthesis,
    time_axis,
    timeline_marks,
    timeline_page,
)

register = template.Library()

STATUS_LABELS = {
    "in_progress": "in progress",
    "stalled": "stalled",
    "blocked": "blocked",
    "complete": "complete",
    "canceled": "canceled",
    "notes": "notes only",
}


@register.filter
def part_label(part: int, entry: str) -> str:
    """A loop's `part`-th step (1 for the first) numbered under its loop's outline `entry`: "2.1", "2.2" (a run
    page says the same step "step 2 of 3 · … · part 2 of 2", StepPlace.brief)."""
    return f"{entry}.{part}"


@register.filter
def at_key(mapping: Any, key: Any) -> Any:
    """`mapping[key]`, or an empty list when it has no such key (a read model's lists by node id)."""
    return mapping.get(key, []) if isinstance(mapping, dict) else []


# A name with a hyphen in it ("r42-phone", "--http"), between slashes and spaces: a browser would break a line
# after its hyphen, inside the name.
HYPHENED = re.compile(r"[^\s/]*-[^\s/]*")


def _whole_names(part: str) -> str:
    """`part` escaped, each hyphened name in it kept on one line (class nowrap)."""
    pieces, last = [], 0
    for match in HYPHENED.finditer(part):
        pieces.append(conditional_escape(part[last : match.start()]))
        pieces.append(format_html('<span class="nowrap">{}</span>', match.group()))
        last = match.end()
    pieces.append(conditional_escape(part[last:]))
    return "".join(pieces)


@register.filter
def path_breaks(value: Any) -> SafeString:
    """A path or command with a line-break chance after each "/" and at its spaces only: on a narrow screen
    it wraps between directories and words, never in the middle of a name (not after a hyphen in it)."""
    return mark_safe("/<wbr>".join(_whole_names(part) for part in str(value).split("/")))  # parts escaped


HANG_MAX = 16  # the deepest indent (in spaces) a wrapped line keeps; dashboard.css has a .hang-N per even N


# A dot or an underscore between two letters or digits: where an id or a dotted kind may wrap.
ID_JOINT = re.compile(r"(?<=\w)([._])(?=\w)")


@register.filter
def id_breaks(value: Any) -> SafeString:
    """Text with a line-break chance after each "." and "_" inside a word ("mr_review.changed_files"),
    so that on a narrow screen an id or a dotted kind wraps at its joints, never in the middle of a word."""
    return mark_safe(ID_JOINT.sub(r"\1<wbr>", str(conditional_escape(value))))  # escaped first


@register.filter
def hanging_lines(value: Any) -> SafeString:
    """A block of code as one element per line (class "hang-N", N its indent in spaces, even, at most
    HANG_MAX), each line ending in its newline, so that the text copies exactly as given while a line
    that wraps on a narrow screen goes on two characters deeper than it starts instead of at the margin.
    Each line wraps between words and after a "/" (path_breaks)."""
    lines = str(value).split("\n")
    parts = []
    for number, line in enumerate(lines):
        indent = min(len(line) - len(line.lstrip(" ")), HANG_MAX) // 2 * 2
        end = "\n" if number < len(lines) - 1 else ""
        parts.append(format_html('<span class="hang hang-{}">{}{}</span>', indent, path_breaks(line), end))
    return mark_safe("".join(parts))  # each part built by format_html


@register.filter
def status_label(value: Any) -> str:
    return STATUS_LABELS.get(str(value), str(value).replace("_", " "))


@register.filter
def ended_with(value: Any) -> list[synthesis.EndedWith]:
    """A completed branch's latest artifacts, named for people (runs/readmodels/synthesis.py)."""
    return synthesis.ended_with(value)


@register.filter
def action(name: str) -> str:
    """A thing to do as a heading or button leads with it, in the one phrase every page uses (actions.py):
    {{ "resume"|action }} is "Resume the agent"."""
    return actions.title(name)  # type: ignore[arg-type]


@register.filter
def action_verb(name: str) -> str:
    """The same phrase inside a sentence: {{ "resume"|action_verb }} is "resume the agent"."""
    return actions.verb(name)  # type: ignore[arg-type]


@register.filter
def copy_label(name: str) -> str:
    """A copy button's words (actions.COPY): {{ "confirmed"|copy_label }} is "Copy “Confirmed” reply"."""
    return actions.copy_label(name)  # type: ignore[arg-type]


@register.filter
def share_label(name: str) -> str:
    """The words of the "Share…" copy.js adds after a copy button (actions.SHARE), given it as data-share-label."""
    return actions.share_label(name)  # type: ignore[arg-type]


@register.filter
def state_label(value: Any) -> str:
    """A state (runs/readmodels/states.py) in the dashboard's one vocabulary: "Confirm", "Left behind"."""
    return states.label(str(value))


def move_of(value: Any) -> states.Move:
    """Whose move it is (states.move) for what a badge shows: a session's or run's whereabouts, a panel, a
    branch, a blocked step, or a bare state."""
    if isinstance(value, Whereabouts):
        return value.move or states.move(value.state)  # type: ignore[return-value]
    if isinstance(value, AttentionPanel):
        return states.move(value.state)
    if isinstance(value, BlockedStep):
        return attention.move_of_blocked(value, clock.stall_cutoff())
    if isinstance(value, BranchOutcomeEntry):
        return attention.move_of_branch(value, clock.stall_cutoff())
    return states.move(str(value))


@register.filter
def state_word(value: Any) -> str:
    """A branch's (or panel's) state as its one word in a sentence, lower-case ("done", "left behind",
    "retrying"): the word its pill would say (states.word, by move_of), for a line that names it in words."""
    return states.word(str(getattr(value, "state", value)), move_of(value)).lower()


@register.filter(name="move")
def move_filter(value: Any) -> states.Move:
    """Whose move it is (move_of), for a panel's data-move: its colour follows it as its pill's does."""
    return move_of(value)


@register.filter
def tone(value: Any) -> states.Tone:
    """A panel's colour family (states.tone: its state and whose move, move_of), for its data-tone: the same as
    its pill's, amber for your routine move, red for a Blocked one."""
    state = "blocked" if isinstance(value, BlockedStep) else getattr(value, "state", value)
    return states.tone(str(state), move_of(value))


@register.simple_tag
def chip_tone(state: Any, value: Any = None) -> states.Tone:
    """The colour family of the pill state_chip draws for the same arguments: the step page's banner takes it,
    so banner and pill always agree."""
    return _chip(state, value).tone


def chip_state(state: Any, value: Any) -> str:
    """The state a pill shows for `value`: its own, save that a run's whereabouts with a replaced branch whose
    agent may still work (Whereabouts.also) shows that branch's, "Replaced", the person's move, over the
    agent's at work on another (friction62b 1: two pills, "Agent's move · Working" and "Your move · tell branch
    1's agent to stop", gave two answers to whose move)."""
    if isinstance(value, Whereabouts) and value.also:
        return "superseded"
    return str(state)


def _chip(state: Any, value: Any) -> states.Pill:
    state = chip_state(state, value)
    # A run's pill over its replaced branches names them: the line under it is about the branch at work
    # (friction63a 4, 63b 5); the sessions row and the session page's run card say the same words.
    named = value.replaced if isinstance(value, Whereabouts) and value.also else ()
    return states.pill(
        state,
        move_of(state if value is None or value == "" else value),
        held_by_you=held_by_you(value),
        branches=named,
    )


def held_by_you(value: Any) -> bool:
    """Whether a blocked step waits for something only the person gives (its held_by, typed data): a
    whereabouts', a blocked step's or a branch's; its pill then says "needs your input" (states.cause)."""
    if isinstance(value, Whereabouts):
        return value.held_by_you
    if isinstance(value, BranchOutcomeEntry):
        value = value.blocked
    return isinstance(value, BlockedStep) and value.whose_move == "user"


@register.filter
def weight(value: Any) -> str:
    """How loud a panel's message is (states.weight): from whose move it is, as its colour (move_of)."""
    return states.weight(move_of(value))


@register.filter
def your_action(where: Whereabouts | None) -> str:
    """What a row's where-line ends with when the move is the person's (states.your_action): "resume the agent"."""
    if where is None or where.also:  # its move is to stop a replaced branch's agent, said beside it
        return ""
    return states.your_action(where.state, str(move_of(where)), held_by_you=where.held_by_you)


@register.filter
def where_note(session: SessionSummary) -> str:
    """A sessions-list row's bracket after its workflow (overview.where_note): "run 2 of 2 · 4 branches"."""
    return overview.where_note(session)


@register.filter
def line_of(lines: list[Whereabouts], run_id: str) -> Whereabouts | None:
    """The where-line of one run among a session's (SessionDetail.run_lines), None when it has none."""
    return next((line for line in lines if line.run_id == run_id), None)


@register.filter
def yours_among(detail: SessionDetail) -> int:
    """How many of a session's runs wait on the person, as their cards' pills say (attention.yours_among)."""
    return attention.yours_among(detail.runs, detail.run_lines)


@register.simple_tag
def blocked_guide(entry: BlockedStep) -> attention.BlockedGuide:
    """What the blocked panel tells a person to do, by whose move it is now (attention.blocked_guide)."""
    return attention.blocked_guide(entry, clock.stall_cutoff())


@register.filter
def full_stop(quoted: str) -> str:
    """The full stop a sentence ending in a person's quoted words needs after the quote: "." unless the words
    end their sentence already ("Why not?"), so that "“A narrower plan first” Started by bob" reads as two
    sentences (friction62a 12), and "“Ship it.”." never happens."""
    return "" if str(quoted).rstrip().endswith((".", "!", "?", "…")) else "."


# Where a page notes the glossary words it linked, so that each is linked once per page (term).
_TERMS_LINKED = "_workrail_terms_linked"


@register.simple_tag(takes_context=True)
def term(context: Context, anchor: str, words: str) -> str:
    """`words` as a quiet link to the line of the glossary's term at `anchor` (glossary.TERMS), its meaning in the
    tooltip: the first time on a page the term is used (friction62b 6: "Mode", "checkpoint" needed the words page,
    found by hand); plain after that, once per page. Plain too for a word the glossary does not link (LINKED), or
    outside a request."""
    if anchor not in glossary.LINKED:
        return conditional_escape(words)
    request = context.get("request")
    linked: set[str] | None = getattr(request, _TERMS_LINKED, None) if request is not None else None
    if request is not None and linked is None:
        linked = set()
        setattr(request, _TERMS_LINKED, linked)
    if linked is None or anchor in linked:
        return conditional_escape(words)
    linked.add(anchor)
    return format_html(
        '<a class="term" href="{}#{}" title="{}">{}</a>',
        reverse("words"),
        anchor,
        glossary.term(anchor).means,
        words,
    )


# Where a page's state pills note the meanings they show, one entry per (state, move), so that base.html's
# state_meanings draws one popover per meaning on the page, not one per pill (friction24b 9).
_MEANINGS_SHOWN = "_workrail_state_meanings"


def _meanings_shown(context: Context) -> dict[str, states.Pill] | None:
    """The meanings the page's pills showed so far, by popover id; None when it renders without a request."""
    request = context.get("request")
    if request is None:
        return None
    shown: dict[str, states.Pill] | None = getattr(request, _MEANINGS_SHOWN, None)
    if shown is None:
        shown = {}
        setattr(request, _MEANINGS_SHOWN, shown)
    return shown


@register.simple_tag(takes_context=True)
def state_chip(
    context: Context,
    state: Any,
    value: Any = None,
    badge_id: str = "",
    tap: bool = True,
    branch: bool = False,
    step: bool = False,
) -> str:
    """A state as its ONE pill (states.pill): whose move it is, then the state where its word does not say it,
    in the colour of its tone (data-tone, states.tone: dashboard.css). `state` is the pill's; `value` says the
    move (move_of: a whereabouts, panel, branch or blocked step), the state's usual one by default; `badge_id`
    names the pill (a live region's). On a page it is a button that opens its state's one-line meaning
    (friction24b 9: a tooltip cannot be read on a phone): a popover, one per meaning on the page
    (state_meanings), opened by tap, click or keyboard, with or without a script; `tap=False` for a pill inside a
    link, which cannot hold a button (the session page's index of runs); `branch=True` for the pill of one branch
    named beside it ("Branch 2: Agent's move · Working"), never the run's (chip_state); `step=True` for one step's
    own pill, which says an answered step "Answered", not the run's "Done" (states.STEP_DONE)."""
    state = str(state) if branch else chip_state(state, value)
    shown = _chip(state, value)
    if branch and isinstance(value, Whereabouts) and value.also:
        # That branch's own move: the run's is the person's only for the replaced branch (attention._whereabouts),
        # and while one is, this branch's agent is at work, or resending (a refused step that is yours sets no
        # `also`), so its state's usual move is its own.
        shown = states.pill(state, states.move(state))
    if step and shown.state == "done":
        shown = states.pill(state, shown.move, step=True)
    # Its one-line meaning as its tooltip and its accessible description (states.MEANINGS; friction22b B11: a hover
    # explains it, a screen reader too), first, so the rest reads as before; its colour family (data-tone:
    # states.tone) before its class.
    named = format_html(' id="{}"', badge_id) if badge_id else ""
    pill = format_html(
        '<span title="{}" aria-description="{}" data-tone="{}" class="badge state-{}" data-move="{}"{}>{}</span>',
        shown.means,
        shown.means,
        shown.tone,
        state,
        shown.move,
        named,
        shown.words,
    )
    meanings = _meanings_shown(context) if tap else None
    if meanings is None or not shown.means:
        return pill
    # The pill as it always was, inside a bare button that opens its meaning (dashboard.css .pill-tap).
    popover = f"means-{shown.state}-{shown.move}" + (f"-{shown.cause}" if shown.cause else "")
    popover += "-step" if shown.words == states.STEP_DONE else ""  # not the run's Done meaning on the same page
    meanings.setdefault(popover, shown)
    return format_html('<button type="button" class="pill-tap" popovertarget="{}">{}</button>', popover, pill)


@register.simple_tag(takes_context=True)
def state_meanings(context: Context) -> str:
    """The popovers of the meanings the page's pills showed (state_chip), one per meaning, each its pill's words
    and its line from states.MEANINGS (the sessions list's glossary's table); in a live region of their own, so
    a pill a live update brings has its meaning too. Called by base.html after the page's content."""
    meanings = _meanings_shown(context) or {}
    return format_html(
        '<div class="state-meanings" data-live-region="state-meanings">{}</div>',
        format_html_join(
            "",
            '<div id="{}" popover class="state-means"><strong>{}</strong> {}</div>',
            ((popover, pill.words, pill.means) for popover, pill in meanings.items()),
        ),
    )


def _moment(value: Any) -> datetime | None:
    """A datetime, or an ISO 8601 text (as JSON documents such as a synthesis hold them)."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return None
    if not isinstance(value, datetime):
        return None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


# The dashboard's one rule for a moment (docs/dashboard.md, "Times"; times.js says the same in the reader's
# zone): how long ago ("5 min ago") within the last day where a list or a status line says how fresh something
# is; past a day, and wherever a page tells when something happened (a step, a checkpoint, a start), the day and
# the clock ("28 Nov, 14:02"), no seconds; seconds only where timings are measured (the timings page). The
# exact moment is always in the element's tooltip.
def _clock(moment: datetime, seconds: bool = False, today: bool = False) -> str:
    """A moment in UTC as the day and the clock, "28 Nov, 14:02 UTC" ("28 Nov 2025, 14:02 UTC" in another
    year than now's), to the second with `seconds`, the clock alone on today's date with `today`: what a page
    says without its script (times.js then says it on the reader's clock)."""
    moment, now = moment.astimezone(UTC), timezone.now().astimezone(UTC)
    year = "" if moment.year == now.year else f" {moment.year}"
    clock = f"{moment:%H:%M:%S}" if seconds else f"{moment:%H:%M}"
    if today and moment.date() == now.date():
        return f"{clock} UTC"
    return f"{moment.day} {moment:%b}{year}, {clock} UTC"


def _since(moment: datetime) -> str:
    """How long ago within the last day: "just now", "5 min ago", "3 h ago"; "" for an older moment."""
    return time_axis.ago(moment, timezone.now())


@register.filter
def ago(value: datetime | str | None) -> str:
    """A moment relative to now within the last day: "just now", "5 min ago", "3 h ago"; an older one as the
    day and the clock ("28 Nov, 14:02 UTC")."""
    moment = _moment(value)
    if moment is None:
        return ""
    return _since(moment) or _clock(moment)


def lasting(since: datetime, now: datetime | None = None) -> str:
    """How long something has lasted since a moment, in whole units: "for under a minute", "for 2 min",
    "for 3 h", "for 2 days" (times.js says the same in the browser, as time passes)."""
    return time_axis.lasting(since, now or timezone.now())


@register.simple_tag
def message_fold_summary() -> str:
    """The summary of the fold that holds a message for the agent (agent_message.FOLD_SUMMARY)."""
    return agent_message.FOLD_SUMMARY


@register.filter
def named(title: str, place: Any) -> str:
    """A step named as the dashboard names it, its name before its number (step_places.named)."""
    return step_places.named(str(title or ""), place)


@register.filter
def place_title(place: Any) -> SafeString:
    """The ` title="…"` attribute that says a step's place in full where its short form leaves the loop's name
    or the part out (step_places.full_words); nothing where the short form says it all."""
    full = step_places.full_words(place)
    return format_html(' title="{}"', full) if full else mark_safe("")


# A step the Steps list shows took this long or more says so in its line, as a person counts time
# (time_axis.lasted); a quicker one says nothing: "took under a minute" on every line is noise, and a figure in
# ms reads as the agent's work time (friction15 "took 6 ms", friction16a 4).
TOOK_SAID_FROM_SECONDS = 60.0


@register.filter
def step_head_title(step: Any) -> SafeString:
    """The ` title="…"` attribute of a step's heading in the Steps list: its place in full where the short
    form leaves part out, the step's id in the workflow (friction15 3: the id chip moved here, as on the
    step page)."""
    parts = [step_places.full_words(step.place)] if step.place is not None else []
    if step.step_id:
        parts.append(f"step {step.step_id} in the workflow")
    said = " · ".join(part for part in parts if part)
    return format_html(' title="{}"', said) if said else mark_safe("")


@register.filter
def took_said(step: Any) -> bool:
    """Whether a step's line says how long it took (TOOK_SAID_FROM_SECONDS)."""
    return bool(step.seconds >= TOOK_SAID_FROM_SECONDS)


@register.filter
def pending_since(run: RunDetail) -> datetime | None:
    """When the shown branch's pending step was given: the moment its tip was recorded."""
    tip = next((node for node in run.graph.nodes if node.node_id == run.branch_tip), None)
    return tip.created_at if tip is not None else None


@register.filter
def stamp(value: datetime | str | None) -> str:
    """An absolute time, to the second, in UTC."""
    value = _moment(value)
    if value is None:
        return ""
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


@register.filter
def iso(value: datetime | None) -> str:
    return value.isoformat() if isinstance(value, datetime) else ""


# How a <time> element says its moment (static/dashboard/times.js rewrites each in the reader's own time
# zone), by the rule above: "time" the day and the clock ("28 Nov, 14:05"), "ago" how long ago within a day
# ("5 min ago"), else as "time", "both" the two ("28 Nov, 14:05 (5 min ago)"), "seconds" the day and the clock
# to the second (timings only), "for" how long something has lasted since the moment ("for 2 min"), as a
# pending step's line says how long the agent has worked on it, "in" how long until a moment ahead ("in 28
# min"). What the server writes is what a page without scripts shows, in UTC.
WHEN_FORMS = ("time", "ago", "both", "clock", "seconds", "for", "in")


@register.simple_tag
def when(value: datetime | str | None, form: str = "time") -> str:
    """A moment as a <time> element: its exact UTC moment in `datetime` and in the tooltip, its text in the
    `form` asked for (WHEN_FORMS). Every time on the dashboard is printed by this tag; nothing for no moment."""
    moment = _moment(value)
    if moment is None:
        return ""
    if form not in WHEN_FORMS:
        raise template.TemplateSyntaxError(f"when: the form is one of {', '.join(WHEN_FORMS)}, not {form!r}")
    text = {
        "time": lambda: _clock(moment),
        "ago": lambda: ago(moment),
        "both": lambda: f"{_clock(moment)} ({_since(moment)})" if _since(moment) else _clock(moment),
        # Where a person picks one of their chats by when it started (friction28a 9): the clock and how long ago
        # together, the day only when it is not today ("17:10 UTC, 45 min ago"; "29 Nov, 17:10 UTC").
        "clock": lambda: ", ".join(part for part in (_clock(moment, today=True), _since(moment)) if part),
        "seconds": lambda: _clock(moment, seconds=True),
        # How long flows with its line, its number held to its unit (friction18a 5; times.js says the same).
        "for": lambda: time_axis.lasting(moment, timezone.now(), time_axis.NUMBER_UNIT),
        "in": lambda: time_axis.until(moment, timezone.now(), time_axis.NUMBER_UNIT),
    }[form]()
    return format_html(
        '<time datetime="{}" title="{}" data-when="{}">{}</time>',
        moment.astimezone(UTC).isoformat(),
        stamp(moment),
        form,
        text,
    )


@register.simple_tag
def words_when(words: str, around: tuple[str, ...] | None, moment: datetime | None) -> str:
    """Words that hold a moment ("stalled for 45 min"), with the moment as a <time> element (`when`): `around`
    is the words before and after it and the form to print it in, as the read model split them (Timed:
    Whereabouts.timed, AttentionPanel.timed); the words as they are when they hold none."""
    if around is None:
        return conditional_escape(words)
    before, after, form = Timed(*around)
    shown = when(moment, form)
    if not shown:
        return conditional_escape(words)
    return format_html("{}{}{}", before, shown, after)


@register.filter
def duration(seconds: Any) -> str:
    """Seconds as a developer reads them: 41 ms, 1.8 s, 12 s, 3 min 5 s, 2 h 10 min (on one line)."""
    return time_axis.unbroken(time_axis.duration(seconds))


@register.filter
def lasted(seconds: Any) -> str:
    """Seconds as a person counts them: "under a minute", "45 min", "3 h" (time_axis.lasted), on one line."""
    return time_axis.unbroken(time_axis.lasted(seconds))


@register.filter
def unbroken(words: Any) -> str:
    """Words a read model made of a duration ("45 min"), held on one line as the filters above hold theirs."""
    return time_axis.unbroken(str(words or ""))


@register.filter
def first_line(notes: Any) -> str:
    """A step's notes said in their first line, plain (markdown.first_line): a folded step's answer on a phone."""
    return markdown.first_line(str(notes or ""))


@register.filter
def ms(value: Any) -> str:
    """A duration kept in milliseconds, said as every other duration is: "41 ms", "1.8 s" (on one line)."""
    return time_axis.unbroken(time_axis.milliseconds(value))


@register.filter
def pretty_json(value: Any) -> str:
    """Indented JSON, as text (the template escapes it)."""
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


@register.filter
def compact_json(value: Any) -> str:
    """One-line JSON, as text (the template escapes it)."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str)


@register.filter
def get(mapping: Any, key: Any) -> Any:
    if isinstance(mapping, dict):
        return mapping.get(key, mapping.get(str(key)))
    return None


@register.filter
def panel_of(panels: Any, branch: Any) -> Any:
    """The run page's panel (AttentionPanel) of the shown branch (a BranchOutcomeEntry), if it has one; the
    other branches' panels are folded lines among the other branches."""
    number = getattr(branch, "number", None)
    return next((p for p in panels or [] if number is None or p.branch == number), None)


@register.filter
def steps_counted(detail: RunDetail) -> str:
    """The Steps card's count, said as the timeline and the branch graph say theirs (graph_page.steps_counted)."""
    return graph_page.steps_counted(detail).words


@register.filter
def loop_decisions(artifacts: Any) -> list[str]:
    """The loop decisions among a step's artifacts, as sentences (artifact_tables.loop_decision)."""
    found = (artifact_tables.loop_decision(a) for a in artifacts) if isinstance(artifacts, list) else ()
    return [text for text in found if text is not None]


@register.filter
def without_loop_decisions(artifacts: Any) -> list[Any]:
    """A step's artifacts but its loop decisions, which are shown as sentences instead of JSON."""
    return [a for a in artifacts if artifact_tables.loop_decision(a) is None] if isinstance(artifacts, list) else []


@register.filter
def as_tables(artifacts: Any) -> ArtifactTables:
    """One step's artifacts said as the run page says a branch's (artifact_tables.tables): its changed files and
    findings as tables, the rest as fields; the step's page and the run's list of steps render them alike."""
    return (
        artifact_tables.tables((None, a) for a in artifacts if isinstance(a, dict))
        if isinstance(artifacts, list)
        else artifact_tables.tables([])
    )


@register.filter
def kind_titles(artifacts: Any) -> list[str]:
    """The kinds of a list of artifacts in people's words ("Changed files"), in order, without repeats."""
    return produced.kind_titles(artifacts if isinstance(artifacts, list) else [])


@register.filter
def kind_title(kind: Any) -> str:
    """One artifact kind in people's words: "Changed files" for mr_review.changed_files."""
    return produced.kind_titles([{"kind": kind}])[0]


@register.filter
def produced_parts(detail: RunDetail) -> list[produced.Produced]:
    """What the shown branch produced, for the line under the run's header (runs/readmodels/produced.py)."""
    return produced.of_tables(detail.tables, detail.branch.verdict if detail.branch else None)


@register.filter
def findings_fold(detail: RunDetail) -> fold_lines.FoldLine:
    """The findings' line while their section is folded: "3 findings" · "1 critical, 2 minor" (fold_lines)."""
    return fold_lines.findings(detail.tables, _forked_branch(detail))


@register.filter
def files_fold(detail: RunDetail) -> fold_lines.FoldLine:
    """The changed files' line while their section is folded: "2 changed files" · "1 high risk" (fold_lines)."""
    return fold_lines.changed_files(detail.tables, _forked_branch(detail))


def _forked_branch(detail: RunDetail) -> int | None:
    """The shown branch's number when the run has more than one branch to tell it from, else None."""
    return detail.branch.number if detail.branch and detail.run.branch_count > 1 else None


@register.filter
def branches_line(detail: RunDetail) -> branch_summary.BranchesLine | None:
    """A run of several branches in one line: how it stands, on which branch, and the others (branch_summary)."""
    told = [detail.branch, *detail.other_branches] if detail.branch is not None else detail.other_branches
    counts = next((o for o in told if o.is_newest), told[-1] if told else None)
    back = fork_point.of_tip(detail.graph, counts.tip_node_id) if counts is not None else None
    return branch_summary.line(told, detail.run.state, back)


@register.filter
def others_line(detail: RunDetail) -> branch_summary.OthersLine | None:
    """The run's other branches in one line, for the phone's run card (branch_summary.others_line)."""
    return branch_summary.others_line(detail.branch, detail.other_branches)


@register.filter
def others_listed(detail: RunDetail) -> list[BranchOutcomeEntry]:
    """The other branches the run card lists (branch_summary.listed_others): the latest is the banner's."""
    return branch_summary.listed_others(detail.branch, detail.other_branches)


@register.filter
def said_by_pill(detail: RunDetail) -> tuple[int, ...]:
    """The branches the run card's pill names (Whereabouts.replaced: "Your move · Branch 1 replaced"), whose rows in
    its list of others then say neither that pill nor its instruction again (_branches.html)."""
    where = detail.where
    return where.replaced if where is not None and where.also else ()


@register.filter
def step_title(steps: Any, step_id: Any) -> str:
    """The title of the step `step_id` among a run's recorded steps; the id itself when none has it."""
    for step in steps or []:
        if getattr(step, "step_id", None) == step_id and getattr(step, "kind", "step") != "checkpoint":
            return str(step.title)
    return str(step_id or "")


# --- a workflow's outline ------------------------------------------------------------------------------


@register.filter
def condition_words(condition: Any) -> str:
    """A condition in words for people (runs/readmodels/outline_words.py)."""
    return outline_words.condition_words(condition)


@register.filter
def confirmation_words(rule: Any) -> str:
    return outline_words.confirmation_words(rule)


@register.filter
def loop_words(step: Any) -> SafeString:
    """How a loop repeats, the workflow's own names in code style."""
    return _phrase_html(outline_words.loop_words(step))


@register.filter
def loop_unit(step: Any) -> str:
    """What one round of a loop step is called, as its run's pages call it: "area", else "round"."""
    return outline_words.loop_unit(step) or "round"


@register.filter
def loop_words_plain(step: Any) -> str:
    return outline_words.plain(outline_words.loop_words(step))


@register.filter
def title_words(title: Any) -> str:
    """A step title with no run behind it: placeholders as `[name]`."""
    return outline_words.title_words(str(title or ""))


@register.filter
def fills_in(title: Any) -> bool:
    return outline_words.fills_in(str(title or ""))


@register.filter
def recommendation_words(recommended: Any) -> str:
    return outline_words.recommendation_words(recommended)


@register.filter
def recommendation_does(recommended: Any) -> str:
    return outline_words.recommendation_does(recommended)


@register.filter
def feature_words(features: Any) -> list[outline_words.FeatureWords]:
    return outline_words.feature_words(features)


def _name_html(name: outline_words.Name) -> SafeString:
    """A variable said as words, its name as written on hover; any other name as code."""
    if name.said:
        return format_html('<span class="var-name" title="{}">{}</span>', name.text, name.said)
    return format_html("<code>{}</code>", name.text)


def _phrase_html(phrase: outline_words.Phrase) -> SafeString:
    parts = [_name_html(part) if isinstance(part, outline_words.Name) else conditional_escape(part) for part in phrase]
    return mark_safe("".join(parts))  # every part escaped above


# --- the branch graph of a run ---------------------------------------------------------------------


class GraphContext(TypedDict):
    """What dashboard/_graph.html draws (an inclusion tag's context)."""

    detail: RunDetail
    drawing: SafeString
    state_key: list[graph_drawing.LegendEntry]  # named in one line beside the drawing (a desktop's)
    key_rows: list[graph_page.KeyRow]  # every mark with its meaning, behind the "?", and the widths it shows at
    tag_words: dict[str, str]  # the words of the phone list's "you are viewing"
    heading: str  # the card's heading, over the drawing and over the phone's list alike (graph_page.HEADING)
    glyphs: dict[str, str]  # the shapes of a checkpoint's and a redone step's marks, as the drawing draws them
    sections: list[graph_page.BranchSection]
    stepper: bool  # one branch: its steps as a stepper, no drawing
    upcoming: list[graph_page.Upcoming]  # the stepper's steps still to come
    request: Any  # the page's, so that the key links a glossary word once per page (term)


@register.filter
def session_name(session: Any) -> str:
    """A session (a SessionSummary or SessionDetail) as pages name it: its key, else its title, else its id."""
    return naming.session_name(
        getattr(session, "session_key", None), getattr(session, "title", "") or "", str(session.session_id)
    )


@register.filter
def short_id(value: Any) -> str:
    """A node id as a link text shows it (the full id goes in its title, and in every URL)."""
    return graph_drawing.short_id(value)


@register.inclusion_tag("dashboard/_graph.html", takes_context=True)
def run_graph(context: Context, detail: RunDetail) -> GraphContext:
    """The branch graph as runs/readmodels/graph_page.py laid it out; this tag gives it the URLs."""
    laid_out = graph_page.graph_page(detail, reverse("run", args=[detail.run.run_id]), reverse("node", args=["NODE"]))
    return {
        "detail": detail,
        # The drawing escapes every text it holds (runs/readmodels/graph_drawing.py): safe to insert as is.
        "drawing": mark_safe(laid_out.drawing),
        "state_key": laid_out.state_key,
        "key_rows": laid_out.key_rows,
        "tag_words": graph_drawing.SCREEN_TAGS,
        "heading": graph_page.HEADING,
        "glyphs": {"checkpoint": graph_drawing.CHECKPOINT_GLYPH, "again": graph_drawing.AGAIN_GLYPH},
        "sections": laid_out.listed,
        "stepper": laid_out.stepper,
        "upcoming": laid_out.upcoming or [],
        "request": context.get("request"),
    }


# --- the timeline of a session ---------------------------------------------------------------------


class TimelineContext(TypedDict):
    """What dashboard/_timeline.html prints (an inclusion tag's context)."""

    rows: list[timeline_page.TimelineRow]
    ticks: list[timeline_page.TimelineTick]
    summary: timeline_page.TimelineSummary  # the fold's one line
    clustered: list[str]
    gap: str  # where the axis breaks ("" without a break)
    gap_end: str  # where a break before the axis's end ends ("" for one at the end, or none)
    now: str


@register.inclusion_tag("dashboard/_timeline.html")
def session_timeline(
    detail: SessionDetail, selected_run: str | None, marks: dict[str, list[timeline_marks.NodeMark]]
) -> TimelineContext:
    """The timeline as runs/readmodels/timeline_page.py laid it out; this tag gives it the run and step URLs."""
    laid_out = timeline_page.timeline_page(
        detail, reverse("run", args=["RUN"]), selected_run, marks, timezone.now(), reverse("node", args=["NODE"])
    )
    return {
        "rows": laid_out.rows,
        "ticks": laid_out.ticks,
        "summary": laid_out.summary,
        "clustered": laid_out.clustered,
        "gap": laid_out.gap,
        "gap_end": laid_out.gap_end,
        "now": laid_out.now,
    }


@register.simple_tag
def run_fold(detail: RunDetail, panel: AttentionPanel | None) -> folds.FoldName:
    """The run card's one fold's name and whether it heads its developers' part (readmodels/folds.py)."""
    return folds.run_fold(detail, panel)


@register.filter
def blocked_fold(b: BlockedStep) -> folds.FoldName:
    """A blocked panel's own fold's name, on its step's page (readmodels/folds.py)."""
    return folds.blocked_fold(b)

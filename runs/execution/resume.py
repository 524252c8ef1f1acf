"""resume_session: which run (or checkpoint-only session) should a brand-new chat pick up?

Read-only: it reads the projections and writes nothing (no events, no rows). One candidate per run,
always the run's tip (`SearchEntry.tip`, its latest node), never an interior node; a checkpoint-only
session is a candidate through its own entry and resumes with a sessionToken.

Layers, searched in order, each only while fewer than MAX_CANDIDATES were found; a match in a
lower-numbered layer always ranks above one in a higher-numbered layer:

1. identity: session key, title, tags, workflow id and name (`SearchEntry.identity_text`, plus the
   key, title and workflow id columns to tell exact and prefix matches);
2. recent notes and artifact kinds of the run (`SearchEntry.notes_text`, its last 4,000 characters);
3. deep: the notes of the newest DEEP_SCAN_ROWS step outputs and of the newest DEEP_SCAN_ROWS
   checkpoints, mapped back to their run's tip (or checkpoint-only session);
4. most words: a person types a ticket id and a few words of the task, not all of which are in the
   notes ("PAY-881 refund retries" when the notes say "retry"). Layers 1-3 want every word; this one
   takes entries that contain every ticket-id-like token of the query (ABC-123, #45, build7: letters
   and digits together) and any of the other words, or, without a ticket id and only when layers 1-3
   found nothing, most of the words (all but a third of them, at least 2 of 3 or more). A ticket id
   in the key/title/tags ranks first, then the number of words found. Only the first LOOSE_WORDS
   other words are tested (bounded cost).

Layers 1, 2 and 4 are one SQL query each that returns only its best few rows: a row is scored only
if every query word occurs in the searched text (the word with the rarest first letter is tested
first: SQLite's LIKE skips between occurrences of that letter, and most rows fail on one test), and
the score is computed and sorted in the database. Layer 3 reads each of its two bounded tables once
(a primary-key range), then ranks the matching runs' entries in SQL. Git branch, HEAD sha and
workspace path add a boost inside a layer; with no query they select on their own. Ties go to the
most recently updated entry, then to the session and the run (by row id), so the same inputs on the
same store always give the same order. On SQLite every layer 1-2 query reads all search entries
(about 20-35 ms for 10,000 sessions; bench/resume.py); on PostgreSQL the same `LIKE '%word%'` tests
use trigram indexes on identity_text and notes_text (migration 0009), with the same results.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from functools import reduce
from operator import or_
from typing import Any, NotRequired, TypedDict, cast

from django.conf import settings
from django.db.models import Case, F, IntegerField, Q, QuerySet, Value, When
from django.db.models.functions import Least

from runs.contract.inputs import ResumeSessionInput
from runs.contract.sessions import OtherTip, ResumeCandidate, ResumeQuery, ResumeResult
from runs.models import Checkpoint, Node, Output, SearchEntry, Session, SessionKind
from runs.store import tokens
from runs.store.journal import session_token_id
from runs.store.ownership import visible
from runs.store.projections import SEARCH_NOTES_CHARS
from runs.store.tokens import TokenKind

MAX_CANDIDATES = 5
MAX_OTHER_TIPS = 3  # other branch tips named per candidate
DEEP_SCAN_ROWS = 2000  # how many of the newest outputs, and of the newest checkpoints, layer 3 reads
SNIPPET_CHARS = 200

# score = layer base + match tier + git boost. Tiers step by 100 and the boosts add up to 70 at
# most, so the layer decides first, then the tier, then the boost, then recency.
LAYER_BASE = {1: 3000, 2: 2000, 3: 1000, 4: 0}
EXACT, PREFIX, SUBSTRING, ALL_WORDS = 400, 300, 200, 100  # layer 1
NOTES_PHRASE, NOTES_WORDS, SPLIT_WORDS = 300, 200, 100  # layer 2
DEEP_PHRASE, DEEP_WORDS = 200, 100  # layer 3
TICKET_IN_IDENTITY, PER_WORD, WORDS_COUNTED = 500, 100, 4  # layer 4: ticket id in key/title/tags, each word found
LOOSE_WORDS = 8  # layer 4 tests at most this many words besides the ticket ids
SHA_BOOST, BRANCH_BOOST, WORKSPACE_BOOST = 40, 20, 10

WHAT = {
    1: "session key, title, tags, workflow id and name of every run tip and checkpoint-only session",
    2: f"recent notes and artifact kinds of every run tip and checkpoint-only session (the last "
    f"{SEARCH_NOTES_CHARS} characters of each)",
    3: f"notes of the newest {DEEP_SCAN_ROWS} step outputs and the newest {DEEP_SCAN_ROWS} checkpoints",
    4: "most of the query's words in the identity and recent notes of every run tip and checkpoint-only session "
    "(every ticket id of the query must be there)",
}
# A ticket id: letters then digits, maybe joined by - _ # (PAY-881, gh#12, build7), or #45.
_TICKET = re.compile(r"[a-z][a-z0-9]*[-_#]?[0-9]+|#[0-9]+")
_TOKEN_EDGES = "\"'`.,;:!?()[]{}<>"
_WORD_SPLIT = re.compile(r"[\W_]+")
_LETTER_FREQUENCY = "etaoinshrdlcumwfgypbvkjxqz"  # English, most frequent first
_ENTRY_FIELDS = (
    "id",
    "identity_text",
    "notes_text",
    "git_branch",
    "git_head_sha",
    "workspace_path",
    "updated_at",
    "session__public_id",
    "session__session_key",
    "session__title",
    "session__tags",
    "session__kind",
    "run__public_id",
    "run__workflow_id",
    "run__status",
    "tip__public_id",
    "tip__pending_step_id",
    "tip__is_complete",
    "run_id",
    "session_id",
)
RECENT_NOTES = 12  # notes read back in their own case for a snippet: more than its 200 characters need


@dataclass(frozen=True)
class Inputs:
    phrase: str  # lower-cased, whitespace collapsed; "" when no query
    words: tuple[str, ...]  # in query order, without duplicates
    branch: str
    sha: str
    workspace: str
    tickets: tuple[str, ...] = ()  # ticket-id-like tokens of the query, lower-cased, as written (pay-881)

    @property
    def git(self) -> bool:
        return bool(self.branch or self.sha or self.workspace)

    @property
    def needles(self) -> tuple[str, ...]:
        """What every matching text must contain, cheapest test first: for `LIKE '%word%'` SQLite
        jumps between occurrences of the word's first letter, so a rare first letter scans fastest
        (and a longer word is less often present). A query of punctuation only needs its phrase."""
        if not self.words:
            return (self.phrase,)

        def cost(word: str) -> tuple[int, int, str]:
            rank = _LETTER_FREQUENCY.find(word[0])
            return (-(len(_LETTER_FREQUENCY) if rank < 0 else rank), -len(word), word)

        return tuple(sorted(self.words, key=cost))

    @property
    def loose_words(self) -> tuple[str, ...]:
        """The words layer 4 counts: those not part of a ticket id, at most LOOSE_WORDS."""
        parts = {part for ticket in self.tickets for part in _WORD_SPLIT.split(ticket) if part}
        return tuple(w for w in self.words if w not in parts)[:LOOSE_WORDS]

    @property
    def loose_need(self) -> int | None:
        """How many loose words an entry needs in layer 4; None when layer 4 has nothing to add (a query
        of one ticket id alone, or of fewer than 3 words)."""
        if self.tickets:
            return 0 if self.loose_words else None
        count = len(self.loose_words)
        return count - count // 3 if count >= 3 else None


class _EntryRow(TypedDict):
    """A search entry as `_ENTRY_FIELDS` read it (a `values()` row): its own columns and its
    session's, run's and tip's."""

    id: int
    identity_text: str
    notes_text: str
    git_branch: str
    git_head_sha: str
    workspace_path: str
    updated_at: datetime
    session__public_id: str
    session__session_key: str | None
    session__title: str
    session__tags: list[str] | None
    session__kind: str
    run__public_id: str | None
    run__workflow_id: str | None
    run__status: str | None
    tip__public_id: int | None
    tip__pending_step_id: str | None
    tip__is_complete: bool | None
    run_id: int | None
    session_id: int


class LayerReport(TypedDict):
    """What one search layer read and found (or why it was skipped): an entry of `searched.layers`."""

    layer: int
    searched: str
    rowsRead: NotRequired[int]
    candidates: NotRequired[int]
    moreMatches: NotRequired[bool]
    outputsRead: NotRequired[int]  # layer 3 reads step outputs and checkpoints, not entries
    checkpointsRead: NotRequired[int]
    capped: NotRequired[bool]
    skipped: NotRequired[str]


class Searched(TypedDict):
    """What the search read and found: the answer's `searched`."""

    entries: int
    maxCandidates: int
    layers: list[LayerReport]
    noCandidates: NotRequired[str]


@dataclass
class _Hit:
    entry_id: int
    score: int
    layer: int
    deep_notes: str = ""  # layer 3: the matching notes, original case
    deep_where: str = ""  # layer 3: which step or checkpoint they came from


def resume_session(request: ResumeSessionInput) -> ResumeResult:
    """Up to MAX_CANDIDATES runs (or checkpoint-only sessions) to resume, best first, with what was
    searched. Reads only."""
    inputs = normalize(request.query, request.git_branch, request.git_head_sha, request.workspace_path)
    searched: Searched = {"entries": _entries().count(), "maxCandidates": MAX_CANDIDATES, "layers": []}
    if inputs.phrase:
        hits = _search_text(inputs, searched)
        why_none = "no run tip or checkpoint-only session matches the query" if not hits else None
    elif inputs.git:
        hits = _search_git(inputs, searched)
        why_none = "no run tip was last seen on that git branch, HEAD or workspace" if not hits else None
    else:
        hits = _recent(searched)
        why_none = "the store has no runs or sessions yet" if not hits else None
    if why_none:
        searched["noCandidates"] = why_none
    return ResumeResult(
        candidates=_candidates(hits, inputs),
        searched=searched,
        query=ResumeQuery(
            query=inputs.phrase or None,
            words=list(inputs.words),
            git_branch=inputs.branch or None,
            git_head_sha=inputs.sha or None,
            workspace_path=inputs.workspace or None,
        ),
    )


def _entries() -> QuerySet[SearchEntry]:
    """The search entries this request may resume: over an owner, its own sessions and those nobody owns."""
    return SearchEntry.objects.filter(visible("session__"))


def normalize(query: str | None, branch: str | None, sha: str | None, workspace: str | None) -> Inputs:
    """Lower-case the query and collapse its whitespace (the phrase); split it on whitespace and
    punctuation into words, dropping empties. Git inputs are trimmed; a trailing slash on the
    workspace path is dropped."""
    phrase = " ".join((query or "").lower().split())
    words = tuple(dict.fromkeys(w for w in _WORD_SPLIT.split(phrase) if w))
    tickets = tuple(
        dict.fromkeys(
            token for token in (raw.strip(_TOKEN_EDGES) for raw in phrase.split()) if _TICKET.fullmatch(token)
        )
    )
    path = (workspace or "").strip()
    if len(path) > 1:
        path = path.rstrip("/\\") or path
    return Inputs(phrase, words, (branch or "").strip(), (sha or "").strip().lower(), path, tickets)


# --- layers 1 and 2: the search entries ------------------------------------------------------------------


def _all_in(field_name: str, needles: tuple[str, ...], lookup: str = "contains") -> Q:
    return reduce(lambda q, needle: q & Q(**{f"{field_name}__{lookup}": needle}), needles, Q())


def _each_in_identity_or_notes(inputs: Inputs) -> Q:
    return reduce(
        lambda q, needle: q & (Q(identity_text__contains=needle) | Q(notes_text__contains=needle)),
        inputs.needles,
        Q(),
    )


def _identity_tier(inputs: Inputs) -> Case:
    """Layer 1 (rows whose identity holds every word): exact > prefix > substring > all words."""
    phrase, base = inputs.phrase, LAYER_BASE[1]
    exact = (
        Q(session__session_key__iexact=phrase) | Q(session__title__iexact=phrase) | Q(run__workflow_id__iexact=phrase)
    )
    prefix = (
        Q(identity_text__startswith=phrase)
        | Q(session__session_key__istartswith=phrase)
        | Q(session__title__istartswith=phrase)
        | Q(run__workflow_id__istartswith=phrase)
    )
    # Exact and prefix also need the phrase in the identity text, so a case-folding difference
    # between the database and Python cannot lift a row above the substring tier.
    in_identity = Q(identity_text__contains=phrase)
    return Case(
        When(in_identity & exact, then=Value(base + EXACT)),
        When(in_identity & prefix, then=Value(base + PREFIX)),
        When(in_identity, then=Value(base + SUBSTRING)),
        default=Value(base + ALL_WORDS),
        output_field=IntegerField(),
    )


def _notes_tier(inputs: Inputs) -> Case:
    """Layer 2 (the other rows with every word in their identity or notes): the phrase in the notes >
    every word in the notes > the words split between identity and notes."""
    base = LAYER_BASE[2]
    cases = [When(notes_text__contains=inputs.phrase, then=Value(base + NOTES_PHRASE))]
    if inputs.words and inputs.words != (inputs.phrase,):
        cases.append(When(_all_in("notes_text", inputs.needles), then=Value(base + NOTES_WORDS)))
    return Case(*cases, default=Value(base + SPLIT_WORDS), output_field=IntegerField())


def _boost(inputs: Inputs) -> Any:
    """The git boost, as an SQL expression on the entry's own columns (Value(0) without git input)."""
    total: Any = Value(0)
    for wanted, matches, boost in (
        (inputs.sha, Q(git_head_sha__startswith=inputs.sha), SHA_BOOST),
        (inputs.branch, Q(git_branch=inputs.branch), BRANCH_BOOST),
        (inputs.workspace, Q(workspace_path=inputs.workspace), WORKSPACE_BOOST),
    ):
        if wanted:
            total = total + Case(When(matches, then=Value(boost)), default=Value(0), output_field=IntegerField())
    return total


def _git_match(inputs: Inputs) -> Q:
    wanted = [
        q
        for given, q in (
            (inputs.sha, Q(git_head_sha__startswith=inputs.sha)),
            (inputs.branch, Q(git_branch=inputs.branch)),
            (inputs.workspace, Q(workspace_path=inputs.workspace)),
        )
        if given
    ]
    return reduce(or_, wanted)


def _best(queryset: QuerySet[SearchEntry], score: Any, room: int) -> tuple[list[tuple[int, int]], bool]:
    """The `room` best (entry id, score) pairs, and whether more rows matched. Ties: most recently
    updated first, then by session and run row id (the entry's own columns: no join to sort)."""
    rows = list(
        queryset.annotate(score=score)
        .order_by(F("score").desc(), F("updated_at").desc(), F("session_id").asc(), F("run_id").asc(nulls_first=True))
        .values_list("id", "score")[: room + 1]
    )
    return rows[:room], len(rows) > room


def _layer_report(layer: int, rows_read: int, found: int, more: bool) -> LayerReport:
    return {"layer": layer, "searched": WHAT[layer], "rowsRead": rows_read, "candidates": found, "moreMatches": more}


def _skipped(layer: int, why: str) -> LayerReport:
    return {"layer": layer, "searched": WHAT[layer], "skipped": why}


def _search_text(inputs: Inputs, searched: Searched) -> list[_Hit]:
    entries = searched["entries"]
    in_identity = _all_in("identity_text", inputs.needles)
    rows, more = _best(_entries().filter(in_identity), _identity_tier(inputs) + _boost(inputs), MAX_CANDIDATES)
    hits = [_Hit(entry_id, score, 1) for entry_id, score in rows]
    searched["layers"].append(_layer_report(1, entries, len(rows), more))
    if len(hits) == MAX_CANDIDATES:
        full = f"layer 1 already gave {MAX_CANDIDATES} candidates"
        searched["layers"] += [_skipped(2, full), _skipped(3, full)]
        return hits
    rows, more = _best(
        _entries().filter(_each_in_identity_or_notes(inputs)).exclude(in_identity),
        _notes_tier(inputs) + _boost(inputs),
        MAX_CANDIDATES - len(hits),
    )
    hits += [_Hit(entry_id, score, 2) for entry_id, score in rows]
    searched["layers"].append(_layer_report(2, entries, len(rows), more))
    if len(hits) == MAX_CANDIDATES:
        searched["layers"].append(_skipped(3, f"layers 1-2 already gave {MAX_CANDIDATES} candidates"))
        return hits
    hits += _search_deep(inputs, searched, exclude=[h.entry_id for h in hits])
    if len(hits) == MAX_CANDIDATES:
        searched["layers"].append(_skipped(4, f"layers 1-3 already gave {MAX_CANDIDATES} candidates"))
        return hits
    return hits + _search_loose(inputs, searched, exclude=[h.entry_id for h in hits])


# --- layer 4: most words, ticket ids first ---------------------------------------------------------------


def _in_entry(needle: str) -> Q:
    return Q(identity_text__contains=needle) | Q(notes_text__contains=needle)


def _search_loose(inputs: Inputs, searched: Searched, *, exclude: list[int]) -> list[_Hit]:
    """Entries with every ticket id of the query and the most of its other words (layer 4)."""
    need = inputs.loose_need
    if need is None:
        why = "a ticket id and no other word" if inputs.tickets else "fewer than 3 words and no ticket id"
        searched["layers"].append(_skipped(4, f"nothing to add for {why}"))
        return []
    if not inputs.tickets and exclude:
        # Without a ticket id, most-words matches are worth their cost (several LIKEs a row) only
        # when no entry holds every word.
        searched["layers"].append(
            _skipped(4, "layers 1-3 found entries with every word, and the query has no ticket id")
        )
        return []
    words = inputs.loose_words
    found: Any = Value(0)
    for word in words:
        found = found + Case(When(_in_entry(word), then=Value(1)), default=Value(0), output_field=IntegerField())
    queryset = _entries().exclude(id__in=exclude)
    if inputs.tickets:
        queryset = queryset.filter(reduce(lambda q, ticket: q & _in_entry(ticket), inputs.tickets, Q()))
        in_identity = reduce(lambda q, ticket: q & Q(identity_text__contains=ticket), inputs.tickets, Q())
        tier: Any = Case(
            When(in_identity, then=Value(TICKET_IN_IDENTITY)), default=Value(0), output_field=IntegerField()
        )
    else:
        # An entry with `need` of the words holds one of any len(words) - need + 1 of them: test the
        # cheapest few first (most rows have none), and count the words only on the rows that pass.
        cheapest = [w for w in Inputs(inputs.phrase, words, "", "", "").needles][: len(words) - need + 1]
        queryset = queryset.filter(reduce(or_, (_in_entry(w) for w in cheapest)))
        tier = Value(0)
    queryset = queryset.annotate(found=found)
    if need:
        queryset = queryset.filter(found__gte=need)
    score = Value(LAYER_BASE[4]) + tier + Least(F("found"), Value(WORDS_COUNTED)) * Value(PER_WORD) + _boost(inputs)
    rows, more = _best(queryset, score, MAX_CANDIDATES - len(exclude))
    searched["layers"].append(_layer_report(4, searched["entries"], len(rows), more))
    return [_Hit(entry_id, value, 4) for entry_id, value in rows]


def _tier_of(score: int, layer: int) -> int:
    """The match tier inside a score (the boost is under 100)."""
    tier = score - LAYER_BASE[layer]
    return tier - tier % 100


# --- layer 3: bounded deep search ---------------------------------------------------------------------------


def _newest(model: type[Output] | type[Checkpoint]) -> tuple[QuerySet[Any], int, bool]:
    """The newest DEEP_SCAN_ROWS rows (by id: the primary key bounds the scan), how many that is,
    and whether older rows were left out."""
    edge = list(model.objects.order_by("-id").values_list("id", flat=True)[DEEP_SCAN_ROWS - 1 : DEEP_SCAN_ROWS + 1])
    if edge:
        return model.objects.filter(id__gte=edge[0]), DEEP_SCAN_ROWS, len(edge) > 1
    return model.objects.all(), model.objects.count(), False


def _deep_match(inputs: Inputs, *, phrase: bool) -> Q:
    # icontains: notes_markdown keeps the agent's own case.
    return _all_in("notes_markdown", (inputs.phrase,) if phrase else inputs.needles, lookup="icontains")


@dataclass
class _DeepOwner:
    """What the deep layer found for one run (or checkpoint-only session)."""

    phrase: bool = False  # some matching notes hold the whole phrase
    newest: tuple[Any, int, str, int] | None = None  # (created_at, rank, table, row id) of the newest match
    newest_phrase: tuple[Any, int, str, int] | None = None  # the same among notes holding the phrase


def _search_deep(inputs: Inputs, searched: Searched, *, exclude: list[int]) -> list[_Hit]:
    """One scan of the newest outputs and one of the newest checkpoints find the matching notes (and
    whether they hold the whole phrase); the entries of their runs are then ranked in SQL."""
    room = MAX_CANDIDATES - len(exclude)
    outputs, outputs_read, outputs_capped = _newest(Output)
    checkpoints, checkpoints_read, checkpoints_capped = _newest(Checkpoint)
    words = _deep_match(inputs, phrase=False)
    has_phrase = Case(
        When(_deep_match(inputs, phrase=True), then=Value(1)), default=Value(0), output_field=IntegerField()
    )
    found: dict[tuple[str, int], _DeepOwner] = {}  # ("run", run id) or ("session", session id)
    for table, rank, rows in (
        (
            "output",
            1,
            outputs.filter(words).annotate(p=has_phrase).values_list("id", "created_at", "node__run_id", "p"),
        ),
        (
            "checkpoint",
            0,
            checkpoints.filter(words)
            .annotate(p=has_phrase)
            .values_list("id", "created_at", "node__run_id", "p", "session_id"),
        ),
    ):
        for row in rows:
            pk, created, run_id, phrase = row[:4]
            owner = found.setdefault(("run", run_id) if run_id is not None else ("session", row[4]), _DeepOwner())
            stamp = (created, rank, table, pk)  # the max is the newest; at the same time a step output wins
            owner.newest = max(owner.newest or stamp, stamp)
            if phrase:
                owner.phrase = True
                owner.newest_phrase = max(owner.newest_phrase or stamp, stamp)
    run_ids = [ident for kind, ident in found if kind == "run"]
    session_ids = [ident for kind, ident in found if kind == "session"]
    phrase_runs = [ident for (kind, ident), owner in found.items() if kind == "run" and owner.phrase]
    phrase_sessions = [ident for (kind, ident), owner in found.items() if kind == "session" and owner.phrase]
    tier = Case(
        When(
            Q(run_id__in=phrase_runs) | Q(run__isnull=True, session_id__in=phrase_sessions),
            then=Value(LAYER_BASE[3] + DEEP_PHRASE),
        ),
        default=Value(LAYER_BASE[3] + DEEP_WORDS),
        output_field=IntegerField(),
    )
    rows, more = [], False
    if found:
        rows, more = _best(
            _entries()
            .filter(Q(run_id__in=run_ids) | Q(run__isnull=True, session_id__in=session_ids))
            .exclude(id__in=exclude),
            tier + _boost(inputs),
            room,
        )
    report = _layer_report(3, outputs_read + checkpoints_read, len(rows), more)
    report["outputsRead"] = outputs_read
    report["checkpointsRead"] = checkpoints_read
    report["capped"] = outputs_capped or checkpoints_capped
    if report["capped"]:
        report["searched"] += " (older ones were not read)"
    searched["layers"].append(report)
    return _deep_hits(rows, found)


def _deep_hits(rows: list[tuple[int, int]], found: dict[tuple[str, int], _DeepOwner]) -> list[_Hit]:
    """The hits, each with the newest matching notes of its owner (preferring those with the phrase)."""
    owners = {
        entry_id: ("run", run_id) if run_id is not None else ("session", session_id)
        for entry_id, run_id, session_id in _entries()
        .filter(id__in=[r[0] for r in rows])
        .values_list("id", "run_id", "session_id")
    }
    chosen: dict[int, tuple[str, int]] = {}  # entry id -> (table, row id) of the notes to show
    for entry_id, score in rows:
        owner = found[owners[entry_id]]
        stamp = owner.newest_phrase if _tier_of(score, 3) == DEEP_PHRASE and owner.newest_phrase else owner.newest
        if stamp is not None:
            chosen[entry_id] = (stamp[2], stamp[3])
    wanted = {table: [pk for kind, pk in chosen.values() if kind == table] for table in ("output", "checkpoint")}
    notes: dict[tuple[str, int], tuple[str, str]] = {}
    for pk, text, step_id in Output.objects.filter(id__in=wanted["output"]).values_list(
        "id", "notes_markdown", "step_id"
    ):
        notes[("output", pk)] = (text, f"step {step_id}")
    for pk, text in Checkpoint.objects.filter(id__in=wanted["checkpoint"]).values_list("id", "notes_markdown"):
        notes[("checkpoint", pk)] = (text, "a checkpoint")
    hits = []
    for entry_id, score in rows:
        hit = _Hit(entry_id, score, 3)
        if entry_id in chosen:
            hit.deep_notes, hit.deep_where = notes.get(chosen[entry_id], ("", ""))
        hits.append(hit)
    return hits


# --- git only, and no input at all ---------------------------------------------------------------------------


def _search_git(inputs: Inputs, searched: Searched) -> list[_Hit]:
    rows, more = _best(_entries().filter(_git_match(inputs)), _boost(inputs), MAX_CANDIDATES)
    report = _layer_report(1, searched["entries"], len(rows), more)
    report["searched"] = "git branch, HEAD sha and workspace path last observed on every run tip"
    searched["layers"] += [report, _skipped(2, "no query"), _skipped(3, "no query")]
    return [_Hit(entry_id, LAYER_BASE[1] + score, 1) for entry_id, score in rows]


def _recent(searched: Searched) -> list[_Hit]:
    ids = list(
        _entries()
        .order_by(F("updated_at").desc(), F("session_id").asc(), F("run_id").asc(nulls_first=True))
        .values_list("id", flat=True)[:MAX_CANDIDATES]
    )
    report = _layer_report(1, len(ids), len(ids), searched["entries"] > len(ids))
    report["searched"] = "nothing to match (no query, no git input): the most recently updated entries"
    searched["layers"] += [report, _skipped(2, "no query"), _skipped(3, "no query")]
    return [_Hit(entry_id, LAYER_BASE[1], 1) for entry_id in ids]


# --- candidates ------------------------------------------------------------------------------------------------


def _candidates(hits: list[_Hit], inputs: Inputs) -> list[ResumeCandidate]:
    if not hits:
        return []
    found = _entries().filter(id__in=[h.entry_id for h in hits]).values(*_ENTRY_FIELDS)
    rows = {row["id"]: cast(_EntryRow, row) for row in found}
    return [_candidate(hit, rows[hit.entry_id], inputs) for hit in hits if hit.entry_id in rows]


def _candidate(hit: _Hit, row: _EntryRow, inputs: Inputs) -> ResumeCandidate:
    home = settings.WORKRAIL_HOME
    tip = row["tip__public_id"]
    session_token = None
    if row["run__public_id"] is None and row["session__kind"] == SessionKind.CHECKPOINT_ONLY:
        session = Session(public_id=row["session__public_id"])  # unsaved: only its public id is read
        session_token = tokens.mint(home, TokenKind.SESSION, session_token_id(session))
    candidate = ResumeCandidate(
        session_id=row["session__public_id"],
        session_key=row["session__session_key"],
        title=row["session__title"],
        run_id=row["run__public_id"],
        workflow_id=row["run__workflow_id"],
        status=row["run__status"],
        state_token=tokens.mint(home, TokenKind.STATE, tip) if tip is not None else None,
        session_token=session_token,
        pending_step_id=(row["tip__pending_step_id"] or None) if tip is not None else None,
        is_complete=bool(row["tip__is_complete"]) if tip is not None else False,
        updated_at=row["updated_at"].isoformat(),
        snippet=_snippet(hit, row, inputs),
        why_matched=_why(hit, row, inputs),
        layer=hit.layer,
        score=hit.score,
    )
    others = _other_tips(row["run_id"], tip) if tip is not None and row["run_id"] is not None else None
    if others is not None:  # set only when there are some: the answer leaves them out otherwise
        candidate.other_tips, candidate.other_tip_count = others
    return candidate


def _other_tips(run_pk: int, tip: int) -> tuple[list[OtherTip], int] | None:
    """The run's other branch tips, newest first, and how many there are: the candidate resumes the
    newest tip, and a chat that was rewound may have left the work it means on another branch."""
    leaves = Node.objects.filter(run_id=run_pk, children__isnull=True).exclude(public_id=tip)
    newest = list(
        leaves.order_by("-created_at", "-pk").values_list("public_id", "pending_step_id", "is_complete", "created_at")[
            :MAX_OTHER_TIPS
        ]
    )
    if not newest:
        return None
    home = settings.WORKRAIL_HOME
    tips = [
        OtherTip(
            state_token=tokens.mint(home, TokenKind.STATE, public_id),
            pending_step_id=pending or None,
            is_complete=complete,
            updated_at=created.isoformat(),
        )
        for public_id, pending, complete, created in newest
    ]
    return tips, len(newest) if len(newest) < MAX_OTHER_TIPS else leaves.count()


def _why(hit: _Hit, row: _EntryRow, inputs: Inputs) -> list[str]:
    why: list[str] = []
    tier = _tier_of(hit.score, hit.layer)
    identity = row["identity_text"] or ""
    if not inputs.phrase and not inputs.git:
        why.append("among the most recently updated")
    elif inputs.phrase and hit.layer == 1:
        why.append(_identity_why(tier, row, inputs))
    elif inputs.phrase and hit.layer == 2:
        if tier == NOTES_PHRASE:
            why.append(f"notes mention '{inputs.phrase}'")
        elif tier == NOTES_WORDS:
            why.append(f"notes mention {_listing(inputs.words)}")
        else:
            in_identity = [w for w in inputs.words if w in identity]
            in_notes = [w for w in inputs.words if w not in identity]
            why.append(f"key/title/tags/workflow mention {_listing(in_identity)}, notes mention {_listing(in_notes)}")
    elif inputs.phrase and hit.layer == 4:
        why.append(_loose_why(row, inputs))
    elif inputs.phrase:
        found = f"'{inputs.phrase}'" if tier == DEEP_PHRASE else _listing(inputs.words)
        why.append(f"older notes ({hit.deep_where or 'a step'}) mention {found}")
    if inputs.branch and row["git_branch"] == inputs.branch:
        why.append(f"same git branch {inputs.branch}")
    if inputs.sha and row["git_head_sha"].startswith(inputs.sha):
        why.append(f"same git HEAD {row['git_head_sha'][:12]}")
    if inputs.workspace and row["workspace_path"] == inputs.workspace:
        why.append(f"same workspace {inputs.workspace}")
    return why


def _identity_why(tier: int, row: _EntryRow, inputs: Inputs) -> str:
    phrase = inputs.phrase
    fields = [
        ("session key", (row["session__session_key"] or "").lower()),
        ("title", (row["session__title"] or "").lower()),
        ("workflow id", (row["run__workflow_id"] or "").lower()),
    ]
    if tier == EXACT:
        named = [f"{name} is '{phrase}'" for name, value in fields if value == phrase]
    elif tier == PREFIX:
        named = [f"{name} starts with '{phrase}'" for name, value in fields if value.startswith(phrase)]
    elif tier == SUBSTRING:
        named = [f"{name} contains '{phrase}'" for name, value in fields if phrase in value]
        named += [
            f"tag '{tag}' contains '{phrase}'" for tag in row["session__tags"] or [] if phrase in str(tag).lower()
        ]
    else:
        return f"key/title/tags/workflow mention {_listing(inputs.words)}"
    return "; ".join(named) if named else f"key/title/tags/workflow name contain '{phrase}'"


def _loose_why(row: _EntryRow, inputs: Inputs) -> str:
    """Which of the query's ticket ids and words layer 4 found where, and which it did not find."""
    identity, notes = row["identity_text"] or "", row["notes_text"] or ""
    parts = []
    for where, text in (("key/title/tags/workflow", identity), ("notes", notes)):
        named = [f"ticket {t}" for t in inputs.tickets if t in text and (where != "notes" or t not in identity)]
        named += [f"'{w}'" for w in inputs.loose_words if w in text and (where != "notes" or w not in identity)]
        if named:
            parts.append(f"{where} mention {', '.join(named)}")
    missing = [w for w in inputs.loose_words if w not in identity and w not in notes]
    if missing:
        parts.append(f"not found: {_listing(missing)}")
    return "; ".join(parts)


def _listing(words: tuple[str, ...] | list[str]) -> str:
    return ", ".join(f"'{w}'" for w in words)


def _snippet(hit: _Hit, row: _EntryRow, inputs: Inputs) -> str:
    """Around the match in the notes for layers 2 and 3; otherwise the end of the latest notes."""
    if hit.layer == 3 and hit.deep_notes:
        return _around(hit.deep_notes, hit.deep_notes.lower(), inputs)
    # The search entry keeps its notes lower-cased for matching; the snippet quotes them as written.
    notes = _recent_notes(row) or row["notes_text"] or ""
    lowered = notes.lower()
    if hit.layer == 2 and (inputs.phrase in lowered or any(word in lowered for word in inputs.words)):
        return _around(notes, lowered, inputs)
    if hit.layer == 2:  # the match is older than the notes read back: quote the entry itself
        return _around(row["notes_text"] or "", row["notes_text"] or "", inputs)
    if hit.layer == 4 and inputs.phrase:
        present = [w for w in (*inputs.tickets, *inputs.loose_words) if w in lowered]
        if present:
            return _around(notes, lowered, Inputs(present[0], tuple(present), "", "", ""))
    text = " ".join(notes.split())
    if len(text) <= SNIPPET_CHARS:
        return text
    tail = text[-(SNIPPET_CHARS - 1) :]
    space = tail.find(" ")
    if 0 <= space < SNIPPET_CHARS // 4:
        tail = tail[space + 1 :]  # start on a whole word
    return "…" + tail


def _recent_notes(row: _EntryRow) -> str:
    """The newest notes of the entry's run (or of its checkpoint-only session), oldest first, as written."""
    if row["run_id"] is not None:
        outputs = Output.objects.filter(node__run_id=row["run_id"]).exclude(notes_markdown="")
        checkpoints = Checkpoint.objects.filter(node__run_id=row["run_id"]).exclude(notes_markdown="")
    else:
        outputs = Output.objects.none()
        checkpoints = Checkpoint.objects.filter(session_id=row["session_id"], node__isnull=True)
    found = [
        *outputs.order_by("-created_at", "-pk").values_list("created_at", "pk", "notes_markdown")[:RECENT_NOTES],
        *checkpoints.order_by("-created_at", "-pk").values_list("created_at", "pk", "notes_markdown")[:RECENT_NOTES],
    ]
    return "\n".join(text for _, _, text in sorted(found)[-RECENT_NOTES:])


def _around(text: str, lowered: str, inputs: Inputs) -> str:
    """At most SNIPPET_CHARS characters of `text` around the newest mention: the last occurrence of
    the phrase, or else the latest of the words' last occurrences (`lowered` is `text` lower-cased,
    same length; notes are appended oldest first, so later is newer)."""
    at = lowered.rfind(inputs.phrase) if inputs.phrase else -1
    if at < 0:
        at = max((lowered.rfind(word) for word in inputs.words), default=-1)
    at = max(at, 0)
    start = max(0, at - SNIPPET_CHARS // 3)
    while start > 0 and not text[start - 1].isspace() and at - start < SNIPPET_CHARS // 2:
        start -= 1  # do not cut a word in two at the start
    body = " ".join(text[start : start + SNIPPET_CHARS * 2].split())
    lead = "…" if start > 0 else ""
    room = SNIPPET_CHARS - len(lead)
    if len(body) > room or start + SNIPPET_CHARS * 2 < len(text):
        body = body[: room - 1] + "…"
    return lead + body

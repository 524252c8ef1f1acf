"""resume_session: which run (or checkpoint-only session) should a brand-new chat pick up?

Read-only: it reads the projections and writes nothing (no events, no rows). One candidate per run,
always the run's tip (`SearchEntry.tip`, its latest node), never an interior node; checkpoint-only
sessions are candidates through their own entry and resume with a sessionToken.

Layers, searched in this order; a match in a lower layer always ranks above one in a higher layer:

1. identity: session key, title, tags, workflow id and name (`SearchEntry.identity_text`, and the
   key, title and workflow id columns for exact and prefix matches);
2. recent notes and artifact kinds on the run (`SearchEntry.notes_text`, the last 4,000 characters);
3. deep: notes of the newest DEEP_SCAN_ROWS step outputs and checkpoints, only when layers 1-2 found
   fewer than MAX_CANDIDATES.

Layers 1 and 2 are one pass over the search entries: a row is read only if every query word occurs
in its identity or its notes (words are tested longest first, so most rows fail on the first test),
and the score of the rows that pass is computed in SQL with the best-ranked MAX_CANDIDATES returned.
Git branch, HEAD sha and workspace path add a boost within a layer; with no query they select on
their own. Ties go to the most recently updated entry, then to the session and run ids, so the same
inputs give the same order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db.models import Case, Count, F, IntegerField, Q, QuerySet, Value, When, Window

from runs import tokens
from runs.eventlog import session_token_id
from runs.models import Checkpoint, Output, SearchEntry, Session, SessionKind
from runs.projections import SEARCH_NOTES_CHARS
from runs.tokens import TokenKind

MAX_CANDIDATES = 5
DEEP_SCAN_ROWS = 2000  # newest outputs, and newest checkpoints, read by the deep layer
SNIPPET_CHARS = 200

# Score = layer base + match tier + git boost. Tiers step by 100 and boosts add up to at most 70, so
# the layer decides first, then the tier, then the boost.
LAYER_BASE = {1: 3000, 2: 2000, 3: 1000}
EXACT, PREFIX, SUBSTRING, ALL_WORDS = 400, 300, 200, 100  # layer 1 tiers
NOTES_PHRASE, NOTES_WORDS, SPLIT_WORDS = 300, 200, 100  # layer 2 tiers
DEEP_PHRASE, DEEP_WORDS = 200, 100  # layer 3 tiers
SHA_BOOST, BRANCH_BOOST, WORKSPACE_BOOST = 40, 20, 10

_WORD_SPLIT = re.compile(r"[\W_]+")
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
)


@dataclass(frozen=True)
class Inputs:
    phrase: str
    words: tuple[str, ...]  # in query order, without duplicates
    branch: str
    sha: str
    workspace: str

    @property
    def git(self) -> bool:
        return bool(self.branch or self.sha or self.workspace)

    @property
    def filter_words(self) -> tuple[str, ...]:
        """Longest first: a long word is rarely present, so most rows fail the first test."""
        return tuple(sorted(self.words, key=lambda w: (-len(w), w)))


@dataclass
class _Hit:
    entry_id: int
    score: int
    layer: int
    snippet_source: str = ""  # deep layer: the matching notes (original case)
    deep_where: str = ""  # deep layer: which step or checkpoint matched
    extra_why: list[str] = field(default_factory=list)


def resume_session(
    query: str | None = None,
    gitBranch: str | None = None,
    gitHeadSha: str | None = None,
    workspacePath: str | None = None,
) -> dict[str, Any]:
    inputs = normalize(query, gitBranch, gitHeadSha, workspacePath)
    entries = SearchEntry.objects.count()
    searched: dict[str, Any] = {"entries": entries, "layers": [], "maxCandidates": MAX_CANDIDATES}
    if inputs.phrase:
        hits = _search_text(inputs, searched)
    elif inputs.git:
        hits = _search_git(inputs, searched)
    else:
        hits = _recent(searched)
    return {
        "candidates": _candidates(hits, inputs),
        "searched": searched,
        "query": {
            "query": inputs.phrase or None,
            "words": list(inputs.words),
            "gitBranch": inputs.branch or None,
            "gitHeadSha": inputs.sha or None,
            "workspacePath": inputs.workspace or None,
        },
    }


def normalize(query: str | None, branch: str | None, sha: str | None, workspace: str | None) -> Inputs:
    phrase = " ".join((query or "").lower().split())
    words = tuple(dict.fromkeys(w for w in _WORD_SPLIT.split(phrase) if w))
    path = (workspace or "").strip()
    if len(path) > 1:
        path = path.rstrip("/\\") or path
    return Inputs(
        phrase=phrase,
        words=words,
        branch=(branch or "").strip(),
        sha=(sha or "").strip().lower(),
        workspace=path,
    )


# --- layers 1 and 2: one pass over the search entries ----------------------------------------------------


def _all_in(field_name: str, inputs: Inputs) -> Q:
    """Every query word (or, for a query of punctuation only, the phrase) occurs in the field."""
    q = Q()
    for word in inputs.filter_words or (inputs.phrase,):
        q &= Q(**{f"{field_name}__contains": word})
    return q


def _text_filter(inputs: Inputs) -> Q:
    """The rows layers 1-2 can match: each word is in the identity or in the notes. A phrase match
    or a layer-1 match implies this (every word is a substring of the phrase)."""
    q = Q()
    for word in inputs.filter_words or (inputs.phrase,):
        q &= Q(identity_text__contains=word) | Q(notes_text__contains=word)
    return q


def _identity_tier_cases(phrase: str) -> list[When]:
    base = LAYER_BASE[1]
    exact = (
        Q(session__session_key__iexact=phrase) | Q(session__title__iexact=phrase) | Q(run__workflow_id__iexact=phrase)
    )
    prefix = (
        Q(session__session_key__istartswith=phrase)
        | Q(session__title__istartswith=phrase)
        | Q(run__workflow_id__istartswith=phrase)
        | Q(identity_text__startswith=phrase)
    )
    # Exact and prefix matches on the columns also need the phrase in the identity text, so that a
    # case-folding difference between the database and Python cannot change the layer.
    in_identity = Q(identity_text__contains=phrase)
    return [
        When(in_identity & exact, then=Value(base + EXACT)),
        When(in_identity & prefix, then=Value(base + PREFIX)),
        When(in_identity, then=Value(base + SUBSTRING)),
    ]


def _tier(inputs: Inputs) -> Case:
    cases = _identity_tier_cases(inputs.phrase)
    if inputs.words:
        cases.append(When(_all_in("identity_text", inputs), then=Value(LAYER_BASE[1] + ALL_WORDS)))
    cases.append(When(notes_text__contains=inputs.phrase, then=Value(LAYER_BASE[2] + NOTES_PHRASE)))
    if inputs.words:
        cases.append(When(_all_in("notes_text", inputs), then=Value(LAYER_BASE[2] + NOTES_WORDS)))
    return Case(*cases, default=Value(LAYER_BASE[2] + SPLIT_WORDS), output_field=IntegerField())


def _boost(inputs: Inputs) -> Any:
    """The git boost as an SQL expression (0 when no git input was given)."""
    parts: list[Any] = []
    if inputs.sha:
        parts.append(Case(When(git_head_sha__startswith=inputs.sha, then=Value(SHA_BOOST)), default=Value(0)))
    if inputs.branch:
        parts.append(Case(When(git_branch=inputs.branch, then=Value(BRANCH_BOOST)), default=Value(0)))
    if inputs.workspace:
        parts.append(Case(When(workspace_path=inputs.workspace, then=Value(WORKSPACE_BOOST)), default=Value(0)))
    total: Any = Value(0)
    for part in parts:
        total = total + part
    return total


def _ranked(queryset: QuerySet[SearchEntry]) -> QuerySet[SearchEntry]:
    return queryset.order_by(
        F("score").desc(),
        F("updated_at").desc(),
        F("session__public_id").asc(),
        F("run__public_id").asc(nulls_first=True),
    )


def _search_text(inputs: Inputs, searched: dict[str, Any]) -> list[_Hit]:
    identity_matches = SearchEntry.objects.filter(_all_in("identity_text", inputs)).count()
    rows = list(
        _ranked(
            SearchEntry.objects.filter(_text_filter(inputs))
            .annotate(score=_tier(inputs) + _boost(inputs), matched=Window(Count("pk")))
            .values_list("id", "score", "matched")
        )[:MAX_CANDIDATES]
    )
    matched = rows[0][2] if rows else 0
    hits = [_Hit(entry_id, score, _layer_of(score)) for entry_id, score, _ in rows]
    searched["layers"] = [
        {
            "layer": 1,
            "searched": "session key, title, tags, workflow id and name of every run tip and checkpoint-only session",
            "rows": searched["entries"],
            "matches": identity_matches,
        },
        {
            "layer": 2,
            "searched": f"recent notes and artifact kinds of every run tip and checkpoint-only session "
            f"(the last {SEARCH_NOTES_CHARS} characters each)",
            "rows": searched["entries"],
            "matches": matched - identity_matches,
        },
    ]
    if len(hits) < MAX_CANDIDATES:
        hits += _search_deep(inputs, searched, exclude=[h.entry_id for h in hits], room=MAX_CANDIDATES - len(hits))
    else:
        searched["layers"].append(
            {"layer": 3, "searched": None, "skipped": f"layers 1-2 found {MAX_CANDIDATES} or more", "matches": None}
        )
    return hits


def _layer_of(score: int) -> int:
    return next(layer for layer, base in sorted(LAYER_BASE.items()) if score >= base)


# --- layer 3: bounded deep search ---------------------------------------------------------------------------


def _newest_floor(model: type[Output] | type[Checkpoint]) -> tuple[int | None, int, bool]:
    """The smallest id among the newest DEEP_SCAN_ROWS rows, how many rows that covers, and whether
    older rows were left out."""
    edge = list(model.objects.order_by("-id").values_list("id", flat=True)[DEEP_SCAN_ROWS - 1 : DEEP_SCAN_ROWS + 1])
    if edge:
        return edge[0], DEEP_SCAN_ROWS, len(edge) > 1
    return None, model.objects.count(), False


def _deep_match(inputs: Inputs, *, phrase: bool) -> Q:
    if phrase:
        return Q(notes_markdown__icontains=inputs.phrase)
    q = Q()
    for word in inputs.filter_words or (inputs.phrase,):
        q &= Q(notes_markdown__icontains=word)
    return q


def _search_deep(inputs: Inputs, searched: dict[str, Any], *, exclude: list[int], room: int) -> list[_Hit]:
    out_floor, out_rows, out_capped = _newest_floor(Output)
    ck_floor, ck_rows, ck_capped = _newest_floor(Checkpoint)
    outputs = Output.objects.filter(id__gte=out_floor) if out_floor is not None else Output.objects.all()
    checkpoints = Checkpoint.objects.filter(id__gte=ck_floor) if ck_floor is not None else Checkpoint.objects.all()

    def runs_matching(phrase: bool) -> Q:
        matched = _deep_match(inputs, phrase=phrase)
        run_ids = outputs.filter(matched).values("node__run_id")
        checkpoint_runs = checkpoints.filter(matched, node__isnull=False).values("node__run_id")
        checkpoint_sessions = checkpoints.filter(matched, node__isnull=True).values("session_id")
        return (
            Q(run_id__in=run_ids)
            | Q(run_id__in=checkpoint_runs)
            | Q(run__isnull=True, session_id__in=checkpoint_sessions)
        )

    tier = Case(
        When(runs_matching(phrase=True), then=Value(LAYER_BASE[3] + DEEP_PHRASE)),
        default=Value(LAYER_BASE[3] + DEEP_WORDS),
        output_field=IntegerField(),
    )
    rows = list(
        _ranked(
            SearchEntry.objects.filter(runs_matching(phrase=False))
            .exclude(id__in=exclude)
            .annotate(score=tier + _boost(inputs), matched=Window(Count("pk")))
            .values_list("id", "score", "matched", "run_id", "session_id")
        )[:room]
    )
    searched["layers"].append(
        {
            "layer": 3,
            "searched": f"notes of the newest {DEEP_SCAN_ROWS} step outputs and the newest {DEEP_SCAN_ROWS} "
            "checkpoints (older ones are not read)",
            "rows": out_rows + ck_rows,
            "outputsRead": out_rows,
            "checkpointsRead": ck_rows,
            "capped": out_capped or ck_capped,
            "matches": rows[0][2] if rows else 0,
        }
    )
    hits = []
    for entry_id, score, _, run_id, session_id in rows:
        hit = _Hit(entry_id, score, 3)
        match = _deep_match(inputs, phrase=score - LAYER_BASE[3] >= DEEP_PHRASE)
        where = outputs.filter(match, node__run_id=run_id) if run_id is not None else Output.objects.none()
        output = where.order_by("-id").values_list("notes_markdown", "step_id", "created_at").first()
        checkpoint_filter = (
            Q(node__run_id=run_id) if run_id is not None else Q(node__isnull=True, session_id=session_id)
        )
        checkpoint = (
            checkpoints.filter(match, checkpoint_filter)
            .order_by("-id")
            .values_list("notes_markdown", "created_at")
            .first()
        )
        if output is not None and (checkpoint is None or output[2] >= checkpoint[1]):
            hit.snippet_source, hit.deep_where = output[0], f"the notes of step {output[1]}"
        elif checkpoint is not None:
            hit.snippet_source, hit.deep_where = checkpoint[0], "a checkpoint's notes"
        hits.append(hit)
    return hits


# --- git only, and no input at all ---------------------------------------------------------------------------


def _search_git(inputs: Inputs, searched: dict[str, Any]) -> list[_Hit]:
    where = Q(pk__in=[])
    if inputs.sha:
        where |= Q(git_head_sha__startswith=inputs.sha)
    if inputs.branch:
        where |= Q(git_branch=inputs.branch)
    if inputs.workspace:
        where |= Q(workspace_path=inputs.workspace)
    rows = list(
        _ranked(
            SearchEntry.objects.filter(where).annotate(score=_boost(inputs), matched=Window(Count("pk")))
        ).values_list("id", "score", "matched")[:MAX_CANDIDATES]
    )
    searched["layers"] = [
        {
            "layer": 1,
            "searched": "git branch, HEAD sha and workspace path last observed on every run tip (no query given)",
            "rows": searched["entries"],
            "matches": rows[0][2] if rows else 0,
        }
    ]
    return [_Hit(entry_id, LAYER_BASE[1] + score, 1) for entry_id, score, _ in rows]


def _recent(searched: dict[str, Any]) -> list[_Hit]:
    ids = list(
        SearchEntry.objects.order_by(
            F("updated_at").desc(), F("session__public_id").asc(), F("run__public_id").asc(nulls_first=True)
        ).values_list("id", flat=True)[:MAX_CANDIDATES]
    )
    searched["layers"] = [
        {
            "layer": 1,
            "searched": "nothing to match (no query, no git input): the most recently updated run tips and "
            "checkpoint-only sessions",
            "rows": searched["entries"],
            "matches": len(ids),
        }
    ]
    return [_Hit(entry_id, LAYER_BASE[1], 1, extra_why=["among the most recently updated"]) for entry_id in ids]


# --- candidates ------------------------------------------------------------------------------------------------


def _candidates(hits: list[_Hit], inputs: Inputs) -> list[dict[str, Any]]:
    if not hits:
        return []
    rows = {
        row["id"]: row for row in SearchEntry.objects.filter(id__in=[h.entry_id for h in hits]).values(*_ENTRY_FIELDS)
    }
    return [_candidate(hit, rows[hit.entry_id], inputs) for hit in hits if hit.entry_id in rows]


def _candidate(hit: _Hit, row: dict[str, Any], inputs: Inputs) -> dict[str, Any]:
    home = settings.WORKRAIL_HOME
    checkpoint_only = row["run__public_id"] is None and row["session__kind"] == SessionKind.CHECKPOINT_ONLY
    tip = row["tip__public_id"]
    state_token = tokens.mint(home, TokenKind.STATE, tip) if tip is not None else None
    session_token = None
    if checkpoint_only:
        session = Session(public_id=row["session__public_id"])  # unsaved: only its public id is read
        session_token = tokens.mint(home, TokenKind.SESSION, session_token_id(session))
    return {
        "sessionId": row["session__public_id"],
        "sessionKey": row["session__session_key"],
        "title": row["session__title"],
        "runId": row["run__public_id"],
        "workflowId": row["run__workflow_id"],
        "status": row["run__status"],
        "stateToken": state_token,
        "sessionToken": session_token,
        "pendingStepId": (row["tip__pending_step_id"] or None) if tip is not None else None,
        "isComplete": bool(row["tip__is_complete"]) if tip is not None else False,
        "updatedAt": row["updated_at"].isoformat(),
        "snippet": _snippet(hit, row, inputs),
        "whyMatched": _why(hit, row, inputs),
        "layer": hit.layer,
        "score": hit.score,
    }


def _why(hit: _Hit, row: dict[str, Any], inputs: Inputs) -> list[str]:
    why: list[str] = []
    phrase, score = inputs.phrase, hit.score
    tier = score - LAYER_BASE[hit.layer]
    if phrase and hit.layer == 1:
        why.extend(_identity_why(tier - tier % 100, row, inputs))
    elif phrase and hit.layer == 2:
        tier -= tier % 100
        if tier == NOTES_PHRASE:
            why.append(f"notes mention '{phrase}'")
        elif tier == NOTES_WORDS:
            why.append("notes mention " + _listing(inputs.words))
        else:
            in_identity = [w for w in inputs.words if w in row["identity_text"]]
            in_notes = [w for w in inputs.words if w not in row["identity_text"]]
            why.append(f"identity has {_listing(in_identity)} and notes mention {_listing(in_notes)}")
    elif phrase and hit.layer == 3:
        found = f"'{phrase}'" if tier - tier % 100 == DEEP_PHRASE else _listing(inputs.words)
        why.append(f"older notes ({hit.deep_where or 'a step output'}) mention {found}")
    why.extend(hit.extra_why)
    if inputs.branch and row["git_branch"] == inputs.branch:
        why.append(f"same git branch {inputs.branch}")
    if inputs.sha and row["git_head_sha"].startswith(inputs.sha):
        why.append(f"same git HEAD {row['git_head_sha'][:12]}")
    if inputs.workspace and row["workspace_path"] == inputs.workspace:
        why.append(f"same workspace {inputs.workspace}")
    return why


def _identity_why(tier: int, row: dict[str, Any], inputs: Inputs) -> list[str]:
    phrase = inputs.phrase
    fields = [
        ("session key", (row["session__session_key"] or "").lower()),
        ("title", (row["session__title"] or "").lower()),
        ("workflow id", (row["run__workflow_id"] or "").lower()),
    ]
    if tier == EXACT:
        named = [f"{name} is '{phrase}'" for name, value in fields if value == phrase]
        return named or [f"identity matches '{phrase}'"]
    if tier == PREFIX:
        named = [f"{name} starts with '{phrase}'" for name, value in fields if value.startswith(phrase)]
        return named or [f"identity starts with '{phrase}'"]
    if tier == SUBSTRING:
        tags = [str(t) for t in row["session__tags"] or [] if phrase in str(t).lower()]
        named = [f"{name} contains '{phrase}'" for name, value in fields if phrase in value]
        named += [f"tag '{t}' contains '{phrase}'" for t in tags]
        return named or [f"workflow name or tags contain '{phrase}'"]
    return ["session key, title, tags or workflow mention " + _listing(inputs.words)]


def _listing(words: tuple[str, ...] | list[str]) -> str:
    return ", ".join(f"'{w}'" for w in words)


def _snippet(hit: _Hit, row: dict[str, Any], inputs: Inputs) -> str:
    if hit.layer == 3 and hit.snippet_source:
        return _window(hit.snippet_source, inputs, case_insensitive=True)
    notes = row["notes_text"] or ""
    if hit.layer == 2:
        return _window(notes, inputs, case_insensitive=False)
    return _tail(notes)


def _window(text: str, inputs: Inputs, *, case_insensitive: bool) -> str:
    """About SNIPPET_CHARS characters of `text` around the first occurrence of the phrase (or word)."""
    haystack = text.lower() if case_insensitive else text
    positions = [haystack.find(needle) for needle in (inputs.phrase, *inputs.words)]
    at = next((p for p in positions if p >= 0), 0)
    start = max(0, at - SNIPPET_CHARS // 3)
    end = start + SNIPPET_CHARS
    body = _squash(text[start:end])
    prefix = "…" if start > 0 else ""
    suffix = "…" if end < len(text) else ""
    return _fit(prefix + body + suffix)


def _tail(notes: str) -> str:
    """The latest notes: the end of the run's recent notes text."""
    text = _squash(notes)
    if len(text) <= SNIPPET_CHARS:
        return text
    return "…" + text[-(SNIPPET_CHARS - 1) :]


def _squash(text: str) -> str:
    return " ".join(text.split())


def _fit(text: str) -> str:
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1] + "…"

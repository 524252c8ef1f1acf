"""The sessions list, a session (with one of its runs), the two actions on it, and the live versions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict, get_args

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST, require_safe
from pydantic import ValidationError

from runs.contract.dashboard import (
    PreferencesChange,
    RunDetail,
    RunSummary,
    SessionDetail,
    SessionGroup,
    SessionPage,
    SessionSummary,
    StateName,
)
from runs.contract.errors import WorkRailError
from runs.contract.preferences import AUTONOMY, MODES, RISK_POLICY
from runs.dashboard import run_workflow
from runs.dashboard.connect import connection_instructions
from runs.dashboard.connect_secret import may_see_password
from runs.dashboard.errors import error_json, invalid, shows_errors
from runs.execution import session_actions
from runs.readmodels import (
    agent_message,
    attention,
    branches,
    overview,
    preferences_history,
    run_view,
    session_groups,
    session_scope,
    skipped_steps,
    states,
    status_line,
    timeline_marks,
)
from runs.readmodels.checkpoints import latest_first_fold, none_listed_words, not_among, of_shown_run, on_their_steps
from runs.readmodels.preferences import in_effect

# The list filters by state (runs/readmodels/states.py); the stored statuses' older names still work.
STATUSES: tuple[str, ...] = get_args(StateName)
# ...or by whose move it is (states.MOVE_FILTERS): "yours" keeps the rows whose pill is red, "agents" the blue
# ones, "nobody" the grey ones.
MOVES: tuple[str, ...] = tuple(states.MOVE_FILTERS)
_OLDER_NAMES = {"in_progress": "running", "complete": "done"}
# "urgency" is the dashboard's own order: within each group, the sessions that need someone first
# (states.URGENCY), each kind by latest activity; the API sorts by the stored fields only.
URGENCY_SORT = "urgency"
SORTS: dict[str, str] = {
    URGENCY_SORT: "Most urgent first",
    "-activity": "Latest activity first",
    "activity": "Oldest activity first",
    "-created": "Newest first",
    "created": "Oldest first",
    "title": "Title, A to Z",
    "-title": "Title, Z to A",
}
GROUPS: dict[str, str] = {"branch": "Repository, then git branch", "workspace": "Repository", "none": "No grouping"}
# Sessions of one repository and branch together: `main` of two repositories is two groups (overview.py); not
# grouped when no session recorded a repository (default_group), unless the person picks a grouping.
DEFAULT_GROUP: SessionGroup = "branch"
UNGROUPED: SessionGroup = "none"
MAX_PAGE_DIGITS = 9
STEPS_SHOWN = 50  # the newest steps of the shown branch; `?steps=all` shows every one
NO_STORE = "no-store"


# --- the sessions list -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Filters:
    query: str
    status: Any  # SessionStatusName | None
    sort: Any  # SessionSort
    group: Any  # SessionGroup; None when not asked for (the list's default_group)
    page: int
    per_page: int
    ignored: list[str]


def parse_filters(params: QueryDict) -> Filters:
    """The list's parameters; an unknown value falls back to the default and is reported, never a 500."""
    ignored = []
    status = params.get("status") or None
    status = _OLDER_NAMES.get(status, status) if status else None
    if status is not None and status not in STATUSES and status not in MOVES and status not in states.SPLIT_FILTERS:
        ignored.append(f"status “{status[:40]}”")
        status = None
    sort = params.get("sort") or URGENCY_SORT
    if sort not in SORTS:
        ignored.append(f"sort “{sort[:40]}”")
        sort = URGENCY_SORT
    group = params.get("group") or None
    if group is not None and group not in GROUPS:
        ignored.append(f"group “{group[:40]}”")
        group = None
    page = _number(params, "page", 1, ignored)
    per_page = min(_number(params, "per_page", overview.PER_PAGE_DEFAULT, ignored), overview.PER_PAGE_MAX)
    query = (params.get("q") or "")[: overview.MAX_QUERY_CHARS * 2]
    return Filters(query=query, status=status, sort=sort, group=group, page=page, per_page=per_page, ignored=ignored)


def _number(params: QueryDict, name: str, default: int, ignored: list[str]) -> int:
    raw = (params.get(name) or str(default)).strip()
    if raw.isascii() and raw.isdigit() and len(raw) <= MAX_PAGE_DIGITS and int(raw) >= 1:
        return int(raw)
    ignored.append(f"{name.replace('_', ' ')} “{raw[:40]}”")
    return default


@dataclass(frozen=True)
class Section:
    heading: session_groups.GroupWords | None
    items: list[SessionSummary]


@dataclass(frozen=True)
class MoveFilter:
    """One of the sessions list's filters by whose move it is: its ?status= value, words, count and tooltip."""

    name: str
    move: states.Move  # its colour, as the rows' pills
    words: str
    count: int
    means: str = ""
    chosen: bool = False  # a one-state filter's chip, in use (the filters by move are chosen by their name)


def state_filters(page: SessionPage, status: str) -> list[MoveFilter]:
    """The chips of the one state the list is filtered by (an older link's ?status=, `status`): the state's, or
    where its rows are of two moves one per move that has rows or is in use (states.SPLIT_FILTERS)."""
    state = page.state
    assert state is not None
    split = states.split_filters(state)
    if not split:
        return [
            MoveFilter(
                state, states.MOVES[state], states.filter_words(state), page.state_counts.get(state, 0), chosen=True
            )
        ]
    counts = overview.state_moves(page.query, state)
    return [
        MoveFilter(value, move, states.filter_words(state, move), counts[move], chosen=status in (value, state))
        for value, move in split.items()
        if counts[move] or status == value
    ]


def sections(page: SessionPage) -> list[Section]:
    """The page's sessions under their group headings (one section without a heading when not grouped, or
    when the whole list is one group: one_group says so beside the "Group by" control instead)."""
    if not page.groups or _all_in_one_group(page):
        return [Section(None, page.items)]
    return [
        Section(session_groups.words(h, h.count), page.items[h.first_index : h.first_index + h.count])
        for h in page.groups
    ]


def _all_in_one_group(page: SessionPage) -> bool:
    return len(page.groups) == 1 and page.pages == 1


def git_in_view(page: SessionPage) -> bool:
    """Whether some session on this page recorded a git branch, so that one is in view (its column, or its group's
    heading)."""
    return any(s.git_branch for s in page.items)


def git_branch_column(page: SessionPage) -> bool:
    """The "Git branch" column: only when a row on the page has one (friction16b 14: a column of "—" on every row
    is noise), and not when each group's heading names it already."""
    return page.group != "branch" and git_in_view(page)


def default_group() -> SessionGroup:
    """The grouping the list opens with: by repository and git branch, unless no session recorded a repository
    (then every one would sit in one "No repository recorded" group, and a note would say so: noise)."""
    return DEFAULT_GROUP if overview.any_repository() else UNGROUPED


def one_group(page: SessionPage) -> str:
    """The note beside the "Group by" control when the list is grouped yet every session is in one group (on a
    single page: a later page could start another), in place of a lone heading row, which reads like a row;
    else "". Said in the control, not above the table (friction12 6: there it was noise when nothing is in a
    repository), and said whatever the group, so that a chosen grouping never looks as if it did nothing
    (friction14: "with one repository nothing visibly groups")."""
    if not _all_in_one_group(page):
        return ""
    return session_groups.all_in_one(session_groups.words(page.groups[0], page.groups[0].count))


@require_safe
@shows_errors
def sessions_list(request: HttpRequest) -> HttpResponse:
    filters = parse_filters(request.GET)
    version = overview.activity_version()
    usual_group = default_group()
    urgent = filters.sort == URGENCY_SORT
    move = filters.status if filters.status in MOVES else None
    # One state's rows of one move (states.SPLIT_FILTERS: "Agent's move · Retrying"): both filters at once.
    split = states.SPLIT_FILTERS.get(filters.status)
    page = overview.list_sessions(
        query=filters.query,
        state=split[0] if split else None if move else filters.status,
        sort="-activity" if urgent else filters.sort,
        group=filters.group or usual_group,
        page=filters.page,
        per_page=filters.per_page,
        urgent_first=urgent,
        move=split[1] if split else move,
        count_yours=True,
    )
    no_sessions = not page.state_counts and not page.query
    params = QueryDict(mutable=True)  # the shown filters, for links that change one of them
    for key, value, default in (
        ("q", page.query, ""),
        ("status", filters.status or "", ""),
        ("sort", filters.sort, URGENCY_SORT),
        ("group", page.group, usual_group),
        ("per_page", str(page.per_page), str(overview.PER_PAGE_DEFAULT)),
    ):
        if value != default:
            params[key] = value
    # The filters by whose move, each as many as the rows whose pill has its colour; "Your move" says which
    # states it gathers in its tooltip ("Confirm 1 · Stalled 2"), the one place that breakdown is said.
    counts = overview.move_counts(page.state_counts, page.yours)
    reasons = " · ".join(
        f"{states.label(name)} {page.state_counts[name]}" for name in states.YOURS_ALWAYS if page.state_counts.get(name)
    )
    move_filters = [
        MoveFilter(
            name,
            name,
            words,
            counts[name],
            f"{states.MOVE_FILTER_MEANS[name]}{f' ({reasons})' if name == 'yours' and reasons else ''}.",
        )
        for name, words in states.MOVE_FILTERS.items()
    ]
    # A link of an older page may still filter by one state (?status=stalled): the strip shows it, chosen, named by
    # its rows' pill words, whose move first (states.filter_words: "Your move · Stalled", never "Refused"); a state
    # whose rows are of two moves as one chip per move, as the pills group them ("Agent's move · Retrying" and
    # "Your move · Agent stopped or Needs your input"), each chosen while the list shows its rows.
    if page.state:
        move_filters += state_filters(page, filters.status)
    return render(
        request,
        "dashboard/sessions.html",
        {
            "nav": "sessions",
            "page": page,
            "filters": filters,
            "params": params,
            "sections": sections(page),
            "one_group": one_group(page),
            "titles": overview.row_titles(page.items),
            "all_count": sum(page.state_counts.values()),
            "move": move,
            "move_filters": move_filters,
            # Every state's one line, grouped by the filter that counts it (states.MEANINGS): a fold by the chips.
            "glossary": states.glossary(),
            "sort": filters.sort,
            "default_sort": URGENCY_SORT,
            "sorts": SORTS,
            "settled": states.SETTLED,
            # The table's columns (a group's heading spans them): the owner's when the store has owners, and the
            # git branch's when a row has one and the group headings do not name it. No column of run branches
            # (friction26a 8: "1" on nearly every row): a row's where-line counts them when a run branched.
            "git_column": git_branch_column(page),
            "columns": 5 + page.has_owners + git_branch_column(page),
            "groups": GROUPS,
            "default_group": usual_group,
            "live_version": version,
            "connect": connection_instructions() if no_sessions else None,
            "password_copy": no_sessions and may_see_password(request),
            "no_sessions": no_sessions,
        },
    )


# --- one session, one of its runs --------------------------------------------------------------------


@dataclass(frozen=True)
class RunItem:
    run: RunSummary
    level: int  # 0 for a root run, 1 for a run it delegated, ...


def run_tree(runs: list[RunSummary]) -> list[RunItem]:
    """Root runs in order, each followed by the runs it handed out (indented), recursively."""
    known = {run.run_id for run in runs}
    children: dict[str | None, list[RunSummary]] = {}
    for run in runs:
        parent = run.delegated_by if run.delegated_by in known else None
        children.setdefault(parent, []).append(run)
    items: list[RunItem] = []
    stack = [(run, 0) for run in reversed(children.get(None, []))]
    seen: set[str] = set()
    while stack:
        run, level = stack.pop()
        if run.run_id in seen:
            continue
        seen.add(run.run_id)
        items.append(RunItem(run, level))
        stack.extend((child, level + 1) for child in reversed(children.get(run.run_id, [])))
    return items


def default_run(detail: SessionDetail) -> str | None:
    """The run the session's "where" names (the one that needs someone most, else the newest of its own),
    else the newest root run (a run no other run handed out), else the newest run."""
    if detail.session.where is not None and detail.session.where.run_id:
        return detail.session.where.run_id
    roots = [run for run in detail.runs if run.delegated_by is None]
    chosen = (roots or detail.runs)[-1:] if detail.runs else []
    return chosen[0].run_id if chosen else None


def _session_page(
    request: HttpRequest, detail: SessionDetail, run: RunDetail | None, trees: dict[int, branches.RunBranches]
) -> HttpResponse:
    steps = run.steps if run else []
    show_all = request.GET.get("steps") == "all"
    shown = steps if show_all else steps[-STEPS_SHOWN:]
    listed = latest_first_fold(on_their_steps(shown))
    return render(
        request,
        "dashboard/session.html",
        {
            "nav": "sessions",
            "detail": detail,
            "session": detail.session,
            "run_items": run_tree(detail.runs),
            # The live dot, on a session still going: one whose runs are all done or canceled shows none.
            "live_dot": detail.session.state not in states.FINISHED,
            "run": run,
            # The run card's one status line (the state's chip and where the agent is), and what canceling stops.
            "status": status_line.of_run(run) if run else None,
            "cancel": status_line.cancel_stops(run) if run else None,
            # The run's workflow in the catalog: its page, or where its pinned copy stands (run_workflow.py).
            "run_workflow": run_workflow.of_run(run.run.workflow_id, run.run.workflow_hash) if run else None,
            # What belongs to the whole session, under one divider with several runs; a later run's start.
            "scope": session_scope.of_page(detail, run),
            # The repository and git branch its agent works in, as the list groups it (said once, in the head).
            "works_in": session_groups.where_it_works(detail.session.workspace_path, detail.session.git_branch),
            # Under each message's copy button: which of the person's agent chats takes it (agent_message.Chat).
            "chat": agent_message.chat(
                run.run if run else None, detail.session.workspace_path, detail.session.git_branch
            ),
            "selected_run": run.run.run_id if run else None,
            # The export menu's report of the shown run: only beside other runs; of a session's one run it is the
            # session report again (friction61a 5: two choices that gave the same thing).
            "run_report": run.run.run_id if run and len(detail.runs) > 1 else None,
            "timeline_marks": timeline_marks.marks(trees.values(), {r.run_id: r.state for r in detail.runs}),
            "steps": shown,
            # the same, each checkpoint a mark on its step's answer; the newest few shown, the rest in one fold
            "listed": listed,
            "steps_hidden": len(steps) - len(shown),
            # The list's line while the branch has no answer: the step it waits at, not "no step".
            "none_listed": none_listed_words(run.branch if run else None),
            # The one fold's count: every entry before the latest, loaded or not (friction60a 9: a "253 earlier
            # steps not shown" banner above an "Earlier steps (47)" fold folded the same steps twice).
            "earlier_count": len(on_their_steps(steps)) - len(listed.latest),
            # The steps passed over on the way into each node (by id): said where they would stand in the list
            # (after the step whose answer made the node; before the first, for the run's start).
            "skipped": skipped_steps.into_nodes(
                [s.node_id for s in shown[:1]] + [s.child_id for s in shown if s.child_id]
            ),
            "session_notes": not_among(of_shown_run(detail.checkpoints, run.run.run_id if run else None), shown),
            "history": preferences_history.of_session(detail.session.session_id),
            "in_effect": in_effect(overview.get_session(detail.session.session_id)),
            "modes": list(MODES.values()),
            "autonomy_choices": AUTONOMY,
            "risk_choices": RISK_POLICY,
            "cancelable": {"in_progress", "stalled", "blocked"},
            "here": request.get_full_path(),
            "tip_message": tip_message(run),
            "resume_after_import": resume_after_import(run) if request.GET.get("imported") else None,
            # Several imported runs with no agent yet: the shown one's paused panel says which to start first.
            "start_order": attention.start_order_words(
                detail.runs, attention.start_order(detail.runs, detail.run_lines), run.run.run_id if run else ""
            ),
        },
    )


def tip_message(run: RunDetail | None) -> str | None:
    """The message that sets an agent going at the shown branch's pending step: the blocked panel's, and the
    pending step's when a branch started by hand waits for an agent to take it up."""
    if run is None or not run.pending_step_id or not run.branch_tip:
        return None
    node = run.branch.blocked.node_id if run.branch is not None and run.branch.blocked is not None else run.branch_tip
    return agent_message.at_node(node, run.place, run.pending_title or "")


def resume_after_import(run: RunDetail | None) -> str | None:
    """Right after an import, the message that sets an agent going at the shown run's pending step, unless
    the run's own card offers it already (the blocked panel, a stalled or left-behind panel, a branch
    started by hand that waits for an agent): the agent that held the session's tokens is elsewhere."""
    message = tip_message(run)
    if run is None or message is None:
        return None
    number = run.branch.number if run.branch is not None else None
    offered = any(p.sentence and p.branch == number for p in run.panels) or (
        run.branch is not None and (run.branch.blocked is not None or run.branch.awaiting_agent)
    )
    return None if offered else message


@require_safe
@shows_errors
def session_page(request: HttpRequest, session_id: str) -> HttpResponse:
    trees = overview.session_trees(session_id)
    detail = overview.session_detail(session_id, trees)
    chosen = default_run(detail)
    run = run_view.run_detail(chosen, tip=request.GET.get("tip") or None) if chosen else None
    return _session_page(request, detail, run, trees)


@require_safe
@shows_errors
def run_page(request: HttpRequest, run_id: str) -> HttpResponse:
    # The session's version first: its last_seq is the version the live updates compare, so it must not
    # be newer than what the page shows. Then the run, whose branches the session's runs list reuses.
    version = overview.get_session(run_view.get_run(run_id).session.public_id).last_seq
    shown = run_view.shown_run(run_id, tip=request.GET.get("tip") or None)
    trees = overview.session_trees(shown.detail.run.session_id, {shown.branches.run.pk: shown.branches})
    detail = overview.session_detail(shown.detail.run.session_id, trees).model_copy(update={"last_seq": version})
    return _session_page(request, detail, shown.detail, trees)


# --- actions ---------------------------------------------------------------------------------------


def _back(request: HttpRequest, fallback: str) -> HttpResponse:
    """Back to the page the form was on (a local path only), else to `fallback`."""
    target = request.POST.get("back") or ""
    safe = target.startswith("/") and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return redirect(target if safe else fallback)


class _ChangeForm(TypedDict, total=False):
    """The preferences form's fields, as PreferencesChange reads them."""

    mode: str
    preferences: dict[str, str]


def parse_change(post: QueryDict) -> PreferencesChange:
    data: _ChangeForm = {}
    mode = post.get("mode")
    if mode:
        data["mode"] = mode
    chosen = {key: value for key in ("autonomy", "riskPolicy") if (value := post.get(key))}
    if chosen:
        data["preferences"] = chosen
    try:
        return PreferencesChange.model_validate(data)
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(part) for part in problem.get("loc", ()))
        raise invalid(
            f"The preferences form sent an invalid value for {where or 'a field'}: {problem.get('msg', '')}.",
            f"Pick a mode ({', '.join(MODES)}), an autonomy ({', '.join(AUTONOMY)}) or a risk policy "
            f"({', '.join(RISK_POLICY)}).",
        ) from None


@require_POST
@shows_errors
def change_preferences(request: HttpRequest, session_id: str) -> HttpResponse:
    result = session_actions.change_preferences(session_id, parse_change(request.POST))
    label = MODES[result.mode].label if result.mode in MODES else "Custom"
    settings = ", ".join(f"{key} {value}" for key, value in result.preferences.items())
    changed = len(result.runs_changed)
    runs = f" The open steps of {changed} run{'s' if changed > 1 else ''} take them next." if changed else ""
    messages.success(request, f"Preferences saved: {label} ({settings}).{runs}")
    return _back(request, reverse("session", args=[result.session_id]))


@require_POST
@shows_errors
def cancel_run(request: HttpRequest, run_id: str) -> HttpResponse:
    result = session_actions.cancel_run(run_id)
    messages.success(request, "The run is canceled: an agent still on it is told so when it next calls.")
    return _back(request, reverse("run", args=[result.run_id]))


# --- live versions ---------------------------------------------------------------------------------


def _version(value: str | int) -> JsonResponse:
    response = JsonResponse({"version": str(value)})
    response["Cache-Control"] = NO_STORE
    return response


@require_safe
def live_sessions(request: HttpRequest) -> JsonResponse:
    return _version(overview.activity_version())


@require_safe
def live_session(request: HttpRequest, session_id: str) -> JsonResponse:
    try:
        return _version(overview.get_session(session_id).last_seq)
    except WorkRailError as error:
        response = error_json(error, status=404)
        response["Cache-Control"] = NO_STORE
        return response

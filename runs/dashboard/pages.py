"""A node (and the fork form on its page), the workflow catalog, the tool timings and the connect instructions."""

from __future__ import annotations

from typing import NamedTuple

from django.contrib import messages
from django.contrib.staticfiles import finders
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe

from runs.contract.catalog import ListFilters
from runs.contract.errors import WorkRailError
from runs.dashboard import fork_form
from runs.dashboard.connect import connection_instructions
from runs.dashboard.connect_secret import may_see_password
from runs.dashboard.errors import shows_errors
from runs.execution import catalog, catalog_places, operator_fork
from runs.readmodels import (
    agent_message,
    attention,
    clock,
    glossary,
    overview,
    preferences,
    ran_elsewhere,
    run_view,
    states,
    step_actions,
    step_state,
    trace,
)
from runs.readmodels.timings import (
    CALL_ERROR_NOTE,
    CALL_ERRORS,
    MEDIAN_MIN_CALLS,
    NOT_RECORDED_REASON,
    P95_MIN_CALLS,
    recent_calls,
    session_note,
    tool_lines,
)
from workflows_app.prose import about_below_the_name
from workflows_app.tags import UNTAGGED

UNTAGGED_LABEL = "Untagged"  # the dashboard's label for the bucket of workflows no tag names


class CrumbUp(NamedTuple):
    """A phone's one line of crumbs (_crumb_up.html, friction28a 13): the way up, and where the page's step stands."""

    href: str
    label: str
    here: str = ""


def node_crumb_up(node: run_view.NodeDetail) -> CrumbUp:
    """A step's parent: its branch where the run has several ("STALL-1 (branch 1)"), else its run. Named by the
    step's session (friction60a 5: on a phone, with the desktop's crumbs hidden, nothing said which ticket the
    agent was on), whose page the run's is; the run's name is the facts' "run …" line under the heading, once."""
    run_url = reverse("run", args=[node.run.run_id])
    here = node.place.words if node.place else (f"step {node.step_number}" if node.step_number else "")
    up = node.session_name
    if node.run.branch_count > 1 and node.on_branch:
        branch = node.on_branch
        return CrumbUp(f"{run_url}?tip={branch.tip_node_id}", f"{up} (branch {branch.number})", here)
    return CrumbUp(run_url, up, here)


def node_run_crumb(node: run_view.NodeDetail) -> str:
    """The run's crumb on a step's page: every step page's trail has one shape, Sessions / session / run /
    (branch N /) step (friction63a 14: the run's crumb was left out where the run shares the session's name, so
    some trails jumped from the session to the step). Named by its workflow, or "run" where that would say the
    session's name twice ("Sliced change / Sliced change", the fifth review)."""
    return "run" if node.run.workflow_name == node.session_name else node.run.workflow_name


@require_safe
@shows_errors
def node_page(request: HttpRequest, node_id: str) -> HttpResponse:
    return _node_page(request, node_id)


def _node_page(request: HttpRequest, node_id: str, form: fork_form.ForkForm | None = None) -> HttpResponse:
    # Each next step named by the branches that went on along it, as the graph names them (run_view).
    node, named = run_view.node_page(node_id)
    # A branch that redid this step (by hand, or answered again by the agent) is said apart from the steps after it
    # (friction60a 2, friction61a 1).
    next_steps, redos = run_view.redos_apart(named)
    session = overview.get_session(node.run.session_id)
    step = step_state.of_node(node)
    went_on = step_state.went_on(node, step)
    redid = {n for redo in redos for n in redo.numbers} if went_on else set()
    # Where each branch that redid this step is now, said in its redo card (friction64).
    redid_now = step_state.redid_now(
        {redo.entry.node_id: redo.numbers for redo in redos if went_on}, node.other_branches
    )
    at_work = agent_at_work(step)
    form = form or fork_form.blank(node)
    actions = step_actions.of_step(node, step, went_on, at_work, form.inputs)
    context = {
        "nav": "sessions",
        "node": node,
        "crumb_up": node_crumb_up(node),
        "run_crumb": node_run_crumb(node),
        "trace": trace.node_trace(node_id),
        "live_version": session.last_seq,
        # The live dot wherever the page still changes by itself: while the run goes on, a done step's page too,
        # whose "the run is now at …" follows the run (friction28a 7; it had none since friction13 item 14).
        "live_dot": node.run.status not in ("complete", "canceled"),
        # The run page's pending line, here too while the agent is on this step (or waits in its chat for you).
        "at_work": at_work,
        "mode_words": preferences.unusual_mode_words(node.preferences),
        "fork_form": form,
        "agent_call": fork_form.agent_call(node.state_token),
        "chat": agent_message.chat(node.run, session.workspace_path, session.git_branch),
        "agent_message": agent_message.text(node.state_token, agent_message.where(node.place, node.title)),
        "next_steps": next_steps,
        "redos": redos,
        "redo_title": run_view.redo_words([n for redo in redos for n in redo.numbers]) if redos else "",
        # The answer that started each redo branch, said in the redo card with where it went on (friction61a 1).
        "redo_answers": run_view.redo_answers(node, named),
        "recorded_here": run_view.recorded_with_branches(node, named),
        # The checkpoints saved during the step, in their own card, neither an answer nor a next step.
        "checkpoints_here": run_view.checkpoints_here(node),
        "checkpoints_title": run_view.checkpoints_words(run_view.checkpoints_here(node)),
        "after_checkpoint": run_view.AFTER_CHECKPOINT,
        # What the Answer section says while it holds nothing: the agent's answer, not yet sent, and why.
        "no_answer": step_state.no_answer(node, step),
        "next_vias": {entry.via for entry in node.branches},
        "step": step,
        "went_on": went_on,
        # A run of one branch that went on past this step: its state is one word of context beside the run's
        # name in the head, not a card.
        "run_now": went_on[0] if len(went_on) == 1 and node.run.branch_count == 1 else None,
        # Where each branch stands now, one list: those that went on past this step and the run's others
        # (friction63a 5: "Branches 1 and 2 now:" then "Other branches of this run", two lists of branches).
        # Not the branches that redid this step: their redo card says where each is now (friction64).
        "branches_now": step_state.branches_now(went_on, node.other_branches, redid),
        "went_on_words": step_state.went_on_words(step_state.branches_now(went_on, node.other_branches, redid)),
        "redid_now": redid_now,
        # Where a redo branch still stands at the step it went on to, its now-line says it: no "Then …" line too.
        "redo_stopped": step_state.stopped_after_redo(redid_now),
        # Where branches went on past this step, one card under the head holds their next steps too, named by
        # branch, and no "Next step" card below (friction62a 4).
        "where_it_went": step_state.WHERE_IT_WENT
        if went_on and not (len(went_on) == 1 and node.run.branch_count == 1)
        else "",
        # The refusal's message gives the agent the refused step again (as the run page's blocked panel does).
        "blocked_message": (
            agent_message.at_node(node.blocked.node_id, node.place, node.title) if node.blocked else None
        ),
        # The two sections of what a person can do from this step, in their fixed order and titles.
        "step_actions": actions,
        # "Notes so far", less the entry whose notes "Resume here" quotes (step_actions.recap_shown).
        "recap_entries": step_actions.recap_shown(node.recap.get("entries", []), actions),
        "step_actions_titles": {
            "branch": step_actions.BRANCH_FROM_HERE,
            "how": step_actions.HOW_BRANCHING,
            "what_happens": step_actions.WHAT_HAPPENS,
        },
    }
    return render(request, "dashboard/node.html", context)


def agent_at_work(step: step_state.StepState) -> bool:
    """Whether the agent works on this step now: its move (running, or blocked and about to resend), or it
    waits in its chat for the person's confirmation. Not once it stalled or stopped (the move is then the
    person's: resuming is what they came for), nor on a branch left behind or a step done."""
    if step.waiting_on is None:
        return False
    return step.state == "needs_you" or attention.move_of_branch(step.waiting_on, clock.stall_cutoff()) == "agents"


@require_POST
@shows_errors
def fork_node(request: HttpRequest, node_id: str) -> HttpResponse:
    """The fork form, in two submits: the first shows the change on the node page (nothing recorded), the
    second records it (a new branch from the node) and opens the new node's page, which hands over the call.
    A mistake is shown on the node page, above the form, with what was typed kept."""
    node = run_view.node_detail(node_id)  # NOT_FOUND: the error page, there is no node page to show
    typed, reason = request.POST.get("context", ""), request.POST.get("reason", "")
    editor = fork_form.editor_of(request.POST)
    try:
        change, reason = fork_form.parsed(request.POST, node)
        if not fork_form.confirmed(request.POST):
            plan = operator_fork.preview_fork(node.node_id, change, reason)
            preview = fork_form.preview_of(plan, typed)
            return _node_page(
                request, node_id, fork_form.with_text(node, typed, plan.reason, preview=preview, editor=editor)
            )
        result = operator_fork.fork_node(node.node_id, change, reason, via="dashboard")
    except WorkRailError as error:
        if node.is_complete or node.run.status == "canceled":  # no form on its page: the error page says why
            raise
        # The node page again, as a form answers a mistake (200, as Django's forms do: the browser then
        # logs no failed load); the error's message and what to do are in the page, above the form.
        return _node_page(request, node_id, fork_form.with_text(node, typed, reason, error=error, editor=editor))
    messages.success(
        request,
        f"New branch started: the agent redoes {result.pending_title} with the inputs as edited. Give it the "
        "message below to go on.",
    )
    return redirect(reverse("node", args=[result.node_id]) + "#resume-here")


@require_safe
@shows_errors
def workflows(request: HttpRequest) -> HttpResponse:
    """The catalog for people: every workflow (examples marked), narrowed by the tags and the search an
    agent's list_workflows takes; the overview's tags are the filters."""
    chosen = [tag for tag in request.GET.getlist("tag") if tag][:10]
    query = request.GET.get("q", "").strip()[:200]
    given = {"tags": chosen, "query": query}
    filters = ListFilters(include_examples=True, **{name: value for name, value in given.items() if value})
    listing = catalog.list_workflows(filters, for_people=True).dump()
    tags = everything_tags()
    shown = listing["workflows"]
    # Which columns the table has is judged over the whole catalog (its unfiltered listing is kept per
    # catalog), not the rows a filter left: a column does not come and go as tags are chosen.
    everything = shown
    if chosen or query:
        everything = catalog.list_workflows(ListFilters(include_examples=True), for_people=True).dump()["workflows"]
    # Each row's source as its Source cell names it: its kind, and a git source's repository.
    sources = {
        (str(wf["source"]["kind"]), str((wf["source"].get("repository") or {}).get("url", ""))) for wf in everything
    }
    (one_kind, one_repository), *others = sorted(sources) or [("", "")]
    context = {
        "nav": "workflows",
        "listing": listing,
        # A column whose every row says the same ("workflow", "bundled") is said once in the head instead.
        "kind_varies": len({wf["kind"] for wf in everything}) > 1,
        # What a routine is, only where a shown row is one (friction60a 18: said over a list of none).
        "routine_shown": any(wf["kind"] == "routine" for wf in shown),
        "source_varies": bool(others or one_repository),
        "one_source": "" if others or one_repository else one_kind,
        # Each row's "Copy the start message": the message the workflow's own page hands over (agent_message.to_start).
        "start_messages": {wf["id"]: agent_message.to_start(wf["id"], str(wf["name"])) for wf in shown},
        "warnings": catalog_places.placed(listing.get("warnings") or [], catalog.current_catalog()),
        "tags": tags,
        "tag_names": tag_names(tags),
        "chosen": chosen,
        "query": query,
        # Workflows sessions here ran that the catalog does not hold: said under the unfiltered catalog's count.
        "ran_elsewhere": None if chosen or query else ran_elsewhere.ran_elsewhere(wf["id"] for wf in everything),
    }
    return render(request, "dashboard/workflows.html", context)


@require_safe
@shows_errors
def workflow(request: HttpRequest, workflow_id: str) -> HttpResponse:
    inspection = catalog.inspect_workflow(
        workflow_id, "metadata", for_people=True
    ).dump()  # the templates read the wire names
    shown = inspection.get("workflow")
    if isinstance(shown, dict) and shown.get("warnings"):  # named by their source, not an absolute path
        shown["warnings"] = catalog_places.placed(shown["warnings"], catalog.current_catalog())
    about = ""
    if isinstance(shown, dict) and shown.get("about"):  # shown under the name and description: not them again
        about = about_below_the_name(str(shown["about"]), str(shown.get("name", "")), str(shown.get("description", "")))
    start = agent_message.to_start(workflow_id, str(shown.get("name", workflow_id))) if isinstance(shown, dict) else ""
    context = {
        "nav": "workflows",
        "inspection": inspection,
        "about": about,
        "start_message": start,
        "tag_names": tag_names(everything_tags()),
    }
    return render(request, "dashboard/workflow.html", context)


def everything_tags() -> list[dict[str, object]]:
    """The catalog's tags (id, name, what each is for, count), as the overview of an unfiltered list_workflows
    gives them: the filters, and the one place a tag id gets its label."""
    everything = catalog.list_workflows(ListFilters(include_examples=True), for_people=True).dump()
    tags: list[dict[str, object]] = everything["overview"]["tags"]
    for tag in tags:
        if tag["id"] == UNTAGGED:  # an agent reads the bucket by its id; a person reads a label, as the others
            tag["name"] = UNTAGGED_LABEL
    return tags


def tag_names(tags: list[dict[str, object]]) -> dict[str, str]:
    """Each tag id's label for people ("review_audit" -> "Review & audit"): the rows, the chips and a
    workflow's page all say a tag this one way (a tag defined nowhere is named by its id)."""
    return {str(tag["id"]): str(tag["name"]) for tag in tags}


@require_safe
def timings(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "dashboard/timings.html",
        {
            "nav": "timings",
            "timings": tool_lines(),
            "calls": (calls := recent_calls()),
            "session_note": session_note(calls),
            "calls_unrecorded": any(call.words == NOT_RECORDED_REASON for call in calls),
            "p95_min_calls": P95_MIN_CALLS,
            "median_min_calls": MEDIAN_MIN_CALLS,
            "call_errors": CALL_ERRORS,
            "call_error_note": CALL_ERROR_NOTE,
        },
    )


@require_safe
def connect(request: HttpRequest) -> HttpResponse:
    context = {"nav": "connect", "connect": connection_instructions(), "password_copy": may_see_password(request)}
    return render(request, "dashboard/connect.html", context)


@require_safe
def words(request: HttpRequest) -> HttpResponse:
    """The words the dashboard uses, one line each (glossary.TERMS), then the states, each by its pill's word
    (states.glossary, as the sessions list's legend says them): reached from every page's header."""
    return render(
        request,
        "dashboard/words.html",
        {"nav": "words", "terms": glossary.TERMS, "glossary": states.glossary()},
    )


FAVICON = "dashboard/favicon.svg"


@require_safe
def favicon(request: HttpRequest) -> FileResponse:
    """`/favicon.ico`, which browsers ask for on pages that name no icon (the admin's): the dashboard's
    SVG icon, so that no page logs a 404 in the browser's console."""
    found = finders.find(FAVICON)
    if not isinstance(found, str):
        raise Http404("The dashboard's icon is missing from static/.")
    response = FileResponse(open(found, "rb"), content_type="image/svg+xml")  # noqa: SIM115 (closed by FileResponse)
    response["Cache-Control"] = "public, max-age=86400"
    return response

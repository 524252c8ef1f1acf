"""How each branch of a run ended, or where it stands, in words a developer reads at a glance:
"Branch 1 completed: Request changes, 1 critical finding", "Branch 2 open at step 4: Review api",
"Branch 3 blocked at step 2 (Record the Changed Files) since 2025-01-06 14:02:11 UTC: ...". And a run's
or a session's status that tells a finished branch from an open one, the newest branch (where the agent
works) first: "Branch 2 open at step 4 (newest, where the agent works) · branch 1 finished earlier:
Request changes". An unfinished branch that is not the newest was left behind by a rewind (the agent went
back to an earlier step and goes on elsewhere): its words say so. The status values (`status` of a run,
a session, a branch) are not words and never change with them.

Built on branches.py (which branch owns what, each branch's status) and blocked.py (why a blocked branch
is blocked); every door (run, session, sessions and node pages, the HTTP API, the `workrail://runs/{id}`
resource) and the reports read it here.

The verdict of a branch (the honest rule, in order):

1. A standing artifact (the latest of its kind on the branch's path, as the synthesis marks `final`)
   that carries a verdict: `wr.review_verdict` (clean / minor / blocking), `wr.gate_verdict`
   (approved / rejected / uncertain), or any artifact whose own `verdict` or `recommendation` field is
   a short text. The latest such artifact on the path wins.
2. Else the agent's own words: a "Verdict:" or "Recommendation:" line in the branch's notes, newest
   step first. That is a guess over prose, made in runs/readmodels/agent_prose.py (the one module of
   heuristics over what agents write, which also shortens a free-text verdict field); this module
   reads structure only.
3. Else there is no verdict: the branch is said to be completed, with its findings, and nothing is
   made up.

Only a completed branch has an outcome with a verdict and findings (read from its synthesis, so the
same words whether or not the run's records were read); an unfinished branch says where it stands
(its pending step) and, when blocked, why.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from runs.contract.dashboard import BranchOutcomeEntry, Finding, StateName
from runs.models import Node
from runs.readmodels import artifact_tables, blocked, states
from runs.readmodels.agent_prose import noted_verdict, short_verdict, statement
from runs.readmodels.branches import Branch, RunBranches
from runs.readmodels.clock import NO_CUTOFF, stall_cutoff
from runs.readmodels.shapes import Synthesis
from runs.store.pinned import compiled_workflow, steps_by_id
from workflows_app import engine
from workflows_app.engine.jsontypes import JsonObject

# Where WorkRail's verdict contracts give the reason for their verdict.
REASON_FIELDS = ("summary", "rationale")
FINDING_KINDS = ("mr_review.findings", "wr.review_verdict")
# The words of the enum verdicts WorkRail's contracts define (workflows_app/schema/contracts/).
KNOWN_VERDICTS = {
    "wr.review_verdict": {"clean": "Clean", "minor": "Minor findings only", "blocking": "Blocking findings"},
    "wr.gate_verdict": {"approved": "Approved", "rejected": "Rejected", "uncertain": "Uncertain"},
}
STATUS_WORDS = {"complete": "completed", "open": "open", "blocked": "blocked", "canceled": "canceled"}
LEFT_BEHIND = "left behind by a newer branch"
STALLED = "stalled"
WAITING = "waiting for you"
WHERE_THE_AGENT_WORKS = "newest, where the agent works"
# The newest branch, started by hand, before any agent answered on it: saying an agent works there would be
# untrue until someone hands an agent the branch's call.
AWAITING_AN_AGENT = "newest, started by hand: no agent has taken it up yet"


@dataclass(frozen=True)
class Verdict:
    text: str  # the verdict alone, short: "Request changes" (callouts, statuses)
    source: str  # where it was read: "the wr.review_verdict artifact", "the notes of step “Record Findings”"
    said: str  # the whole statement, with its reason: "Request changes: the permission check is bypassed"


def verdict(standing: Iterable[JsonObject], notes: Iterable[tuple[str, str]]) -> Verdict | None:
    """The verdict of a path (see the module's docstring): `standing` are its standing artifacts in path
    order, `notes` its (step title, notes) in path order."""
    for artifact in reversed(list(standing)):
        kind = str(artifact.get("kind") or "")
        for key in ("verdict", "recommendation"):
            value = artifact.get(key)
            if isinstance(value, str) and value.strip():
                words = KNOWN_VERDICTS.get(kind, {}).get(value.strip(), short_verdict(value))
                reason = next((artifact[k] for k in REASON_FIELDS if isinstance(artifact.get(k), str)), "")
                said = f"{words}: {reason.strip()}" if reason.strip() else words
                return Verdict(words, f"the {kind or 'unnamed'} artifact", statement(said))
    noted = noted_verdict(notes)
    if noted is None:
        return None
    return Verdict(noted.words, f"the notes of step “{noted.title}”" if noted.title else "the notes", noted.said)


def synthesis_verdict(synthesis: Synthesis) -> Verdict | None:
    return verdict(
        [a["data"] for a in synthesis.get("artifacts", []) if a.get("final")],
        [(s.get("title") or s.get("stepId") or "", s.get("notesMarkdown") or "") for s in synthesis.get("steps", [])],
    )


def findings_by_severity(findings: Iterable[Finding]) -> dict[str, int]:
    counts = {severity: 0 for severity in artifact_tables.SEVERITIES}
    for finding in findings:
        counts[finding.severity] += 1
    return {severity: count for severity, count in counts.items() if count}


def findings_words(counts: dict[str, int], had_table: bool) -> str:
    """ "1 critical finding", "3 findings (1 critical, 2 minor)", "no findings" (a findings artifact
    stood, empty), or "" (no findings artifact stood)."""
    total = sum(counts.values())
    if not total:
        return "no findings" if had_table else ""
    if len(counts) == 1:
        [(severity, count)] = counts.items()
        return f"{count} {severity} finding{'s' if count > 1 else ''}"
    return f"{total} findings ({', '.join(f'{count} {severity}' for severity, count in counts.items())})"


def stamp(moment: datetime) -> str:
    """An absolute time, to the second, in UTC (as the dashboard's `stamp` filter writes it)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


# --- a run's branches -----------------------------------------------------------------------------------


def of_run(tree: RunBranches, cutoff: datetime | None = None) -> list[BranchOutcomeEntry]:
    """Every branch's outcome, in branch order. At most two queries whatever the run's size: the engine
    state of the unfinished tips (their step titles as the agent saw them), and the refused answers of
    the blocked branches (blocked.py). `cutoff`: the stall rule's moment (clock.stall_cutoff, now's by default)
    that tells a branch superseded from one left behind (_set_aside)."""
    return of_runs([tree], cutoff)[tree.run.pk]


def of_runs(trees: Iterable[RunBranches], cutoff: datetime | None = None) -> dict[int, list[BranchOutcomeEntry]]:
    """of_run for several runs (by run pk), in the same two queries for all of them (none when every
    branch completed)."""
    trees = list(trees)
    cutoff = cutoff if cutoff is not None else stall_cutoff()
    refused = blocked.refusals_of(trees)
    unfinished = {
        (tree.run.pk, b.tip): tree
        for tree in trees
        for b in tree.branches
        if b.status != "complete" and (tree.run.pk, b.number) not in refused
    }
    titles = _pending_titles(unfinished)
    return {
        tree.run.pk: [_outcome(tree, b, refused.get((tree.run.pk, b.number)), titles, cutoff) for b in tree.branches]
        for tree in trees
    }


def _pending_titles(tips: dict[tuple[int, int], RunBranches]) -> dict[int, str]:
    """The pending step's title at each tip (by node pk), as the agent was given it."""
    if not tips:
        return {}
    runs = {node: tree for (_, node), tree in tips.items()}
    titles = {}
    for pk, state in Node.objects.filter(pk__in=list(runs)).values_list("pk", "engine_state"):
        pending = engine.pending_view(compiled_workflow(runs[pk].run.pinned_id), state)
        if pending is not None:
            titles[pk] = str(pending["title"])
    return titles


def _outcome(
    tree: RunBranches, branch: Branch, refusal: blocked.Refusal | None, titles: dict[int, str], cutoff: datetime
) -> BranchOutcomeEntry:
    tip = tree.nodes[branch.tip]
    number = branch.number
    found: Verdict | None = None
    counts: dict[str, int] = {}
    step_number: int | None = None
    step_title: str | None = None
    if branch.status == "complete":
        synthesis = tree.syntheses.get(branch.tip)
        had_table = False
        if synthesis is not None:
            found = synthesis_verdict(synthesis)
            final = [(a.get("stepId"), a["data"]) for a in synthesis.get("artifacts", []) if a.get("final")]
            counts = findings_by_severity(artifact_tables.tables(final).findings)
            had_table = any(str(data.get("kind")) in FINDING_KINDS for _, data in final)
        said = ", ".join(part for part in (found.text if found else "", findings_words(counts, had_table)) if part)
        headline = f"Branch {number} completed" + (f": {said}" if said else "")
        at = tip.created_at
    else:
        step_number = tree.step_number(branch.tip)  # branches.step_numbers: the one rule
        step_title = refusal.step_title if refusal else (titles.get(branch.tip) or _step_title(tree, tip.step_id))
        where = f"at step {step_number}: {step_title}"
        if refusal is not None:
            headline = (
                f"Branch {number} blocked at step {step_number} ({step_title}) since {stamp(refusal.since)}: "
                f"{refusal.headline()}"
            )
            at = refusal.since
        else:
            headline = f"Branch {number} {STATUS_WORDS[branch.status]} {where}"
            at = tip.created_at
        if _left_behind(tree, branch):
            headline += f" — {_why_left(tree)}"
    aside = _set_aside(tree, branch, at, cutoff)
    return BranchOutcomeEntry(
        number=number,
        status=branch.status,
        tip_node_id=str(tip.public_id),
        is_newest=branch.is_newest,
        awaiting_agent=_awaiting_agent(tree, branch),
        left_behind=aside == "left_behind",
        state=aside or states.of_branch(branch.status, False, "running"),
        verdict=found.text if found else None,
        verdict_source=found.source if found else None,
        findings=counts,
        step_number=step_number,
        step_id=tip.step_id or None,
        step_title=step_title,
        at=at,
        headline=headline,
        blocked=blocked.as_entry(refusal, step_number) if refusal is not None else None,
    )


def _awaiting_agent(tree: RunBranches, branch: Branch) -> bool:
    """The newest branch is only the node a person started by hand: no agent answered or checkpointed there."""
    return (
        branch.is_newest
        and branch.status == "open"
        and len(branch.nodes) == 1
        and branch.nodes[0] in tree.started_by_hand
    )


def branch_state(tree: RunBranches, branch: Branch, run_state: StateName, cutoff: datetime | None = None) -> StateName:
    """A branch's state as its badge says it; the run's newest open branch takes `run_state`. Superseded or left
    behind by when its tip was reached (_set_aside; the outcome counts a blocked branch's refusal as well)."""
    at = tree.nodes[branch.tip].created_at
    aside = _set_aside(tree, branch, at, cutoff if cutoff is not None else stall_cutoff())
    return aside or states.of_branch(branch.status, False, run_state)


def _left_behind(tree: RunBranches, branch: Branch) -> bool:
    """An unfinished branch that is not the newest: the agent rewound and went on elsewhere."""
    return len(tree.branches) > 1 and not branch.is_newest and branch.status in ("open", "blocked")


def _set_aside(tree: RunBranches, branch: Branch, at: datetime, cutoff: datetime) -> StateName | None:
    """A branch not the newest and unfinished: "left_behind", but "superseded" while its agent may still be
    working there (friction19b 2: right after a person started a branch by hand, the old one was said to have
    no agent, while the form had just warned that one works there): the newest branch was started by hand (a
    rewind is the agent itself going on elsewhere) and something was recorded on this one since `cutoff` (the
    stall rule's moment). None for any other branch. Read as stored (clock.NO_CUTOFF), no clock applies."""
    if not _left_behind(tree, branch):
        return None
    return "superseded" if _recent(at, cutoff) and _set_aside_by_hand(tree) else "left_behind"


def _recent(at: datetime, cutoff: datetime) -> bool:
    """Something was recorded on a set-aside branch since the stall rule's moment: its agent may still work."""
    return cutoff != NO_CUTOFF and at >= cutoff


def set_aside_moments(tree: RunBranches, refused: dict[int, datetime]) -> tuple[tuple[int, datetime], ...]:
    """The branches a branch started by hand set aside, each with the moment _set_aside judges it by (its
    refusal's, by branch number in `refused`, else its tip's), for a reader that applies the clock later
    (superseded_among): a session's cached whereabouts (attention.places). Empty unless the newest branch was
    started by hand."""
    if not _set_aside_by_hand(tree):
        return ()
    return tuple(
        (b.number, refused.get(b.number, tree.nodes[b.tip].created_at)) for b in tree.branches if _left_behind(tree, b)
    )


def superseded_among(moments: Iterable[tuple[int, datetime]], cutoff: datetime) -> list[int]:
    """The numbers of the branches among set_aside_moments whose state is "superseded" at `cutoff`: the rows
    that say "Your move · Replaced … tell it in its chat to stop" (_set_aside's rule)."""
    return [number for number, at in moments if _recent(at, cutoff)]


def _why_left(tree: RunBranches) -> str:
    """Why an unfinished branch is not where the work goes on: a rewind, unless the newest branch was
    started by hand (an operator fork), which sets the others aside without any rewind."""
    newest = next((b for b in tree.branches if b.is_newest), None)
    if newest is not None and _set_aside_by_hand(tree):
        return f"set aside when branch {newest.number} was started by hand"
    return LEFT_BEHIND


def _set_aside_by_hand(tree: RunBranches) -> bool:
    """The newest branch was started by hand (an operator fork): it set the others aside without any rewind."""
    newest = next((b for b in tree.branches if b.is_newest), None)
    return newest is not None and bool(newest.nodes) and newest.nodes[0] in tree.started_by_hand


def _step_title(tree: RunBranches, step_id: str) -> str:
    step = steps_by_id(tree.run.pinned_id).get(step_id)
    return str((step.get("title") if step is not None else None) or step_id)


# --- a run's status, in words -----------------------------------------------------------------------------


def summary_words(outcomes: list[BranchOutcomeEntry], *, stalled: bool = False, waiting: bool = False) -> str:
    """The run's status in words. A run of one branch: "completed (Request changes)", "open at step 4:
    Review api", "blocked at step 2 (...) since ...". A forked run leads with its newest branch, where the
    agent works (or where it finished last), then the finished branches, then the others in order:
    "Branch 2 open at step 4 (newest, where the agent works) · branch 1 finished earlier: Request changes";
    an unfinished branch that is not the newest is "left behind by a newer branch". A `stalled` run (the
    dashboard's clock-relative status: nobody is known to work on it) says so of its newest open branch,
    never that the agent works there: "stalled at step 4: Review api"; a run whose newest step `waiting` for
    the user's confirmation says whose move it is: "waiting for you at step 2: Approve the plan"."""
    if not outcomes:
        return "not started"
    if len(outcomes) == 1:
        [only] = outcomes
        if only.status == "complete":
            return "completed" + (f" ({only.verdict})" if only.verdict else "")
        where = f" at step {only.step_number}: {only.step_title}" if only.step_number else ""
        if only.status == "blocked" and only.blocked is not None:
            return f"blocked at step {only.step_number} ({only.step_title}) since {stamp(only.blocked.since)}"
        if waiting and only.status == "open":
            return WAITING + where
        if stalled and only.status == "open":
            return STALLED + where
        return STATUS_WORDS[only.status] + where
    newest = next((o for o in outcomes if o.is_newest), outcomes[-1])
    rest = [o for o in outcomes if o is not newest]
    rest.sort(key=lambda o: (o.status != "complete", o.number))
    return " · ".join([_lead(newest, stalled, waiting)] + [_other(o) for o in rest])


def _lead(newest: BranchOutcomeEntry, stalled: bool = False, waiting: bool = False) -> str:
    n = newest.number
    if newest.status == "complete":
        return f"Branch {n} completed" + (f": {newest.verdict}" if newest.verdict else "") + " (newest)"
    at = f" at step {newest.step_number}" if newest.step_number else ""
    if newest.status == "canceled":
        return f"Branch {n} canceled{at} (newest)"
    if waiting and newest.status == "open":
        return f"Branch {n} {WAITING}{at} (newest)"
    if stalled and newest.status == "open" and not newest.awaiting_agent:
        return f"Branch {n} {STALLED}{at} (newest)"
    who = AWAITING_AN_AGENT if newest.awaiting_agent else WHERE_THE_AGENT_WORKS
    return f"Branch {n} {STATUS_WORDS[newest.status]}{at} ({who})"


def _other(o: BranchOutcomeEntry) -> str:
    if o.status == "complete":
        return f"branch {o.number} finished earlier" + (f": {o.verdict}" if o.verdict else "")
    at = f" at step {o.step_number}" if o.step_number else ""
    if o.status == "canceled":
        return f"branch {o.number} canceled{at}"
    why = o.headline.rsplit(" — ", 1)[-1] if " — " in o.headline else LEFT_BEHIND  # the headline ends with why
    return f"branch {o.number} {STATUS_WORDS[o.status]}{at}, {why}"


def session_words(runs: list[tuple[str, str]]) -> str:
    """A session's status in words from its root runs' (workflow name, summary_words): the run's own
    words when it has one run, else each run's, named."""
    if len(runs) == 1:
        return runs[0][1]
    return "; ".join(f"{name}: {words}" for name, words in runs)

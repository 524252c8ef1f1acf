"""The operator fork end to end, as a developer and an agent do it: an agent runs a release over stdio
(`manage.py mcp`, the real `mcp` client); the developer opens a node on the real dashboard (`manage.py
dashboard`, same WORKRAIL_HOME) in Chromium, starts a new branch there with edited context and a reason,
and copies the continue_workflow call the page hands over; the agent, given that call, goes on down the
new branch and sees the edit, while the original branch is unchanged."""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import pytest
from django.conf import settings
from mcp import Client
from playwright.sync_api import expect

from harness.processes import server_env
from runs.store import tokens
from runs.store.tokens import TokenKind
from tests.browser import screenshot
from tests.browser.layout import DESKTOP, PHONE, assert_fits, keep_screenshot
from tests.browser.words import assert_plain_words
from tests.e2e.mcp_clients import server_parameters
from tests.support.client_calls import acknowledged, started, structured
from tests.support.mcp_calls import start_workflow
from tests.support.operator_fork import RELEASE, START_CONTEXT, install_release
from tests.support.processes import running_dashboard

REASON = "The change is ready for production: skip staging this time."


def colour(locator, prop: str) -> str:
    """A computed colour of the element `locator` finds."""
    return locator.evaluate(f"e => getComputedStyle(e).getPropertyValue('{prop}')")


def as_agent(root: Path, work: Any) -> Any:
    """Runs `work(client)` in an MCP client session with `manage.py mcp` on the test's store, on a thread of
    its own: Playwright's sync API holds an asyncio loop on this one."""
    params = server_parameters(server_env(root / "home"), root)

    async def session() -> Any:
        async with Client(params, read_timeout_seconds=60) as client:
            return await work(client)

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(anyio.run, session).result(timeout=180)


def test_a_developer_forks_a_node_and_the_agent_goes_on_from_the_handed_over_call(page, console_log, tmp_path):
    install_release(tmp_path / ".workrail" / "workflows")

    async def begin(client: Client) -> dict[str, Any]:
        start = await started(client, RELEASE, START_CONTEXT)
        return {"start": start, "next": await acknowledged(client, start, "Prepared the release for staging.")}

    run = as_agent(tmp_path, begin)
    assert run["next"]["pending"]["stepId"] == "deploy-staging"
    root_node = tokens.parse(tmp_path / "home", run["start"]["stateToken"], TokenKind.STATE).id

    with running_dashboard(tmp_path) as (_, port):
        site = f"http://127.0.0.1:{port}"
        page.goto(f"{site}/nodes/{root_node}/")
        expect(page.locator("h1")).to_have_text("Prepare")
        # The two ways of branching are one control style (friction16a 11), named by their outcome, each showing
        # whether it is open (friction24a 7, 24b 13).
        same, edited = page.locator("#fork-message > summary"), page.locator("#fork-details > summary")
        assert same.evaluate("e => getComputedStyle(e).borderStyle") == edited.evaluate(
            "e => getComputedStyle(e).borderStyle"
        )
        # Before branching, what it does to the branch whose agent is at work, in the words the run page uses
        # after it (friction24b 1): one story.
        expect(page.locator("#branch-warning")).to_have_text(
            "Branch 2 becomes the run's line of work. Branch 1, where an agent works now, is kept in the history "
            "and marked Replaced: tell its agent, in its chat, to stop."
        )
        expect(page.locator("#branch-inputs dt").first).to_have_text("service")
        expect(page.locator("#branch-inputs dd").first).to_have_text("billing")
        expect(edited).to_have_attribute("aria-expanded", "false")
        page.locator("#branch-here > summary").click()  # one quiet fold in every state (friction62a 6)
        page.locator("#fork-details > summary").click()
        expect(edited).to_have_attribute("aria-expanded", "true")
        # One row per value; the JSON, which the form sends, the other side of "Edit as: Rows | JSON" (friction22a B4).
        expect(page.locator("#fork-rows legend")).to_have_text("Inputs the agent will get")  # friction60b 7
        page.locator("#fork-mode [data-mode=json]").click()
        expect(page.get_by_text("Inputs the agent will get (JSON)")).to_be_visible()
        editor = page.locator("#fork-context")
        editable = {key: value for key, value in START_CONTEXT.items() if key != "ticketId"}
        assert json.loads(editor.input_value()) == editable  # prefilled with the node's context, locked keys aside
        expect(page.locator("dl.fork-locked")).to_contain_text("ticketId")
        # The kept keys are internal: folded under "For developers", the editor in sight (friction13 item 13).
        expect(page.locator("dl.fork-locked")).to_be_hidden()
        expect(page.locator("details.fork-kept > summary")).to_have_text("Values a branch cannot change")
        # Short headings on the step's page, their explanation a line under them.
        expect(page.locator("#recap-title")).to_have_text("Notes so far")
        editor.fill(json.dumps({**editable, "target": "production"}, indent=2))
        page.locator("#fork-reason").fill(REASON)
        # With a reason, the preview is on, and looks it at once: the primary blue, not the grey of a button that
        # is off (friction29a 3: caught mid-transition, it read as off).
        preview = page.locator("#fork-preview-button")
        expect(preview).to_be_enabled()
        background = "b => getComputedStyle(b).backgroundColor"
        off = page.evaluate(
            f"() => {{ const b = document.createElement('button'); b.disabled = true; b.className = 'primary';"
            f" document.querySelector('main').append(b); const c = ({background})(b); b.remove(); return c; }}"
        )
        assert preview.evaluate(background) != off
        screenshot(page, "operator-fork-form")
        # The form and the resume message say what they do in plain words; tokens wait in "For developers".
        assert_plain_words(page)
        # The run went on from this step: the message would start a new branch, so it is not "resume" (friction13 2).
        # Nothing resumes here: no "Resume here", the head's line says where the run is (friction15).
        expect(page.locator("#resume-here-title, #branch-title")).to_have_text(["Branch from here"])
        expect(page.locator(".page-head #now-at")).to_be_visible()
        expect(page.locator("#fork-message > summary")).to_have_text("Redo with the same inputs")
        # When each way records the branch, said once, in the one fold (friction24b 15: two wordings of it).
        expect(page.locator("#branch-how")).to_contain_text(
            "nothing is recorded until you confirm a preview of the change; then this page gives the message"
        )
        expect(page.get_by_text(re.compile("Nothing is recorded until"))).to_have_count(0)
        page.get_by_role("button", name="Preview the change").click()
        expect(page.locator("#fork-preview li")).to_have_text(['target: "staging" → "production"'])
        # The change said once: the preview's list, not "What changes" again beside the same inputs (friction61a 5,
        # 61b 14); edited again, "What changes" is back to say what differs now.
        expect(page.locator("#fork-changes")).to_be_hidden()
        screenshot(page, "operator-fork-preview")
        page.locator("#fork-mode [data-mode=json]").click()
        editor.fill(json.dumps({**editable, "target": "qa"}, indent=2))
        expect(page.locator("#fork-changes li")).to_have_text(['target: "staging" → "qa"'])
        editor.fill(json.dumps({**editable, "target": "production"}, indent=2))
        page.get_by_role("button", name="Start the branch with this change").click()

        # The new branch's step: its hand-over is what "Resume here" holds, branching again the next section.
        expect(page.locator("#resume-here-title, #branch-title")).to_have_text(["Resume here", "Branch from here"])
        # Its to-dos numbered, in order: stop branch 1's agent, then paste the message (friction25a 5).
        expect(page.locator("#handover-steps li")).to_have_text(
            [
                "In branch 1's chat, tell its agent to stop.",
                "Paste this message into a chat (that one or a new one): it redoes the step on branch 2.",
            ]
        )
        # It leads the page, before the prompt: the banner's "give it the message below" is right under it, not
        # a screen away (friction21a 2).
        hand_over, prompt = page.locator("#resume-here").bounding_box(), page.locator("#prompt-card").bounding_box()
        assert hand_over and prompt and hand_over["y"] < prompt["y"]
        # The replaced branch's row says its state as every page does, "Your move · Replaced" (friction59a 3: a grey
        # "Replaced" here only, orange on the run page, read as two different states).
        row = page.locator("#other-branches li.replaced")
        expect(row.locator(".badge")).to_have_text("Your move · Replaced")
        expect(page.locator(".messages")).to_contain_text(
            "New branch started: the agent redoes Prepare with the inputs as edited."  # the form's word (friction61a 4)
        )
        # Both branches named, so the step it came from (of the same title) does not read as this page; the
        # crumb names the branch (friction18a 7).
        expect(page.locator("#started-by-hand")).to_have_text(
            "Branch 2, started by hand from branch 1's Prepare (step 1 of 5)"
        )
        expect(page.locator("p.crumbs #crumb-branch")).to_have_text("branch 2")
        expect(page.locator(".fork-handover")).not_to_contain_text("started by hand")  # said once, in the facts
        expect(page.locator(".fork-handover")).to_contain_text(REASON)
        expect(page.locator(".fork-handover")).to_contain_text('target set to "production"')
        # Not "the earlier branches stay as they were": branch 1 now reads Replaced, as the warning said.
        expect(page.locator(".fork-handover")).not_to_contain_text("stay as they were")
        page.get_by_role("button", name="Copy the resume message").click()
        expect(page.locator(".fork-handover [data-copy-status]")).not_to_have_text("")
        call = json.loads(page.locator("#agent-call").text_content() or "")  # folded: for the API
        new_node = re.search(r"/nodes/(\d+)/", page.url).group(1)
        # Branched from Prepare, done while Deploy to staging was pending: the step is the one the branch was
        # started from, not "the step that was pending".
        why = page.locator("section[aria-labelledby='trace-title']")
        expect(why).to_contain_text("it is the step the branch was started from, with the inputs as edited then.")
        expect(why).not_to_contain_text("context")  # one name, "inputs", as the form says
        expect(why).not_to_contain_text("pending")
        screenshot(page, "operator-fork-handover")
        assert_plain_words(page)
        expect(page.locator(".fork-handover details.raw-call")).to_contain_text("a fresh ackToken")
        assert call["tool"] == "continue_workflow" and set(call["arguments"]) == {"stateToken"}
        # Until an agent takes it up, the run is paused, the person's move, with its message in its own panel.
        page.goto(f"{site}/runs/{run['start']['session']['runId']}/")
        before = page.viewport_size
        for size in (DESKTOP, PHONE):
            page.set_viewport_size(size.size)
            expect(page.locator(".run-status .badge.state-paused")).to_have_text("Your move · No agent yet")
            expect(page.locator("#run-where")).to_contain_text(" · step 1 of 5 · branch 2 · started by hand ")
            panel = page.locator(".state-panel.state-paused")
            expect(panel.locator("h3")).to_have_count(0)  # the status line says it, once
            expect(panel.get_by_role("button", name="Copy the resume message")).to_be_in_viewport()
            expect(page.locator("body")).not_to_contain_text("Agent working on")
            assert_fits(page)
            # The branch's empty steps list names the step it waits at, counted in the other pages' words
            # (friction60b 5: "0 steps · No step recorded on this branch yet" beside a graph of branch 2 at Prepare).
            steps = page.locator("section[aria-labelledby=steps-title]")
            expect(steps.locator(".card-head")).to_contain_text("0 steps answered")
            expect(steps.locator("#steps-none")).to_have_text("Prepare · step 1 of 5 waits for an agent.")
            # The replaced branch, whose agent may still be working, is dashed in the your-move amber, on the drawing
            # and the phone's list alike, not in the grey "no agent works on that branch any more" (friction60b 3),
            # nor filled amber as "paused" (friction60a 3); the key draws it so at both sizes, with its meaning.
            amber = page.evaluate(
                "(c) => { const e = document.createElement('i'); e.style.color = c; document.body.append(e);"
                " const rgb = getComputedStyle(e).color; e.remove(); return rgb; }",
                page.evaluate("getComputedStyle(document.body).getPropertyValue('--your-move')").strip(),
            )
            if size == PHONE:
                page.locator(".gl-branch:not(.shown) .gl-fold > summary").first.click()
                # Friction r64: the redo started by hand carries the "↺" an agent's redo carries, as its card does.
                expect(page.locator(".gl-branch.shown .gl-step .gl-notes", has_text="↺ redone")).to_have_count(1)
                mark = page.locator(".gl-step .gl-dot.dot-superseded").first
                look = mark.evaluate("d => [getComputedStyle(d).borderTopStyle, getComputedStyle(d).borderTopColor]")
                assert look == ["dashed", amber], look
                page.locator("#graph-help > summary").click()
                keyed = page.locator("#graph-help li.listed[data-key='state-superseded']")
                expect(keyed).to_have_text(
                    "Replaced: a redo made in the dashboard replaced it while its agent may still be working (dashed"
                    " in amber, not grey as a branch left behind, which it becomes once quiet): tell it in its chat"
                    " to stop"
                )
                expect(keyed.locator("svg.swatch rect.card.state-superseded")).to_be_visible()
                page.locator("#graph-help > summary").click()
            else:
                card = page.locator("svg.run-graph rect.card.state-superseded")
                look = card.evaluate("c => [getComputedStyle(c).stroke, getComputedStyle(c).strokeDasharray]")
                assert look[0] == amber and look[1] not in ("none", ""), look
                swatch = page.locator(".state-legend li", has_text="replaced").locator("rect.card")
                assert swatch.evaluate("c => getComputedStyle(c).stroke") == amber
                # The paused card, a branch started by hand, is drawn as its key's "paused" swatch: one style per
                # meaning (friction61a 7: a solid key beside a dotted card; friction62b 13: then a teal dotted
                # "started by hand" key beside it, drawn amber); "started by hand" is its words alone.
                look = "c => [getComputedStyle(c).stroke, getComputedStyle(c).strokeDasharray]"
                paused = page.locator("svg.run-graph rect.card.state-paused").evaluate(look)
                keyed = page.locator(".state-legend li", has_text="no agent yet").locator("rect.card").evaluate(look)
                assert keyed == paused, (paused, keyed)
                expect(page.locator(".state-legend li", has_text="started by hand")).to_have_count(0)
                expect(page.locator("svg.run-graph text.tag-text.via")).to_have_text("started by hand")
                # Friction r64: a redo started by hand had no "↺" though an agent's redo has one: it has, keyed; and
                # its four labels ("Branch 2", "started by hand", "viewing", its state) stand within its card's height.
                by_hand = page.locator("svg.run-graph a.graph-node", has=page.locator("rect.card.state-paused"))
                expect(by_hand.locator(".again-badge")).to_have_count(1)
                expect(page.locator(".state-legend li", has_text="redone")).to_have_count(1)
                box = by_hand.locator("rect.card").bounding_box()
                labels = [tag.bounding_box() for tag in by_hand.locator("rect.tag").all()]
                assert box and len(labels) == 4, labels
                assert all(tag and tag["y"] + tag["height"] <= box["y"] + box["height"] + 4 for tag in labels), labels
            keep_screenshot(page, "operator-fork-paused")
        page.set_viewport_size(before)
        # Branch 2 waits for an agent: the timeline's line never says how long the session "took" (friction63a 3).
        expect(page.locator("#timeline > summary")).to_contain_text("last step")
        expect(page.locator("#timeline > summary")).not_to_contain_text("took")

        async def go_on(client: Client) -> dict[str, Any]:
            shown = await structured(client, call["tool"], call["arguments"])
            moved = await acknowledged(client, shown, "Prepared for production instead.")
            original = await structured(client, "continue_workflow", {"stateToken": run["next"]["stateToken"]})
            return {"shown": shown, "moved": moved, "original": original}

        agent = as_agent(tmp_path, go_on)
        shown, moved, original = agent["shown"], agent["moved"], agent["original"]
        assert shown["runContext"]["target"] == "production"
        assert shown["pending"]["prompt"] == "Prepare the release of billing to production."
        assert any(w["code"] == "OPERATOR_FORK" and REASON in w["message"] for w in shown["warnings"])
        assert moved["pending"]["stepId"] == "deploy-production"
        assert "billing to production" in moved["pending"]["prompt"]
        # The branch the agent was on before is unchanged: still staging, still pending there.
        assert original["pending"]["stepId"] == "deploy-staging" and original["runContext"]["target"] == "staging"

        tip = tokens.parse(tmp_path / "home", moved["stateToken"], TokenKind.STATE).id
        page.goto(f"{site}/runs/{run['start']['session']['runId']}/?tip={tip}")
        expect(page.locator(".fork-note")).to_contain_text(REASON)
        expect(page.locator("svg.run-graph a.graph-node")).to_have_count(4)
        # friction60a 7: the agent works on branch 2, yet branch 1's row is "Your move · Replaced". friction62b 1:
        # the run's line has ONE pill, the person's move, in its colour; what to do after it, and where branch 2's
        # agent works as a plain line under it, no second pill. friction63a 4, 63b 5: each line names its branch,
        # once: the pill branch 1, the line under it branch 2; no row under them says branch 1's pill again.
        expect(page.locator("#run-status .badge")).to_have_count(1)
        pill = page.locator("#run-status .badge.state-superseded")
        expect(pill).to_have_text("Your move · Branch 1 replaced")
        expect(pill).to_have_attribute("data-tone", "yours")
        expect(page.locator("#run-also")).to_have_text("Tell its agent to stop")
        other = page.locator("#run-status .run-where.run-other")
        expect(other).to_have_text(re.compile(r"^Branch 2 · Deploy to production · step 3 of 5 · agent working"))
        pill_box, other_box = pill.bounding_box(), other.bounding_box()
        assert pill_box and other_box and other_box["y"] >= pill_box["y"] + pill_box["height"] - 1  # a line of its own
        also_box = page.locator("#run-also").bounding_box()
        assert also_box and abs(also_box["y"] - pill_box["y"]) < pill_box["height"]  # the move beside its pill
        # Branch 1 stays listed, the way to what the pill asks about (friction64b 1: with its row gone only the graph
        # showed it), led by its branch and step, without the pill and the instruction again (friction63a 4).
        replaced = page.locator("#other-branches li.replaced")
        expect(replaced).to_have_count(1)
        expect(replaced.locator("a").first).to_have_text("Branch 1 · Deploy to staging · step 2 of 5")
        expect(replaced.locator(".badge")).to_have_count(0)
        expect(page.locator("#other-branches")).not_to_contain_text("stop")
        expect(page.locator("main")).not_to_contain_text("Tell branch 1")
        # The branch started by hand is drawn as an agent's redo is: beside the step it redoes, from the same parent
        # (the start), not under it, so no "Branches 1-2" stands on the step branch 2 redoes (friction r60).
        old_prepare = page.locator(f'svg.run-graph a.graph-node[data-node-id="{root_node}"] rect.card').bounding_box()
        redo = page.locator(f'svg.run-graph a.graph-node[data-node-id="{new_node}"] rect.card').bounding_box()
        assert old_prepare and redo and abs(old_prepare["y"] - redo["y"]) < 1 and redo["x"] > old_prepare["x"]
        expect(page.locator("svg.run-graph")).not_to_contain_text("Branches 1-2")
        expect(page.locator("svg.run-graph .start-edge")).to_have_count(2)
        screenshot(page, "operator-fork-run")
        before = page.viewport_size
        page.set_viewport_size(PHONE.size)  # a phone: the same two lines, each naming its branch
        expect(page.locator("#run-status .badge")).to_have_text("Your move · Branch 1 replaced")
        expect(page.locator("#run-status .run-other")).to_have_text(re.compile(r"^Branch 2 · "))
        screenshot(page, "operator-fork-run-phone")
        # Branch 1's step page says what the run page says to do, right after its pill (round 64: it said nothing).
        stale = tokens.parse(tmp_path / "home", original["stateToken"], TokenKind.STATE).id
        page.goto(f"{site}/nodes/{stale}/")
        for size, name in ((PHONE.size, "operator-fork-replaced-step-phone"), (before, "operator-fork-replaced-step")):
            page.set_viewport_size(size)
            expect(page.locator("#step-state")).to_have_text("Your move · Replaced")
            expect(page.locator("#run-also")).to_have_text("Tell its agent to stop")
            step_pill, step_also = page.locator("#step-state").bounding_box(), page.locator("#run-also").bounding_box()
            assert step_pill and step_also and step_also["y"] < step_pill["y"] + step_pill["height"]  # beside its pill
            assert_fits(page)
            screenshot(page, name)
        page.set_viewport_size(before)
        page.goto(f"{site}/sessions/")
        row = page.locator("tr.session-row").filter(has=page.locator(".badge.state-superseded"))
        expect(row.locator(".badge")).to_have_count(1)
        expect(row.locator(".badge")).to_have_text("Your move · Branch 1 replaced")  # as the run's head says it
        expect(row.locator(".where-also")).to_have_text("tell branch 1's agent to stop")
        page.goto(f"{site}/runs/{run['start']['session']['runId']}/?tip={tip}")
        assert_plain_words(page)
        page.goto(f"{site}/nodes/{root_node}/")
        # A branch started by hand here redoes this step: said apart from the step after it, in the words the
        # graph's page uses for every redo (friction60a 2: it was listed under "Next steps").
        # Where it went, one card: its one next step (friction62a 4).
        expect(page.locator("#node-branch-title")).to_have_text("Where it went")
        # Its next step, then the branch started by hand here, a row of the same list (friction65a 13).
        expect(page.locator("#where-next > li")).to_have_count(2)
        expect(page.locator("#redos-title")).to_have_count(0)
        expect(page.locator(f'#where-next > li#redos a[href="/nodes/{new_node}/"]')).to_have_text(
            "Branch 2 · Prepare · step 1 of 5"
        )
        expect(page.locator("#where-next > li#redos .via")).to_have_text("started by hand")
        # Drawn beside this step, not under it, branch 2 does not pass through this step's card: the page says so
        # as the graph draws it (r61: "On branches 1 and 2" beside a graph of branch 2 growing from the start).
        # Where each branch stands now, in one list (friction63a 5: "Other branches of this run" was a second one),
        # without branch 2, which only redid this step: its redo card says where it is now (friction64).
        expect(page.locator("#node-went-on")).to_have_text("Branch 1 now:")
        expect(page.locator("#redos .redo-now")).to_have_count(1)
        expect(page.locator("#node-branch #other-branches")).to_have_count(0)
        expect(page.locator("body")).not_to_contain_text("along several branches")
        screenshot(page, "operator-fork-parent-node")
        page.wait_for_load_state("networkidle")
        console_log.assert_clean()


@pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows
def test_a_mistake_in_the_form_shows_inline_in_the_browser(page, console_log, live_server, service_catalog):
    install_release(service_catalog["extra"])
    start = start_workflow(RELEASE, context=START_CONTEXT)
    node = tokens.parse(settings.WORKRAIL_HOME, start["stateToken"], TokenKind.STATE).id
    page.goto(f"{live_server.url}/nodes/{node}/")
    # The agent works on this step: "Branch from here" is a quiet closed fold (friction59a 9), branching from it
    # one folded way inside.
    expect(page.locator("#branch-here #fork-details > summary")).to_be_hidden()
    page.locator("#branch-here > summary").click()
    page.locator("#fork-details > summary").click()
    page.locator("#fork-mode [data-mode=json]").click()
    page.locator("#fork-context").fill('{"target": "production",}')
    # Checked as it is typed, where it fails said; sent anyway, the server's answer is the one that counts.
    expect(page.locator("#fork-json-error")).to_contain_text("The inputs are not valid JSON at line 1, column 25")
    # What changes cannot be told from JSON that does not parse: not "Nothing yet: … the same values" (friction61a 4).
    expect(page.locator("#fork-changes-unknown")).to_have_text("Cannot tell until the JSON is valid.")
    expect(page.locator("#fork-no-change")).to_be_hidden()
    page.locator("#fork-reason").fill("Trailing comma on purpose.")
    page.get_by_role("button", name="Preview the change").click()
    expect(page.locator("#fork-error strong")).to_have_text(
        "The inputs are not valid JSON (line 1, column 25). Nothing was recorded."
    )
    expect(page.locator("#fork-error")).to_contain_text("Write the inputs as a JSON object")
    expect(page.locator("#fork-changes-unknown")).to_be_visible()
    expect(page.locator("#fork-no-change")).to_be_hidden()
    expect(page.locator("#fork-error .small")).to_contain_text("CONTEXT_CHANGE_INVALID")
    # At the inputs' label, right over the JSON it is about, not above the whole form (friction65a 6).
    error, label = page.locator("#fork-error").bounding_box(), page.locator("label[for=fork-context]").bounding_box()
    assert page.locator("#fork-mode").bounding_box()["y"] < error["y"] < label["y"] <= error["y"] + error["height"] + 40
    expect(page.locator("#fork-context")).to_have_value('{"target": "production",}')
    expect(page.locator("#fork-context")).to_be_visible()  # the JSON to fix in sight, said once (no live line)
    expect(page.locator("#fork-json-error")).to_be_hidden()
    expect(page.locator("#fork-reason")).to_have_value("Trailing comma on purpose.")
    screenshot(page, "operator-fork-inline-error")
    console_log.assert_clean()

"""A step a branch passed over is said where it would stand in the run page's list of steps (runs/readmodels/
skipped_steps.py): its place in the outline, its title and why, from the traces the engine kept, never
missing without a word."""

from __future__ import annotations

import html as html_lib
import re

import pytest
from django.test import Client

from runs.models import Run
from runs.readmodels import skipped_steps
from runs.store.pinned import compiled_workflow
from tests.support.traced_run import install, traced_run

pytestmark = pytest.mark.django_db


def test_each_step_passed_over_is_numbered_as_the_outline_and_says_why(service_catalog):
    install(service_catalog["extra"])
    run = traced_run()
    into = skipped_steps.into_nodes([run.node_at("phase-1"), run.node_at("verify", 0), run.node_at("wrap-up")])
    said = {node: [step.words for step in steps] for node, steps in into.items()}
    assert said == {
        run.node_at("phase-1"): [
            "Phase 0b · step 2 of 7, skipped: it runs only if task complexity is 'Small', "
            "and task complexity is 'Large'"
        ],
        run.node_at("verify", 0): [
            "Update the docs · step 4 of 7, skipped: it runs only if touches docs is true, and touches docs is not set"
        ],
        run.node_at("wrap-up"): [
            "Polish · step 6 of 7, skipped: it repeats while polish rounds is more than 0, and polish rounds is 0"
        ],
    }
    # A node the engine reached without passing anything over says nothing.
    assert skipped_steps.into_nodes([run.node_at("verify", 1), run.node_at("intake")]) == {}


def test_outline_places_are_the_run_pages(service_catalog):
    install(service_catalog["extra"])
    run = traced_run(until="phase-1")
    steps = compiled_workflow(Run.objects.get(public_id=run.run_id).pinned_id)["steps"]
    places = skipped_steps.outline_places(steps)
    # The workflow page's 5.1: the loop's entry.
    assert [places[step] for step in ("intake", "phase-0b", "verify-slices", "verify", "polish-pass", "wrap-up")] == [
        "1",
        "2",
        "5",
        "5",
        "6",
        "7",
    ]
    skipped = skipped_steps.SkippedStep(number="5", length=7, title="Verify", how="skipped", why="")
    # Never "5.1 of 7" (read as a fraction: friction13 5) nor the outline's letter "5a" (friction19a 8).
    assert skipped.place == "step 5 of 7, skipped"
    assert skipped.short == "step 5 skipped"


def test_the_run_pages_list_says_a_skipped_step_where_it_would_stand(client: Client, service_catalog):
    install(service_catalog["extra"])
    run = traced_run()
    html = client.get(f"/runs/{run.run_id}/").content.decode()
    steps = html.split('<ol class="steps">', 1)[1].split("</ol>", 1)[0]
    head = r'(?:<details class="step-fold"[^>]*>\s*<summary class="step-head">)?'  # an answered step's folded head
    entry = r'<li class="step[^"]*"[^>]*>\s*' + head + r"\s*(<(?:h3|p)[^>]*>.*?</(?:h3|p)>)"
    heads = [html_lib.unescape(re.sub(r"<[^>]+>|\s+", " ", head)).strip() for head in re.findall(entry, steps, re.S)]
    assert [re.sub(r"\s+", " ", head) for head in heads][:4] == [
        "Intake · step 1 of 7",
        "Phase 0b · step 2 of 7, skipped: it runs only if task complexity is 'Small', and task complexity is 'Large'",
        "Phase 1 · step 3 of 7",
        "Update the docs · step 4 of 7, skipped: it runs only if touches docs is true, and touches docs is not set",
    ]

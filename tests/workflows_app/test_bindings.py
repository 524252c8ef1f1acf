"""Extension points and bindings: `{{wr.bindings.<slot>}}` in a prompt becomes, at compile time, the
routine or workflow bound to the slot: the project's override in `<project>/.workrail/bindings.json`
(a section per workflow id, or one flat set for every workflow), else the extension point's default.
The bindings in effect are part of the compiled workflow, so of its hash."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.support.workflow_files import loop_doc, step_doc, workflow_doc, write_json
from workflows_app.compiler import CompileError, compile_workflow
from workflows_app.diagnostics import Code, Severity

POINTS = [
    {"slotId": "design_review", "purpose": "Reviews a design.", "default": "wr.routine-design-review"},
    {"slotId": "final_check", "purpose": "Checks before hand-off.", "default": "team.routine-final-check"},
]


def bound_workflow(workflow_id: str = "team.bound") -> dict[str, Any]:
    return workflow_doc(
        workflow_id,
        extensionPoints=POINTS,
        steps=[
            step_doc("design", "Design", "Design it, then run {{wr.bindings.design_review}}."),
            loop_doc(
                "rounds",
                "Rounds",
                {"type": "for", "count": 2, "maxIterations": 2},
                [
                    {
                        "id": "check",
                        "title": "Check",
                        "promptBlocks": {
                            "goal": "Check round {{iteration}} with {{wr.bindings.final_check}}.",
                            "outputRequired": {"verdict": "What {{wr.bindings.final_check}} said."},
                        },
                    }
                ],
            ),
        ],
    )


def prompts(compiled: dict[str, Any]) -> list[str]:
    return [compiled["steps"][0]["prompt"], compiled["steps"][1]["body"][0]["prompt"]]


def bindings_file(dirs: dict[str, Path], content: Any) -> Path:
    path = dirs["project"] / ".workrail" / "bindings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return path


@pytest.fixture
def load(make_loader, dirs):
    write_json(dirs["extra"] / "bound.json", bound_workflow())
    write_json(dirs["extra"] / "other.json", bound_workflow("team.other"))
    return make_loader(dirs["extra"]).load


def test_defaults_are_compiled_into_the_prompts_and_recorded(load):
    compiled = load().get("team.bound").compiled
    design, check = prompts(compiled)
    assert design == "Design it, then run wr.routine-design-review."
    # promptBlocks strings (goal, outputRequired) and loop bodies too; context placeholders stay.
    assert check == (
        "Goal: Check round {{iteration}} with team.routine-final-check.\n\n"
        "Output required (in output.notesMarkdown, unless the call below has a place for it):\n"
        "- verdict: What team.routine-final-check said."
    )
    assert compiled["bindings"] == {
        "design_review": {"value": "wr.routine-design-review", "source": "default"},
        "final_check": {"value": "team.routine-final-check", "source": "default"},
    }


def test_a_project_section_overrides_a_default_and_changes_the_hash(load, dirs):
    before = load().get("team.bound")
    bindings_file(dirs, {"team.bound": {"design_review": "team.routine-strict-review"}})
    catalog = load()
    after = catalog.get("team.bound")
    assert prompts(after.compiled)[0] == "Design it, then run team.routine-strict-review."
    assert after.compiled["bindings"]["design_review"] == {"value": "team.routine-strict-review", "source": "project"}
    assert after.compiled["bindings"]["final_check"]["source"] == "default"
    assert after.workflow_hash != before.workflow_hash
    # The section is for team.bound only.
    assert catalog.get("team.other").compiled["bindings"]["design_review"]["source"] == "default"
    assert [d for d in catalog.diagnostics if d.code is Code.INVALID_BINDINGS] == []


def test_a_flat_file_binds_every_workflow(load, dirs):
    bindings_file(dirs, {"final_check": "team.routine-release-gate"})
    catalog = load()
    for workflow_id in ("team.bound", "team.other"):
        assert prompts(catalog.get(workflow_id).compiled)[1].endswith("What team.routine-release-gate said.")


def test_a_workflow_section_wins_and_flat_entries_beside_sections_are_ignored_with_a_warning(load, dirs):
    path = bindings_file(
        dirs,
        {"final_check": "team.routine-release-gate", "team.bound": {"design_review": "team.routine-strict-review"}},
    )
    catalog = load()
    bound = catalog.get("team.bound").compiled["bindings"]
    assert bound["design_review"]["value"] == "team.routine-strict-review"
    assert bound["final_check"]["source"] == "default"  # as WorkRail: the file is no longer flat
    assert catalog.get("team.other").compiled["bindings"]["final_check"]["source"] == "default"
    [ignored] = [d for d in catalog.diagnostics if d.code is Code.INVALID_BINDINGS]
    assert (ignored.severity, ignored.file, ignored.pointer) == (Severity.WARNING, str(path), "/final_check")


def test_an_override_binds_a_slot_the_workflow_does_not_declare(make_loader, dirs):
    step = {"id": "review", "title": "Review", "prompt": "Review with {{wr.bindings.team_review}}."}
    write_json(dirs["extra"] / "undeclared.json", workflow_doc("team.undeclared", steps=[step]))
    bindings_file(dirs, {"team.undeclared": {"team_review": "team.routine-review"}})
    compiled = make_loader(dirs["extra"]).load().get("team.undeclared").compiled
    assert compiled["steps"][0]["prompt"] == "Review with team.routine-review."
    assert compiled["bindings"] == {"team_review": {"value": "team.routine-review", "source": "project"}}


def test_a_slot_nobody_binds_is_an_error():
    step = {"id": "review", "title": "Review", "prompt": "Review with {{wr.bindings.design_reveiw}}."}
    with pytest.raises(CompileError) as caught:
        compile_workflow(
            workflow_doc(extensionPoints=POINTS, steps=[step]), kind="workflow", resolve_routine=lambda _name: None
        )
    [problem] = caught.value.diagnostics
    assert (problem.code, problem.severity, problem.pointer) == (Code.UNKNOWN_REFERENCE, Severity.ERROR, "/steps/0")
    assert "design_reveiw" in problem.message and "design_review" in problem.message


@pytest.mark.parametrize(
    ("content", "pointer"),
    [
        ("{not json", ""),
        ('["a list"]', ""),
        ({"team.bound": {"design_review": 3}}, "/team.bound/design_review"),
        ({"team.bound": "team.routine-x"}, ""),  # a string for a workflow id: neither form, skipped
        ({"team.bound": ["x"]}, "/team.bound"),
    ],
)
def test_a_broken_bindings_file_is_ignored_with_a_warning(load, dirs, content, pointer):
    path = bindings_file(dirs, content)
    catalog = load()
    compiled = catalog.get("team.bound").compiled
    assert compiled["bindings"]["design_review"] == {"value": "wr.routine-design-review", "source": "default"}
    warnings = [d for d in catalog.diagnostics if d.code is Code.INVALID_BINDINGS]
    if content == {"team.bound": "team.routine-x"}:
        # WorkRail ignores a section that is not an object; the file as a whole is a flat set whose
        # entry happens to be named like the workflow, which binds no slot of it.
        assert warnings == []
        return
    assert [(d.severity, d.file, d.pointer) for d in warnings] == [(Severity.WARNING, str(path), pointer)]


def test_the_catalog_reloads_when_the_bindings_change(load, dirs):
    first = load()
    path = bindings_file(dirs, {"design_review": "team.routine-a"})
    second = load()
    assert second is not first
    assert prompts(second.get("team.bound").compiled)[0].endswith("team.routine-a.")
    assert load() is second  # nothing changed: the same catalog
    path.write_text(json.dumps({"design_review": "team.routine-bb"}), encoding="utf-8")
    os.utime(path, ns=(path.stat().st_mtime_ns + 10**9,) * 2)
    assert prompts(load().get("team.bound").compiled)[0].endswith("team.routine-bb.")
    path.unlink()
    assert prompts(load().get("team.bound").compiled)[0].endswith("wr.routine-design-review.")


def test_routine_steps_are_bound_with_the_callers_slots(make_loader, dirs):
    routine = workflow_doc(
        "team.routine-review-pass",
        extensionPoints=[{"slotId": "reviewer", "purpose": "Reviews.", "default": "team.routine-own-default"}],
        steps=[{"id": "pass", "title": "Pass", "prompt": "Ask {{wr.bindings.reviewer}} for a review."}],
    )
    caller = workflow_doc(
        "team.review_caller",
        extensionPoints=[{"slotId": "reviewer", "purpose": "Reviews.", "default": "team.routine-callers-choice"}],
        steps=[{"id": "review", "title": "Review", "templateCall": {"templateId": "wr.templates.routine.review-pass"}}],
    )
    write_json(dirs["extra"] / "routine.json", routine)
    write_json(dirs["extra"] / "caller.json", caller)
    catalog = make_loader(dirs["extra"]).load()
    assert (
        catalog.get("team.routine-review-pass")
        .compiled["steps"][0]["prompt"]
        .startswith("Ask team.routine-own-default")
    )
    [expanded] = catalog.get("team.review_caller").compiled["steps"]
    assert expanded["prompt"] == "Ask team.routine-callers-choice for a review."


def test_project_bindings_path_comes_from_the_project_source(dirs):
    from workflows_app.sources import configured_sources, project_bindings_path

    sources = configured_sources(workrail_home=dirs["home"], project_dir=dirs["project"], extra_paths=[dirs["extra"]])
    assert project_bindings_path(sources) == dirs["project"] / ".workrail" / "bindings.json"
    assert project_bindings_path([s for s in sources if s.kind.value != "project"]) is None

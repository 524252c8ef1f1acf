"""A workflow's size once its routines are expanded is bounded at compile time (issue 29, the
routine-expansion bomb): routines calling routines through templateCall, a few small files that would
compile into hundreds of thousands of steps or megabytes of text, are refused with the chain of calls;
each routine is compiled once; the rest of the catalog loads."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.workflow_files import workflow_doc, write_json
from workflows_app import compiler
from workflows_app.diagnostics import Code
from workflows_app.file_checks import validate_with_catalog
from workflows_app.sources import SourceKind


def call(step_id: str, routine: str, **args: str) -> dict:
    template = {"templateId": f"wr.templates.routine.{routine}"}
    if args:
        template["args"] = args
    return {"id": step_id, "title": step_id, "templateCall": template}


def write_bomb(directory: Path, levels: int, fan_out: int) -> None:
    """team.routine-l1 has one step; each level above calls the one below `fan_out` times; team.bomb
    calls the top level `fan_out` times: fan_out ** levels steps once expanded, from files of a
    few hundred bytes."""
    write_json(
        directory / "l1.json",
        workflow_doc("team.routine-l1", steps=[{"id": "only", "title": "Only", "prompt": "Do x."}]),
    )
    for level in range(2, levels + 1):
        steps = [call(f"call-{i}", f"routine-l{level - 1}") for i in range(fan_out)]
        write_json(directory / f"l{level}.json", workflow_doc(f"team.routine-l{level}", steps=steps))
    steps = [call(f"call-{i}", f"routine-l{levels}") for i in range(fan_out)]
    write_json(directory / "bomb.json", workflow_doc("team.bomb", steps=steps))


def catalog_of(directory: Path):
    reports, catalog = validate_with_catalog([directory], kind=SourceKind.EXTRA, user_dir=directory / "no-user")
    return {report.workflow_id: report for report in reports}, catalog


def test_a_routine_expansion_bomb_is_refused_with_its_chain_and_the_rest_loads(tmp_path):
    write_bomb(tmp_path, levels=3, fan_out=13)  # 13**3 = 2,197 steps once expanded
    write_json(tmp_path / "fine.json", workflow_doc("team.fine"))

    reports, catalog = catalog_of(tmp_path)

    assert catalog.get("team.fine") is not None
    assert catalog.get("team.routine-l3") is not None  # 169 steps: within the bound
    assert catalog.get("team.bomb") is None
    [refusal] = [d for d in reports["team.bomb"].diagnostics if d.code is Code.WORKFLOW_TOO_LARGE]
    assert refusal.details["chain"] == ["team.bomb", "team.routine-l3", "team.routine-l2", "team.routine-l1"]
    assert refusal.details == {**refusal.details, "limit": compiler.MAX_EXPANDED_STEPS, "unit": "steps"}
    assert "team.bomb' -> 'team.routine-l3' (169 steps)" in refusal.message
    assert "'team.routine-l2' (13 steps, called 13 times)" in refusal.message
    assert refusal.pointer.startswith("/steps/") and refusal.pointer.endswith("/templateCall")


def test_a_routine_past_the_bound_is_refused_itself_and_names_where_it_stopped(tmp_path):
    write_bomb(tmp_path, levels=4, fan_out=13)  # team.routine-l4 alone is 2,197 steps

    reports, catalog = catalog_of(tmp_path)

    assert catalog.get("team.routine-l3") is not None and catalog.get("team.routine-l4") is None
    [refusal] = [d for d in reports["team.routine-l4"].diagnostics if d.code is Code.WORKFLOW_TOO_LARGE]
    assert refusal.details["chain"] == ["team.routine-l4", "team.routine-l3", "team.routine-l2", "team.routine-l1"]
    assert "at step 'call-11' of 'team.routine-l4'" in refusal.message
    [above] = [d for d in reports["team.bomb"].diagnostics if d.code is Code.WORKFLOW_TOO_LARGE]
    assert above.details["chain"][:2] == ["team.bomb", "team.routine-l4"]


def test_each_routine_is_compiled_once_however_many_steps_call_it(tmp_path, monkeypatch):
    write_bomb(tmp_path, levels=3, fan_out=6)  # 6**3 = 216 steps
    compiled: list[str] = []
    real = compiler._Compiler.compile

    def counting(self, document, kind, stack):
        compiled.append(document["id"])
        return real(self, document, kind, stack)

    monkeypatch.setattr(compiler._Compiler, "compile", counting)

    _reports, catalog = catalog_of(tmp_path)

    assert catalog.get("team.bomb").step_count == 6**3
    # Once as a routine (shared by every caller) and once as an entry of the catalog of its own.
    assert {name: compiled.count(name) for name in set(compiled) if "routine-l" in name} == {
        "team.routine-l1": 2,
        "team.routine-l2": 2,
        "team.routine-l3": 2,
    }


def test_arguments_that_multiply_text_at_each_level_are_refused(tmp_path):
    """One step per routine, but each call passes an argument holding its own caller's placeholder a
    hundred times: the text is multiplied by a hundred at each level (5 MB at the fourth)."""
    many = "{{a}}" * 100
    write_json(
        tmp_path / "t1.json",
        workflow_doc("team.routine-t1", steps=[{"id": "only", "title": "Only", "prompt": "{{a}}"}]),
    )
    for level in range(2, 5):
        steps = [call("call-0", f"routine-t{level - 1}", a=many)]
        write_json(tmp_path / f"t{level}.json", workflow_doc(f"team.routine-t{level}", steps=steps))
    write_json(tmp_path / "fine.json", workflow_doc("team.fine"))

    reports, catalog = catalog_of(tmp_path)

    assert catalog.get("team.routine-t3") is not None and catalog.get("team.fine") is not None
    assert catalog.get("team.routine-t4") is None
    [refusal] = [d for d in reports["team.routine-t4"].diagnostics if d.code is Code.WORKFLOW_TOO_LARGE]
    assert refusal.details["unit"] == "characters"
    assert refusal.details["chain"] == ["team.routine-t4", "team.routine-t3", "team.routine-t2", "team.routine-t1"]


def test_a_binding_token_cannot_multiply_text_past_the_bound(tmp_path):
    token = "{{wr.bindings.slot}}"
    document = workflow_doc(
        "team.bound",
        extensionPoints=[{"slotId": "slot", "purpose": "p", "default": "r" * 60}],
        steps=[{"id": f"step-{i}", "title": "Step", "prompt": token * 1000} for i in range(40)],
    )
    with pytest.raises(compiler.CompileError) as caught:
        compiler.compile_workflow(document, kind="workflow", resolve_routine=lambda name: None)
    [refusal] = caught.value.diagnostics
    assert refusal.code is Code.WORKFLOW_TOO_LARGE and refusal.details["unit"] == "characters"

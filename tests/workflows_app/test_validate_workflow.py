"""`manage.py validate_workflow`: the catalog's checks on given files, for authors and CI."""

from __future__ import annotations

import json
import subprocess
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from tests.support.processes import run_manage
from tests.support.workflow_files import parallel_doc, workflow_doc, write_json
from workflows_app.compiler import compile_workflow
from workflows_app.prose import read_step

GOOD = workflow_doc("team.good", name="Good")
LEGACY = workflow_doc("oldstyle", name="Old style", tips=["release"])  # LEGACY_ID and IGNORED_FIELD
INVALID = {key: value for key, value in workflow_doc("team.invalid").items() if key != "version"}

INVALID_JSON_FIX = "Fix the JSON syntax (a trailing comma or a missing quote is the usual cause)."
HUMAN_OUTPUT = """\
workflows/broken.json: 1 error
  error INVALID_JSON: Invalid JSON at line 2, column 13: Expecting value.
    fix: Fix the JSON syntax (a trailing comma or a missing quote is the usual cause).
workflows/good.json (team.good): ok
workflows/invalid.json (team.invalid): 1 error
  error SCHEMA_VIOLATION: At the document root: 'version' is a required property
    fix: Add the missing property.
workflows/legacy.json (oldstyle): ok with 2 warnings
  warning IGNORED_FIELD at /tips: 'tips' is not part of the v0.3 format; ignored.
    fix: Remove the field: it has no effect in this version of the workflow format.
  warning LEGACY_ID at /id: 'oldstyle' is a legacy id without a namespace; it runs, but new workflows need one.
    fix: Rename it to 'team.oldstyle'.

4 files checked: 2 valid (1 with warnings), 2 invalid; 2 errors, 2 warnings.
"""


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """tmp_path as the working directory, with workflows/ holding one good, two broken and one warned file."""
    monkeypatch.chdir(tmp_path)
    write_json(tmp_path / "workflows" / "good.json", GOOD)
    (tmp_path / "workflows" / "broken.json").write_text('{"id": "team.broken",\n  "steps": [,]}', encoding="utf-8")
    write_json(tmp_path / "workflows" / "invalid.json", INVALID)
    write_json(tmp_path / "workflows" / "legacy.json", LEGACY)
    return tmp_path


def call(*args: str) -> tuple[int, str]:
    """Runs the command in-process: (exit status, stdout)."""
    out = StringIO()
    try:
        call_command("validate_workflow", *args, stdout=out, stderr=StringIO())
    except SystemExit as exc:
        return int(exc.code or 0), out.getvalue()
    return 0, out.getvalue()


def run_validate(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Runs `manage.py validate_workflow` as CI would, with no WORKRAIL_* setting of the developer's."""
    return run_manage(tmp_path, "validate_workflow", *args, **env)


def test_the_text_report_has_one_block_per_file_in_sorted_order_then_a_summary(workdir):
    assert call("workflows") == (1, HUMAN_OUTPUT)


def test_the_order_does_not_depend_on_the_order_of_the_arguments_and_each_file_is_reported_once(workdir):
    files = ["workflows/legacy.json", "workflows/invalid.json", "workflows/good.json", "workflows/broken.json"]
    assert call(*files, "workflows") == (1, HUMAN_OUTPUT)


def test_the_json_report_is_one_document_with_a_stable_key_order(workdir):
    def diagnostic(code, severity, message, fix, file, pointer="", workflow_id=None, details=None):
        found = {
            "code": code,
            "severity": severity,
            "message": message,
            "fix": fix,
            "file": file,
            "pointer": pointer,
            "workflowId": workflow_id,
        }
        return {**found, "details": details} if details else found

    expected = {
        "files": [
            {
                "path": "workflows/broken.json",
                "workflowId": None,
                "status": "errors",
                "diagnostics": [
                    diagnostic(
                        "INVALID_JSON",
                        "error",
                        "Invalid JSON at line 2, column 13: Expecting value.",
                        INVALID_JSON_FIX,
                        "workflows/broken.json",
                        details={"line": 2, "column": 13},
                    )
                ],
                "advice": [],
            },
            {"path": "workflows/good.json", "workflowId": "team.good", "status": "ok", "diagnostics": [], "advice": []},
            {
                "path": "workflows/invalid.json",
                "workflowId": "team.invalid",
                "status": "errors",
                "diagnostics": [
                    diagnostic(
                        "SCHEMA_VIOLATION",
                        "error",
                        "At the document root: 'version' is a required property",
                        "Add the missing property.",
                        "workflows/invalid.json",
                        workflow_id="team.invalid",
                        details={"rule": "required"},
                    )
                ],
                "advice": [],
            },
            {
                "path": "workflows/legacy.json",
                "workflowId": "oldstyle",
                "status": "warnings",
                "diagnostics": [
                    diagnostic(
                        "IGNORED_FIELD",
                        "warning",
                        "'tips' is not part of the v0.3 format; ignored.",
                        "Remove the field: it has no effect in this version of the workflow format.",
                        "workflows/legacy.json",
                        "/tips",
                        "oldstyle",
                    ),
                    diagnostic(
                        "LEGACY_ID",
                        "warning",
                        "'oldstyle' is a legacy id without a namespace; it runs, but new workflows need one.",
                        "Rename it to 'team.oldstyle'.",
                        "workflows/legacy.json",
                        "/id",
                        "oldstyle",
                        {"suggestedId": "team.oldstyle"},
                    ),
                ],
                "advice": [],
            },
        ],
        "summary": {"files": 4, "valid": 2, "withWarnings": 1, "invalid": 2, "errors": 2, "warnings": 2},
    }
    assert call("workflows", "--json") == (1, json.dumps(expected, indent=2) + "\n")


def test_strict_fails_on_warnings_and_says_so(workdir):
    legacy_block = HUMAN_OUTPUT[HUMAN_OUTPUT.index("workflows/legacy.json") : HUMAN_OUTPUT.index("\n\n") + 1]
    assert call("workflows/good.json", "workflows/legacy.json") == (
        0,
        "workflows/good.json (team.good): ok\n"
        + legacy_block
        + "\n2 files checked: 2 valid (1 with warnings), 0 invalid; 0 errors, 2 warnings.\n",
    )
    assert call("workflows/good.json", "workflows/legacy.json", "--strict") == (
        1,
        "workflows/good.json (team.good): ok\n"
        + legacy_block
        + "\n2 files checked: 2 valid (1 with warnings), 0 invalid; 0 errors, 2 warnings. "
        "Warnings fail the check (--strict).\n",
    )
    assert call("workflows/good.json", "--strict") == (
        0,
        "workflows/good.json (team.good): ok\n\n1 file checked: 1 valid (0 with warnings), 0 invalid; "
        "0 errors, 0 warnings.\n",
    )


def test_verbosity_zero_lists_only_files_with_diagnostics(workdir):
    status, out = call("workflows", "-v", "0")
    assert status == 1
    assert out == HUMAN_OUTPUT.replace("workflows/good.json (team.good): ok\n", "")
    assert call("workflows/good.json", "-v", "0") == (
        0,
        "1 file checked: 1 valid (0 with warnings), 0 invalid; 0 errors, 0 warnings.\n",
    )


def test_colour_only_when_asked_or_on_a_terminal(workdir):
    assert "\x1b[" not in call("workflows")[1]
    assert "\x1b[" in call("workflows", "--force-color")[1]
    assert "\x1b[" not in call("workflows", "--json", "--force-color")[1]


def test_the_source_kind_follows_the_location_or_the_source_option(workdir):
    project_file = write_json(workdir / "repo" / ".workrail" / "workflows" / "old.json", LEGACY)
    found = json.loads(call(str(project_file.relative_to(workdir)), "--json")[1])
    [legacy_id] = [d for d in found["files"][0]["diagnostics"] if d["code"] == "LEGACY_ID"]
    assert legacy_id["details"] == {"suggestedId": "project.oldstyle"}

    found = json.loads(call("workflows/legacy.json", "--json", "--source", "user")[1])
    [legacy_id] = [d for d in found["files"][0]["diagnostics"] if d["code"] == "LEGACY_ID"]
    assert legacy_id["details"] == {"suggestedId": "user.oldstyle"}


def test_a_wr_id_outside_the_bundled_workflows_is_an_error(workdir):
    write_json(workdir / "mine" / "mine.json", workflow_doc("wr.mine"))
    status, out = call("mine", "--json")
    assert status == 1
    [problem] = json.loads(out)["files"][0]["diagnostics"]
    assert (problem["code"], problem["severity"], problem["pointer"]) == ("RESERVED_NAMESPACE", "error", "/id")
    assert problem["details"] == {"suggestedId": "team.mine"}


def test_routines_among_the_checked_files_and_bundled_ones_resolve_and_duplicates_are_reported(workdir):
    routine = workflow_doc("team.routine-checks", steps=[{"id": "check", "title": "Check", "prompt": "Check it."}])
    caller = workflow_doc(
        "team.caller",
        steps=[
            {"id": "own", "title": "Own", "templateCall": {"templateId": "wr.templates.routine.checks"}},
            {"id": "plan", "title": "Plan", "templateCall": {"templateId": "wr.templates.routine.focused_plan"}},
        ],
    )
    write_json(workdir / "team" / "routines" / "checks.json", routine)
    write_json(workdir / "team" / "caller.json", caller)
    write_json(workdir / "team" / "copy.json", caller)
    status, out = call("team", "--json")
    assert status == 0, out
    files = json.loads(out)["files"]
    assert [(f["path"], f["status"]) for f in files] == [
        ("team/caller.json", "ok"),
        ("team/copy.json", "warnings"),
        ("team/routines/checks.json", "ok"),
    ]
    assert [d["code"] for d in files[1]["diagnostics"]] == ["DUPLICATE_ID"]

    status, out = call("team/caller.json")  # without its routine, the call cannot be compiled
    assert status == 1
    assert "error UNKNOWN_REFERENCE at /steps/0/templateCall/templateId:" in out


def test_a_missing_path_or_an_empty_directory_is_a_usage_error(workdir):
    (workdir / "empty" / ".hidden").mkdir(parents=True)
    write_json(workdir / "empty" / ".hidden" / "skipped.json", GOOD)
    with pytest.raises(CommandError, match=r"No such file or directory: nope\.json, gone$") as missing:
        call("workflows", "nope.json", "gone")
    assert missing.value.returncode == 2
    with pytest.raises(CommandError, match=r"No \*\.json workflow file under: empty ") as empty:
        call("empty")
    assert empty.value.returncode == 2


@pytest.mark.subprocess
def test_exit_statuses_from_the_command_line(tmp_path):
    write_json(tmp_path / "good" / "a.json", GOOD)
    write_json(tmp_path / "good" / "nested" / "b.json", workflow_doc("team.other"))
    write_json(tmp_path / "warned" / "legacy.json", LEGACY)
    write_json(tmp_path / "bad" / "invalid.json", INVALID)

    # A database it could not open: the command never connects (nor needs migrations).
    good = run_validate(tmp_path, "good", DATABASE_URL=f"sqlite:///{tmp_path}/no/such/dir/db.sqlite3")
    assert (good.returncode, good.stderr) == (0, "")
    assert good.stdout == (
        "good/a.json (team.good): ok\ngood/nested/b.json (team.other): ok\n\n"
        "2 files checked: 2 valid (0 with warnings), 0 invalid; 0 errors, 0 warnings.\n"
    )
    assert run_validate(tmp_path, "good", "warned").returncode == 0
    assert run_validate(tmp_path, "good", "warned", "--strict").returncode == 1
    bad = run_validate(tmp_path, "good", "bad", "--json")
    assert bad.returncode == 1
    assert json.loads(bad.stdout)["summary"]["invalid"] == 1

    missing = run_validate(tmp_path, "good", "nope.json")
    assert missing.returncode == 2
    assert missing.stdout == ""
    assert missing.stderr == "CommandError: No such file or directory: nope.json\n"
    no_paths = run_validate(tmp_path)
    assert no_paths.returncode == 2
    assert no_paths.stderr == "CommandError: Give PATHs, or --configured (with --workflow ID, optionally).\n"

    # Settings are read (they create the home and its key), but no database nor workflow directory.
    assert sorted(p.name for p in (tmp_path / "home").iterdir()) == ["secret_key"]


def test_a_symlink_loop_is_reported_for_that_file_not_a_crash(tmp_path):
    from workflows_app.file_checks import validate

    folder = tmp_path / "flows"
    folder.mkdir()
    (folder / "loop.json").symlink_to(folder / "loop.json")
    write_json(folder / "good.json", workflow_doc("project.good"))
    reports = validate([folder], user_dir=tmp_path / "user")
    statuses = {Path(r.path).name: r.status for r in reports}
    assert statuses["good.json"] in ("ok", "warnings")
    assert statuses["loop.json"] != "ok"


def test_a_delegation_to_a_workflow_outside_the_catalog_is_a_warning_with_its_fix(workdir):
    fan_out = workflow_doc(
        "team.fan_out",
        steps=[parallel_doc("spread", "Spread", [{"workflowId": "team.good"}, {"workflowId": "team.routine-absent"}])],
    )
    write_json(workdir / "workflows" / "fan_out.json", fan_out)
    status, out = call("workflows/fan_out.json", "workflows/good.json", "--json")
    assert status == 0, out  # a warning: the workflow runs, that delegation is left to the agent
    [report] = [f for f in json.loads(out)["files"] if f["workflowId"] == "team.fan_out"]
    [problem] = report["diagnostics"]
    assert (problem["code"], problem["severity"], problem["file"], problem["pointer"]) == (
        "UNKNOWN_DELEGATION",
        "warning",
        "workflows/fan_out.json",
        "/steps/0/parallelDelegations/1/workflowId",
    )
    assert "'team.routine-absent'" in problem["message"] and "WORKRAIL_WORKFLOW_PATHS" in problem["fix"]
    status, _ = call("workflows/fan_out.json", "workflows/good.json", "--strict")
    assert status == 1


def test_configured_reports_what_list_workflows_counts_and_one_workflow_on_request(workdir, settings, tmp_path):
    """The command an agent is given with the count of problems (list_workflows' `problems.command`)."""
    settings.WORKRAIL_HOME = tmp_path / "home"
    settings.WORKRAIL_PROJECT_DIR = tmp_path / "project"
    settings.WORKRAIL_WORKFLOW_PATHS = [workdir / "workflows"]
    settings.WORKRAIL_WORKFLOW_REPOS = []
    status, out = call("--configured", "-v", "0")
    assert status == 1  # broken.json and invalid.json fail to load
    assert "workflows/broken.json: 1 error" in out and "LEGACY_ID" in out and "team.good" not in out
    status, out = call("--configured", "--workflow", "oldstyle")
    assert status == 0 and out.splitlines()[0].endswith("workflows/legacy.json (oldstyle): ok with 2 warnings")
    status, out = call("--configured", "--workflow", "wr.coding_task")  # a former id: the renamed workflow's file
    assert status == 0 and "wr.change_in_slices.json (wr.change_in_slices): ok" in out
    with pytest.raises(CommandError, match=r"No configured workflow has the id 'team\.nothing'"):
        call("--configured", "--workflow", "team.nothing")


CAPTURED = workflow_doc(
    "team.captured",
    steps=[
        {"id": "size-up", "title": "Size up", "prompt": "Judge the change.\nCapture: `riskLevel` (low / high)."},
        {
            "id": "declared",
            "title": "Declared",
            "promptBlocks": {"goal": "Plan.", "outputRequired": {"context.plan": "The plan, as a list of slices."}},
        },
    ],
)


def test_steps_that_ask_in_words_get_advice_on_declaring_it_and_nothing_else_changes(workdir):
    write_json(workdir / "captured" / "captured.json", CAPTURED)
    status, text = call("captured")
    example = '{"promptBlocks": {"outputRequired": {"context.riskLevel": "one of low, high"}}}'
    assert status == 0
    assert text.splitlines() == [
        "captured/captured.json (team.captured): ok",
        "  advice at step 'size-up': Step 'size-up' asks for context `riskLevel` in its prompt's words, which the "
        "server reads by a best-effort guess. Declare it in promptBlocks.outputRequired instead, one "
        "`context.<name>` key each, described in a few words (the compiler writes them into the prompt):",
        f"    declare: {example}",
        "",
        "1 file checked: 1 valid (0 with warnings), 0 invalid; 0 errors, 0 warnings.",
    ]
    [report] = json.loads(call("captured", "--json")[1])["files"]
    assert report["status"] == "ok" and report["diagnostics"] == []
    assert report["advice"] == [
        {"stepId": "size-up", "names": ["riskLevel"], "message": report["advice"][0]["message"], "example": example}
    ]
    assert call("captured", "-v", "0")[1].splitlines()[0].startswith("1 file checked")  # advice is not a problem


def test_the_declared_names_are_structure_in_the_compiled_step_and_the_example_declares_what_the_words_asked():
    document = {**CAPTURED, "steps": [CAPTURED["steps"][1]]}
    compiled = compile_workflow(document, kind="workflow", resolve_routine=lambda name: None)
    [step] = compiled["steps"]
    assert step["declaredAsks"] == {"context": ["plan"]}
    assert [(ask.name, ask.source) for ask in read_step(step).asked] == [("plan", "declared")]
    # A pin compiled before declaredAsks existed still asks for it, through the words rendered in its prompt.
    old = {key: value for key, value in step.items() if key != "declaredAsks"}
    assert [(ask.name, ask.source) for ask in read_step(old).asked] == [("plan", "prose")]

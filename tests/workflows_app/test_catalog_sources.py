"""Sources, precedence, duplicates and broken files: one bad file never hides the good ones."""

import os

from tests.support.workflow_files import workflow_doc, write_json
from workflows_app.diagnostics import Code, Severity


def codes(catalog, path=None):
    return [d.code for d in catalog.diagnostics if path is None or d.file == str(path)]


def test_it_lists_workflows_from_every_source_with_their_origin(make_loader, dirs):
    write_json(dirs["home"] / "workflows" / "a.json", workflow_doc("user.alpha"))
    write_json(dirs["project"] / ".workrail" / "workflows" / "b.json", workflow_doc("project.beta"))
    write_json(dirs["extra"] / "nested" / "c.json", workflow_doc("team.gamma"))
    catalog = make_loader(dirs["extra"]).load()
    origins = {e.id: e.source.kind.value for e in catalog.entries}
    assert origins["user.alpha"] == "user"
    assert origins["project.beta"] == "project"
    assert origins["team.gamma"] == "extra"
    assert origins["wr.evidence_first_bug_fix"] == "bundled"


def test_invalid_json_is_a_warning_and_the_rest_still_loads(make_loader, dirs):
    broken = dirs["extra"] / "broken.json"
    broken.write_text('{"id": "team.broken", "steps": [,]}')
    write_json(dirs["extra"] / "good.json", workflow_doc("team.good"))
    catalog = make_loader(dirs["extra"]).load()
    assert catalog.get("team.good") is not None
    [problem] = [d for d in catalog.diagnostics if d.file == str(broken)]
    assert problem.code is Code.INVALID_JSON
    assert "line 1" in problem.message
    assert problem.fix


def test_schema_violations_carry_file_pointer_and_fix(make_loader, dirs):
    bad = write_json(dirs["extra"] / "bad.json", workflow_doc("team.bad", steps=[{"id": "x1y", "titel": "typo"}]))
    catalog = make_loader(dirs["extra"]).load()
    assert catalog.get("team.bad") is None
    problems = [d for d in catalog.diagnostics if d.file == str(bad)]
    assert {d.code for d in problems} == {Code.SCHEMA_VIOLATION}
    assert any(d.pointer == "/steps/0" for d in problems)
    assert all(d.severity is Severity.ERROR and d.fix for d in problems)
    assert "team.bad" in catalog.invalid


def test_a_wr_id_from_a_user_directory_is_rejected_with_a_rename(make_loader, dirs):
    path = write_json(dirs["home"] / "workflows" / "mine.json", workflow_doc("wr.mine"))
    catalog = make_loader().load()
    assert catalog.get("wr.mine") is None
    [problem] = [d for d in catalog.diagnostics if d.file == str(path)]
    assert problem.code is Code.RESERVED_NAMESPACE
    assert problem.details["suggestedId"] == "user.mine"


def test_a_wr_id_cannot_shadow_a_bundled_workflow(make_loader, dirs):
    write_json(dirs["project"] / ".workrail" / "workflows" / "x.json", workflow_doc("wr.evidence_first_bug_fix"))
    catalog = make_loader().load()
    assert catalog.get("wr.evidence_first_bug_fix").source.kind.value == "bundled"
    assert Code.RESERVED_NAMESPACE in codes(catalog)


def test_duplicate_ids_resolve_by_precedence_with_a_warning(make_loader, dirs):
    user_copy = write_json(dirs["home"] / "workflows" / "dup.json", workflow_doc("team.shared", name="User copy"))
    project_copy = write_json(
        dirs["project"] / ".workrail" / "workflows" / "dup.json",
        workflow_doc("team.shared", name="Project copy"),
    )
    catalog = make_loader().load()
    entry = catalog.get("team.shared")
    assert entry.path == user_copy
    [note] = [d for d in catalog.diagnostics if d.code is Code.DUPLICATE_ID]
    assert note.file == str(project_copy)
    assert note.details == {"kept": str(user_copy), "ignored": str(project_copy)}
    assert note in entry.warnings


def test_duplicates_within_one_directory_keep_the_first_path(make_loader, dirs):
    first = write_json(dirs["extra"] / "a.json", workflow_doc("team.twin", name="A"))
    write_json(dirs["extra"] / "b.json", workflow_doc("team.twin", name="B"))
    for _ in range(3):  # deterministic, whatever the directory order
        assert make_loader(dirs["extra"]).load().get("team.twin").path == first


def test_legacy_ids_run_with_a_suggested_rename_per_source(make_loader, dirs):
    write_json(dirs["home"] / "workflows" / "l1.json", workflow_doc("old-one"))
    write_json(dirs["project"] / ".workrail" / "workflows" / "l2.json", workflow_doc("old-two"))
    write_json(dirs["extra"] / "l3.json", workflow_doc("old-three"))
    catalog = make_loader(dirs["extra"]).load()
    suggestions = {d.workflow_id: d.details["suggestedId"] for d in catalog.diagnostics if d.code is Code.LEGACY_ID}
    assert suggestions == {
        "old-one": "user.old-one",
        "old-two": "project.old-two",
        "old-three": "team.old-three",
    }
    assert catalog.get("old-one").parsed_id.status.value == "legacy"


def test_ids_with_two_dots_are_invalid(make_loader, dirs):
    path = write_json(dirs["extra"] / "x.json", workflow_doc("team.a.b"))
    catalog = make_loader(dirs["extra"]).load()
    assert codes(catalog, path) == [Code.INVALID_ID]


def test_listing_is_sorted_by_namespace_then_kind_then_id(make_loader, dirs):
    write_json(dirs["extra"] / "1.json", workflow_doc("team.zeta"))
    write_json(dirs["extra"] / "2.json", workflow_doc("team.routine-alpha"))
    write_json(dirs["extra"] / "3.json", workflow_doc("alpha.beta"))
    write_json(dirs["extra"] / "4.json", workflow_doc("legacy-one"))
    write_json(dirs["extra"] / "5.json", workflow_doc("team.alpha"))
    ids = [e.id for e in make_loader(dirs["extra"]).load().entries if not e.id.startswith("wr.")]
    assert ids == ["alpha.beta", "team.alpha", "team.zeta", "team.routine-alpha", "legacy-one"]


def test_a_missing_extra_directory_is_reported(make_loader, dirs):
    catalog = make_loader(dirs["extra"] / "nope").load()
    assert Code.SOURCE_MISSING in codes(catalog)
    assert catalog.get("wr.evidence_first_bug_fix") is not None


def test_it_sees_edits_new_files_and_deletions_between_loads(make_loader, dirs):
    loader = make_loader(dirs["extra"])
    path = write_json(dirs["extra"] / "w.json", workflow_doc("team.live"))
    first = loader.load().get("team.live").workflow_hash
    assert loader.load() is loader.load()  # unchanged files: the cached catalog is reused
    doc = workflow_doc("team.live")
    doc["steps"][0]["prompt"] = "Changed."
    write_json(path, doc)
    os.utime(path, ns=(1, 1))  # make sure the change is visible even on coarse mtime clocks
    assert loader.load().get("team.live").workflow_hash != first
    path.unlink()
    assert loader.load().get("team.live") is None


def test_legacy_descriptive_fields_are_dropped_with_a_warning(make_loader, dirs):
    doc = workflow_doc("team.old-style", tags=["Free form, as older releases wrote them"], tips=["y"])
    doc["steps"][0]["expectedOutput"] = {"a": "b"}
    write_json(dirs["extra"] / "old.json", doc)
    catalog = make_loader(dirs["extra"]).load()
    entry = catalog.get("team.old-style")
    assert [d.pointer for d in entry.warnings if d.code is Code.IGNORED_FIELD] == [
        "/tips",
        "/tags",
        "/steps/0/expectedOutput",
    ]
    assert "tags" not in entry.compiled and entry.tags == ()


def test_unknown_fields_that_are_not_legacy_still_fail(make_loader, dirs):
    path = write_json(dirs["extra"] / "typo.json", workflow_doc("team.typo", descripton="typo"))
    assert Code.SCHEMA_VIOLATION in codes(make_loader(dirs["extra"]).load(), path)


def test_non_object_and_oversized_and_non_utf8_files_are_reported(make_loader, dirs):
    write_json(dirs["extra"] / "list.json", [1, 2])
    (dirs["extra"] / "big.json").write_text(" " * (1024 * 1024 + 1))
    (dirs["extra"] / "latin.json").write_bytes(b'{"id": "caf\xe9"}')
    catalog = make_loader(dirs["extra"]).load()
    assert sorted(codes(catalog)) == ["FILE_UNREADABLE", "FILE_UNREADABLE", "SCHEMA_VIOLATION"]

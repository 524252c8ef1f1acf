"""The workflows we ship: ours, in the reserved namespace, and exercising the format's features."""

import json

from workflows_app.sources import BUNDLED_DIR


def bundled():
    return {path.stem: json.loads(path.read_text()) for path in sorted(BUNDLED_DIR.glob("*.json"))}


def test_bundled_workflows_load_without_any_warning(make_loader):
    catalog = make_loader().load()
    assert [d for d in catalog.diagnostics] == []
    ids = [e.id for e in catalog.entries if e.source.kind.value == "bundled"]
    assert sorted(ids) == sorted(doc["id"] for doc in bundled().values())
    assert len([i for i in ids if catalog.get(i).kind == "workflow"]) >= 2


def test_file_names_match_ids():
    for stem, doc in bundled().items():
        assert doc["id"] == stem


def steps_of(doc):
    for step in doc["steps"]:
        yield step
        if isinstance(step.get("body"), list):
            yield from step["body"]


def test_one_bundled_workflow_has_a_loop_a_condition_and_a_confirmation():
    def qualifies(doc):
        steps = list(steps_of(doc))
        return (
            any(s.get("type") == "loop" for s in steps)
            and any("runCondition" in s for s in steps)
            and any(s.get("requireConfirmation") is True for s in steps)
        )

    assert any(qualifies(doc) for doc in bundled().values())

"""workflowHash ignores formatting and key order, and changes with content."""

import json

from tests.support.workflow_files import workflow_doc, write_json
from workflows_app.hashing import canonical_json, workflow_hash


def reorder(value):
    if isinstance(value, dict):
        return {key: reorder(value[key]) for key in reversed(list(value))}
    if isinstance(value, list):
        return [reorder(item) for item in value]
    return value


def test_canonical_json_is_rfc8785():
    assert canonical_json({"b": 1, "a": [1.0, "é"]}) == '{"a":[1,"é"],"b":1}'.encode()


def test_same_content_in_another_key_order_and_indentation_hashes_the_same(make_loader, dirs):
    doc = workflow_doc(
        "team.hashme",
        steps=[{"id": "one", "title": "One", "prompt": "Do it.", "runCondition": {"var": "a", "equals": 1}}],
    )
    write_json(dirs["extra"] / "compact.json", doc, separators=(",", ":"))
    other = dirs["project"] / "other"
    write_json(other / "pretty.json", reorder(doc), indent=4)
    first = make_loader(dirs["extra"]).load().get("team.hashme").workflow_hash
    second = make_loader(other).load().get("team.hashme").workflow_hash
    assert first == second
    assert json.dumps(reorder(doc)) != json.dumps(doc)


def test_a_one_character_prompt_change_gives_another_hash(make_loader, dirs):
    doc = workflow_doc("team.hashme")
    write_json(dirs["extra"] / "a.json", doc)
    other = dirs["project"] / "other"
    doc["steps"][1]["prompt"] = doc["steps"][1]["prompt"][:-1] + "!"
    write_json(other / "a.json", doc)
    first = make_loader(dirs["extra"]).load().get("team.hashme").workflow_hash
    second = make_loader(other).load().get("team.hashme").workflow_hash
    assert first != second


def test_the_hash_is_sha256_of_the_canonical_compiled_workflow(make_loader, dirs):
    import hashlib

    write_json(dirs["extra"] / "a.json", workflow_doc("team.hashme"))
    entry = make_loader(dirs["extra"]).load().get("team.hashme")
    assert entry.workflow_hash == "sha256:" + hashlib.sha256(canonical_json(entry.compiled)).hexdigest()
    assert workflow_hash(entry.compiled) == entry.workflow_hash

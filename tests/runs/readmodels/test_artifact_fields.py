"""An artifact's fields read the same whatever order its keys were stored in (PostgreSQL's jsonb reorders
them), with short text before lists."""

from runs.readmodels.artifact_fields import fields_of, label_of, title_of

HANDOFF = {
    "kind": "wr.coding_handoff",
    "version": 1,
    "keyDecisions": ["Paginate with a cursor"],
    "branchName": "feat/orders-page",
    "testsAdded": ["test_cursor"],
    "correctedAssumptions": [{"assumed": "orders are few", "actual": "a shop has 2 million"}],
}


def test_fields_keep_one_order_whatever_order_the_keys_were_stored_in():
    reversed_keys = dict(reversed(list(HANDOFF.items())))
    labels = [field.label for field in fields_of(HANDOFF)]
    assert labels == ["Git branch", "Corrected assumptions", "Key decisions", "Tests added"]
    assert [field.label for field in fields_of(reversed_keys)] == labels


def test_lists_of_flat_objects_read_as_words_and_kind_and_version_are_left_out():
    fields = {field.label: field for field in fields_of(HANDOFF)}
    # An entry's keys in one order too, whatever order they were stored in.
    swapped = {**HANDOFF, "correctedAssumptions": [{"actual": "a shop has 2 million", "assumed": "orders are few"}]}
    assert {f.label: f for f in fields_of(swapped)}["Corrected assumptions"].items == fields[
        "Corrected assumptions"
    ].items
    assert fields["Corrected assumptions"].items == ["Assumed orders are few → actually a shop has 2 million"]
    assert fields["Git branch"].text == "feat/orders-page"
    assert "Kind" not in fields and "Version" not in fields


def test_names_are_said_as_words():
    assert title_of("wr.coding_handoff") == "Coding hand-off"
    assert label_of("keyDecisions") == "Key decisions"
    assert label_of("files_changed") == "Files changed"

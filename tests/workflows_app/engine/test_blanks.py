"""The artifact template an answer offers is one the agent can send once filled: it always names its `kind`."""

from __future__ import annotations

from workflows_app.engine.blanks import artifact_template


def test_a_schema_that_requires_kind_gives_its_constant_first():
    schema = {
        "type": "object",
        "required": ["kind", "summary"],
        "properties": {"kind": {"const": "wr.findings"}, "summary": {"type": "string"}},
    }
    template = artifact_template(schema)
    assert template is not None
    assert next(iter(template)) == "kind"
    assert template["kind"] == "wr.findings"


def test_a_schema_that_leaves_kind_out_of_required_still_gets_a_kind():
    # A bundle edited by hand (or a careless contract) may drop `required`; the tool's input needs `kind`.
    schema = {"type": "object", "properties": {"kind": {"const": "wr.findings"}, "findings": {"type": "array"}}}
    template = artifact_template(schema)
    assert template is not None and template["kind"] == "wr.findings"


def test_a_schema_without_a_kind_property_gets_a_blank_to_fill():
    template = artifact_template({"type": "object", "properties": {"summary": {"type": "string"}}})
    assert template is not None
    assert template["kind"].startswith("<fill in (string): kind")

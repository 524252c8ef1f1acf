import pytest

from workflows_app.ids import IdStatus, InvalidId, parse_id, suggest_namespaced


@pytest.mark.parametrize("raw", ["wr.evidence_first_bug_fix", "project.auth-review", "team.a1_b-2"])
def test_it_accepts_namespaced_ids(raw):
    parsed = parse_id(raw)
    assert parsed.status is IdStatus.NAMESPACED
    assert f"{parsed.namespace}.{parsed.name}" == raw


def test_it_accepts_legacy_ids_as_legacy():
    parsed = parse_id("bug-investigation")
    assert parsed.status is IdStatus.LEGACY
    assert parsed.namespace is None


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("a.b.c", "exactly one"),
        ("Project.review", "namespace"),
        ("project.1review", "name"),
        (".review", "namespace"),
        ("project.", "name"),
        ("has space", "only lowercase"),
        ("", "non-empty"),
        (42, "non-empty string"),
    ],
)
def test_it_rejects_malformed_ids_with_a_reason(raw, reason):
    with pytest.raises(InvalidId, match=reason):
        parse_id(raw)


def test_it_flags_the_reserved_namespace():
    assert parse_id("wr.x").is_reserved
    assert not parse_id("wrx.x").is_reserved


def test_it_suggests_a_valid_namespaced_rename():
    assert suggest_namespaced("bug-hunt", "user") == "user.bug-hunt"
    assert parse_id(suggest_namespaced("9lives", "project")).status is IdStatus.NAMESPACED

"""Text from outside printed on a terminal: control characters shown as escapes."""

from workflows_app.terminal import printable


def test_controls_overrides_and_lone_surrogates_are_escaped():
    assert printable("evil\x1b]0;title\x07.json") == "evil\\x1b]0;title\\x07.json"
    assert printable("two\nlines\r\t.json") == "two\\nlines\\r\\t.json"
    assert printable("\u202egnp.json") == "\\u202egnp.json"
    assert printable("not-utf8-\udcff.json") == "not-utf8-\\udcff.json"  # a name os.walk read with surrogateescape


def test_ordinary_text_is_unchanged():
    text = "workflows/désign review (v2) \\ ok.json"
    assert printable(text) == text

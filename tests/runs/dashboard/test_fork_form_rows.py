"""The fork form's rows editor (runs/dashboard/fork_form.py, static/dashboard/fork_form.js): one row per top-level
key of the step's context, a string as it is and any other value as its JSON, the keys a branch cannot change
left out of the rows and listed read-only; the textarea, which the form sends, kept for the "JSON" side of the
editor switch."""

from __future__ import annotations

import html
import json
import re

import pytest
from django.conf import settings

from runs.dashboard import fork_form
from runs.dashboard.fork_form import Row
from runs.store import tokens
from runs.store.tokens import TokenKind
from tests.support.mcp_calls import ack, start_workflow
from tests.support.operator_fork import RELEASE, START_CONTEXT, install_release


def test_each_top_level_key_is_a_row_a_string_as_it_is_any_other_value_as_its_json():
    context = {"target": "staging", "replicas": 3, "canary": True, "owner": None, "tags": ["a", "é"], "db": {"x": 1}}
    assert fork_form.rows_of(context) == [
        Row("target", "staging", False),
        Row("replicas", "3", True),
        Row("canary", "true", True),
        Row("owner", "null", True),
        Row("tags", '["a", "é"]', True),
        Row("db", '{"x": 1}', True),
    ]
    assert fork_form.rows_of({"note": '"quoted" text'}) == [Row("note", '"quoted" text', False)]  # text, not JSON
    assert fork_form.rows_of({}) == []


@pytest.fixture
def node(service_catalog):
    install_release(service_catalog["extra"])
    start = start_workflow(RELEASE, context=START_CONTEXT)
    ack(start)
    from runs.readmodels import run_view

    return run_view.node_detail(str(tokens.parse(settings.WORKRAIL_HOME, start["stateToken"], TokenKind.STATE).id))


@pytest.mark.django_db
def test_the_form_rows_leave_out_the_keys_a_branch_cannot_change_which_are_listed_read_only(node):
    form = fork_form.blank(node)
    assert form.rows == [Row("service", "billing", False), Row("target", "staging", False)]
    assert form.original == {"service": "billing", "target": "staging"}  # "What changes" compares to it
    assert form.locked == [("ticketId", '"REL-7"')]
    # What was typed is what the rows show again (after a preview or a mistake); JSON that is no object: no rows.
    typed = fork_form.with_text(node, json.dumps({"target": "production", "region": "eu"}), "why")
    assert typed.rows == [Row("target", "production", False), Row("region", "eu", False)]
    assert fork_form.with_text(node, '{"target": ', "why").rows is None
    assert fork_form.with_text(node, "[1]", "why").rows is None


@pytest.mark.django_db
def test_the_json_editor_is_as_tall_as_its_context_within_bounds(client, node):
    # Four lines of JSON and one to type in, not ten lines for two keys (friction23a B6); capped both ways.
    assert fork_form.blank(node).text_rows == 5
    assert fork_form.with_text(node, "", "why").text_rows == 4
    assert fork_form.with_text(node, json.dumps({str(n): n for n in range(40)}, indent=2), "why").text_rows == 20
    page = client.get(f"/nodes/{node.node_id}/").content.decode()
    assert 'class="mono" rows="5"' in page


@pytest.mark.django_db
def test_the_node_page_renders_the_rows_hidden_the_json_folded_as_the_way_without_a_script(client, node):
    page = client.get(f"/nodes/{node.node_id}/").content.decode()
    edit = page[page.index('id="fork-edit"') - 40 : page.index('id="fork-json"')]
    assert '<div class="fork-edit" id="fork-edit" hidden>' in edit  # a script shows it
    keys = re.findall(r'class="mono fork-key" aria-label="Key" value="([^"]*)"', edit)
    assert keys[:2] == ["service", "target"] and "ticketId" not in keys
    # Without a script, the textarea is in sight and sent as before.
    assert '<div class="fork-json" id="fork-json">' in page and 'name="context"' in page
    # The switch between the two editors is a script's, hidden without one (friction24a 2).
    assert '<div class="fork-mode" id="fork-mode" role="group" aria-labelledby="fork-mode-title" hidden>' in page
    original = re.search(r'<script id="fork-original" type="application/json">(.*?)</script>', page).group(1)
    assert json.loads(html.unescape(original)) == {"service": "billing", "target": "staging"}


@pytest.mark.django_db
def test_the_preview_comes_back_in_the_editor_the_form_was_sent_from(client, node):
    # friction62a 11: typed in JSON, the preview came back in rows. The switch's choice is sent and comes back.
    def sent_from(editor: str) -> str:
        typed = json.dumps({"service": "billing", "target": "production"})
        data = {"context": typed, "reason": "why", "editor": editor}
        page = client.post(f"/nodes/{node.node_id}/fork", data).content.decode()
        assert 'id="fork-preview"' in page
        return re.search(r'name="editor" id="fork-editor" value="([^"]*)"', page).group(1)

    assert sent_from("json") == "json"
    assert sent_from("rows") == "rows"
    assert sent_from("<script>") == "rows"  # anything else: the rows, the way in sight by default
    assert 'id="fork-editor" value="rows"' in client.get(f"/nodes/{node.node_id}/").content.decode()

"""What the admin calls each table and column: plain English, plurals spelled right (issue 20 found
"Run synthesiss" and "Search entrys")."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.contrib.admin.utils import label_for_field

from tests.support.mcp_calls import start_workflow

pytestmark = pytest.mark.django_db


def ours() -> list[tuple[Any, admin.ModelAdmin]]:
    return [
        (model, model_admin) for model, model_admin in admin.site._registry.items() if model._meta.app_label == "runs"
    ]


def test_every_table_has_a_plural_a_person_would_write():
    names = {str(model._meta.verbose_name): str(model._meta.verbose_name_plural) for model, _ in ours()}
    assert names["branch summary"] == "branch summaries"
    assert names["search entry"] == "search entries"
    assert names["API token"] == "API tokens"
    # No internal name a newcomer cannot place (friction7 item 14): "gaps", "observations", "syntheses", and
    # no database word in brackets after the plain one (friction12 13: "acknowledgements", "gaps").
    assert names["step answer"] == "step answers"
    # friction63a 15: plain words, not "questions the agent went past".
    assert names["question a full-auto run skipped"] == "questions a full-auto run skipped"
    assert names["git commit worked on"] == "git commits worked on"
    # The dashboard's words (friction26b 19: "Nodes" and "Attempts" beside a dashboard that says "steps").
    assert names["step"] == "steps"
    # friction60a 17: "Step attempts", "Outputs", "Pinned workflows" and "Finished branch records" named tables,
    # not things a person had seen.
    assert names["answer token"] == "answer tokens"
    assert names["step note"] == "step notes" and names["workflow copy"] == "workflow copies"
    for internal in ("node", "attempt", "step attempt", "output", "pinned workflow", "finished branch record"):
        assert internal not in names, internal
    for singular, plural in names.items():
        assert not plural.endswith(("ys", "ss", "sis")), plural
        assert "(" not in plural and "position" not in plural, plural
        assert plural != singular


def test_no_column_is_a_raw_field_name_or_said_twice():
    for model, model_admin in ours():
        labels = [str(label_for_field(name, model, model_admin)) for name in model_admin.list_display]
        assert len(labels) == len(set(labels)), (model.__name__, labels)
        for label in labels:
            assert label not in ("public id", "is complete", "duration ms", "workflow ids"), (model.__name__, label)


def test_the_index_and_change_lists_show_the_right_names(superuser_client: Any, service_catalog: Any) -> None:
    start_workflow("wr.routine-focused_plan", context={"sessionKey": "LABELS-1"})
    index = superuser_client.get("/admin/").content.decode()
    for name in ("Branch summaries", "Search entries", "API tokens", "Step answers", "Git commits worked on"):
        assert name in index
    # In sections a person would look in, each table with one line on what a row is (friction60b 11), no
    # "Groups" nor "Recent actions: None available".
    for section in ("Who can sign in", "Sessions and runs (read only)", "For developers (read only)"):
        assert f'class="section">{section}</a>' in index, section
    assert index.index("Who can sign in") < index.index("Sessions and runs") < index.index("For developers")
    assert '<p class="model-description" id="runs-event-what">The append-only history' in index
    assert "Questions a full-auto run skipped" in index and "went past" not in index  # friction63a 15
    assert "Things only you could answer: the agent assumed an answer and went on." in index
    assert index.count('class="model-description"') == index.count('<th scope="row"')
    assert ">Groups<" not in index and "Recent actions" not in index
    assert "acknowledgements" not in index and "(gaps)" not in index
    # Read-only tables say "View", the sign-in logs too (django-axes would offer "Change" on them: friction12 13);
    # only who may sign in (users) can be changed.
    logs = index.split("Admin sign-in attempts")[1].split("</table>")[0]
    assert logs.count(">View</a>") == 3 and "Change</a>" not in logs, logs
    attempts = superuser_client.get("/admin/axes/accesslog/").content.decode()
    assert "Select access log to view" in attempts and "to change" not in attempts
    assert "synthesiss" not in index and "entrys" not in index
    # The sections and the title in plain words: django-axes' section says what it keeps, and the way back to
    # the dashboard names the page it opens.
    assert "Admin sign-in attempts" in index and ">Axes<" not in index
    assert "Records (read only), users and sign-ins" in index and "projections" not in index
    assert "View site" not in index and "Back to Sessions" not in index
    # The dashboard's top menu, whole, in the admin's header: the way back to any page, the admin's entry current;
    # on a phone the rest behind the dashboard's own "More", highlighted on the admin (its entry is inside).
    menu = index.split('<nav class="dashboard-nav" aria-label="Main">')[1].split("</nav>")[0]
    for link in ('href="/sessions/">Sessions<', 'href="/workflows/">Workflows<', 'href="/connect/">Connect<'):
        assert link in menu, menu
    assert '<a href="/admin/" aria-current="page">Admin</a>' in menu
    assert (
        '<summary class="holds-current"><span class="more-word">More</span>'
        '<span class="more-here visually-hidden">: Admin</span></summary>'
    ) in menu
    # The brand is the dashboard's, "local dashboard" and all: no separate "admin" product name.
    assert '<a class="brand" href="/">WorkRail<span>local dashboard</span></a>' in index
    sessions = superuser_client.get("/admin/runs/session/").content.decode()
    assert "Last activity" in sessions and "Public id" not in sessions

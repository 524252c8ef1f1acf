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
    assert names["run synthesis"] == "run syntheses"
    assert names["search entry"] == "search entries"
    assert names["API token"] == "API tokens"
    assert names["acknowledgement"] == "acknowledgements"
    for singular, plural in names.items():
        assert not plural.endswith(("ys", "ss", "sis")), plural
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
    for name in ("Run syntheses", "Search entries", "API tokens", "Acknowledgements"):
        assert name in index
    assert "synthesiss" not in index and "entrys" not in index
    sessions = superuser_client.get("/admin/runs/session/").content.decode()
    assert "Last activity" in sessions and "Public id" not in sessions

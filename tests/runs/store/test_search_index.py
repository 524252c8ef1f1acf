"""The search entries' text is indexed where the backend can index substring search: trigram GIN
indexes on PostgreSQL (migration 0009), nothing on SQLite (the same queries scan). The search results
themselves are the same on both backends: test_resume.py and test_dashboard_read.py run on each."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.models import Q

from runs.models import SearchEntry

pytestmark = pytest.mark.django_db
TRIGRAM_INDEXES = {"runs_searchentry_identity_trgm", "runs_searchentry_notes_trgm"}
_trigrams = pytest.mark.skipif(connection.vendor != "postgresql", reason="trigram indexes exist on PostgreSQL only")


def on_postgresql(test):
    return pytest.mark.postgres(_trigrams(test))


on_sqlite = pytest.mark.skipif(connection.vendor != "sqlite", reason="checks SQLite's schema")


def plan(sql: str, params: tuple) -> str:
    with connection.cursor() as cursor:
        # The tables are tiny: turn off the plans a planner prefers there (a scan of the table, or of another
        # index with a filter) to show what the trigram indexes allow.
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_indexscan = off")
        cursor.execute(f"EXPLAIN {sql}", params)
        return "\n".join(row[0] for row in cursor.fetchall())


@on_postgresql
def test_postgresql_has_a_trigram_index_on_each_searched_text():
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'runs_searchentry'")
        assert {row[0] for row in cursor.fetchall()} >= TRIGRAM_INDEXES


@on_postgresql
@pytest.mark.parametrize(
    ("field", "index"),
    [("identity_text", "runs_searchentry_identity_trgm"), ("notes_text", "runs_searchentry_notes_trgm")],
)
def test_the_substring_lookups_the_search_makes_can_use_the_index(field, index):
    sql, params = SearchEntry.objects.filter(**{f"{field}__contains": "login"}).query.sql_with_params()
    assert index in plan(sql, params)


@on_postgresql
def test_the_dashboard_searchs_test_on_entries_can_use_both_indexes():
    """What overview._search asks of a session's entries: the word in the identity or in the notes."""
    entries = SearchEntry.objects.filter(Q(identity_text__contains="login") | Q(notes_text__contains="login"))
    shown = plan(*entries.query.sql_with_params())
    assert all(index in shown for index in TRIGRAM_INDEXES), shown


@on_sqlite
def test_sqlite_gets_no_trigram_index():
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'runs_searchentry'")
        assert not TRIGRAM_INDEXES & {row[0] for row in cursor.fetchall()}

"""The admin shows the store; the event log is read-only there, like everywhere else."""

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from runs.models import Ack, Attempt, Event, Node, Output, PinnedWorkflow, Run, Session


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin):
    list_display = ("session", "seq", "kind", "created_at")
    list_filter = ("kind",)
    search_fields = ("session__public_id",)


@admin.register(Session)
class SessionAdmin(ReadOnlyAdmin):
    list_display = ("public_id", "session_key", "title", "updated_at")
    search_fields = ("public_id", "session_key", "title")


@admin.register(Run)
class RunAdmin(ReadOnlyAdmin):
    list_display = ("public_id", "workflow_id", "status", "session", "updated_at")
    list_filter = ("status", "workflow_id")


admin.site.register([Node, Attempt, Ack, Output, PinnedWorkflow], ReadOnlyAdmin)

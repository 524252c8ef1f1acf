"""Migration 0019: a session observed before Session.git_head_sha existed gets the HEAD of its newest
observation, as the projector now keeps it."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps

from runs.models import Observation, Session
from tests.support.mcp_calls import start_workflow

migration = importlib.import_module("runs.migrations.0019_session_git_head")


@pytest.mark.django_db
def test_the_head_of_the_newest_observation_is_filled_in(service_catalog):
    observed = Session.objects.get(public_id=start_workflow("wr.routine-focused_plan")["session"]["sessionId"])
    unobserved = Session.objects.get(public_id=start_workflow("wr.routine-focused_plan")["session"]["sessionId"])
    for sha in ("a" * 40, "b" * 40):
        Observation.objects.create(
            session=observed, git_branch="main", git_head_sha=sha, created_at=observed.created_at
        )
    migration.heads_from_the_observations(apps, None)
    assert Session.objects.get(pk=observed.pk).git_head_sha == "b" * 40
    assert Session.objects.get(pk=unobserved.pk).git_head_sha == ""

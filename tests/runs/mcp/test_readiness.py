"""The start-up thread of `manage.py mcp` (runs/mcp/readiness.py) leaves the CPU to the handshake: Django's
set-up, migrations and the catalog begin once the answer to `initialize` is handed on, not before, or as
soon as a call needs the store (the 2026-07-28 era has no handshake)."""

from __future__ import annotations

import threading

import pytest

from runs.mcp import readiness


@pytest.fixture
def fresh_start(monkeypatch):
    """The module's start-up state as in a new process, with a set-up that only notes it ran."""
    for name in ("_ready", "_started", "_may_begin"):
        monkeypatch.setattr(readiness, name, threading.Event())
    monkeypatch.setattr(readiness, "_failure", [])
    prepared = threading.Event()
    monkeypatch.setattr(readiness, "_prepare", prepared.set)
    monkeypatch.setattr(readiness, "fetch_unpinned_repos", lambda: None)
    monkeypatch.setattr(readiness, "HANDSHAKE_WAIT_LIMIT_S", 3600)
    return prepared


def test_set_up_begins_once_the_handshake_is_answered(fresh_start):
    worker = readiness.start_background_setup()
    try:
        assert not fresh_start.wait(0.3)  # no answer yet: nothing prepared
        assert not readiness._ready.is_set()
    finally:
        readiness.handshake_answered()
        worker.join(timeout=30)  # a hang guard only
    assert fresh_start.is_set()
    readiness.wait_until_ready(timeout=30)


def test_a_silent_client_does_not_hold_set_up_back_for_ever(fresh_start, monkeypatch):
    monkeypatch.setattr(readiness, "HANDSHAKE_WAIT_LIMIT_S", 0.01)
    worker = readiness.start_background_setup()
    worker.join(timeout=30)
    assert fresh_start.is_set()
    readiness.wait_until_ready(timeout=30)


def test_a_call_that_needs_the_store_lets_set_up_begin_without_a_handshake(fresh_start):
    worker = readiness.start_background_setup()
    try:
        readiness.wait_until_ready(timeout=30)  # the limit is an hour: only the call can have started it
        assert fresh_start.is_set()
    finally:
        readiness.handshake_answered()
        worker.join(timeout=30)


def test_a_server_ending_before_its_handshake_does_not_wait_for_one(fresh_start):
    worker = readiness.start_background_setup()
    readiness.begin_now()  # what the server's lifespan does when stdin ends
    worker.join(timeout=30)
    assert fresh_start.is_set()

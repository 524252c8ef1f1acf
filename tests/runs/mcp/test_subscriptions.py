"""Subscriptions to run and session resources (runs/mcp/subscriptions.py), on the test database: changes
are committed by the test's connection and found by the watcher's look at the store, which runs on a
worker thread with a connection of its own, as another process's writes are found (SQLite and PostgreSQL).
Across real processes: tests/e2e/test_subscriptions_stdio.py."""

from __future__ import annotations

from contextlib import AsyncExitStack
from datetime import timedelta
from types import SimpleNamespace
from typing import Any

import anyio
import pytest
from django.utils import timezone
from mcp.server.subscriptions import InMemorySubscriptionBus
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    SubscribeRequestParams,
    SubscriptionFilter,
    SubscriptionsListenRequestParams,
    UnsubscribeRequestParams,
)

from runs.contract.dashboard import PreferencesChange
from runs.execution.session_actions import change_preferences
from runs.mcp import services, subscriptions
from runs.mcp.subscriptions import ResourceWatcher, close_connections
from runs.store.actors import Actor, Door, acting_as
from runs.store.retention import cleanup
from tests.support.mcp_calls import ack_with_notes, start_workflow

pytestmark = pytest.mark.django_db(transaction=True)
PLAN = "wr.routine-focused_plan"


class Connection:
    def __init__(self) -> None:
        self.exit_stack = AsyncExitStack()


class Client:
    """What the watcher sends to: the notifications/resources/updated of one connection, in order. Its
    `_connection` stands for the SDK's (one per MCP session), whose teardown stack runs when it ends."""

    def __init__(self) -> None:
        self.heard: list[str] = []
        self._connection = Connection()

    async def send_resource_updated(self, uri: str) -> None:
        self.heard.append(uri)

    def request(self) -> Any:
        return SimpleNamespace(session=self)

    async def end(self) -> None:
        """The MCP session ends (the client's DELETE, the idle timeout, a revoked token)."""
        await self._connection.exit_stack.aclose()


def run_uri(answer: dict[str, Any]) -> str:
    return f"workrail://runs/{answer['session']['runId']}"


def session_uri(answer: dict[str, Any]) -> str:
    return f"workrail://sessions/{answer['session']['sessionId']}"


def watching(scenario: Any) -> None:
    """Runs `scenario(watcher, client)` on an event loop; the store is read only when it calls check()."""

    async def main() -> None:
        await scenario(ResourceWatcher(InMemorySubscriptionBus(), poll_interval_s=lambda: 0.01), Client())
        await anyio.to_thread.run_sync(close_connections)  # the polls' (the test database is dropped after)

    anyio.run(main)


async def subscribe(watcher: ResourceWatcher, client: Client, uri: str) -> None:
    await watcher.subscribe(client.request(), SubscribeRequestParams(uri=uri))


async def unsubscribe(watcher: ResourceWatcher, client: Client, uri: str) -> None:
    await watcher.unsubscribe(client.request(), UnsubscribeRequestParams(uri=uri))


async def elsewhere(work: Any, *args: Any) -> Any:
    """`work` committed on another thread (another connection), as another process would."""

    def committed() -> Any:
        try:
            return work(*args)
        finally:
            close_connections()

    return await anyio.to_thread.run_sync(committed)


def test_a_change_to_a_subscribed_run_is_heard_once_and_only_for_that_run(service_catalog):
    async def scenario(watcher: ResourceWatcher, client: Client) -> None:
        moved, still = await elsewhere(start_workflow, PLAN), await elsewhere(start_workflow, PLAN)
        await subscribe(watcher, client, run_uri(moved))
        await subscribe(watcher, client, f"{run_uri(still)}/notes?cursor=2")
        await watcher.check()
        assert client.heard == []  # subscribing is not a change

        moved = await elsewhere(ack_with_notes, moved, "Goal set.")
        await watcher.check()
        await watcher.check()
        assert client.heard == [run_uri(moved)]

        await unsubscribe(watcher, client, run_uri(moved))
        await elsewhere(ack_with_notes, moved, "Plan drafted.")
        await watcher.check()
        assert client.heard == [run_uri(moved)]
        assert watcher.watched() == [f"{run_uri(still)}/notes?cursor=2"]

    watching(scenario)


def test_a_session_hears_a_preferences_change_and_its_cleanup(service_catalog):
    async def scenario(watcher: ResourceWatcher, client: Client) -> None:
        answer = await elsewhere(start_workflow, PLAN)
        await subscribe(watcher, client, session_uri(answer))
        await subscribe(watcher, client, f"{session_uri(answer)}/artifacts")

        await elsewhere(change_preferences, answer["session"]["sessionId"], PreferencesChange(mode="autopilot"))
        await watcher.check()
        assert sorted(client.heard) == sorted([session_uri(answer), f"{session_uri(answer)}/artifacts"])

        # Retention removes the session: once more (its resources now answer NOT_FOUND), then never again.
        later = timezone.now() + timedelta(days=400)
        assert (await elsewhere(lambda: cleanup(older_than_days=1, now=later))).sessions == 1
        await watcher.check()
        await watcher.check()
        assert client.heard.count(session_uri(answer)) == 2

    watching(scenario)


def test_the_store_is_read_only_while_something_is_subscribed(service_catalog, monkeypatch):
    reads: list[set[int]] = []
    real = services.session_versions

    def counted(pks: set[int]) -> dict[int, int]:
        reads.append(set(pks))
        return real(pks)

    monkeypatch.setattr(services, "session_versions", counted)

    async def scenario(watcher: ResourceWatcher, client: Client) -> None:
        first, second = await elsewhere(start_workflow, PLAN), await elsewhere(start_workflow, PLAN)
        async with anyio.create_task_group() as background:
            background.start_soon(watcher.run)
            await anyio.sleep(0.2)  # many intervals, nothing subscribed
            assert reads == []
            await subscribe(watcher, client, run_uri(first))
            await subscribe(watcher, client, session_uri(second))
            with anyio.fail_after(30):
                while len(reads) < 4:  # the one at subscribing each, then the watcher's own
                    await anyio.sleep(0.01)
            assert len(reads[-1]) == 2  # one read covers every watched session
            await unsubscribe(watcher, client, run_uri(first))
            await unsubscribe(watcher, client, session_uri(second))
            await anyio.sleep(0.05)
            seen = len(reads)
            await anyio.sleep(0.2)
            assert len(reads) == seen
            background.cancel_scope.cancel()

    watching(scenario)


@pytest.mark.parametrize(
    ("uri", "code"),
    [
        ("workrail://workflows", "INVALID_INPUT"),
        ("workrail://runs/run_1/steps", "INVALID_INPUT"),
        ("file:///etc/passwd", "INVALID_INPUT"),
        ("workrail://runs/run_0000000000000000", "NOT_FOUND"),
        ("workrail://sessions/ses_0000000000000000", "NOT_FOUND"),
    ],
)
def test_what_cannot_be_subscribed_is_refused_as_data(service_catalog, uri, code):
    async def scenario(watcher: ResourceWatcher, client: Client) -> None:
        with pytest.raises(MCPError) as raised:
            await subscribe(watcher, client, uri)
        assert raised.value.code == INVALID_PARAMS
        assert raised.value.data == {"uri": uri, "error": raised.value.data["error"]}
        assert raised.value.data["error"]["code"] == code
        assert raised.value.data["error"]["suggestion"]
        assert watcher.watched() == []

    watching(scenario)


ALICE = Actor("alice", Door.HTTP, token="alice-laptop", client="10.0.0.7")
BOB = Actor("bob", Door.HTTP, token="bob-laptop", client="10.0.0.8")


async def as_owner(actor: Actor, work: Any, *args: Any) -> Any:
    with acting_as(actor):
        return await work(*args)


def test_another_owners_run_and_session_cannot_be_subscribed_and_the_refusal_is_recorded(service_catalog, caplog):
    async def scenario(watcher: ResourceWatcher, alice: Client) -> None:
        mine = await as_owner(ALICE, elsewhere, start_workflow, PLAN)
        bob = Client()
        await as_owner(ALICE, subscribe, watcher, alice, run_uri(mine))
        for uri in (run_uri(mine), f"{run_uri(mine)}/notes", session_uri(mine), f"{session_uri(mine)}/artifacts"):
            with pytest.raises(MCPError) as raised:
                await as_owner(BOB, subscribe, watcher, bob, uri)
            assert raised.value.code == INVALID_PARAMS
            assert raised.value.data["error"]["code"] == "NOT_YOUR_SESSION"
        assert watcher.watched() == [run_uri(mine)] and watcher.held("bob") == 0
        await as_owner(ALICE, elsewhere, ack_with_notes, mine, "Goal set.")
        await watcher.check()
        assert alice.heard == [run_uri(mine)] and bob.heard == []

    with acting_as(ALICE):
        watching(scenario)
    refused = [r.getMessage() for r in caplog.records if r.name == "workrail.refusals"]
    assert len(refused) == 4
    assert all(
        line.startswith("refused NOT_YOUR_SESSION: bob (token bob-laptop) through http from 10.0.0.8")
        for line in refused
    )


def test_one_connections_unsubscribe_leaves_the_others_subscribed(service_catalog):
    async def scenario(watcher: ResourceWatcher, first: Client) -> None:
        answer = await elsewhere(start_workflow, PLAN)
        second = Client()
        await as_owner(ALICE, subscribe, watcher, first, run_uri(answer))
        await as_owner(BOB, subscribe, watcher, second, run_uri(answer))  # an unowned run: both may
        await as_owner(BOB, unsubscribe, watcher, second, run_uri(answer))
        await elsewhere(ack_with_notes, answer, "Goal set.")
        await watcher.check()
        assert first.heard == [run_uri(answer)] and second.heard == []

    watching(scenario)


def test_a_connections_subscriptions_end_with_it(service_catalog):
    async def scenario(watcher: ResourceWatcher, client: Client) -> None:
        answer = await elsewhere(start_workflow, PLAN)
        await as_owner(ALICE, subscribe, watcher, client, run_uri(answer))
        await as_owner(ALICE, subscribe, watcher, client, f"{run_uri(answer)}/notes?cursor=3")
        assert watcher.held("alice") == 2
        await client.end()
        assert watcher.watched() == [] and watcher.held("alice") == 0

    watching(scenario)


def test_subscriptions_are_bounded_per_owner_in_count_and_uri_length(service_catalog, monkeypatch, caplog):
    monkeypatch.setattr(subscriptions, "MAX_SUBSCRIPTIONS_PER_OWNER", 3)

    async def scenario(watcher: ResourceWatcher, client: Client) -> None:
        answer = await elsewhere(start_workflow, PLAN)
        with pytest.raises(MCPError) as raised:
            await as_owner(ALICE, subscribe, watcher, client, f"{run_uri(answer)}/notes?cursor=1&x={'a' * 1100}")
        assert raised.value.data["error"]["code"] == "INVALID_INPUT"
        other = Client()
        for cursor in (1, 2, 3):
            await as_owner(
                ALICE, subscribe, watcher, client if cursor < 3 else other, f"{run_uri(answer)}/notes?cursor={cursor}"
            )
        with pytest.raises(MCPError) as raised:
            await as_owner(ALICE, subscribe, watcher, Client(), f"{run_uri(answer)}/notes?cursor=4")
        assert raised.value.data["error"]["code"] == "RATE_LIMITED"
        await as_owner(BOB, subscribe, watcher, Client(), f"{run_uri(answer)}/notes?cursor=4")  # bob's own budget
        await other.end()
        await as_owner(ALICE, subscribe, watcher, Client(), f"{run_uri(answer)}/notes?cursor=4")
        assert [uri[-1] for uri in watcher.watched()] == ["1", "2", "4"]  # 3 ended with its connection
        assert (watcher.held("alice"), watcher.held("bob")) == (3, 1)

    watching(scenario)
    codes = [r.getMessage().split(":")[0] for r in caplog.records if r.name == "workrail.refusals"]
    assert codes == ["refused INVALID_INPUT", "refused RATE_LIMITED"]


class Stalled(Client):
    """A client that never reads its stream: its sends never return."""

    async def send_resource_updated(self, uri: str) -> None:
        await anyio.sleep_forever()


def test_a_client_that_never_reads_stalls_nobody_elses_notifications(service_catalog, monkeypatch):
    async def scenario(watcher: ResourceWatcher, client: Client) -> None:
        answer = await elsewhere(start_workflow, PLAN)
        stalled = Stalled()
        await subscribe(watcher, stalled, run_uri(answer))
        await subscribe(watcher, client, run_uri(answer))
        async with anyio.create_task_group() as background:
            background.start_soon(watcher.run)
            for notes in ("Goal set.", "Plan drafted."):
                answer = await elsewhere(ack_with_notes, answer, notes)
                heard = len(client.heard) + 1
                with anyio.fail_after(10):
                    while len(client.heard) < heard:
                        await anyio.sleep(0.01)
            background.cancel_scope.cancel()

    watching(scenario)


def listen_params(*uris: str) -> SubscriptionsListenRequestParams:
    return SubscriptionsListenRequestParams(notifications=SubscriptionFilter(resource_subscriptions=list(uris)))


def test_a_listen_stream_is_checked_for_owners_and_bounded_per_owner(service_catalog, monkeypatch):
    """Refused before the stream opens: a URI of another owner's run, and a stream past the owner's bound;
    either way nothing stays watched or counted."""

    async def scenario(watcher: ResourceWatcher, client: Client) -> None:
        mine = await as_owner(ALICE, elsewhere, start_workflow, PLAN)
        request = SimpleNamespace(session=client, request_id=7)
        with pytest.raises(MCPError) as raised:
            await as_owner(BOB, watcher.listen, request, listen_params(run_uri(mine)))
        assert raised.value.data["error"]["code"] == "NOT_YOUR_SESSION"
        monkeypatch.setattr(subscriptions, "MAX_LISTEN_STREAMS_PER_OWNER", 0)
        with pytest.raises(MCPError) as raised:
            await as_owner(ALICE, watcher.listen, request, listen_params(run_uri(mine)))
        assert raised.value.data["error"]["code"] == "RATE_LIMITED"
        assert watcher.watched() == [] and watcher.held("alice") == watcher.held("bob") == 0

    watching(scenario)

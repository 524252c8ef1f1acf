"""A crash harness: drives `manage.py mcp` over raw JSON-RPC on stdio and SIGKILLs it at random moments.

Shared by tests/e2e/test_crash_durability.py (the bounded CI form) and bench/crash.py (the long form).

The client is harness/stdio.py's raw JSON-RPC client. A campaign walks a long fixture
workflow (a while loop; a new run starts when one completes), mixing advances, checkpoints and
rewinds (rehydrate an older stateToken, acknowledge its fresh ackToken: a fork). Between kills it
makes a few calls, then kills the server:

- mostly mid-request: the request is written, the killer sleeps 0-15 ms, then SIGKILL;
- sometimes at 0 ms (the request may not even have been read), or while idle between requests,
  or during start-up (before or while Django and the store are being set up).

Whatever the server wrote to the pipe before it died is still read: a complete answer line counts
as received (the case that matters most: an answer out means it must be durable). After each kill
a new process is started and the client goes on from the last answer it actually received; a
request that got no answer is sent again exactly as it was (it must replay the recorded answer or
advance now; a request that had committed must not write anything the second time).

The checks, once the kills are done (`check_store`): PRAGMA integrity_check; every answer the
client received rehydrates (its stateToken finds its node) and every acknowledgement and
checkpoint replays byte-identical (the text block and the structuredContent, key order included);
each session's event log is 1..n with `last_seq` = n; the projections are equal before and after
`rebuild_projections`, both as harness/projections.py sees them (rebuild_compare_worker.py)
and dumped straight from the SQLite file (every column, rows keyed by public ids); and the run goes
on (one more advance).
"""

from __future__ import annotations

import contextlib
import json
import random
import sqlite3
import sys
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from harness.processes import run_captured, server_env
from harness.stdio import HarnessError, StdioServer
from harness.workflows import long_loop

REBUILD_WORKER = Path(__file__).with_name("rebuild_compare_worker.py")
WORKFLOW_ID = "crash.long_loop"  # a run that completes is followed by a new one
LONG_LOOP = long_loop(
    WORKFLOW_ID,
    "Crash harness: a long loop",
    "One step repeated by a while loop, so a run has many nodes to crash in.",
)
# Projection tables (what rebuild_projections empties and rebuilds); the event log, pinned workflows,
# rate buckets and tool timings are not projections.
PROJECTION_TABLES = [
    "runs_session",
    "runs_run",
    "runs_node",
    "runs_attempt",
    "runs_ack",
    "runs_output",
    "runs_checkpoint",
    "runs_observation",
    "runs_gap",
    "runs_runsynthesis",
    "runs_searchentry",
]
# Not derived from the log: Session.updated_at is a wall-clock "touched" stamp (projections.snapshot
# leaves it out too).
UNSTABLE_COLUMNS = {("runs_session", "updated_at")}
REPLAYABLE = {"advance", "fork", "checkpoint"}  # acknowledgements and checkpoints replay byte for byte


@dataclass
class Answer:
    """One answer the client received, exactly as received."""

    index: int
    purpose: str  # start, advance, checkpoint, rehydrate (a rewind), fork
    tool: str
    arguments: dict[str, Any]
    text: str  # the text block, exact
    structured: str  # structuredContent re-serialised in the order received (compact, no escaping)
    resent: bool = False  # the answer to a request sent again after a kill

    @cached_property
    def data(self) -> dict[str, Any]:
        return json.loads(self.structured)


def exact(structured: Any) -> str:
    return json.dumps(structured, ensure_ascii=False, separators=(",", ":"))


@dataclass
class Figures:
    kills: int = 0
    kills_by_moment: dict[str, int] = field(default_factory=dict)
    in_flight: dict[str, int] = field(default_factory=dict)  # what a killed request had done
    resent_replayed: int = 0  # a request that had committed, sent again: answered, wrote nothing
    resent_advanced: int = 0  # a request that had not committed, sent again: done now
    requests: int = 0
    runs_started: int = 0
    # from turning to a server (spawned during the previous kill) to its first tool answer
    startup_seconds: list[float] = field(default_factory=list)
    call_seconds: list[float] = field(default_factory=list)
    kill_phase_seconds: float = 0.0
    checks: dict[str, tuple[bool, str]] = field(default_factory=dict)
    check_seconds: dict[str, float] = field(default_factory=dict)
    replays_checked: int = 0
    rehydrates_checked: int = 0

    def bump(self, table: dict[str, int], key: str) -> None:
        table[key] = table.get(key, 0) + 1

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(ok for ok, _ in self.checks.values())


class CrashCampaign:
    """Kills the server `kills` times while driving a long workflow, then checks the store."""

    def __init__(self, workdir: Path, seed: int, calls_between_kills: tuple[int, int] = (0, 3), timeout: float = 60.0):
        self.workdir = workdir
        self.rng = random.Random(seed)
        self.seed = seed
        self.calls_between_kills = calls_between_kills
        self.timeout = timeout
        self.home = workdir / "home"
        project = workdir / "project"
        workflows = project / ".workrail" / "workflows"
        workflows.mkdir(parents=True, exist_ok=True)
        (workflows / f"{WORKFLOW_ID}.json").write_text(json.dumps(LONG_LOOP))
        self.env = server_env(self.home, WORKRAIL_PROJECT_DIR=str(project), WORKRAIL_RATE_LIMIT_BURST="100000")
        self.database = self.home / "workrail.sqlite3"
        self.log = workdir / "servers.log"
        self.answers: list[Answer] = []
        self.tip: Answer | None = None  # the answer the client goes on from
        self.call: tuple[str, str, dict[str, Any]] | None = None  # (purpose, tool, arguments) not yet answered
        self.unanswered_committed: bool | None = None  # about self.call, when a kill left it unanswered
        self.figures = Figures()
        self.spare: StdioServer | None = None  # the next server, starting up meanwhile
        self._notes = 0

    # -- the client's side of a run --------------------------------------------------------------

    def _notes_text(self, what: str) -> str:
        self._notes += 1
        return f"{what} {self._notes} (seed {self.seed}): checked the item, nothing unusual."

    def plan(self) -> tuple[str, str, dict[str, Any]]:
        """The next call, decided once: a request killed without an answer is sent again unchanged."""
        if self.call is not None:
            return self.call
        tip = self.tip
        if tip is None or tip.data["isComplete"]:
            call: tuple[str, str, dict[str, Any]] = ("start", "start_workflow", {"workflowId": WORKFLOW_ID})
        else:
            older = [a for a in self.answers if a.purpose in REPLAYABLE and a is not tip and not a.data["isComplete"]]
            roll = self.rng.random()
            if tip.purpose == "rehydrate":  # acknowledge the fresh ackToken: a sibling branch
                roll = 1.0
            if older and roll < 0.08:  # the chat was rewound: rehydrate an older token, then fork there
                call = ("rehydrate", "continue_workflow", {"stateToken": self.rng.choice(older).data["stateToken"]})
            elif roll < 0.33:
                output = {"notesMarkdown": self._notes_text("Checkpoint")}
                call = ("checkpoint", "checkpoint_workflow", {"stateToken": tip.data["stateToken"], "output": output})
            else:
                data = tip.data
                arguments = {
                    "stateToken": data["stateToken"],
                    "ackToken": data["ackToken"],
                    "output": {"notesMarkdown": self._notes_text("Item")},
                }
                call = ("fork" if tip.purpose == "rehydrate" else "advance", "continue_workflow", arguments)
        self.call = call
        return call

    def received(self, result: dict[str, Any], resent: bool) -> None:
        assert self.call is not None
        purpose, tool, arguments = self.call
        text = result["content"][0]["text"] if result.get("content") else ""
        if result.get("isError"):
            raise HarnessError(f"{tool} {purpose} answered an error: {text}")
        answer = Answer(len(self.answers), purpose, tool, arguments, text, exact(result["structuredContent"]), resent)
        self.answers.append(answer)
        self.tip = answer
        self.call = None
        self.unanswered_committed = None
        if purpose == "start":
            self.figures.runs_started += 1

    # -- the store, read straight from the file --------------------------------------------------

    def event_count(self) -> int:
        if not self.database.exists():
            return 0
        with contextlib.closing(sqlite3.connect(self.database, timeout=30)) as connection:
            try:
                return connection.execute("SELECT count(*) FROM runs_event").fetchone()[0]
            except sqlite3.OperationalError:  # not migrated yet
                return 0

    # -- the kills -------------------------------------------------------------------------------

    def start_server(self) -> StdioServer:
        return StdioServer(self.env, self.workdir, self.log, self.timeout)

    def take_server(self) -> StdioServer:
        """The next server: the spare started during the previous kill, whose
        start-up (mostly importing the MCP SDK, CPU-bound) overlapped that work; a new spare is
        spawned at once. A client restarting after a crash while another agent's server is coming up
        on the same store is an ordinary situation too."""
        taken = self.spare or self.start_server()
        self.spare = self.start_server()
        return taken

    def timed_call(self, server: StdioServer, tool: str, arguments: dict[str, Any], first: bool) -> dict[str, Any]:
        started = time.perf_counter()
        result = server.call(tool, arguments)
        if not first:  # a new server's first call waits for its set-up: counted in startup_seconds
            self.figures.call_seconds.append(time.perf_counter() - started)
        self.figures.requests += 1
        return result

    def make_call(self, server: StdioServer, first: bool = False) -> None:
        """Sends the planned call and records its answer. A resent request is checked: one that had
        committed before the kill must write nothing now."""
        resent = self.unanswered_committed is not None
        purpose, tool, arguments = self.plan()
        before = self.event_count() if resent else 0
        result = self.timed_call(server, tool, arguments, first)
        if resent:
            wrote = self.event_count() - before
            if self.unanswered_committed and purpose in REPLAYABLE:
                self.figures.resent_replayed += 1
                if wrote:
                    raise HarnessError(f"a {purpose} that had committed before the kill wrote {wrote} events again")
            else:
                self.figures.resent_advanced += 1
        self.received(result, resent)

    def one_kill(self) -> None:
        figures = self.figures
        moment = self.rng.random()
        # During start-up (Django, migrations and the catalog load in the background): a fresh server.
        server = self.start_server() if moment < 0.05 else self.take_server()
        taken = time.perf_counter()
        try:
            if moment < 0.05:
                time.sleep(self.rng.uniform(0.0, 0.6))
                server.kill()
                figures.bump(figures.kills_by_moment, "start-up")
                return
            server.initialize()
            self.make_call(server, first=True)
            figures.startup_seconds.append(time.perf_counter() - taken)
            for _ in range(self.rng.randint(*self.calls_between_kills)):
                self.make_call(server)
            if moment < 0.15:  # idle, between two requests
                time.sleep(self.rng.uniform(0.0, 0.005))
                server.kill()
                figures.bump(figures.kills_by_moment, "idle")
                return
            purpose, tool, arguments = self.plan()
            before = self.event_count()
            request_id = server.send("tools/call", {"name": tool, "arguments": arguments})
            if moment < 0.25:
                server.kill()
                figures.bump(figures.kills_by_moment, "mid-request 0 ms")
            else:
                time.sleep(self.rng.uniform(0.0, 0.015))
                server.kill()
                figures.bump(figures.kills_by_moment, "mid-request 0-15 ms")
            result = server.salvage(request_id)
            committed = self.event_count() > before
            if result is not None:
                figures.bump(figures.in_flight, f"{purpose}: answered before the kill")
                self.received(result, resent=False)
            elif committed:
                figures.bump(figures.in_flight, f"{purpose}: committed, answer lost")
                self.unanswered_committed = True
            else:
                figures.bump(figures.in_flight, f"{purpose}: not committed")
                self.unanswered_committed = False
        finally:
            figures.kills += 1 if server.killed else 0
            server.close()

    def run_kills(self, kills: int) -> None:
        started = time.perf_counter()
        try:
            while self.figures.kills < kills:
                self.one_kill()
        finally:
            if self.spare is not None:
                self.spare.close()
                self.spare = None
        self.figures.kill_phase_seconds = time.perf_counter() - started

    # -- the checks ------------------------------------------------------------------------------

    def _check(self, name: str, ok: bool, detail: str, started: float) -> None:
        self.figures.checks[name] = (ok, detail)
        self.figures.check_seconds[name] = time.perf_counter() - started

    def check_integrity(self, name: str) -> None:
        started = time.perf_counter()
        with contextlib.closing(sqlite3.connect(self.database, timeout=30)) as connection:
            rows = [row[0] for row in connection.execute("PRAGMA integrity_check")]
            foreign = connection.execute("PRAGMA foreign_key_check").fetchall()
        ok = rows == ["ok"] and not foreign
        self._check(name, ok, f"integrity_check {rows[:3]}, {len(foreign)} foreign-key violations", started)

    def check_durability(self) -> None:
        """Every answer received rehydrates; every acknowledgement and checkpoint replays byte-identical."""
        started = time.perf_counter()
        problems: list[str] = []
        server = self.start_server()
        try:
            server.initialize()
            if self.call is not None:  # the last kill left a request unanswered: send it as it was
                self.make_call(server)
            for answer in self.answers:
                data = answer.data
                again = server.call("continue_workflow", {"stateToken": data["stateToken"]})
                self.figures.rehydrates_checked += 1
                seen = again.get("structuredContent") or {}
                if again.get("isError") or seen.get("stateToken") != data["stateToken"]:
                    problems.append(f"answer {answer.index} ({answer.purpose}) does not rehydrate: {exact(seen)[:300]}")
                elif (seen.get("pending") or {}).get("stepInstance") != (data.get("pending") or {}).get("stepInstance"):
                    problems.append(f"answer {answer.index} rehydrates at another step: {exact(seen)[:300]}")
                if answer.purpose not in REPLAYABLE:
                    continue
                replay = server.call(answer.tool, answer.arguments)
                self.figures.replays_checked += 1
                text = replay["content"][0]["text"] if replay.get("content") else ""
                if exact(replay.get("structuredContent")) != answer.structured or text != answer.text:
                    problems.append(
                        f"answer {answer.index} ({answer.purpose}) replays differently:\n"
                        f"  first:  {answer.structured[:400]}\n  replay: {exact(replay.get('structuredContent'))[:400]}"
                    )
        finally:
            server.close()
        detail = (
            f"{self.figures.rehydrates_checked} rehydrated, {self.figures.replays_checked} replayed, "
            f"{len(problems)} problems" + "".join(f"\n  {p}" for p in problems[:5])
        )
        self._check("durable", not problems, detail, started)

    def check_event_log(self, name: str) -> None:
        started = time.perf_counter()
        with contextlib.closing(sqlite3.connect(self.database, timeout=30)) as connection:
            rows = connection.execute(
                "SELECT s.public_id, s.last_seq, count(e.id), min(e.seq), max(e.seq) "
                "FROM runs_session s LEFT JOIN runs_event e ON e.session_id = s.id GROUP BY s.id"
            ).fetchall()
            seqs: dict[str, list[int]] = {}
            for public_id, seq in connection.execute(
                "SELECT s.public_id, e.seq FROM runs_event e JOIN runs_session s ON s.id = e.session_id "
                "ORDER BY e.session_id, e.seq"
            ):
                seqs.setdefault(public_id, []).append(seq)
        bad = [
            row for row in rows if seqs.get(row[0], []) != list(range(1, row[2] + 1)) or row[1] != row[2] or row[2] == 0
        ]
        events = sum(row[2] for row in rows)
        self._check(name, not bad, f"{len(rows)} sessions, {events} events, {len(bad)} with gaps: {bad[:3]}", started)

    def dump_projections(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every projection row, foreign keys replaced by the referenced row's public id, pks left out."""
        picture: dict[str, list[tuple[Any, ...]]] = {}
        with contextlib.closing(sqlite3.connect(self.database, timeout=30)) as connection:
            public = {
                table
                for table in PROJECTION_TABLES
                if "public_id" in {row[1] for row in connection.execute(f'PRAGMA table_info("{table}")')}
            }
            for table in PROJECTION_TABLES:
                columns = [row[1] for row in connection.execute(f'PRAGMA table_info("{table}")')]
                targets = {row[3]: row[2] for row in connection.execute(f'PRAGMA foreign_key_list("{table}")')}
                selects, joins = [], []
                for position, column in enumerate(columns):
                    if column == "id" or (table, column) in UNSTABLE_COLUMNS:
                        continue
                    if targets.get(column) in public:
                        joins.append(f'LEFT JOIN "{targets[column]}" j{position} ON j{position}.id = t."{column}"')
                        selects.append(f"j{position}.public_id")
                    else:
                        selects.append(f't."{column}"')
                rows = connection.execute(f'SELECT {", ".join(selects)} FROM "{table}" t {" ".join(joins)}').fetchall()
                picture[table] = sorted(rows, key=repr)
        return picture

    def check_rebuild(self) -> None:
        started = time.perf_counter()
        before = self.dump_projections()
        rebuilt = run_captured([sys.executable, str(REBUILD_WORKER)], env=self.env, cwd=self.workdir, timeout=600)
        if rebuilt.returncode != 0:
            self._check("rebuild equal", False, f"rebuild_projections failed: {rebuilt.stderr[-2000:]}", started)
            return
        compared = json.loads(rebuilt.stdout)
        after = self.dump_projections()
        differences = [f"projections.snapshot {difference}" for difference in compared["differences"]]
        for table in PROJECTION_TABLES:
            if before[table] != after[table]:
                only_before = [row for row in before[table] if row not in after[table]]
                only_after = [row for row in after[table] if row not in before[table]]
                differences.append(
                    f"{table}: {len(before[table])} rows before, {len(after[table])} after; "
                    f"first only before {only_before[:1]}, first only after {only_after[:1]}"
                )
        rows = sum(len(rows) for rows in before.values())
        detail = f"{rows} projection rows in {len(PROJECTION_TABLES)} tables; {compared['output'].strip()}"
        self._check("rebuild equal", not differences, detail + "".join(f"\n  {d}" for d in differences), started)

    def check_goes_on(self) -> None:
        started = time.perf_counter()
        server = self.start_server()
        try:
            server.initialize()
            tip = self.tip
            assert tip is not None
            data = tip.data
            if data["isComplete"]:
                result = server.call("start_workflow", {"workflowId": WORKFLOW_ID})
            else:
                arguments = {
                    "stateToken": data["stateToken"],
                    "ackToken": data["ackToken"],
                    "output": {"notesMarkdown": self._notes_text("After the crashes")},
                }
                result = server.call("continue_workflow", arguments)
            seen = result.get("structuredContent") or {}
            ok = (
                not result.get("isError")
                and seen.get("kind") in {"step", "complete"}
                and seen["stateToken"] != data["stateToken"]
            )
            detail = f"one more call answered {seen.get('kind') or exact(seen)[:300]}"
        finally:
            server.close()
        self._check("run goes on", ok, detail, started)

    def check_store(self) -> Figures:
        self.check_integrity("integrity after the kills")
        self.check_durability()
        self.check_event_log("event log gap-free")
        self.check_rebuild()
        self.check_goes_on()
        self.check_integrity("integrity at the end")
        self.check_event_log("event log gap-free at the end")
        return self.figures


def run_campaign(
    workdir: Path, kills: int, seed: int, calls_between_kills: tuple[int, int] = (0, 3), timeout: float = 60.0
) -> Figures:
    campaign = CrashCampaign(workdir, seed, calls_between_kills, timeout)
    campaign.run_kills(kills)
    return campaign.check_store()

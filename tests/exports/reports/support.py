"""Sessions and a local HTTP server for the report tests (tests/test_reports*.py), built through the
services the MCP tools use."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from harness.answers import wide_table_note
from tests.support.mcp_calls import ack_with_notes, checkpoint_workflow, start_workflow

PLAN = "wr.routine-focused_plan"
FILES = {
    "kind": "mr_review.changed_files",
    "changedFiles": [{"path": "src/orders.py", "summary": "Paginate", "risk": "M"}],
}
FINDINGS = {
    "kind": "mr_review.findings",
    "findings": [
        {
            "severity": "Major",
            "title": "Unbounded query",
            "location": {"file": "src/orders.py", "line": 12},
            "rationale": "Every order is read at once.",
            "suggestion": "Page the query.",
        }
    ],
}


@dataclass
class Small:
    session_id: str
    run_id: str
    answers: list[dict[str, Any]] = field(default_factory=list)


def small_complete_session(key: str = "REPORT-1") -> Small:
    """The focused-plan routine run to its end: notes on each step (one with a heading and a list), a
    checkpoint, changed files and a finding."""
    start = start_workflow(PLAN, context={"sessionKey": key})
    second = ack_with_notes(start, "## Goal\n\nPaginate `/orders`:\n\n- keep the old query\n- add `limit`", [FILES])
    saved = checkpoint_workflow(stateToken=second["stateToken"], output={"notesMarkdown": "Halfway: plan drafted."})
    third = ack_with_notes(saved, "Plan: **three** slices.", [FINDINGS])
    done = ack_with_notes(third, "Verdict: ready.")
    assert done["isComplete"] is True
    return Small(start["session"]["sessionId"], start["session"]["runId"], [start, second, third, done])


def hostile_notes(port: int) -> str:
    """Notes that would load a local file, a remote stylesheet (linked and imported) and SVG resources
    if they reached a browser or WeasyPrint unsanitized, plus a marker to find in the PDF's text."""
    base = f"http://127.0.0.1:{port}"
    return (
        "# A heading the agent wrote\n\n"
        "NOTE-MARKER-7f3a: the agent's own words.\n\n"
        '<img src="file:///etc/passwd">\n\n'
        f'<link rel="stylesheet" href="{base}/linked.css">\n\n'
        f'<style>@import url("{base}/imported.css"); body {{ background: url({base}/bg.png) }}</style>\n\n'
        f'<svg><image href="{base}/svg-image.png"/><use href="{base}/sprite.svg#x"/></svg>\n\n'
        f"![remote picture]({base}/markdown-image.png)\n\n"
        "[click me](javascript:alert(1))\n"
    )


def hostile_session(port: int) -> Small:
    start = start_workflow(PLAN, context={"sessionKey": "HOSTILE-1"})
    second = ack_with_notes(start, hostile_notes(port))
    return Small(start["session"]["sessionId"], start["session"]["runId"], [start, second])


@contextmanager
def counting_server() -> Iterator[tuple[int, list[str]]]:
    """An HTTP server on 127.0.0.1 (a free port) that records the path of every request it gets."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.path)
            body = b"body { color: red }" if self.path.endswith(".css") else b""
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], seen
    finally:
        server.shutdown()
        server.server_close()


def normalized(markdown: str) -> str:
    """A report with what differs between two stores of the same story replaced: ids and times. An id
    and its short form (short_ids.py: its first 8 characters after the prefix) get the same name."""
    names: dict[str, str] = {}

    def name(prefix: str, chars: int) -> Any:
        def replace(match: re.Match[str]) -> str:
            key = match.group(0)[:chars]
            number = sum(value.startswith(prefix) for value in names.values()) + 1
            return names.setdefault(key, f"{prefix}{number}")

        return replace

    text = re.sub(r"ses_[0-9a-f]{8,16}", name("SESSION-", 12), markdown)
    text = re.sub(r"run_[0-9a-f]{8,16}", name("RUN-", 12), text)
    text = re.sub(r"\b\d{8,20}\b", name("NODE-", 8), text)
    text = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", "TIME", text)
    text = re.sub(r"took \d+(\.\d+)? m?s", "took N s", text)
    return re.sub(r"(?<=\| )\d+(\.\d+)? m?s(?= \|)", "N s", text)  # the timeline's durations


def wide_table_session(notes: int = 1) -> Small:
    """A session whose run holds `notes` steps of wide_table_note()."""
    start = start_workflow(PLAN, context={"sessionKey": f"WIDE-{notes}"})
    answers = [start]
    for _ in range(notes):
        answers.append(ack_with_notes(answers[-1], wide_table_note()))
    return Small(start["session"]["sessionId"], start["session"]["runId"], answers)

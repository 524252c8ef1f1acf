"""Hostile git remotes on loopback, for the repository bounds' tests and bench/hostile_repos.py."""

from __future__ import annotations

import http.server
import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager


def _pkt(text: str) -> bytes:
    """One pkt-line of git's wire protocol: four hex digits of length, then the text."""
    return b"%04x" % (len(text.encode()) + 4) + text.encode()


@contextmanager
def endless_refs(chunks: int | None = None) -> Iterator[str]:
    """An http:// 'git server' whose ref advertisement goes on and on: `chunks` blocks of 5,000 refs of
    about 200 bytes each (about 1 MB a block), or without end when None. Yields the repository's URL."""

    class Refs(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/x-git-upload-pack-advertisement")
            self.end_headers()
            oid = "1" * 40
            chunk = b"".join(_pkt(f"{oid} refs/heads/{'x' * 150}{i:08d}\n") for i in range(5000))
            try:
                self.wfile.write(_pkt("# service=git-upload-pack\n") + b"0000" + _pkt(f"{oid} HEAD\0multi_ack\n"))
                sent = 0
                while chunks is None or sent < chunks:
                    self.wfile.write(chunk)
                    sent += 1
            except OSError:
                pass  # git gave up

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Refs)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/flows.git"
    finally:
        server.shutdown()
        server.server_close()

"""Serve the local dashboard on 127.0.0.1 and print how to connect an agent.

The server is waitress, a production WSGI server (runserver is for development and says so); static
files come from WhiteNoise in the middleware (workrail_site/settings.py), so nothing else is needed.
"""

import errno
import signal
import socket
from types import FrameType
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.core.servers.basehttp import get_internal_wsgi_application
from waitress.server import BaseWSGIServer, MultiSocketServer, create_server

from runs.dashboard.connect import connection_instructions
from runs.store.setup import ensure_migrated
from workrail_site import shutdown

# Bound to loopback only: the dashboard is for the person at this machine.
HOST = "127.0.0.1"


def check_port_free(port: int) -> None:
    """Raises CommandError, naming the port and how to choose another, if the server could not listen on it."""
    if not 1 <= port <= 65535:
        raise CommandError(f"Port {port} is not a valid port: set WORKRAIL_PORT (or --port) to 1024-65535.")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # waitress sets SO_REUSEADDR too, so a socket left in TIME_WAIT by the last run is no obstacle.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((HOST, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                reason = "is already in use (another dashboard, or another program)"
            else:
                reason = f"cannot be used: {exc.strerror or exc}"
            raise CommandError(port_error(port, reason)) from None


def port_error(port: int, reason: str) -> str:
    return (
        f"Port {port} on {HOST} {reason}. Set WORKRAIL_PORT to a free port "
        f"(e.g. WORKRAIL_PORT={port + 1 if port < 65535 else 8766} make run) or pass --port."
    )


def make_server(port: int) -> MultiSocketServer | BaseWSGIServer:
    """The waitress server for the dashboard, bound (not yet serving) to HOST:port only."""
    try:
        return create_server(
            get_internal_wsgi_application(),
            host=HOST,
            port=port,
            threads=8,
            ident="workrail",  # the Server header: no version numbers
            # Keep reading a connection while its request is served: that is how waitress sees the
            # client leave (environ["waitress.client_disconnected"]), which stops the request's PDF.
            channel_request_lookahead=1,
        )
    except OSError as exc:  # lost a race for the port after check_port_free()
        raise CommandError(port_error(port, f"cannot be used: {exc.strerror or exc}")) from None


def _stop(signum: int, frame: FrameType | None) -> None:
    # First end what requests are waiting on (a PDF's child process): waitress then waits for its
    # threads, which come back at once instead of after their work (workrail_site/shutdown.py).
    shutdown.stopping()
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise SystemExit(0)


def serve(port: int) -> None:
    """Serves until Ctrl+C or SIGTERM, then closes the listening socket and the worker threads."""
    server = make_server(port)
    # waitress stops cleanly on SystemExit/KeyboardInterrupt; make `kill` (SIGTERM) one of those too.
    previous = {signum: signal.signal(signum, _stop) for signum in (signal.SIGTERM, signal.SIGINT)}
    try:
        server.run()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


class Command(BaseCommand):
    help = "Start the WorkRail dashboard on 127.0.0.1 (loopback only) and print agent connection details."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--port",
            type=int,
            default=settings.DASHBOARD_PORT,
            help=f"The port on 127.0.0.1 to serve on (default {settings.DASHBOARD_PORT}: WORKRAIL_PORT, else 8765).",
        )

    def handle(self, *args: Any, port: int, **options: Any) -> None:
        check_port_free(port)  # before printing anything: no connect block above an error
        applied = ensure_migrated()  # a new machine's first command may be this one, as for `mcp`
        if applied:
            self.stdout.write(f"Prepared the store in {settings.WORKRAIL_HOME} ({applied} migrations).\n")
        # The password stays in: this is the terminal of the person who started the dashboard.
        info = connection_instructions(reveal_password=True)
        self.stdout.write(self.style.SUCCESS(f"WorkRail dashboard: http://{HOST}:{port}/"))
        self.stdout.write(f"Data directory: {settings.WORKRAIL_HOME}\n")
        self.stdout.write("Connect Claude Code:\n  " + info.claude_code + "\n")
        self.stdout.write(
            "Or add to an MCP client's JSON config (Claude Desktop, Cursor, ...):\n" + info.json_config + "\n"
        )
        if info.env:
            self.stdout.write(
                "The env settings (" + ", ".join(info.env) + ") make the agent use the data this dashboard shows.\n"
            )
        if "DATABASE_URL" in info.env:
            self.stdout.write("DATABASE_URL may contain a password: it will be stored in the client's config.\n")
        self.stdout.write("Press Ctrl+C to stop.\n")
        self.stdout.flush()
        serve(port)

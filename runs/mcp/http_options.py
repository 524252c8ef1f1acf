"""How `manage.py mcp --http` was asked to serve, and which Host and Origin headers it answers.

The options travel to uvicorn's worker processes in one environment variable (a worker imports the app
factory by name and gets no arguments). It starts with an underscore: settings.py refuses unknown
WORKRAIL_* names, and this one is no setting.
"""

from __future__ import annotations

import ipaddress
import json
import os
from dataclasses import asdict, dataclass

from mcp.server.transport_security import TransportSecuritySettings

ENVIRONMENT_VARIABLE = "_WORKRAIL_MCP_HTTP_OPTIONS"
PATH = "/mcp"
DEFAULT_PORT = 8766
LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]"]
LOOPBACK_ORIGINS = ["http://127.0.0.1", "http://localhost", "http://[::1]"]


@dataclass(frozen=True)
class HttpOptions:
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    workers: int = 1
    allowed_hosts: tuple[str, ...] = ()  # settings.WORKRAIL_MCP_ALLOWED_HOSTS
    allowed_origins: tuple[str, ...] = ()  # settings.WORKRAIL_MCP_ALLOWED_ORIGINS

    @property
    def stateless(self) -> bool:
        """Whether each request stands alone. A streamable HTTP session lives in the memory of the process
        that answered `initialize`; with several workers the next request of that session may reach another
        process, which would not know it. Nothing of ours needs the session: a run's state travels in its
        signed tokens and lives in the database. So several workers serve every request statelessly (the
        SDK's stateless_http), and only one worker keeps sessions (and with them, subscriptions)."""
        return self.workers > 1

    def security(self) -> TransportSecuritySettings:
        """The SDK's DNS-rebinding rule: loopback always, plus the configured names, on any port."""
        hosts = [*LOOPBACK_HOSTS, *self.allowed_hosts]
        origins = [*LOOPBACK_ORIGINS, *self.allowed_origins]
        return TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=[*hosts, *(f"{host}:*" for host in hosts)],
            allowed_origins=[*origins, *(f"{origin}:*" for origin in origins)],
        )

    def publish(self) -> None:
        os.environ[ENVIRONMENT_VARIABLE] = json.dumps(asdict(self))

    @classmethod
    def published(cls) -> HttpOptions:
        given = json.loads(os.environ.get(ENVIRONMENT_VARIABLE, "{}"))
        lists = {name: tuple(given.get(name, ())) for name in ("allowed_hosts", "allowed_origins")}
        return cls(**{**given, **lists})


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name: it may resolve to anything

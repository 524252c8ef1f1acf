#!/usr/bin/env python
"""Django's command-line utility for WorkRail.

`manage.py mcp` takes a fast path: it answers the MCP handshake before Django loads its apps,
because an agent's client waits on start-up (see runs/mcp/entry.py).
"""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "workrail_site.settings")
    from django.core.exceptions import ImproperlyConfigured

    try:
        if sys.argv[1:2] == ["mcp"]:
            from runs.mcp.entry import main as mcp_main

            sys.exit(mcp_main(sys.argv[2:]))
        from django.core.management import execute_from_command_line

        execute_from_command_line(sys.argv)
    except ImproperlyConfigured as exc:
        print(f"workrail: configuration error: {exc}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()

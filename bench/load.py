"""Advances per second and p50/p99 with N `manage.py mcp` processes on one store while the dashboard is read.

The long form of tests/e2e/test_concurrency.py's load test (the harness is harness/load.py):
for each process count, a new store, N servers each driven by a raw JSON-RPC client acknowledging
steps of a long while-loop workflow as fast as it can, and one reader alternating the dashboard's
sessions page and the API's session list. A benchmark: it prints figures per process count and
exits 1 if any call failed or any process logged "database is locked".

    .venv/bin/python bench/load.py [--processes 1,4,8] [--seconds 20] [--database-url postgres://...]

With --http, one `manage.py mcp --http` server (--workers, default 2) and N concurrent HTTP clients on it
(--clients, default 1,8,32), each a keep-alive connection acknowledging steps the same way (harness/http_load.py);
no dashboard reader:

    .venv/bin/python bench/load.py --http [--clients 1,8,32] [--workers 2] [--seconds 20] [--database-url ...]

With --database-url (a PostgreSQL server), each process count gets a fresh database on that server,
created and dropped here (harness/stores.py), as the suite does with WORKRAIL_TEST_DATABASE_URL.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from harness.http_load import http_line, run_http_load
from harness.load import LoadFigures, run_load
from harness.stores import shared_store


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", default="1,4,8", help="process counts, comma-separated (default 1,4,8)")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured seconds per process count")
    parser.add_argument("--database-url", default="", help="a PostgreSQL server to run on (default: SQLite)")
    parser.add_argument("--keep", action="store_true", help="keep the stores and the logs")
    parser.add_argument("--http", action="store_true", help="N HTTP clients on one manage.py mcp --http server")
    parser.add_argument("--clients", default="1,8,32", help="with --http: client counts (default 1,8,32)")
    parser.add_argument("--workers", type=int, default=2, help="with --http: the server's workers (default 2)")
    args = parser.parse_args()
    counts = [int(count) for count in (args.clients if args.http else args.processes).split(",") if count.strip()]
    if args.database_url:
        os.environ["WORKRAIL_TEST_DATABASE_URL"] = args.database_url  # what shared_store reads

    results: list[LoadFigures] = []
    for count in counts:
        workdir = Path(tempfile.mkdtemp(prefix=f"workrail-load-{count}-"))
        try:
            with shared_store(workdir / "home") as store:
                if args.http:
                    figures = run_http_load(workdir, count, args.seconds, store.env, args.workers)
                else:
                    figures = run_load(workdir, count, args.seconds, store.env)
        finally:
            if not args.keep:
                shutil.rmtree(workdir, ignore_errors=True)
        results.append(figures)
        line = http_line(figures, args.workers) if args.http else figures.line()
        print(f"[{store.vendor}] {line}", flush=True)
        for error in (figures.errors + figures.dashboard_errors)[:5]:
            print(f"  error: {error}")
    failed = any(run.errors or run.dashboard_errors or run.locked for run in results)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

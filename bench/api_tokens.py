"""API token verification: what the database-backed tokens cost each API request.

A SQLite file store (WAL, as `make run` uses) in a temporary WORKRAIL_HOME, with --tokens tokens.
Figures: `api_tokens.verify` on a token used in the last minute (one indexed SELECT by digest, no
write), on a token whose last use must be recorded (the SELECT plus a conditional UPDATE in its own
transaction: at most once a minute per token in real use), and on a token that is not ours. A
benchmark: it asserts nothing.

    .venv/bin/python bench/api_tokens.py [--tokens 50] [--calls 2000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench._common import clean_env, summary, timed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", type=int, default=50)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()

    home = Path(tempfile.mkdtemp(prefix="workrail-bench-tokens-"))
    os.environ.update(clean_env(home / "home"))
    os.environ["DJANGO_SETTINGS_MODULE"] = "workrail_site.settings"
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    from runs.store import api_tokens

    tokens = [api_tokens.create(f"bench-{index}")[1] for index in range(args.tokens)]
    token = tokens[len(tokens) // 2]
    api_tokens.verify(token)  # its last use is now recorded: the next minute's calls only read

    print(f"{args.tokens} tokens in the store (a SQLite file)")

    def measure(label: str, presented: str, calls: int) -> None:
        print(summary(label, timed(lambda: api_tokens.verify(presented), calls)[0]))

    measure("verify, used within the minute (SELECT)", token, args.calls)
    measure("verify, not ours (SELECT)", "not-one-of-ours", args.calls)
    api_tokens.LAST_USED_EVERY = timedelta(0)  # every call records its use: the once-a-minute case
    measure("verify, recording the last use (SELECT + UPDATE)", token, max(1, args.calls // 10))
    shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()

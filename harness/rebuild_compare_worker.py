"""Run in a separate process by the crash harness, on the store its environment names: the
projections as harness/projections.py sees them, rebuilt from the event log by
`rebuild_projections`, seen again. Prints one JSON line: {"equal", "differences", "output"}.

python rebuild_compare_worker.py
"""

import io
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "workrail_site.settings")

import django

django.setup()

from django.core.management import call_command  # noqa: E402

from harness.projections import snapshot  # noqa: E402


def main() -> None:
    before = snapshot()
    output = io.StringIO()
    call_command("rebuild_projections", stdout=output)
    after = snapshot()
    differences = [
        f"{name}: {len(rows)} rows before, {len(after[name])} after; first only before "
        f"{[row for row in rows if row not in after[name]][:1]!r:.300}"
        for name, rows in before.items()
        if rows != after[name]
    ]
    sys.stdout.write(json.dumps({"equal": not differences, "differences": differences, "output": output.getvalue()}))


main()

"""Run in a separate process by test_concurrency: one caller of the execution service.

python concurrency_worker.py start WORKFLOW_ID      -> prints the start response
python concurrency_worker.py ack STATE ACK GO_FILE  -> waits for GO_FILE, acks, prints the response
"""

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "workrail_site.settings")

import django

django.setup()

from runs.errors import WorkRailError  # noqa: E402
from tests.calls import continue_workflow, start_workflow  # noqa: E402


def main() -> None:
    action = sys.argv[1]
    try:
        if action == "start":
            result = start_workflow(sys.argv[2])
        else:
            state, ack, go = sys.argv[2:5]
            while not os.path.exists(go):  # all workers fire at (nearly) the same moment
                time.sleep(0.001)
            result = continue_workflow(stateToken=state, ackToken=ack, output={"notesMarkdown": "Same work."})
    except WorkRailError as exc:
        result = {"error": exc.as_dict()}
    sys.stdout.write(json.dumps(result, ensure_ascii=False))


main()

"""Run in a separate process by test_concurrency: one caller of the execution service.

python concurrency_worker.py start WORKFLOW_ID              -> prints the start response
python concurrency_worker.py ack STATE ACK GO_FILE          -> waits for GO_FILE, acks, prints the response
python concurrency_worker.py checkpoint STATE GO_FILE       -> waits, records the same checkpoint, prints it
python concurrency_worker.py start-keyed WORKFLOW KEY GO    -> waits, starts a run with ticketId KEY, prints it
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

from runs.contract.errors import WorkRailError  # noqa: E402
from tests.support.mcp_calls import checkpoint_workflow, continue_workflow, start_workflow  # noqa: E402


def wait_for(go: str) -> None:
    while not os.path.exists(go):  # all workers fire at (nearly) the same moment
        time.sleep(0.001)


def main() -> None:
    action, *args = sys.argv[1:]
    try:
        if action == "start":
            result = start_workflow(args[0])
        elif action == "ack":
            state, ack, go = args
            wait_for(go)
            result = continue_workflow(stateToken=state, ackToken=ack, output={"notesMarkdown": "Same work."})
        elif action == "checkpoint":
            state, go = args
            wait_for(go)
            result = checkpoint_workflow(stateToken=state, output={"notesMarkdown": "Same progress."})
        else:
            workflow, key, go = args
            wait_for(go)
            result = start_workflow(workflow, {"ticketId": key})
    except WorkRailError as exc:
        result = {"error": exc.as_dict()}
    sys.stdout.write(json.dumps(result, ensure_ascii=False))


main()

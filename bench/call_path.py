"""What one continue_workflow call runs, from the MCP tool to the journal: how many of the project's
modules, and the most parameters any function on the path takes.

Run: .venv/bin/python bench/call_path.py

In-process, on a fresh SQLite store: start_workflow, then one continue_workflow with an ackToken
through the tool's door (runs/mcp/tools.py `call`: input model, service, journal, answer, text),
watched with sys.setprofile. Printed:
- the distinct project modules (runs, workflows_app, workrail_site, exports) whose code ran;
- the largest parameter count of a function that ran, over the path's modules (harness/call_path.py's
  PATH_MODULES, which tests/project/test_call_path.py walks) and over every project module, counted
  by that module's rule. A dataclass's generated __init__ counts too: it runs in its module.
Figures only; nothing is asserted.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from types import FrameType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout, for bench._common
from bench._common import REPO, clean_env
from harness.call_path import PATH_MODULES, code_parameters

PROJECT = ("runs", "workflows_app", "workrail_site", "exports")
WORKFLOW = {
    "id": "bench.call_path",
    "name": "Call path",
    "description": "Two steps and a loop: one acknowledgement to watch.",
    "version": "1.0.0",
    "steps": [
        {"id": "begin", "title": "Begin", "prompt": "Begin, and set context.severity."},
        {
            "id": "loop",
            "type": "loop",
            "title": "Iterate",
            "loop": {"type": "for", "count": 2, "maxIterations": 2},
            "body": [{"id": "work", "title": "Work", "prompt": "Do iteration {{currentIteration}}."}],
        },
    ],
}


def watch(call: Any) -> tuple[set[str], dict[tuple[str, str], int]]:
    """The project modules whose code ran during `call()`, and each function's parameter count."""
    modules: set[str] = set()
    functions: dict[tuple[str, str], int] = {}

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call":
            return
        module = frame.f_globals.get("__name__", "")
        if module.split(".")[0] not in PROJECT:
            return
        modules.add(module)
        code = frame.f_code
        if code.co_name not in ("<module>", "<genexpr>", "<listcomp>", "<dictcomp>", "<setcomp>", "<lambda>"):
            name = code.co_qualname
            if name.startswith("__create_fn__"):  # a dataclass's generated method: name its class
                name = f"{type(frame.f_locals.get('self')).__qualname__}.{code.co_name}"
            functions[(module, name)] = code_parameters(code)

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return modules, functions


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "workflows").mkdir()
        (work / "workflows" / "call_path.json").write_text(json.dumps(WORKFLOW))
        os.environ.update(clean_env(work / "home", WORKRAIL_WORKFLOW_PATHS=str(work / "workflows")))
        os.environ["DJANGO_SETTINGS_MODULE"] = "workrail_site.settings"
        sys.path.insert(0, str(REPO))
        import django
        from django.core.management import call_command

        django.setup()
        call_command("migrate", verbosity=0)
        from runs.mcp import tools

        started = tools.call("start_workflow", {"workflowId": "bench.call_path", "goal": "Watch one call."})
        first = started.structured
        arguments = {
            "stateToken": first["stateToken"],
            "ackToken": first["ackToken"],
            "context": {"severity": "high"},
            "output": {"notesMarkdown": "Began."},
        }
        tools.call("continue_workflow", {"stateToken": first["stateToken"]})  # warm: imports and caches
        modules, functions = watch(lambda: tools.call("continue_workflow", arguments))

    on_path = {key: count for key, count in functions.items() if key[0] in PATH_MODULES}
    print("continue_workflow with an ackToken, from runs.mcp.tools.call to the journal:")
    print(f"  project modules whose code ran: {len(modules)}")
    for label, found in (("on the path's modules", on_path), ("in any project module", functions)):
        if found:
            (module, name), count = max(found.items(), key=lambda item: item[1])
            print(f"  most parameters {label}: {count} ({module}.{name})")
    print("  modules: " + ", ".join(sorted(modules)))


if __name__ == "__main__":
    main()

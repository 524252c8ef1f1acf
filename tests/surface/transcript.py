"""The surface transcripts of one checkout: every MCP answer of the fixed scenario (tests/surface/scenario.py)
and the HTTP API's OpenAPI document, normalized so that two runs of the same code give the same bytes.

The checkout is reached only as a user reaches it, so this module can record any commit (a worktree of an
older one, say) with the code of this one:
- MCP: `python CHECKOUT/manage.py mcp` over stdio, driven by the real `mcp` client;
- OpenAPI: `python CHECKOUT/manage.py shell -c ...` asks Django's test client for /api/v1/openapi.json as a
  logged-in staff user (the document needs the API's authentication, docs/api.md).

    python -m tests.surface.transcript --checkout PATH --out DIR    # writes DIR/mcp.txt, DIR/openapi.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.surface.normalize import Normalizer, matches
from tests.surface.scenario import SERVER_FLAGS, run_scenario, write_project_workflows

MCP_FILE, OPENAPI_FILE = "mcp.txt", "openapi.json"
OPENAPI_URL = "/api/v1/openapi.json"
TIMEOUT_SECONDS = 60

# Run by the checkout's own manage.py shell, so it is that checkout's Django project that answers. It
# notes where the project was imported from, so a checkout that silently ran other code is caught. The
# answer goes to a file: the shell's stdout also carries whatever the project logs there.
_FETCH_OPENAPI = """
import json
import workrail_site
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
call_command("migrate", verbosity=0)
user = get_user_model().objects.create_user("surface", is_staff=True)
client = Client(HTTP_HOST="127.0.0.1")
client.force_login(user)
response = client.get(URL)
with open(ANSWER, "w", encoding="utf-8") as answer:
    json.dump({
        "project": workrail_site.__file__,
        "status": response.status_code,
        "contentType": response["Content-Type"],
        "body": response.content.decode(),
    }, answer)
"""


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment a user's MCP client would give the server: none of the developer's WorkRail settings
    (nor PYTHONPATH, which could import another checkout's code), a home of its own."""
    dropped = {"DATABASE_URL", "DJANGO_SETTINGS_MODULE", "PYTHONPATH"}
    env = {k: v for k, v in os.environ.items() if not k.startswith("WORKRAIL_") and k not in dropped}
    env.update({"WORKRAIL_HOME": str(home), **extra})
    return env


def record_mcp(checkout: Path, workdir: Path, python: str = sys.executable) -> list[dict[str, Any]]:
    """The scenario against `checkout`'s server, in `workdir` (its project dir), with an empty home."""
    project = workdir / "project"
    write_project_workflows(project)
    params = StdioServerParameters(
        command=python,
        args=[str(checkout / "manage.py"), "mcp"],
        env=clean_env(workdir / "home", **SERVER_FLAGS),
        cwd=str(project),
    )

    async def talk() -> list[dict[str, Any]]:
        async with Client(params, mode="legacy", read_timeout_seconds=TIMEOUT_SECONDS) as client:
            return await run_scenario(client)

    return anyio.run(talk)


@contextmanager
def openapi_fetch(
    checkout: Path, workdir: Path, python: str = sys.executable
) -> Iterator[Callable[[], dict[str, Any]]]:
    """Starts fetching the OpenAPI document `checkout` serves, in the background (it overlaps the MCP
    scenario); the context gives the function that waits for it and returns it, parsed."""
    shell_home, answer_file = workdir / "shell-home", workdir / "openapi-answer.json"
    code = f"URL = {OPENAPI_URL!r}\nANSWER = {str(answer_file)!r}\n{_FETCH_OPENAPI}"
    with (
        tempfile.TemporaryFile(mode="w+") as log,
        subprocess.Popen(
            [python, str(checkout / "manage.py"), "shell", "-c", code],
            cwd=workdir,
            env=clean_env(shell_home),
            stdout=subprocess.DEVNULL,
            stderr=log,
            text=True,
        ) as process,
    ):

        def result() -> dict[str, Any]:
            if process.wait(timeout=TIMEOUT_SECONDS) != 0:
                log.seek(0)
                raise RuntimeError(f"fetching the OpenAPI document failed:\n{log.read()}")
            return _checked(json.loads(answer_file.read_text(encoding="utf-8")), checkout)

        try:
            yield result
        finally:
            if process.poll() is None:  # the scenario failed first: do not leave the shell behind
                process.kill()


def _checked(answer: dict[str, Any], checkout: Path) -> dict[str, Any]:
    expected = (checkout / "workrail_site").resolve()
    if Path(answer["project"]).resolve().parent != expected:
        raise RuntimeError(f"{checkout}'s manage.py ran the project at {answer['project']}, not {expected}")
    if answer["status"] != 200:
        raise RuntimeError(f"{OPENAPI_URL} answered {answer['status']}: {answer['body'][:500]}")
    return {"contentType": answer["contentType"], "document": json.loads(answer["body"])}


def render_openapi(fetched: dict[str, Any]) -> str:
    """Pretty-printed with sorted keys: a diff shows the operation and field that changed."""
    document = {"contentType": fetched["contentType"], "document": fetched["document"]}
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def render_mcp(entries: list[dict[str, Any]], literals: dict[str, str]) -> str:
    """One section per call: what was sent, then what came back (exactly, as JSON), normalized. Each text
    content is shown again under its answer for reading: plain text as it is, JSON pretty-printed, so a
    diff in prose or in a resource reads line by line rather than as one escaped line."""
    tools_list = next(entry["answer"] for entry in entries if entry["request"].get("method") == "tools/list")
    normalizer = Normalizer(literals, keep=matches(tools_list))
    sections = []
    for number, entry in enumerate(normalizer.walk(entries), start=1):
        lines = [f"=== {number}. {entry['label']}", "--- request", _json(entry["request"]), "--- answer"]
        lines.append(_json(entry["answer"]))
        for index, text in enumerate(_texts(entry["answer"])):
            lines += [f"--- text {index}, for reading", _readable(text)]
        sections.append("\n".join(lines))
    return "\n\n".join(sections) + "\n"


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _texts(answer: Any) -> list[str]:
    """The text of each content item of a tool answer, resource read or prompt."""
    items = []
    if isinstance(answer, dict):
        items = [*answer.get("content", []), *answer.get("contents", [])]
        items += [message.get("content", {}) for message in answer.get("messages", [])]
    return [item["text"] for item in items if isinstance(item, dict) and isinstance(item.get("text"), str)]


def _readable(text: str) -> str:
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return _json(value) if isinstance(value, dict | list) else text


@dataclass(frozen=True)
class Recording:
    """What one checkout answered, before normalization."""

    entries: list[dict[str, Any]]
    openapi: dict[str, Any]
    paths: dict[str, str]  # exact strings that differ between machines and runs, with their placeholder

    def texts(self) -> dict[str, str]:
        """{file name: normalized text}."""
        return {MCP_FILE: render_mcp(self.entries, self.paths), OPENAPI_FILE: render_openapi(self.openapi)}


def record(checkout: Path, workdir: Path, python: str = sys.executable) -> Recording:
    """Runs the scenario and fetches the OpenAPI document of `checkout`, using `workdir` for its homes."""
    with openapi_fetch(checkout, workdir, python) as openapi:
        entries = record_mcp(checkout, workdir, python)
        document = openapi()
    paths = {str(checkout): "<checkout>", str(workdir / "project"): "<project>", str(workdir): "<workdir>"}
    return Recording(entries, document, paths)


def generate(checkout: Path, workdir: Path, python: str = sys.executable) -> dict[str, str]:
    """{file name: normalized text} for `checkout`."""
    return record(checkout, workdir, python).texts()


def write(texts: dict[str, str], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, text in texts.items():
        (out / name).write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkout", type=Path, required=True, help="the checkout whose surfaces to record")
    parser.add_argument("--out", type=Path, required=True, help="the folder to write mcp.txt and openapi.json in")
    parser.add_argument("--python", default=sys.executable, help="the interpreter that runs the checkout")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="surface-") as workdir:
        write(generate(options.checkout.resolve(), Path(workdir), options.python), options.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

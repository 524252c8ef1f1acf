"""No workflow file, however it is made, takes the catalog down.

A cloned repository can carry anything in `.workrail/workflows`: a document nested 100,000 deep
(RecursionError in the parser), a `*.json` symlink to /dev/zero (reads without end), a FIFO (blocks
the open), a directory or a symlink cycle named like a file, a huge file, bytes that are not UTF-8.
Each becomes one diagnostic naming that file; every other workflow, bundled ones included, keeps
working. The scan runs in a thread with a timeout (and under an address-space cap) so that a
regression fails the test instead of hanging it or eating the machine's memory.
"""

from __future__ import annotations

import contextlib
import os
import resource
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from runs.execution import catalog as catalog_service
from tests.support.mcp_calls import call, start_workflow
from tests.support.workflow_files import workflow_doc, write_json
from workflows_app import catalog as catalog_module
from workflows_app import loader as loader_module
from workflows_app.diagnostics import Code
from workflows_app.sources import (
    MAX_FILE_BYTES,
    MAX_JSON_DEPTH,
    FileTooLarge,
    NestedTooDeep,
    NotARegularFile,
    check_json_depth,
    read_bounded,
)

SCAN_SECONDS = 5  # a healthy scan takes well under a second; a hang or an endless read takes forever
DEEP = 100_000


def project_workflows(dirs: dict[str, Path]) -> Path:
    return dirs["project"] / ".workrail" / "workflows"


@contextlib.contextmanager
def memory_cap(extra_bytes: int = 2 * 1024**3) -> Iterator[None]:
    """Caps this process's address space at its current size plus `extra_bytes`, so that an endless
    read fails with MemoryError instead of swapping the machine. A no-op where limits are unknown."""
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        with open("/proc/self/status") as status:
            vm_kib = next(int(line.split()[1]) for line in status if line.startswith("VmSize:"))
    except (OSError, ValueError, StopIteration, AttributeError):
        yield
        return
    cap = vm_kib * 1024 + extra_bytes
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def within_seconds(seconds: float, work: Callable[[], Any]) -> Any:
    """`work()` in a daemon thread; fails the test (instead of hanging it) when it does not finish."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = work()
        except BaseException as exc:
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    started = time.monotonic()
    with memory_cap():
        thread.start()
        thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"the catalog scan did not finish within {seconds} s")
    if "error" in outcome:
        raise AssertionError(f"the catalog scan raised {outcome['error']!r}") from outcome["error"]
    assert time.monotonic() - started < seconds
    return outcome["value"]


def unblock_fifos(directory: Path) -> None:
    """Opens each FIFO under `directory` for writing and closes it, which releases a reader stuck in
    open() (a regression), so that no thread stays blocked after the test."""
    for path in directory.rglob("*"):
        with contextlib.suppress(OSError):
            if path.is_fifo():
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))


# --- Hostile entries: each makes one *.json name (or a cycle) in the project's workflow directory ---


def deep_array(path: Path) -> None:
    path.write_text("[" * DEEP + "]" * DEEP)


def deep_object(path: Path) -> None:
    path.write_text('{"a":' * DEEP + "1" + "}" * DEEP)


def deep_inside_workflow(path: Path) -> None:
    """A well-formed workflow whose one condition nests 100,000 `not`s."""
    doc = workflow_doc("project.deep")
    doc["steps"][0]["runCondition"] = ("__COND__",)
    text = __import__("json").dumps(doc)
    path.write_text(text.replace('["__COND__"]', '{"not":' * DEEP + '{"var": "x"}' + "}" * DEEP))


def zero_symlink(path: Path) -> None:
    path.symlink_to("/dev/zero")


def fifo(path: Path) -> None:
    os.mkfifo(path)


def directory(path: Path) -> None:
    path.mkdir()
    write_json(path / "inside.json", workflow_doc("project.inside"))  # not walked: the name says file


def symlink_to_own_directory(path: Path) -> None:
    path.symlink_to(".", target_is_directory=True)


def self_symlink(path: Path) -> None:
    path.symlink_to(path.name)


def ten_megabytes(path: Path) -> None:
    path.write_text('{"id": "project.big", "pad": "' + "x" * (10 * 1024 * 1024) + '"}')


def invalid_utf8(path: Path) -> None:
    path.write_bytes(b'{"id": "project.latin", "name": "caf\xe9 \xff\xfe"}')


HOSTILE = {
    "deep-array": (deep_array, Code.FILE_UNREADABLE),
    "deep-object": (deep_object, Code.FILE_UNREADABLE),
    "deep-condition": (deep_inside_workflow, Code.FILE_UNREADABLE),
    "symlink-to-dev-zero": (zero_symlink, Code.NOT_A_REGULAR_FILE),
    "fifo": (fifo, Code.NOT_A_REGULAR_FILE),
    "directory-named-json": (directory, Code.NOT_A_REGULAR_FILE),
    "symlink-loop-directory": (symlink_to_own_directory, Code.NOT_A_REGULAR_FILE),
    "symlink-to-itself": (self_symlink, Code.FILE_UNREADABLE),
    "ten-megabytes": (ten_megabytes, Code.FILE_UNREADABLE),
    "invalid-utf8": (invalid_utf8, Code.FILE_UNREADABLE),
}


@pytest.fixture
def hostile_project(service_catalog):
    workflows = project_workflows(service_catalog)
    write_json(workflows / "good.json", workflow_doc("project.good"))
    yield workflows
    unblock_fifos(service_catalog["project"])


@pytest.mark.django_db
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_file_is_one_diagnostic_and_everything_else_works(name, hostile_project):
    make, code = HOSTILE[name]
    bad = hostile_project / "bad.json"
    make(bad)

    catalog = within_seconds(SCAN_SECONDS, catalog_service.current_catalog)
    assert catalog.get("project.good") is not None

    listing = catalog_service.list_workflows(for_people=True).dump()  # every workflow, problems in full
    ids = {w["id"] for w in listing["workflows"]}
    assert {"project.good", "wr.code_review", "wr.evidence_first_bug_fix"} <= ids
    assert not ids & {"project.deep", "project.big", "project.latin", "project.inside"}
    about_project = [w for w in listing["warnings"] if str(hostile_project) in (w["file"] or "")]
    assert [(w["file"], w["code"]) for w in about_project] == [(str(bad), code.value)], about_project
    assert about_project[0]["message"] and about_project[0]["fix"]

    started = start_workflow("wr.code_review")
    assert started["kind"] == "step" and started["stateToken"], started
    assert call("inspect_workflow", {"workflowId": "project.good"})["workflow"]["id"] == "project.good"


@pytest.mark.django_db
def test_all_of_them_at_once(hostile_project):
    for name, (make, _code) in sorted(HOSTILE.items()):
        make(hostile_project / f"{name}.json")
    os.symlink("..", hostile_project / "cycle", target_is_directory=True)  # a directory cycle, not *.json

    catalog = within_seconds(SCAN_SECONDS, catalog_service.current_catalog)
    again = within_seconds(SCAN_SECONDS, catalog_service.current_catalog)  # nothing changed: the same snapshot
    assert again is catalog
    listing = catalog_service.list_workflows(for_people=True).dump()  # every workflow, problems in full
    assert "project.good" in {w["id"] for w in listing["workflows"]}
    named = sorted(Path(w["file"]).name for w in listing["warnings"] if str(hostile_project) in (w["file"] or ""))
    assert named == sorted(f"{name}.json" for name in HOSTILE)
    assert start_workflow("wr.evidence_first_bug_fix")["kind"] == "step"


@pytest.mark.django_db
def test_a_hostile_bindings_file_is_a_warning(service_catalog):
    write_json(project_workflows(service_catalog) / "good.json", workflow_doc("project.good"))
    bindings = service_catalog["project"] / ".workrail" / "bindings.json"
    try:
        for make in (fifo, zero_symlink, deep_object):
            with contextlib.suppress(FileNotFoundError):
                bindings.unlink()
            make(bindings)
            catalog_service.catalog_loader.cache_clear()
            catalog = within_seconds(SCAN_SECONDS, catalog_service.current_catalog)
            assert catalog.get("project.good") is not None
            assert [d.code for d in catalog.diagnostics if d.file == str(bindings)] == [Code.INVALID_BINDINGS]
            assert start_workflow("wr.code_review")["kind"] == "step"
    finally:
        unblock_fifos(service_catalog["project"])


# --- The bounds themselves ------------------------------------------------------------------------


def test_reading_does_not_trust_stat(tmp_path):
    with pytest.raises(NotARegularFile):  # /dev/zero says it is 0 bytes long and never ends
        read_bounded(Path("/dev/zero"))
    link = tmp_path / "zero.json"
    link.symlink_to("/dev/zero")
    with pytest.raises(NotARegularFile, match="character device"):
        read_bounded(link)
    os.mkfifo(tmp_path / "pipe.json")
    with pytest.raises(NotARegularFile, match="FIFO"):
        read_bounded(tmp_path / "pipe.json")
    (tmp_path / "exact.json").write_bytes(b" " * MAX_FILE_BYTES)
    assert len(read_bounded(tmp_path / "exact.json")) == MAX_FILE_BYTES
    (tmp_path / "over.json").write_bytes(b" " * (MAX_FILE_BYTES + 1))
    with pytest.raises(FileTooLarge):
        read_bounded(tmp_path / "over.json")
    target = tmp_path / "real.json"
    target.write_text("{}")
    (tmp_path / "link.json").symlink_to(target)  # a symlink to a regular file is a legitimate file
    assert read_bounded(tmp_path / "link.json") == b"{}"


def test_the_depth_limit_counts_arrays_and_objects_outside_strings():
    at_limit = "[" * (MAX_JSON_DEPTH - 1) + '{"a": 1}' + "]" * (MAX_JSON_DEPTH - 1)
    check_json_depth(at_limit.encode())
    with pytest.raises(NestedTooDeep):
        check_json_depth(("[" + at_limit + "]").encode())
    check_json_depth(b'{"prompt": "' + b"[{" * 1000 + b'", "x": "\\"[[[["}')  # inside strings: text
    check_json_depth(b'"' + b'\\"' * 500_000)  # an escaped quote never ends a string
    check_json_depth(b"[]" * 500_000)  # wide, not deep


def test_a_workflow_nested_within_the_limit_still_loads(make_loader, dirs):
    doc = workflow_doc("team.nested")
    condition: dict[str, Any] = {"var": "x"}
    for _ in range(MAX_JSON_DEPTH - 10):
        condition = {"not": condition}
    doc["steps"][0]["runCondition"] = condition
    write_json(dirs["extra"] / "nested.json", doc)
    catalog = make_loader(dirs["extra"]).load()
    assert catalog.get("team.nested") is not None, catalog.diagnostics


# --- Unexpected failures stay with their file -----------------------------------------------------


def test_an_unexpected_failure_while_checking_one_file_is_contained(make_loader, dirs, monkeypatch):
    write_json(dirs["extra"] / "good.json", workflow_doc("team.good"))
    bad = write_json(dirs["extra"] / "bad.json", workflow_doc("team.bad"))
    real = loader_module.structure_diagnostics

    def explode(document):
        if document.get("id") == "team.bad":
            raise RecursionError("maximum recursion depth exceeded")
        return real(document)

    monkeypatch.setattr(loader_module, "structure_diagnostics", explode)
    catalog = make_loader(dirs["extra"]).load()
    assert catalog.get("team.good") is not None and catalog.get("team.bad") is None
    [failed] = [d for d in catalog.diagnostics if d.file == str(bad)]
    assert failed.code is Code.LOAD_FAILED and "RecursionError" in failed.message


def test_an_unexpected_failure_while_compiling_one_workflow_is_contained(make_loader, dirs, monkeypatch):
    write_json(dirs["extra"] / "good.json", workflow_doc("team.good"))
    bad = write_json(dirs["extra"] / "bad.json", workflow_doc("team.bad"))
    real = catalog_module.compile_workflow

    def explode(document, **options):
        if document.get("id") == "team.bad":
            raise RecursionError("maximum recursion depth exceeded")
        return real(document, **options)

    monkeypatch.setattr(catalog_module, "compile_workflow", explode)
    catalog = make_loader(dirs["extra"]).load()
    assert catalog.get("team.good") is not None and catalog.get("wr.code_review") is not None
    assert catalog.get("team.bad") is None
    [failed] = [d for d in catalog.diagnostics if d.file == str(bad)]
    assert (failed.code, failed.workflow_id) == (Code.LOAD_FAILED, "team.bad")
    assert catalog.invalid["team.bad"] == (failed,)


def test_the_walk_does_not_follow_directory_symlinks(make_loader, dirs):
    write_json(dirs["extra"] / "sub" / "good.json", workflow_doc("team.good"))
    (dirs["extra"] / "sub" / "up").symlink_to("..", target_is_directory=True)
    (dirs["extra"] / "sub" / "again").symlink_to(dirs["extra"], target_is_directory=True)
    catalog = within_seconds(SCAN_SECONDS, make_loader(dirs["extra"]).load)
    assert [e.id for e in catalog.entries if e.id.startswith("team.")] == ["team.good"]
    assert not [d for d in catalog.diagnostics if str(dirs["extra"]) in (d.file or "")]

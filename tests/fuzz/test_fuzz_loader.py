"""Fuzzing the workflow loader: mutated fixture and corpus files, and hostile files, never take a
load or a catalog down (issue 11, part 3).

Properties, for every file however damaged:
- `load_file` returns (never raises); a hard alarm turns a hang into a failure (a guard against blocking the
  suite, not a speed budget: bench/ measures speed);
- the result is a loaded document, or diagnostics with documented codes naming the file: a file
  that is not valid has an error (or is skipped as not a regular file);
- no check fails unexpectedly (LOAD_FAILED is the loader's safety net, never the expected answer);
- a catalog assembled with the file next to a valid workflow keeps that workflow, unchanged.

No database is needed: the loader and the catalog are plain Python.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.strategies import HOSTILE_FILES, fuzz, mutated_bytes, mutated_document, mutated_file
from tests.support.corpus import corpus_files
from tests.support.fixture_workflows import fixture_paths
from tests.support.paths import FIXTURE_WORKFLOWS
from tests.support.workflow_files import workflow_doc, write_json
from workflows_app import schema
from workflows_app.catalog import CatalogLoader, assemble
from workflows_app.diagnostics import Code, Severity
from workflows_app.loader import LoadedFile, load_file
from workflows_app.schema import MAX_STEPS
from workflows_app.sources import ProjectBindings, Source, SourceKind, configured_sources

HARD_TIMEOUT_S = 20  # past this the example is a hang: the alarm fails it instead of blocking the suite
VALID_ID = "user.fuzz_anchor"


FIXTURES = {path.name: path.read_bytes() for path in fixture_paths()}
FIXTURE_DOCUMENTS = {name: json.loads(data) for name, data in FIXTURES.items()}


@contextlib.contextmanager
def hard_timeout(seconds: int) -> Iterator[None]:
    def expired(signum: int, frame: Any) -> None:
        raise TimeoutError(f"loading did not finish within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


_counter = itertools.count()


def fresh_dir(root: Path) -> Path:
    return Path(tempfile.mkdtemp(prefix=f"ex{next(_counter)}-", dir=root))


def guarded_load(path: Path, source: Source) -> LoadedFile:
    with hard_timeout(HARD_TIMEOUT_S):
        return load_file(path, source)


def check_loaded(loaded: LoadedFile, path: Path) -> None:
    """The documented shape of a load's result."""
    assert isinstance(loaded, LoadedFile)
    for diagnostic in loaded.diagnostics:
        assert isinstance(diagnostic.code, Code), diagnostic
        assert diagnostic.code in set(Code)
        assert diagnostic.file == str(path), diagnostic
        assert diagnostic.message and diagnostic.fix, diagnostic
        json.dumps(diagnostic.as_dict())  # what list_workflows sends must be JSON
    codes = {d.code for d in loaded.diagnostics}
    assert Code.LOAD_FAILED not in codes, [d.message for d in loaded.diagnostics if d.code is Code.LOAD_FAILED]
    if loaded.is_valid:
        assert isinstance(loaded.document, dict) and loaded.parsed_id is not None
    else:
        assert any(d.severity is Severity.ERROR for d in loaded.diagnostics) or codes == {Code.NOT_A_REGULAR_FILE}, (
            loaded.diagnostics
        )
    if loaded.document is None:
        assert loaded.diagnostics, "a file without a document must say why"


def extra_source(root: Path) -> Source:
    return Source(SourceKind.EXTRA, root, 3)


def check_catalog_keeps_the_valid_workflow(workdir: Path, name: str, data: bytes, baseline_hash: str) -> None:
    """The file in a project directory, a valid workflow in the user directory: the valid one stays
    listed with its own hash, and every diagnostic of the catalog has a documented code."""
    home, project, bundled = workdir / "home", workdir / "project", workdir / "bundled"
    bundled.mkdir()
    write_json(home / "workflows" / "anchor.json", workflow_doc(VALID_ID))
    target = project / ".workrail" / "workflows" / name
    target.parent.mkdir(parents=True)
    target.write_bytes(data)
    loader = CatalogLoader(
        configured_sources(workrail_home=home, project_dir=project, extra_paths=[], bundled_dir=bundled)
    )
    with hard_timeout(HARD_TIMEOUT_S):
        catalog = loader.load()
    entry = catalog.get(VALID_ID)
    assert entry is not None, [d.as_dict() for d in catalog.diagnostics]
    assert entry.workflow_hash == baseline_hash
    for diagnostic in catalog.diagnostics:
        assert diagnostic.code in set(Code)
        assert diagnostic.code is not Code.LOAD_FAILED, diagnostic.message
    for entry in catalog.entries:  # whatever else loaded is fully usable
        assert entry.compiled and entry.workflow_hash.startswith("sha256:")
        assert entry.step_count >= 0


@pytest.fixture(scope="module")
def baseline_hash(tmp_path_factory) -> str:
    workdir = tmp_path_factory.mktemp("baseline")
    (workdir / "bundled").mkdir()
    write_json(workdir / "home" / "workflows" / "anchor.json", workflow_doc(VALID_ID))
    sources = configured_sources(
        workrail_home=workdir / "home", project_dir=workdir / "project", extra_paths=[], bundled_dir=workdir / "bundled"
    )
    entry = CatalogLoader(sources).load().get(VALID_ID)
    assert entry is not None
    return entry.workflow_hash


# --- mutated fixture workflows -----------------------------------------------------------------------


@fuzz(120)
@given(data=st.data(), name=st.sampled_from(sorted(FIXTURE_DOCUMENTS)))
def test_mutated_fixture_files_load_or_explain(tmp_path, data, name):
    content = data.draw(mutated_file(FIXTURE_DOCUMENTS[name]), label="content")
    workdir = fresh_dir(tmp_path)
    path = workdir / name
    path.write_bytes(content)
    check_loaded(guarded_load(path, extra_source(workdir)), path)


@fuzz(30)
@given(data=st.data(), name=st.sampled_from(sorted(FIXTURE_DOCUMENTS)))
def test_a_mutated_file_never_costs_the_catalog_a_valid_workflow(tmp_path, baseline_hash, data, name):
    content = data.draw(mutated_file(FIXTURE_DOCUMENTS[name]), label="content")
    check_catalog_keeps_the_valid_workflow(fresh_dir(tmp_path), name, content, baseline_hash)


# --- mutated documents through the whole catalog (bundled workflows and every fixture beside them) -------


@pytest.fixture(scope="module")
def fixture_catalog(tmp_path_factory) -> tuple[list[Source], dict[Path, LoadedFile], dict[str, str]]:
    """The bundled workflows and the fixtures, loaded once: the sources, each file as loaded, and the
    hash of every workflow."""
    workdir = tmp_path_factory.mktemp("fixtures")
    sources = configured_sources(
        workrail_home=workdir / "home", project_dir=workdir / "project", extra_paths=[FIXTURE_WORKFLOWS]
    )
    loaded = {path: load_file(path, source) for source in sources for path in source.files()}
    catalog = assemble(list(loaded.values()), sources, ProjectBindings())
    return sources, loaded, {entry.id: entry.workflow_hash for entry in catalog.entries}


@fuzz(40)
@given(data=st.data(), path=st.sampled_from(fixture_paths()))
def test_mutated_documents_compile_or_explain_and_leave_the_others_alone(fixture_catalog, data, path):
    """Mutations that mostly keep the document near the schema, so that the structure checks and the
    compiler (routines, loops, conditions, contracts) see it; everything else in the catalog is as before."""
    sources, loaded, hashes = fixture_catalog
    original = json.loads(path.read_bytes())
    document = data.draw(mutated_document(original), label="document")
    with tempfile.TemporaryDirectory() as scratch:
        target = Path(scratch) / path.name
        target.write_bytes(json.dumps(document, ensure_ascii=False).encode("utf-8", "surrogatepass"))
        mutated = guarded_load(target, extra_source(Path(scratch)))
        check_loaded(mutated, target)
        others = [file for file_path, file in loaded.items() if file_path != path]
        with hard_timeout(HARD_TIMEOUT_S):
            catalog = assemble([*others, mutated], sources, ProjectBindings())
    for diagnostic in catalog.diagnostics:
        assert diagnostic.code in set(Code)
        assert diagnostic.code is not Code.LOAD_FAILED, diagnostic.message
    # Workflows that do not name the mutated one (as a routine, a delegation, a binding) are unchanged.
    name = str(original.get("id", "")).split(".")[-1].removeprefix("routine-")
    text_of = {file.parsed_id.raw: file.path.read_text() for file in others if file.parsed_id is not None}
    for workflow_id, workflow_hash in hashes.items():
        if workflow_id == original.get("id") or name in text_of[workflow_id]:
            continue
        entry = catalog.get(workflow_id)
        assert entry is not None, workflow_id
        assert entry.workflow_hash == workflow_hash, workflow_id


# --- mutated corpus workflows (WorkRail's own files; our fixtures when the corpus is absent) ------------


def seed_files() -> dict[str, Path]:
    """WorkRail's corpus (`../shared`, or WR_TEST_CORPUS_DIR) when present, else tests/fixtures/workflows:
    a fresh clone fuzzes the same way, from the files it has."""
    files = corpus_files() or fixture_paths()
    return {str(path.relative_to(path.parents[1])): path for path in files}


SEEDS = seed_files()


def mutated_seed(data: st.DataObject) -> tuple[str, bytes]:
    name = data.draw(st.sampled_from(sorted(SEEDS)), label="seed file")
    raw = SEEDS[name].read_bytes()
    try:
        document = json.loads(raw)
    except ValueError:
        return name, data.draw(mutated_bytes(raw), label="content")
    return name, data.draw(mutated_file(document), label="content")


@fuzz(60)
@given(data=st.data())
def test_mutated_corpus_files_load_or_explain(tmp_path, data):
    name, content = mutated_seed(data)
    workdir = fresh_dir(tmp_path)
    path = workdir / Path(name).name
    path.write_bytes(content)
    check_loaded(guarded_load(path, extra_source(workdir)), path)


@fuzz(20)
@given(data=st.data())
def test_a_mutated_corpus_file_never_costs_the_catalog_a_valid_workflow(tmp_path, baseline_hash, data):
    name, content = mutated_seed(data)
    check_catalog_keeps_the_valid_workflow(fresh_dir(tmp_path), Path(name).name, content, baseline_hash)


# --- hostile files -------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(HOSTILE_FILES))
def test_hostile_files_load_or_explain(tmp_path, baseline_hash, kind):
    path = tmp_path / "hostile.json"
    path.write_bytes(HOSTILE_FILES[kind])
    check_loaded(guarded_load(path, extra_source(tmp_path)), path)
    check_catalog_keeps_the_valid_workflow(fresh_dir(tmp_path), "hostile.json", HOSTILE_FILES[kind], baseline_hash)


@fuzz(50)
@given(content=st.binary(max_size=2048))
def test_random_bytes_load_or_explain(tmp_path, content):
    workdir = fresh_dir(tmp_path)
    path = workdir / "random.json"
    path.write_bytes(content)
    check_loaded(guarded_load(path, extra_source(workdir)), path)


@pytest.mark.parametrize("kind", ["dangling", "loop", "directory", "to_dev_null", "unreadable"])
def test_odd_entries_named_json_load_or_explain(tmp_path, baseline_hash, kind):
    """Not FIFOs (tests/workflows_app/test_hostile_files.py has those): links that lead nowhere or in a circle, a
    directory named *.json, an empty device, a file the process may not read."""
    path = tmp_path / "odd.json"
    if kind == "dangling":
        path.symlink_to(tmp_path / "missing.json")
    elif kind == "loop":
        path.symlink_to(path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "to_dev_null":
        path.symlink_to("/dev/null")
    else:
        path.write_text(json.dumps(workflow_doc("team.secret")))
        path.chmod(0)
    try:
        check_loaded(guarded_load(path, extra_source(tmp_path)), path)
    finally:
        if kind == "unreadable":
            path.chmod(0o600)


# --- regressions for the bugs the fuzzing found (xfail: not fixed yet) ----------------------------------


@pytest.mark.parametrize("content", [b"null", b" null\n"])
def test_a_null_document_is_reported(tmp_path, content):
    path = tmp_path / "null.json"
    path.write_bytes(content)
    loaded = load_file(path, extra_source(tmp_path))
    assert [d.code for d in loaded.diagnostics] == [Code.SCHEMA_VIOLATION]
    assert loaded.diagnostics[0].file == str(path)


@pytest.mark.parametrize("number", [b"9" * 4301, b"-" + b"9" * 5000, b"1" * 900_000])
def test_a_very_long_number_is_invalid_json_not_load_failed(tmp_path, caplog, number):
    path = tmp_path / "number.json"
    path.write_bytes(b'{"id": "team.numbers", "version": ' + number + b"}")
    loaded = load_file(path, extra_source(tmp_path))
    assert [d.code for d in loaded.diagnostics] == [Code.INVALID_JSON]
    assert "Traceback" not in caplog.text


def long_workflow(tmp_path: Path, steps: list[Any]) -> Path:
    path = tmp_path / "long.json"
    document = {"id": "team.long", "name": "n", "description": "d", "version": "1.0.0", "steps": steps}
    path.write_text(json.dumps(document, separators=(",", ":")))
    return path


class CountedValidator:
    """The loader's schema validator, counting the schema errors the loader draws from it."""

    def __init__(self, validator: Any) -> None:
        self.validator = validator
        self.drawn = 0

    def iter_errors(self, document: Any) -> Iterator[Any]:
        for found in self.validator.iter_errors(document):
            self.drawn += 1
            yield found


@pytest.fixture
def counted_validator(monkeypatch) -> CountedValidator:
    counted = CountedValidator(schema._validator())
    monkeypatch.setattr(schema, "_validator", lambda: counted)
    return counted


@pytest.mark.parametrize("count", [3_000, 20_000])
def test_a_step_list_past_the_bound_is_refused_at_once_with_its_size(tmp_path, count, counted_validator):
    """Validation costs ~0.5 ms a step: 20,000 invalid steps once held the catalog for ~9 s. Past the
    bound, the schema is never consulted: the size alone refuses the file."""
    path = long_workflow(tmp_path, [{}] * count)
    loaded = load_file(path, extra_source(tmp_path))
    assert counted_validator.drawn == 0
    assert [(d.code, d.pointer) for d in loaded.diagnostics] == [(Code.SCHEMA_VIOLATION, "/steps")]
    assert f"{count} steps" in loaded.diagnostics[0].message and str(MAX_STEPS) in loaded.diagnostics[0].message


def test_loop_bodies_count_toward_the_step_bound(tmp_path):
    body = [{"id": f"b{i}", "title": "Body", "prompt": "Do it."} for i in range(MAX_STEPS)]
    loop = {"id": "loop", "type": "loop", "title": "Loop", "loop": {"type": "for", "count": 2}, "body": body}
    loaded = load_file(long_workflow(tmp_path, [loop]), extra_source(tmp_path))
    assert f"{MAX_STEPS + 1} steps" in loaded.diagnostics[0].message


def test_a_long_invalid_step_list_within_the_bound_stops_validating_early(tmp_path, counted_validator):
    path = long_workflow(tmp_path, [{}] * MAX_STEPS)
    loaded = load_file(path, extra_source(tmp_path))
    assert counted_validator.drawn == schema.MAX_ERRORS_COLLECTED + 1  # of the thousand it could find
    codes = [d.code for d in loaded.diagnostics]
    assert codes == [Code.SCHEMA_VIOLATION] * 11  # ten shown, then how many more
    assert "or more" in loaded.diagnostics[-1].message


def test_a_valid_workflow_at_the_step_bound_loads(tmp_path):
    steps = [{"id": f"step-{i}", "title": "Title", "prompt": "Do it now."} for i in range(MAX_STEPS)]
    loaded = load_file(long_workflow(tmp_path, steps), extra_source(tmp_path))
    assert loaded.diagnostics == ()

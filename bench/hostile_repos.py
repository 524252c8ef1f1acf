"""The bounds on workflows and workflow repositories (issue 29), measured.

Run: .venv/bin/python bench/hostile_repos.py [--blob-mib 2048] [--depth 3000] [--files 20000]

Prints:
- the largest workflow of WorkRail's library once expanded (the corpus beside the checkout, and the full
  library at /work/workrail-lib or $WORKRAIL_LIBRARY when there), against the bounds;
- the largest workflow the catalog accepts (routines calling routines up to the step bound) and the
  time to compile the catalog holding it;
- the routine-expansion bomb (7 files, 10 calls per level) and the time to refuse it;
- `manage.py sync_workflows` on each hostile repository: wall time, disk written under WORKRAIL_HOME,
  peak memory (the command and the git it runs), and what it said. The repositories are built with
  git fast-import in a temporary directory (the blob is streamed). On a loaded two-core machine the
  whole run takes some four minutes, most of it git hashing the 2 GiB blob while fetching it (twice:
  the file:// "server" packs it too); --blob-mib 256 makes it quick.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout, for bench._common
from bench._common import CORPUS, REPO, clean_env

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "workrail_site.settings")

from harness import git_servers
from workflows_app import compiler
from workflows_app.catalog import assemble
from workflows_app.file_checks import validate_with_catalog
from workflows_app.loader import load_file
from workflows_app.repos.git import RepoLimits
from workflows_app.sources import Source, SourceKind

LIBRARY = Path(os.environ.get("WORKRAIL_LIBRARY", "/work/workrail-lib"))
CORPUS_FOUND = next(
    (
        path
        for path in (CORPUS, Path(os.environ.get("WR_TEST_CORPUS_DIR", "/nonexistent")) / "workflows")
        if path.is_dir()
    ),
    CORPUS,
)


def doc(workflow_id: str, steps: list[dict]) -> dict:
    return {"id": workflow_id, "name": workflow_id, "description": "bench", "version": "1.0.0", "steps": steps}


def call(step_id: str, routine: str) -> dict:
    return {"id": step_id, "title": step_id, "templateCall": {"templateId": f"wr.templates.routine.{routine}"}}


def write_chain(directory: Path, levels: int, fan_out: int, top_calls: int) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    leaf = {"id": "only", "title": "Only", "prompt": "Look at the code and write down what you find."}
    (directory / "l1.json").write_text(json.dumps(doc("team.routine-l1", [leaf])))
    for level in range(2, levels + 1):
        steps = [call(f"call-{i}", f"routine-l{level - 1}") for i in range(fan_out)]
        (directory / f"l{level}.json").write_text(json.dumps(doc(f"team.routine-l{level}", steps)))
    steps = [call(f"call-{i}", f"routine-l{levels}") for i in range(top_calls)]
    (directory / "top.json").write_text(json.dumps(doc("team.top", steps)))


def load(directory: Path) -> tuple[float, list[Any], Any]:
    started = time.perf_counter()
    reports, catalog = validate_with_catalog([directory], kind=SourceKind.EXTRA, user_dir=directory / "none")
    return time.perf_counter() - started, reports, catalog


def compile_seconds(directory: Path) -> float:
    """The best of three compilations of the directory's catalog (files already read and checked)."""
    source = Source(SourceKind.EXTRA, directory, 3)
    files = [load_file(path, source) for path in source.files()]
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        assemble(files, [source])
        best = min(best, time.perf_counter() - started)
    return best


def text_size(compiled: dict) -> int:
    return compiler._text_size(compiled["steps"])


def library_figures() -> None:
    for name, root in (("corpus", CORPUS_FOUND), ("library", LIBRARY / "workflows")):
        if not root.is_dir():
            print(f"{name}: not found at {root}, skipped")
            continue
        seconds, _reports, catalog = load(root)
        ranked = sorted(catalog.entries, key=lambda e: (e.step_count, text_size(e.compiled)), reverse=True)
        files = len(list(root.rglob("*.json")))
        top = ranked[0]
        chars = max(text_size(e.compiled) for e in ranked)
        print(
            f"{name} ({root}): {files} files, catalog compiled in {seconds * 1000:.0f} ms; largest expanded: "
            f"{top.id} with {top.step_count} steps; most text: {chars:,} characters "
            f"(bounds: {compiler.MAX_EXPANDED_STEPS:,} steps, {compiler.MAX_EXPANDED_CHARS:,} characters)"
        )


def accepted_and_bomb(work: Path) -> None:
    (work / "baseline").mkdir()
    (work / "baseline" / "fine.json").write_text(FINE.decode())
    baseline = min(load(work / "baseline")[0] for _ in range(3))
    print(f"baseline: a catalog of the bundled workflows and one small file compiles in {baseline * 1000:.0f} ms")
    # 12 * 12 * 13 = 1,872 steps: under the step bound.
    write_chain(work / "largest", levels=3, fan_out=12, top_calls=13)
    seconds, _reports, catalog = min((load(work / "largest") for _ in range(3)), key=lambda found: found[0])
    top = catalog.get("team.top")
    print(
        f"largest accepted: team.top, {top.step_count:,} steps, {text_size(top.compiled):,} characters; its "
        f"catalog (4 files) compiled in {compile_seconds(work / 'largest') * 1000:.0f} ms, read, checked and "
        f"compiled with the bundled workflows in {seconds * 1000:.0f} ms"
    )
    write_chain(work / "bomb", levels=7, fan_out=10, top_calls=10)  # 10**7 steps once expanded
    seconds, reports, catalog = min((load(work / "bomb") for _ in range(3)), key=lambda found: found[0])
    refused = [r for r in reports if any(d.code.value == "WORKFLOW_TOO_LARGE" for d in r.diagnostics)]
    [first] = [d for d in next(r for r in reports if r.workflow_id == "team.top").diagnostics]
    print(
        f"bomb (7 files of {max(p.stat().st_size for p in (work / 'bomb').glob('*.json'))} bytes at most, 10 calls "
        f"per level, 10**7 steps): compiled and refused in {compile_seconds(work / 'bomb') * 1000:.0f} ms "
        f"(read, checked and compiled with the bundled workflows in {seconds * 1000:.0f} ms), "
        f"{len(refused)} files refused, "
        f"{len(catalog.entries) - 6} of its workflows accepted (those within the bound); chain: "
        f"{' -> '.join(first.details['chain'])}"
    )


# --- hostile repositories -------------------------------------------------------------------------------------


def fast_import(
    bare: Path, commands: list[bytes] | None = None, stream_blob_mib: int = 0, paths: Sequence[str] = ()
) -> None:
    subprocess.run(["git", "init", "--quiet", "--bare", "--initial-branch=main", str(bare)], check=True)
    process = subprocess.Popen(["git", "--git-dir", str(bare), "fast-import", "--quiet"], stdin=subprocess.PIPE)
    assert process.stdin is not None
    if stream_blob_mib:
        size = stream_blob_mib * 1024 * 1024
        process.stdin.write(f"blob\nmark :1\ndata {size}\n".encode())
        zeros = b"0" * (1024 * 1024)
        for _ in range(stream_blob_mib):
            process.stdin.write(zeros)
        process.stdin.write(b"\n")
    process.stdin.write(b"commit refs/heads/main\ncommitter B <b@example.invalid> 1700000000 +0000\ndata 5\nbench\n")
    for path in paths:
        process.stdin.write(f'M 100644 :1 "{path}"\n'.encode())
    for command in commands or []:
        process.stdin.write(command)
    process.stdin.close()
    process.wait()


def inline(path: str, content: bytes) -> bytes:
    return f'M 100644 inline "{path}"\ndata {len(content)}\n'.encode() + content + b"\n"


FINE = json.dumps(doc("team.fine", [{"id": "only", "title": "Only", "prompt": "Do it."}])).encode()


def workflow(workflow_id: str) -> bytes:
    return json.dumps(doc(workflow_id, [{"id": "only", "title": "Only", "prompt": "Do it."}])).encode()


def disk_used(path: Path) -> int:
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() or p.is_symlink()) if path.exists() else 0


def tree_rss(root: int) -> int:
    """Resident bytes of `root` and every process descended from it now (Linux /proc): git's helpers
    (git-remote-http) run as git's children, and a helper orphaned by git's exit is reaped by init, so
    no rusage of ours ever counts it; sampling does."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            parents[int(entry.name)] = int(fields[1])
            rss[int(entry.name)] = int(fields[21]) * resource.getpagesize()
        except (OSError, IndexError, ValueError):
            continue
    tree, grew = {root}, True
    while grew:
        found = {pid for pid, parent in parents.items() if parent in tree} - tree
        tree |= found
        grew = bool(found)
    return sum(rss.get(pid, 0) for pid in tree)


def measured(command: list[str], env: dict[str, str]) -> tuple[float, int, int, str]:
    """Wall seconds, peak resident bytes of the whole process tree (sampled every 20 ms), exit status, output."""
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    peak = 0
    output: list[str] = []
    reader = threading.Thread(target=lambda: output.append(process.stdout.read() if process.stdout else ""))
    reader.start()
    while process.poll() is None:
        peak = max(peak, tree_rss(process.pid))
        time.sleep(0.02)
    reader.join()
    return time.perf_counter() - started, peak, process.returncode, "".join(output)


def sync_figures(label: str, entry: str, work: Path) -> None:
    home = work / f"home-{label.split()[0]}"
    home.mkdir()
    env = clean_env(home, WORKRAIL_WORKFLOW_REPOS=entry)
    seconds, peak, status, output = measured([sys.executable, str(REPO / "manage.py"), "sync_workflows"], env)
    said = [line.strip() for line in output.splitlines() if "REPO_" in line or "pinned at" in line][:3]
    print(
        f"sync_workflows, {label}: {seconds:.1f} s, {disk_used(home) / 1e6:.1f} MB written, peak memory "
        f"{peak / 1e6:.0f} MB (the command and every git it ran), exit {status}"
    )
    for line in said:
        print(f"    {line[:200]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--blob-mib", type=int, default=2048)
    parser.add_argument("--depth", type=int, default=3000)
    parser.add_argument("--files", type=int, default=20_000)
    options = parser.parse_args()
    import django

    django.setup()
    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as scratch:
        work = Path(scratch)
        library_figures()
        accepted_and_bomb(work)

        blob = work / "blob.git"
        fast_import(blob, [inline("fine.json", FINE)], options.blob_mib, ["a.json", "copy/b.json"])
        sync_figures(f"{options.blob_mib} MiB blob at two paths", blob.as_uri(), work)

        deep = work / "deep.git"
        fast_import(deep, [inline("d/" * options.depth + "deep.json", FINE), inline("fine.json", FINE)])
        sync_figures(f"tree {options.depth:,} levels deep", deep.as_uri(), work)

        many = work / "many.git"
        fast_import(many, [inline(f"w{i:05d}.json", workflow(f"team.w{i}")) for i in range(options.files)])
        sync_figures(f"{options.files:,} workflow files", many.as_uri(), work)

        most = work / "most.git"
        limit = RepoLimits().max_files
        fast_import(most, [inline(f"w{i:05d}.json", workflow(f"team.m{i}")) for i in range(limit)])
        sync_figures(f"{limit:,} workflow files (the most accepted)", most.as_uri(), work)

        with git_servers.endless_refs() as url:
            sync_figures("http remote streaming refs without end", url, work)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(f"(this process: peak {usage.ru_maxrss / 1024:.0f} MB)")


if __name__ == "__main__":
    main()

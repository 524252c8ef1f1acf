"""What a person reads on each dashboard page, in characters, as bench/answer_size.py measures an agent's reading.

The browser tests save a full-page screenshot of every page and state they check, at desktop (1440x900) and
phone (390x844) size; beside each picture they write the page's rendered text length (closed folds, hidden
elements and scripts left out, runs of white space counted once) and its height
(tests/browser/__init__.py). This script runs those tests, or reads what an earlier run left in
test-artifacts/page_text/, and prints per page the characters and the height in window heights at both
sizes, the pages over the reading budget, and the change against a saved earlier run.

    .venv/bin/python bench/page_text.py [--run] [--save FILE] [--against FILE] [--budget-desktop N] [--budget-phone N]

A benchmark: it asserts nothing. The budget marks the pages to cut first; it is not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench._common import REPO

PAGE_TEXT_DIR = REPO / "test-artifacts" / "page_text"
SIZES = ("desktop", "phone")


@dataclass(frozen=True)
class Reading:
    """One page at one size: what its reader reads."""

    chars: int
    screens: float  # page height in window heights


def run_browser_tests() -> None:
    """Runs the browser suite, which rewrites test-artifacts/page_text/ (the old files are removed first, so
    a page no test shows any more drops out)."""
    for old in PAGE_TEXT_DIR.glob("*.json"):
        old.unlink()
    command = [sys.executable, "-m", "pytest", "-q", "-n", "2", "-p", "no:randomly", "tests/browser"]
    subprocess.run(command, cwd=REPO, check=False, env=os.environ | {"PYTHONDONTWRITEBYTECODE": "1"})


def read_pages() -> dict[str, dict[str, Reading]]:
    """{page: {size: Reading}} from the saved files, a page being a screenshot's name without its size."""
    pages: dict[str, dict[str, Reading]] = {}
    for path in sorted(PAGE_TEXT_DIR.glob("*.json")):
        if path.stem.startswith("FAILED-"):
            continue
        page, _, size = path.stem.rpartition("-")
        if size not in SIZES:
            page, size = path.stem, "desktop"
        figures = json.loads(path.read_text())
        pages.setdefault(page, {})[size] = Reading(figures["chars"], figures["height"] / figures["window"])
    return pages


def as_json(pages: dict[str, dict[str, Reading]]) -> dict[str, dict[str, list[float]]]:
    return {page: {size: [r.chars, round(r.screens, 2)] for size, r in sizes.items()} for page, sizes in pages.items()}


def from_json(saved: dict[str, dict[str, list[float]]]) -> dict[str, dict[str, Reading]]:
    return {page: {size: Reading(int(v[0]), v[1]) for size, v in sizes.items()} for page, sizes in saved.items()}


def cell(reading: Reading | None, before: Reading | None) -> str:
    if reading is None:
        return "-"
    text = f"{reading.chars:>6} {reading.screens:4.1f}"
    if before is not None and before.chars:
        text += f" {100 * (reading.chars - before.chars) / before.chars:+4.0f}%"
    return text


def report(
    pages: dict[str, dict[str, Reading]], before: dict[str, dict[str, Reading]], budgets: dict[str, int]
) -> None:
    width = max((len(page) for page in pages), default=10)
    print(f"{'page':<{width}}  {'desktop chars screens':>26}  {'phone chars screens':>26}")
    for page, sizes in sorted(pages.items()):
        old = before.get(page, {})
        row = [cell(sizes.get(size), old.get(size)) for size in SIZES]
        print(f"{page:<{width}}  {row[0]:>26}  {row[1]:>26}")
    print()
    for size in SIZES:
        readings = [sizes[size] for sizes in pages.values() if size in sizes]
        if not readings:
            continue
        chars = [r.chars for r in readings]
        screens = [r.screens for r in readings]
        over = sorted(
            (sizes[size].chars, page)
            for page, sizes in pages.items()
            if sizes.get(size, Reading(0, 0)).chars > budgets[size]
        )
        line = (
            f"{size}: {len(readings)} pages, characters median {statistics.median(chars):.0f}, max {max(chars)}, "
            f"total {sum(chars)}; window heights median {statistics.median(screens):.1f}, max {max(screens):.1f}; "
            f"{len(over)} over the budget of {budgets[size]}"
        )
        common = [page for page, sizes in pages.items() if size in sizes and size in before.get(page, {})]
        if common:
            now = sum(pages[page][size].chars for page in common)
            then = sum(before[page][size].chars for page in common)
            line += (
                f"; on the {len(common)} pages measured both times: {then} -> {now} ({100 * (now - then) / then:+.1f}%)"
            )
        print(line)
        for chars_over, page in reversed(over[-8:]):
            print(f"  over: {page} ({chars_over})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", action="store_true", help="run the browser tests first (about 5 minutes)")
    parser.add_argument("--save", type=Path, help="write this run's figures to FILE (JSON)")
    parser.add_argument("--against", type=Path, help="compare with figures saved earlier by --save")
    parser.add_argument("--budget-desktop", type=int, default=2500, help="characters a desktop page should stay under")
    parser.add_argument("--budget-phone", type=int, default=2500, help="characters a phone page should stay under")
    args = parser.parse_args()
    if args.run:
        run_browser_tests()
    pages = read_pages()
    if not pages:
        sys.exit("No page figures in test-artifacts/page_text/: run with --run.")
    before = from_json(json.loads(args.against.read_text())) if args.against else {}
    report(pages, before, {"desktop": args.budget_desktop, "phone": args.budget_phone})
    if args.save:
        args.save.write_text(json.dumps(as_json(pages), indent=1, sort_keys=True))


if __name__ == "__main__":
    main()

"""Time to make the reports of a long run: a run of 200 steps (target: its PDF in under 3 s); and the
time and peak memory of a hostile run's PDF (issue 18).

Two runs are built through the real services (start_workflow / continue_workflow, the while loop of
bench/dashboard.py), with an artifact (changed files or findings) on every fifth step: one with short
notes (two lines and a list, as bench/dashboard.py writes them) and one with long notes (a few
paragraphs, a list, inline code and a code block on every step, about 600 characters). For each,
prints the median and p95 of the end-to-end report (read services, Markdown or HTML, WeasyPrint), of
each part alone, the CPU time of the PDF (wall time counts waiting for a busy CPU too), and the sizes.

The hostile run holds notes of one 64 KiB Markdown table of 400 columns each (harness.answers.
wide_table_note): a single one took half a minute and 700 MB of WeasyPrint in the dashboard before the
PDF was bounded. For one and for three such notes it prints the PDF's time end to end and the peak
resident memory of this process and of the renderer child; with --uncut, also the same report's
HTML laid out whole (in a child too, with the bounds lifted): what the dashboard used to do.
A benchmark: it asserts nothing.

    .venv/bin/python bench/reports.py [--steps 200] [--repeat 5] [--hostile-only] [--uncut]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench._common import REPO, summary, timed
from bench.dashboard import artifact, setup

TARGET_SECONDS = 3

SHORT_NOTES = "Item {index}: **checked**, nothing unusual.\n\n- a\n- b"
LONG_NOTES = """Item {index}: looked at `module_{index}.py` and its callers.

The change keeps the public API; the **risky** part is the cache invalidation, which now runs after
the write instead of before it. Checked the three call sites:

- `orders.list()` reads through the cache;
- `orders.update()` invalidates it;
- the nightly job bypasses it.

```python
def invalidate(key: str) -> None:
    cache.delete(key)  # after the write, not before
```

Nothing else changed. Next: item {next}."""


def build_run(steps: int, notes: str) -> tuple[str, str, float]:
    """A run of `steps` acknowledged steps with `notes` (formatted with the step's index); returns its
    session id, its run id and the seconds it took."""
    from runs.mcp.tools import invoke

    started = time.perf_counter()
    context = {"sessionKey": f"report-{steps}-{len(notes)}"}
    answer = invoke("start_workflow", {"workflowId": "bench.long_run", "context": context})
    session_id, run_id = answer["session"]["sessionId"], answer["session"]["runId"]
    for index in range(steps):
        output: dict[str, Any] = {"notesMarkdown": notes.format(index=index, next=index + 1)}
        if index % 5 == 0:
            output["artifacts"] = [artifact(index)]
        answer = invoke(
            "continue_workflow",
            {"stateToken": answer["stateToken"], "ackToken": answer["ackToken"], "output": output},
        )
    return session_id, run_id, time.perf_counter() - started


def page_count(pdf: bytes) -> str:
    """Pages, by poppler's pdfinfo (WeasyPrint compresses its page objects)."""
    if not shutil.which("pdfinfo"):
        return "?"
    with tempfile.NamedTemporaryFile(suffix=".pdf") as file:
        file.write(pdf)
        file.flush()
        info = subprocess.run(["pdfinfo", file.name], capture_output=True, text=True).stdout
    match = re.search(r"^Pages:\s+(\d+)", info, flags=re.MULTILINE)
    return match.group(1) if match else "?"


def measure(label: str, session_id: str, run_id: str, repeat: int) -> None:
    from exports.reports import html_report, markdown_report
    from exports.reports.data import build_report
    from exports.reports.pdf import render_pdf
    from exports.reports.produce import render

    report = build_report(session_id, run_id)
    print(f"{label}: {report.step_count} steps")
    pdf_times, pdf = timed(lambda: render(build_report(session_id, run_id), "pdf"), repeat, warm=True)
    md_times, md = timed(lambda: render(build_report(session_id, run_id), "md"), repeat, warm=True)
    html = html_report.render(report)
    parts = {
        "read services alone (build_report)": lambda: build_report(session_id, run_id),
        "report HTML alone (templates/reports)": lambda: html_report.render(report),
        "WeasyPrint alone (HTML to PDF)": lambda: render_pdf(html),
        "Markdown alone": lambda: markdown_report.render(report),
    }
    print("  " + summary("PDF report, end to end (read, HTML, WeasyPrint)", pdf_times))
    # The PDF is laid out in a child process: the CPU time is measured on the same work done here.
    in_process = lambda: render_pdf(html_report.render(report))  # noqa: E731
    print(
        "  "
        + summary(
            "PDF report, HTML and WeasyPrint in this process, CPU time",
            timed(in_process, repeat, clock=time.process_time)[0],
        )
    )
    print("  " + summary("Markdown report, end to end (read, Markdown)", md_times))
    for name, work in parts.items():
        print("  " + summary(name, timed(work, repeat, warm=True)[0]))
    print(f"  PDF {len(pdf) / 1024:.0f} KiB, {page_count(pdf)} pages; Markdown {len(md) / 1024:.0f} KiB")
    verdict = "under" if statistics.median(pdf_times) < TARGET_SECONDS else "over"
    print(f"  PDF median {statistics.median(pdf_times):.2f} s: {verdict} the {TARGET_SECONDS} s target")


def peak_mb() -> float:
    """This process's peak resident memory so far (ru_maxrss, kilobytes on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def hostile(notes: int, uncut: bool) -> None:
    """The PDF of a run with `notes` steps of the 400-column table note, as the dashboard makes it."""
    from django.conf import settings

    from exports.reports import html_report, note_budget, paper_budget, renderer
    from exports.reports.data import build_report
    from exports.reports.limits import Watch
    from exports.reports.pdf import stylesheet_texts
    from exports.reports.produce import produce
    from harness.answers import wide_table_note
    from runs.contract.errors import WorkRailError

    session_id, run_id, built = build_run(notes, wide_table_note())
    print(f"hostile run: {notes} step(s) of a 64 KiB note of a 400-column table, built in {built:.1f} s")
    started = time.perf_counter()
    try:
        produced = produce(session_id, "pdf", "command", run_id=run_id)
        outcome = f"a PDF of {len(produced.data) / 1024:.0f} KiB, {page_count(produced.data)} pages"
    except WorkRailError as error:
        outcome = f"{error.code} ({error.details.get('reason')})"
    print(f"  PDF end to end (read, HTML, budget, child): {time.perf_counter() - started:.2f} s: {outcome}")
    started = time.perf_counter()
    html = html_report.render(build_report(session_id, run_id))
    formatting = time.perf_counter() - started
    started = time.perf_counter()
    fitted = paper_budget.fit(html)
    fitting = time.perf_counter() - started
    print(f"  read and HTML (heavy notes cut at their Markdown): {formatting:.2f} s")
    sizes = f"HTML {len(html) / 1024:.0f} KiB -> {len(fitted.html) / 1024:.0f} KiB"
    print(f"  HTML budget: {fitting:.2f} s, {sizes}, {len(fitted.cuts)} table(s) cut further")
    rendered = renderer.render(
        fitted.html,
        list(stylesheet_texts()),
        watch=Watch(settings.WORKRAIL_REPORT_SECONDS),
        memory_mb=settings.WORKRAIL_REPORT_PDF_MAX_MB,
    )
    print(
        f"  renderer child alone: {rendered.seconds:.2f} s, peak {rendered.peak_bytes / 2**20:.0f} MB resident; "
        f"this process's peak so far {peak_mb():.0f} MB"
    )
    if uncut:  # as before the budgets: the notes formatted whole, and all of the HTML laid out
        started = time.perf_counter()
        with mock.patch.object(note_budget, "is_heavy", return_value=False):
            whole_html = html_report.render(build_report(session_id, run_id))
        formatting = time.perf_counter() - started
        whole = renderer.render(whole_html, list(stylesheet_texts()), watch=Watch(3600), memory_mb=65_536)
        print(
            f"  uncut (as before the budgets): HTML {formatting:.2f} s, {len(whole_html) / 1024:.0f} KiB; layout "
            f"{whole.seconds:.2f} s, peak {whole.peak_bytes / 2**20:.0f} MB resident; {len(whole.pdf) / 1024:.0f} KiB"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--hostile-only", action="store_true", help="only the hostile run's PDF")
    parser.add_argument("--uncut", action="store_true", help="also lay the hostile HTML out whole (slow)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        setup(Path(tmp) / "home", Path(tmp))
        print(f"reports benchmark ({REPO.name}), repeat={args.repeat}, {os.cpu_count()} CPUs")
        for notes in (1, 3):
            hostile(notes, args.uncut)
        if args.hostile_only:
            return
        for label, notes_text in (("short notes", SHORT_NOTES), ("long notes", LONG_NOTES)):
            session_id, run_id, built = build_run(args.steps, notes_text)
            print(f"run with {label} built through the services in {built:.1f} s")
            measure(label, session_id, run_id, args.repeat)


if __name__ == "__main__":
    main()

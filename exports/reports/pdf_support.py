"""Whether this machine can make PDFs at all.

WeasyPrint lays PDFs out with Pango and HarfBuzz, C libraries of the system that pip cannot install.
Where they are missing, importing WeasyPrint fails (an OSError naming the library). That is found out
once per process, in a child Python (the process that serves reports never loads WeasyPrint itself, and
the renderer's fork server would die on the failed import), and a PDF then answers PDF_UNAVAILABLE with
what to install; the Markdown report and everything else work as before.
"""

from __future__ import annotations

import functools
import subprocess
import sys

# What the child runs: the import that fails without the libraries (a test replaces it to simulate that).
PROBE = "import weasyprint"
PROBE_SECONDS = 60
INSTALL = {
    "Debian or Ubuntu": "sudo apt-get install libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0",
    "Fedora": "sudo dnf install pango",
    "macOS": "brew install pango",
}


class PdfUnavailable(Exception):
    """WeasyPrint cannot be loaded here; `problem` is its own last line of error."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


@functools.cache
def problem() -> str | None:
    """None when WeasyPrint loads, else the last line of its error (WeasyPrint's own words)."""
    try:
        result = subprocess.run(
            [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=PROBE_SECONDS, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"WeasyPrint could not be loaded: {exc}"
    if result.returncode == 0:
        return None
    lines = result.stderr.strip().splitlines()
    return (lines[-1] if lines else f"WeasyPrint could not be loaded (exit code {result.returncode})")[:500]


def check() -> None:
    """Raises PdfUnavailable when this machine cannot make PDFs."""
    found = problem()
    if found is not None:
        raise PdfUnavailable(found)

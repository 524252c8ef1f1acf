"""The PDF renderer's child process (exports/reports/renderer.py starts it): WeasyPrint and nothing else.

It imports no Django, so the multiprocessing fork server can load it once (with WeasyPrint, PRELOAD:
about half a second) and fork a ready renderer for each PDF. The child limits itself before it reads its input: an
address-space cap (a MemoryError instead of the machine's memory) and a CPU-time cap a little past the
deadline (the kernel ends it even if the parent that would have stopped it is gone), and no core file.

It answers on its pipe with one message: b"P", its peak memory (resident bytes, 8 bytes big-endian) and
the PDF; b"M" and a reason when it ran out of memory; b"E" and the error otherwise.
"""

from __future__ import annotations

import importlib
import resource
import struct
import sys
from multiprocessing.connection import Connection

# What the fork server loads once, so that each renderer it forks has them ready (renderer.py).
WORK = "exports.reports.pdf_work"  # WeasyPrint: named, not imported, so the parent never loads it
PRELOAD = [WORK]

PDF = b"P"
OUT_OF_MEMORY = b"M"
FAILED = b"E"


def _limit(kind: int, value: int) -> None:
    """Soft and hard limit `value` (the hard one never raised: an unprivileged process cannot)."""
    hard = resource.getrlimit(kind)[1]
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(kind, (value, value))


def peak_bytes() -> int:
    """The most memory this process has had resident (ru_maxrss: kilobytes on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)


def _near(memory_bytes: int) -> bool:
    """Whether this process's address space came within a tenth of its cap (Linux; False elsewhere)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            peak = next((line for line in status if line.startswith("VmPeak:")), "")
    except OSError:
        return False
    fields = peak.split()
    return len(fields) >= 2 and fields[1].isdigit() and int(fields[1]) * 1024 >= 0.9 * memory_bytes


def main(answer: Connection, html: str, stylesheet_texts: list[str], memory_bytes: int, cpu_seconds: int) -> None:
    """The child's entry point: render `html` within the limits and send the one message."""
    _limit(resource.RLIMIT_CORE, 0)
    _limit(resource.RLIMIT_CPU, cpu_seconds)
    _limit(resource.RLIMIT_AS, memory_bytes)
    try:
        pdf = importlib.import_module(WORK).pdf_of(html, stylesheet_texts)
        message = PDF + struct.pack("!Q", peak_bytes()) + pdf
    except MemoryError:
        message = OUT_OF_MEMORY + b"the renderer ran out of its memory"
    except Exception as exc:
        if _near(memory_bytes):  # a C library whose allocation failed raises something else than MemoryError
            message = OUT_OF_MEMORY + f"the renderer ran out of its memory ({type(exc).__name__})".encode()
        else:  # a bug: the parent logs it and answers INTERNAL_ERROR
            message = FAILED + f"{type(exc).__name__}: {exc}"[:2000].encode("utf-8", "replace")
    answer.send_bytes(message)
    answer.close()

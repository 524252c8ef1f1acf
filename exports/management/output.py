"""Where the export commands put the file they made: a path, or standard output for `-`."""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO, cast

from django.core.management.base import CommandError, OutputWrapper


def write_file(path: Path, data: bytes) -> None:
    """Written beside the target, then renamed over it: a reader never sees half a file."""
    partial = path.with_name(path.name + ".partial")
    try:
        partial.write_bytes(data)
        partial.replace(path)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise CommandError(f"Could not write {path}: {exc.strerror}.") from None


def write_stdout(stdout: OutputWrapper, data: bytes) -> None:
    """The bytes as they are, through the binary buffer of the command's stdout (OutputWrapper passes
    attributes through to the stream it wraps)."""
    stdout.flush()
    binary = cast(BinaryIO, stdout.buffer)
    binary.write(data)
    binary.flush()

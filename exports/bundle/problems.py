"""What the bundle checks raise: what is wrong and where (a JSON pointer into the bundle). reading.py
turns it into the BUNDLE_INVALID error a person sees, so the checks need not know about error codes."""

from __future__ import annotations


class BundleProblem(ValueError):
    def __init__(self, message: str, pointer: str) -> None:
        super().__init__(message)
        self.pointer = pointer


class BundleDamaged(BundleProblem):
    """A part of the bundle does not match its own digest or hash: damaged or edited (BUNDLE_CORRUPT)."""


def pointer_to(*parts: str | int) -> str:
    """A JSON pointer (RFC 6901) to `parts`: '~' and '/' inside a key are escaped."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)

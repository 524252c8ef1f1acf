"""How many examples a fuzz test draws: every one in `make test`, a fifth of them (at least 5) in
`make test-fast`, which sets WR_TEST_FUZZ=quick. The quick loop still draws new examples on every run
(tests/plugins/hypothesis_seed.py), it only draws fewer."""

from __future__ import annotations

import os

QUICK_SHARE = 5
QUICK_FLOOR = 5


def quick() -> bool:
    return os.environ.get("WR_TEST_FUZZ", "") == "quick"


def examples(full: int) -> int:
    """`full` examples, or in the quick loop a fifth of them, never fewer than QUICK_FLOOR."""
    return max(QUICK_FLOOR, full // QUICK_SHARE) if quick() else full


def stride() -> int:
    """For exhaustive sweeps (every byte of a file changed once): 1, or every fifth in the quick loop."""
    return QUICK_SHARE if quick() else 1

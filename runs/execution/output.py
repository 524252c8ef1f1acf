"""Telling a true replay from a changed one: the digest of the output an agent sent with an ack."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def output_digest(output: dict[str, Any]) -> str:
    """Same output, same digest, whatever the key order: tells a true replay from a changed one."""
    return "sha256:" + hashlib.sha256(json.dumps(output, sort_keys=True, ensure_ascii=False).encode()).hexdigest()

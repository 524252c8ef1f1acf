"""workflowHash: the identity a run is pinned to.

"sha256:" + hex digest of the RFC 8785 (JSON Canonicalization Scheme) serialization of the
compiled workflow. Key order and whitespace in the source file cannot change it; any change to
what the agent would be told does.
"""

from __future__ import annotations

import hashlib
from typing import Any

import rfc8785


def canonical_json(value: Any) -> bytes:
    return bytes(rfc8785.dumps(value))


def workflow_hash(compiled: Any) -> str:
    return "sha256:" + hashlib.sha256(canonical_json(compiled)).hexdigest()

"""Stable content hashes: the keys that name scenarios, experiments and scenes, and seeds derived from
data. One helper, so every key in the project is made the same way (SHA-256 of canonical JSON)."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def json_hash(obj: Any, length: int = 16, compact: bool = False) -> str:
    """Hex SHA-256 of `obj` as JSON with sorted keys (non-JSON values by their str), cut to `length`.

    `compact` drops the spaces after separators; both forms are kept because stored run folders are
    keyed by them (experiments use the compact form, scenarios the default one)."""
    sep = (",", ":") if compact else None
    blob = json.dumps(obj, sort_keys=True, separators=sep, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:length]


def seed_from_bytes(data: bytes) -> int:
    """A 64-bit seed derived from bytes (for draws that must depend only on a value, e.g. a pose)."""
    return int.from_bytes(hashlib.sha256(data).digest()[:8], "little")

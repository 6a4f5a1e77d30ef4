"""Helpers for tests: the conformance kit's (tabletrail.testing: encounter, do, refuse…) and a forger's."""

from __future__ import annotations

import json

from tabletrail.events.log import line_hash
from tabletrail.testing.helpers import CLOCK, do, encounter, grid, of_type, refuse  # noqa: F401  (the kit's)


def rechain(lines: list[bytes]) -> list[bytes]:
    """Renumber and re-hash JSON lines, as a forger who knows the format would: only their content
    can be wrong (an unkeyed log's chain can be re-made by anyone)."""
    out, prev = [], ""
    for n, line in enumerate(lines, start=1):
        record = json.loads(line)
        record["seq"], record["prev"] = n, prev
        data = json.dumps(record, separators=(",", ":")).encode()
        out.append(data)
        prev = line_hash(data)
    return out

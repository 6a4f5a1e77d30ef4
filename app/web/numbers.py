"""One strict reading of a number sent as text: a query, a header, a path, an environment variable.

`str.isdigit()` says yes to more than `int()` reads ('²' is a digit to it: a 500), and `int()` reads
more than anyone types ('٣', ' 3', '+3', '3_000') and gives up past 4,300 digits; so each number of
the table view is read here, ASCII digits only and at most MAX_DIGITS of them, or refused in the same
words on every worker.
"""

from __future__ import annotations

import math
import re

MAX_DIGITS = 15  # every version, sequence number or byte count fits; a float holds it exactly
MOST = 10**MAX_DIGITS - 1  # the largest whole number read (the contract's `maximum`)
_WHOLE = re.compile(rf"[0-9]{{1,{MAX_DIGITS}}}")  # [0-9], not \d: \d is any script's digits
_DECIMAL = re.compile(r"[0-9]{1,24}(\.[0-9]{0,24})?([eE][-+]?[0-9]{1,3})?")  # 1e999 is not finite: refused
SHOWN = 24  # characters of a refused value quoted back


def whole(raw: str | None) -> int | None:
    """`raw` as a whole number from 0 to MOST, or None when it is anything else (empty, signed, spaced)."""
    return int(raw) if raw is not None and _WHOLE.fullmatch(raw) else None


def decimal(raw: str | None) -> float | None:
    """`raw` as a finite number of 0 or more written in ASCII (as JSON or Python writes one), or None."""
    if raw is None or not _DECIMAL.fullmatch(raw):
        return None
    value = float(raw)
    return value if math.isfinite(value) else None


def quoted(raw: str) -> str:
    """A refused value for an error's one line: quoted, cut after SHOWN characters."""
    return repr(raw) if len(raw) <= SHOWN else f"{raw[:SHOWN]!r}… ({len(raw):,} characters)"

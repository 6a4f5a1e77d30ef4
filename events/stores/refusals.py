"""The refusal side log: refused attempts kept for the audit, never folded into the board."""

# Annotations are evaluated, not postponed (no `from __future__ import annotations`): msgspec would
# compile each Struct field's annotation string when a command first builds a decoder (test_cli_fast).
from collections.abc import Callable, Sequence

import msgspec
from tabletrail.events.errors import InputError


class Refused(msgspec.Struct, frozen=True):
    """A refused attempt, kept in the audit side log: never part of the board's fold."""

    at: str
    by: str
    text: str
    rule: str
    reason: str
    after_seq: int  # the log's length when it was refused


Warn = Callable[[str], None]


def unkept(warn: Warn | None, where: object, why: str) -> None:
    """A refusal the side log could not keep: warn when someone listens, else an InputError."""
    message = f"{where}: the refusal could not be kept in the audit side log ({why}); the log is unchanged"
    if warn is None:
        raise InputError(message)
    warn(message)


def decode_refusals(lines: Sequence[bytes], where: Callable[[int], str]) -> list[Refused]:
    """The side log's lines as refusals; one that does not decode is an InputError at `where(n)`."""
    dec = msgspec.json.Decoder(Refused)
    out = []
    for n, line in enumerate(lines, start=1):
        try:
            out.append(dec.decode(line))
        except msgspec.DecodeError as exc:
            raise InputError(f"{where(n)}: {exc}") from None
    return out

"""The hash chain: each line carries the hash of the one before (keyed by the table's secret
when its log was started with `TABLETRAIL_KEY`), and the tip a store keeps beside its log."""

# Annotations are evaluated, not postponed (no `from __future__ import annotations`): msgspec would
# compile each Struct field's annotation string when a command first builds a decoder (test_cli_fast).
import os
from collections.abc import Sequence

import msgspec
from tabletrail.events.digest import blake2b
from tabletrail.events.errors import InputError
from tabletrail.events.stores.record import Record

KEY_VARIABLE = "TABLETRAIL_KEY"


def line_hash(line: bytes, key: bytes = b"") -> str:
    """The hash the next line carries as `prev`; with the table's key it is a MAC (keyed BLAKE2b)."""
    return blake2b(line, digest_size=16, key=key).hexdigest()


def chain_broken(n: int) -> str:
    """What a break of the hash chain at line `n` means, in the words every verb and the bundle's
    page use: the line before it (or the lines' order) is not what was written."""
    if n <= 1:
        return "line 1 must carry no previous hash"
    return (
        f"line {n - 1} was changed after it was written, or a line was removed, added or moved there: "
        f"line {n} no longer carries its hash"
    )


def line_hashes(lines: Sequence[bytes], key: bytes = b"") -> list[str]:
    """`line_hash` of each line: replay hashes every line it reads.

    Each line's hash starts as a copy of one hash set up once (its size and key),
    which skips reading the keyword arguments again a line: about a sixth of the time.
    """
    start = blake2b(digest_size=16, key=key).copy
    out: list[str] = []
    keep = out.append
    for line in lines:
        h = start()
        h.update(line)
        keep(h.hexdigest())
    return out


def table_key() -> bytes:
    """The table's secret from TABLETRAIL_KEY, as a BLAKE2b key (b"" when unset).

    A log started while it is set has a keyed chain: only a holder of the secret
    can re-chain an edited log so that `verify` passes it (issue 13, item 7).
    """
    secret = os.environ.get(KEY_VARIABLE, "")
    return blake2b(secret.encode(), digest_size=32).digest() if secret else b""


def key_check(key: bytes) -> str:
    """What line 1 of a keyed log keeps to recognise its key; it tells nothing of the key itself."""
    return blake2b(b"tabletrail chain key", digest_size=8, key=key).hexdigest()


def chain_key(first: Record, where: str) -> bytes:
    """The key a log's chain is hashed with, read off its first record: b"" for a plain chain."""
    return _key_of(first.keyed, where)


def _key_of(keyed: str, where: str) -> bytes:
    """The table's secret as a key, checked against line 1's `keyed` check value ("": no key)."""
    if not keyed:
        return b""
    key = table_key()
    if not key:
        raise InputError(
            f"{where}: this log's hash chain is keyed with the table's secret: set {KEY_VARIABLE} to open it"
        )
    if key_check(key) != keyed:
        raise InputError(f"{where}: {KEY_VARIABLE} is not the secret this log's chain was started with")
    return key


def tip_text(version: int, last_line: bytes, key: bytes = b"") -> str:
    """The tip a store keeps outside its log: the version and the hash of the last line, "42 9f3c…".

    With the key of a keyed chain (`tip_key`) the hash is a MAC too, so that only a
    holder of the table's secret can write a tip a cut log would pass with (issue 28, 9).
    """
    return f"{version} {tip_hash(last_line, key)}"


def tip_hash(line: bytes, key: bytes = b"") -> str:
    """The hash a kept tip gives its line: `line_hash`, or with a key a MAC of its own kind.

    Keyed, it is not the MAC the next line carries as `prev` (BLAKE2b's personalisation
    sets it apart), so a tip can't be copied out of the log: whoever cuts a keyed log
    at a batch end can't write the tip that would pass it, even one a batch behind.
    """
    if not key:
        return line_hash(line)
    return blake2b(line, digest_size=16, key=key, person=b"tabletrail tip").hexdigest()


class _Keyed(msgspec.Struct):
    """The one field of line 1 that says whether a log's chain (and so its tip) is keyed."""

    keyed: str = ""


_keyed = msgspec.json.Decoder(_Keyed)


def tip_key(first_line: bytes, where: str) -> bytes:
    """The key a log's kept tip is hashed with, read off its first line: b"" for a plain log.

    It is the chain's own key (`chain_key`): a writer of a keyed log holds the secret,
    or it could not have opened the log to append to it.
    """
    try:
        keyed = _keyed.decode(first_line).keyed
    except (msgspec.DecodeError, RecursionError):
        return b""  # not a record at all: the append refuses it by its own checks
    return _key_of(keyed, where)


def parse_tip(text: str | None) -> tuple[int, str] | None:
    """A kept tip read back; None when there is none or it is not one (verify then says so)."""
    parts = (text or "").split()
    if len(parts) != 2 or not parts[0].isdigit():
        return None
    return int(parts[0]), parts[1]

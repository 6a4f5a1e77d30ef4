"""LOG.snapshots, the snapshots a JSON Lines log keeps beside it: its format, its seal, which entries fit.

A cache of the board, as the database stores keep: the newest few, each with the byte offsets of the
line it folds up to, so an encounter opens by seeking to the line after it and folding only the tail.
It also says how many events apart the log's snapshots are taken (`every`), as a database keeps it in
its settings, so an export's `--snapshot-every` holds for the commands that follow.
The file is replaced whole, never appended to, and read with suspicion: a snapshot is offered only
while its line still sits at its bytes, whole, with the digest it was saved with; anything else about
the file means no snapshot and no interval (the default), never an error.
"""

import contextlib
import os
import time
from glob import escape as glob_escape
from pathlib import Path
from typing import IO, Any

import msgspec
from tabletrail.events.digest import blake2b
from tabletrail.events.stores.chain import line_hash
from tabletrail.events.stores.file_mode import NEW_FILE_MODE
from tabletrail.events.stores.jsonl_batches import place_of
from tabletrail.events.stores.line_seek import after_newline

KEPT_SNAPSHOTS = 3  # the newest snapshots kept beside a log: enough for undo and recent `--at`, a small file
_MAGIC = b"tabletrail snapshots 2\n"  # what LOG.snapshots starts with; then its checksum, then a Sidecar
_MAGIC_1 = b"tabletrail snapshots 1\n"  # before the interval was kept: the body is the entries alone
_SUM = 16  # bytes of the sidecar's checksum (a MAC, with the table's key, when the log's chain is keyed)
_PERSON = b"tt snapshots"  # sets the keyed checksum apart from the chain's and the tip's MACs


class Kept(msgspec.Struct, frozen=True, array_like=True):
    """One snapshot in LOG.snapshots, with where its line sits in the log when it was saved."""

    fmt: int
    version: int  # the last line the snapshot folds
    batch: int  # that line's batch: `batch_span` reads back from here
    begin: int  # the byte that line starts at
    end: int  # the byte after its newline: where the tail to fold starts
    line: str  # `line_hash` (unkeyed) of that line's bytes
    data: bytes  # the snapshot, as the service stored it


class Sidecar(msgspec.Struct, frozen=True, array_like=True):
    """What LOG.snapshots holds: the log's snapshot interval and the snapshots kept."""

    every: int  # events between the log's snapshots (an export's --snapshot-every); 0: not said
    kept: list[Kept]


NOTHING = Sidecar(0, [])  # a missing, damaged or foreign sidecar: no snapshot, no interval

_encoder = msgspec.msgpack.Encoder()
_decoders: dict[bytes, msgspec.msgpack.Decoder[Any]] = {  # by the magic line: a Sidecar, or its entries
    _MAGIC: msgspec.msgpack.Decoder(Sidecar),
    _MAGIC_1: msgspec.msgpack.Decoder(list[Kept]),
}


def version_of(kept: Kept) -> int:
    return kept.version


def _seal(body: bytes, key: bytes) -> bytes:
    """The sidecar's checksum: BLAKE2b of its body, keyed by the log's key when its chain is keyed."""
    return blake2b(body, digest_size=_SUM, key=key, person=_PERSON).digest()


def unsealed(data: bytes, key: bytes) -> Sidecar:
    """What a sidecar's bytes hold as written; NOTHING when damaged, or not sealed with this log's key
    (a keyed log's sidecar can only be written by a holder of the secret). One written before the
    interval was kept gives its entries and no interval."""
    magic = data[: len(_MAGIC)]
    decoder = _decoders.get(magic)
    head = len(magic) + _SUM
    body = data[head:]
    if decoder is None or data[len(magic) : head] != _seal(body, key):
        return NOTHING
    try:
        found = decoder.decode(body)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return NOTHING
    return found if isinstance(found, Sidecar) else Sidecar(0, found)


def sealed(sidecar: Sidecar, key: bytes) -> bytes:
    """The bytes of a sidecar: the magic line, the seal of the body, the body."""
    body = _encoder.encode(sidecar)
    return _MAGIC + _seal(body, key) + body


_LEFT_OVER_S = 600  # a temporary sidecar this old was left by a writer that died (a write takes milliseconds)


def write_sidecar(path: Path, sidecar: Sidecar, key: bytes) -> None:
    """The sidecar written whole: a temporary file beside it, renamed over it; a folder that can't be
    written keeps no snapshots, silently, as a cache may. A temporary file a crashed writer left is
    swept here, once it is old enough that no live writer can still be writing it."""
    import tempfile  # only a command that saves a snapshot writes the sidecar

    for left in path.parent.glob(f".{glob_escape(path.name)}.*.new"):
        with contextlib.suppress(OSError):
            if time.time() - left.stat().st_mtime > _LEFT_OVER_S:
                left.unlink()
    data = sealed(sidecar, key)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".new", dir=path.parent)
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, NEW_FILE_MODE)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def entry(fmt: int, version: int, begin: int, line: bytes, data: bytes) -> Kept | None:
    """The entry for a snapshot of line `version`, which starts at byte `begin`; None if it is no record."""
    place = place_of(line)
    if place is None:
        return None  # not a record: no snapshot can fit it
    return Kept(fmt, version, place.batch, begin, begin + len(line) + 1, line_hash(line), data)


def fits(fh: IO[bytes], k: Kept, size: int) -> bool:
    """Is the snapshot's line still where it was saved: after a newline, whole, the same bytes?"""
    if not (0 <= k.begin < k.end <= size and (k.begin == 0) == (k.version == 1)):
        return False
    if not after_newline(fh, k.begin):
        return False
    fh.seek(k.begin)
    data = fh.read(k.end - k.begin)
    line = data[:-1].removesuffix(b"\r")
    if not data.endswith(b"\n") or b"\n" in line or line_hash(line) != k.line:
        return False
    place = place_of(line)
    return place is not None and place.seq == k.version and place.batch == k.batch

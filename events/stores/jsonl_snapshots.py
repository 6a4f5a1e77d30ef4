"""LOG.snapshots, the snapshots a JSON Lines log keeps beside it: its format, its seal, which entries fit.

A cache of the board, as the database stores keep: the newest few, each with the byte offsets of the
line it folds up to, so an encounter opens by seeking to the line after it and folding only the tail.
The file is replaced whole, never appended to, and read with suspicion: a snapshot is offered only
while its line still sits at its bytes, whole, with the digest it was saved with; anything else about
the file means no snapshot, never an error.
"""

import contextlib
import os
import time
from collections.abc import Sequence
from glob import escape as glob_escape
from pathlib import Path
from typing import IO

import msgspec
from tabletrail.events.digest import blake2b
from tabletrail.events.stores.chain import line_hash
from tabletrail.events.stores.file_mode import NEW_FILE_MODE
from tabletrail.events.stores.jsonl_batches import place_of
from tabletrail.events.stores.line_seek import after_newline

KEPT_SNAPSHOTS = 3  # the newest snapshots kept beside a log: enough for undo and recent `--at`, a small file
_MAGIC = b"tabletrail snapshots 1\n"  # what LOG.snapshots starts with; then its checksum, then the body
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


_kept_encoder = msgspec.msgpack.Encoder()
_kept_decoder = msgspec.msgpack.Decoder(list[Kept])


def version_of(kept: Kept) -> int:
    return kept.version


def _seal(body: bytes, key: bytes) -> bytes:
    """The sidecar's checksum: BLAKE2b of its body, keyed by the log's key when its chain is keyed."""
    return blake2b(body, digest_size=_SUM, key=key, person=_PERSON).digest()


def unsealed(data: bytes, key: bytes) -> list[Kept]:
    """The entries a sidecar's bytes hold as written; [] when damaged, or not sealed with this log's key
    (a keyed log's sidecar can only be written by a holder of the secret)."""
    head = len(_MAGIC) + _SUM
    body = data[head:]
    if not data.startswith(_MAGIC) or data[len(_MAGIC) : head] != _seal(body, key):
        return []
    try:
        return _kept_decoder.decode(body)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return []


_LEFT_OVER_S = 600  # a temporary sidecar this old was left by a writer that died (a write takes milliseconds)


def write_kept(path: Path, kept: Sequence[Kept], key: bytes) -> None:
    """The sidecar written whole: a temporary file beside it, renamed over it; a folder that can't be
    written keeps no snapshots, silently, as a cache may. A temporary file a crashed writer left is
    swept here, once it is old enough that no live writer can still be writing it."""
    import tempfile  # only a command that saves a snapshot writes the sidecar

    for left in path.parent.glob(f".{glob_escape(path.name)}.*.new"):
        with contextlib.suppress(OSError):
            if time.time() - left.stat().st_mtime > _LEFT_OVER_S:
                left.unlink()
    body = _kept_encoder.encode(list(kept))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".new", dir=path.parent)
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(_MAGIC + _seal(body, key) + body)
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

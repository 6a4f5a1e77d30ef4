"""The append-only log: records, their codec, the hash chain, and the stores.

A record wraps one event with where it sits: its sequence number, the batch
(one per command) it belongs to, who acted, when, and the hash of the previous
line. Lines are JSON; a store only ever appends whole batches.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

import msgspec
from tabletrail.events.errors import InputError
from tabletrail.events.types import AnyEvent, EncounterStarted


class Record(msgspec.Struct, frozen=True, gc=False):
    seq: int
    batch: int
    actor: str
    at: str
    prev: str  # hash of the previous line ("" for the first)
    event: AnyEvent


class Refused(msgspec.Struct, frozen=True):
    """A refused attempt, kept in the audit side log: never part of the board's fold."""

    at: str
    by: str
    text: str
    rule: str
    reason: str
    after_seq: int  # the log's length when it was refused


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(Record)


def line_hash(line: bytes) -> str:
    return hashlib.blake2b(line, digest_size=16).hexdigest()


def encode(record: Record) -> bytes:
    return _encoder.encode(record)


def decode(line: bytes, where: str) -> Record:
    """Decode one log line; InputError says which line and which field is wrong."""
    try:
        return _decoder.decode(line)
    except msgspec.ValidationError as exc:
        raise InputError(f"{where}: {exc}") from None
    except msgspec.DecodeError as exc:
        raise InputError(f"{where}: not a log record: {exc}") from None


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class MemoryStore:
    """Lines kept in memory: for tests, benchmarks and dry runs."""

    def __init__(self, lines: Sequence[bytes] = ()) -> None:
        self.lines: list[bytes] = list(lines)
        self.refusals: list[Refused] = []
        self.name = "<memory>"

    def read(self) -> Iterator[bytes]:
        return iter(self.lines)

    def append(self, lines: Sequence[bytes]) -> None:
        self.lines.extend(lines)

    def note_refusal(self, refused: Refused) -> None:
        self.refusals.append(refused)

    def refused(self) -> list[Refused]:
        return list(self.refusals)


class JsonlStore:
    """A JSON Lines file. Appends whole batches at the end; never rewrites a byte."""

    def __init__(self, path: str | Path, *, durable: bool = True) -> None:
        self.path = Path(path)
        self.name = str(self.path)
        self.durable = durable

    def exists(self) -> bool:
        return self.path.exists()

    def read(self) -> Iterator[bytes]:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            raise InputError(f"{self.path}: no such log file") from None
        except IsADirectoryError:
            raise InputError(f"{self.path}: is a folder, not a log file") from None
        if data and not data.endswith(b"\n"):
            cut = data.rfind(b"\n") + 1
            raise InputError(
                f"{self.path}: the last line is torn (no newline after byte {cut}); the log was cut mid-write"
            )
        return iter(data.splitlines())

    def append(self, lines: Sequence[bytes]) -> None:
        blob = b"".join(line + b"\n" for line in lines)
        with open(self.path, "ab") as fh:
            fh.write(blob)
            fh.flush()
            if self.durable:
                os.fsync(fh.fileno())

    @property
    def side_path(self) -> Path:
        return self.path.with_name(self.path.name + ".refused")

    def note_refusal(self, refused: Refused) -> None:
        """Append to the side log next to the log file (LOG.refused)."""
        with open(self.side_path, "ab") as fh:
            fh.write(_encoder.encode(refused) + b"\n")

    def refused(self) -> list[Refused]:
        if not self.side_path.exists():
            return []
        dec = msgspec.json.Decoder(Refused)
        out = []
        for n, line in enumerate(self.side_path.read_bytes().splitlines(), start=1):
            try:
                out.append(dec.decode(line))
            except msgspec.DecodeError as exc:
                raise InputError(f"{self.side_path}:{n}: {exc}") from None
        return out

    def create(self, lines: Sequence[bytes]) -> None:
        """Start a new log; refuses to overwrite an existing file."""
        try:
            with open(self.path, "xb") as fh:
                fh.write(b"".join(line + b"\n" for line in lines))
                fh.flush()
                if self.durable:
                    os.fsync(fh.fileno())
        except FileExistsError:
            raise InputError(f"{self.path}: a log already exists here; pick another name") from None


Store = MemoryStore | JsonlStore


def read_records(store: Store) -> Iterator[Record]:
    """Every record in order, checked for sequence and batch order as it goes."""
    expected_prev = ""
    for lineno, line in enumerate(store.read(), start=1):
        where = f"{store.name}:{lineno}"
        record = decode(line, where)
        if record.seq != lineno:
            raise InputError(f"{where}: seq is {record.seq}, expected {lineno}")
        if lineno == 1 and not isinstance(record.event, EncounterStarted):
            raise InputError(f"{where}: a log must start with an encounter-started event")
        if record.prev != expected_prev:
            raise InputError(
                f"{where}: hash chain broken: prev is {record.prev!r}, "
                f"the line before hashes to {expected_prev!r}"
            )
        expected_prev = line_hash(line)
        yield record

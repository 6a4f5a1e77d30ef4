"""The append-only log: records, their codec, the hash chain, and the stores.

A record wraps one event with where it sits: its sequence number (the
encounter's version after it), the batch (one per command) it belongs to, who
acted, when, and the hash of the previous line. Lines are JSON; a store only
ever appends whole batches, and only at the version its writer last saw
(optimistic concurrency: a stale writer gets a ConflictError and appends nothing).

Stores: `MemoryStore` (tests, dry runs), `JsonlStore` (a JSON Lines file: the
interchange format), and `SqliteStore` in events/sqlite_store.py (the durable
default for live encounters).
"""

# Annotations are evaluated, not postponed (no `from __future__ import annotations`): msgspec would
# compile each Struct field's annotation string when a command first builds a decoder (test_cli_fast).
import contextlib
import itertools
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from operator import attrgetter
from pathlib import Path
from typing import IO, Protocol, TypeGuard, get_args

import msgspec
from tabletrail.events import plugins
from tabletrail.events.digest import blake2b
from tabletrail.events.errors import ConflictError, InputError
from tabletrail.events.scenario import door_cells, door_name
from tabletrail.events.types import SCHEMA_VERSION, AnyEvent, DoorChanged, EncounterStarted, Event
from tabletrail.events.upcast import CHAIN


class Record(msgspec.Struct, frozen=True, gc=False, omit_defaults=True):
    seq: int
    batch: int
    actor: str
    at: str
    prev: str  # hash of the previous line ("" for the first)
    event: AnyEvent
    # Added after the first logs were written, so each has a default and is left out when it has it:
    # a line of an older log still decodes, and re-encodes to the very same bytes.
    size: int = 0  # on a batch's first record: how many records the batch holds (0: not said)
    command_id: str | None = None  # on a batch's first record: the caller's id, for idempotent retries
    schema: int = 1  # the event vocabulary that wrote this line (absent: 1). Never change this default.
    keyed: str = ""  # on line 1 of a log whose chain is keyed by the table's secret: that key's check value


class Refused(msgspec.Struct, frozen=True):
    """A refused attempt, kept in the audit side log: never part of the board's fold."""

    at: str
    by: str
    text: str
    rule: str
    reason: str
    after_seq: int  # the log's length when it was refused


class VersionConflict(ConflictError):
    """Another writer appended first: names the version this writer expected and the one it found."""

    def __init__(self, where: str, expected: int, actual: int) -> None:
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"{where}: version conflict: this writer expected the encounter at version {expected}, "
            f"but it is at version {actual} (another writer appended first); nothing was appended: "
            "reload the encounter and retry"
        )


class DuplicateCommand(ConflictError):
    """A batch with this command id is already in the log: the retry must return it, not append."""

    def __init__(self, where: str, command_id: str) -> None:
        self.command_id = command_id
        super().__init__(f"{where}: command id {command_id!r} is already in the log; nothing was appended")


class TornTail(InputError):
    """The log file ends in a line cut mid-write (a crash): the bytes from `offset` on are not committed."""

    def __init__(self, message: str, offset: int, size: int, lines: list[bytes]) -> None:
        super().__init__(message)
        self.offset = offset  # first byte that is not part of a whole line
        self.size = size  # the file's size: bytes offset..size are the torn tail
        self.lines = lines  # the whole lines before it


_encoder = msgspec.json.Encoder()
_plain = msgspec.json.Decoder()


class _Typed:
    """The record decoders, made on first use: a record's type holds every installed ruleset's
    commands (events/types.py CommandIssued), so making them reads the rulesets' entry points."""

    one: msgspec.json.Decoder[Record]
    many: msgspec.json.Decoder[list[Record]]

    def __getattr__(self, name: str) -> object:
        self.one = msgspec.json.Decoder(Record)
        self.many = msgspec.json.Decoder(list[Record])
        return getattr(self, name)


_typed = _Typed()


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


def lagging_batch(lines: Sequence[bytes], version: int) -> tuple[int, int] | None:
    """Does a kept tip at `version` count every line but whole batches at the end?

    Then (the first line it does not count, the last line): what a crash between a
    batch made durable and its tip moved leaves (JsonlStore moves the tip after the
    batch, under the writer's lock; a writer killed there again before any writer
    got its tip written leaves it more batches behind). Else None. Whether line
    `version` hashes to the tip is for the caller to check, with the log's key.
    """
    if not 1 <= version < len(lines):
        return None
    found = [_batch_of(line) for line in lines[version - 1 :]]
    heads = [head for head in found if head is not None]
    if len(heads) != len(found):
        return None
    n = 1  # heads[n] is line version + n: each batch after the tip must be whole
    while n < len(heads):
        head = heads[n]
        if head.batch == heads[n - 1].batch or not head.size or n + head.size > len(heads):
            return None
        if any(h.batch != head.batch for h in heads[n : n + head.size]):
            return None
        n += head.size
    return version + 1, len(lines)


def parse_tip(text: str | None) -> tuple[int, str] | None:
    """A kept tip read back; None when there is none or it is not one (verify then says so)."""
    parts = (text or "").split()
    if len(parts) != 2 or not parts[0].isdigit():
        return None
    return int(parts[0]), parts[1]


def encode(record: Record) -> bytes:
    return _encoder.encode(record)


def decode(line: bytes, where: str) -> Record:
    """Decode one log line; InputError says which line and which field is wrong.

    A line of the current vocabulary decodes straight into types; an older one
    (or one the typed decoder refuses) goes through the upcaster chain first.
    """
    if not line.strip():
        raise InputError(
            f"{where}: an empty line where a log record should be (blank lines at the end of a log: "
            "`tabletrail repair` cuts them)"
        )
    try:
        record = _typed.one.decode(line)
    except msgspec.ValidationError as exc:
        problem: msgspec.ValidationError | None = exc
    except msgspec.DecodeError as exc:
        raise InputError(f"{where}: not a log record: {_one_line(exc)}") from None
    except RecursionError:  # the decoder's own depth bound: no record nests this deep
        raise InputError(f"{where}: not a log record: brackets nest too deeply") from None
    else:
        if record.schema == CHAIN.current and not (
            type(record.event) is EncounterStarted and record.event.schema > CHAIN.current
        ):
            return _named(record, where)
        problem = None
    try:
        raw = _plain.decode(line)
    except msgspec.DecodeError as exc:
        raise InputError(f"{where}: not a log record: {_one_line(exc)}") from None
    except RecursionError:
        raise InputError(f"{where}: not a log record: brackets nest too deeply") from None
    if CHAIN.version_of(raw, where) == CHAIN.current:
        raise InputError(
            f"{where}: {_one_line(problem)}"
        )  # a current line the types refuse: say what is wrong
    try:
        return _named(msgspec.convert(CHAIN.upcast(raw, where), Record), where)
    except msgspec.ValidationError as exc:
        raise InputError(f"{where}: {_one_line(exc)}") from None


def _named(record: Record, where: str) -> Record:
    """A record whose event names a door names it as the engine does ("5,2|6,2"), else an InputError.

    Every reader of a door event (its words in `log`, `verify`'s report, the board)
    takes the name apart at its `|`: a line that names no door must stop at the
    reading, as one line naming it, not deep in a reader. A log's first line must
    name a ruleset installed here, else the one line names the package to install
    (before a later line's command of that ruleset fails to decode).
    """
    if type(record.event) is DoorChanged:
        door = record.event.door
        try:
            canonical = door_name(*door_cells(door))
        except ValueError as exc:
            raise InputError(f"{where}: $.event.door: {_one_line(exc)}") from None
        if canonical != door:
            raise InputError(
                f"{where}: $.event.door: {door!r} is not written as the engine names a door "
                f"({canonical!r}: its two cells x,y|x,y in reading order)"
            )
    elif type(record.event) is EncounterStarted:
        started = record.event
        plugins.needed(started.scenario.ruleset, started.package, started.ruleset_rules, where)
    return record


def _one_line(problem: object) -> str:
    """msgspec's message about a line, kept on one line (it quotes the bad value, newlines and all)."""
    return str(problem).replace("\r", "\\r").replace("\n", "\\n")


_schema, _event = attrgetter("schema"), attrgetter("event")
_CHECKED = frozenset({EncounterStarted, DoorChanged})  # event types `decode` checks beyond their types
_PLAIN = frozenset(get_args(AnyEvent)) - _CHECKED
_CHUNK = 2048  # lines decoded by one msgspec call: a chunk it refuses is decoded again line by line


def decode_many(lines: Sequence[bytes], where: Callable[[int], str]) -> list[Record]:
    """Decode many lines with one msgspec call per chunk, as `decode` would one by one.

    The chunk's lines are joined into one JSON array: one call, no per-line
    overhead. A chunk that does not decode into exactly one record per line (a
    bad line, a line holding two records) is decoded line by line, so the error
    names its line (`where(i)` for the i-th line given); a line of an older
    vocabulary goes through `decode` and its upcasters.
    """
    out: list[Record] = []
    current = CHAIN.current
    for lo in range(0, len(lines), _CHUNK):
        chunk = lines[lo : lo + _CHUNK]
        records: list[Record] | None
        try:
            records = _typed.many.decode(_as_array(chunk))
        except (msgspec.DecodeError, RecursionError):
            records = None
        if records is None or len(records) != len(chunk):
            records = [decode(line, where(lo + i)) for i, line in enumerate(chunk)]
        elif list(map(_schema, records)).count(current) != len(records) or not _PLAIN.issuperset(
            map(type, map(_event, records))
        ):  # an older line, a start that may name a newer vocabulary, a door: decode's own checks
            records = [_checked(r, chunk[i], where, lo + i) for i, r in enumerate(records)]
        out += records
    return out


def _as_array(lines: Sequence[bytes]) -> bytes:
    """The lines as one JSON array, `[line,line,…]`, in one copy of their bytes (not three)."""
    if len(lines) == 1:
        return b"[" + lines[0] + b"]"
    return b",".join([b"[" + lines[0], *itertools.islice(lines, 1, len(lines) - 1), lines[-1] + b"]"])


def _checked(record: Record, line: bytes, where: Callable[[int], str], i: int) -> Record:
    """A record of the current vocabulary as decoded, any other through `decode` (upcast or named)."""
    if record.schema == CHAIN.current and type(record.event) not in _CHECKED:
        return record
    return decode(line, where(i))


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def fsync_folder(path: Path) -> None:
    """Make a new file's name durable, not only its bytes."""
    try:
        fd = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class MemoryStore:
    """Lines kept in memory: for tests, benchmarks and dry runs."""

    versioned = True  # append checks `expected`

    def __init__(self, lines: Sequence[bytes] = ()) -> None:
        self.lines: list[bytes] = list(lines)
        self.refusals: list[Refused] = []
        self.name = "<memory>"

    def read(self, start: int = 0) -> Iterator[bytes]:
        """The lines after the first `start` ones."""
        return iter(self.lines[start:])

    def version(self) -> int:
        return len(self.lines)

    def append(self, lines: Sequence[bytes], *, expected: int | None = None) -> None:
        if expected is not None and expected != len(self.lines):
            raise VersionConflict(self.name, expected, len(self.lines))
        self.lines.extend(lines)

    def create(self, lines: Sequence[bytes], *, refused: Sequence[bytes] = ()) -> None:
        if self.lines:
            raise InputError(f"{self.name}: a log already exists here")
        self.lines.extend(lines)
        self.refusals.extend(msgspec.json.decode(line, type=Refused) for line in refused)

    def note_refusal(self, refused: Refused) -> None:
        self.refusals.append(refused)

    def kept_tip(self) -> tuple[int, str] | None:
        """Lines in memory have no outside to keep a tip in."""
        return None

    def refused(self) -> list[Refused]:
        return list(self.refusals)

    def refused_lines(self) -> list[bytes]:
        return [_encoder.encode(r) for r in self.refusals]


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


class JsonlStore:
    """A JSON Lines file. Appends whole batches at the end; never rewrites a byte.

    Writers take an exclusive lock on the file for each append and check that it
    still ends where they last saw it end (else ConflictError); readers take a
    shared lock, so a reader never sees half a batch being written.
    """

    versioned = True

    def __init__(
        self, path: str | Path, *, durable: bool = True, warn: Warn | None = None, heal: bool = False
    ) -> None:
        self.path = Path(path)
        self.name = str(self.path)
        self.durable = durable
        self.warn = warn  # told of a torn tail: when it is cut, or when the whole batches open read-only
        # heal: cut a crash's unfinished batch (a torn line, a batch short of its records) the moment it
        # is seen, keeping the cut bytes in LOG.torn-<time>. Safe: a writer holds the exclusive lock for
        # its whole write, so a tail seen under a lock was left by a writer that died; it was never
        # acknowledged. Off, the tail is an error naming its byte, as before (repair, verify look at it).
        self.heal = heal
        self._mark: tuple[int, int] | None = None  # (lines, bytes) of the file as this store last saw it
        self._tip_key: bytes | None = None  # the key its tip is kept with (`tip_key`), once line 1 was read

    def exists(self) -> bool:
        return self.path.exists()

    def _opened(self, flags: int, mode: str) -> IO[bytes]:
        """The log file, opened with os.open flags; a missing file or a folder is an InputError."""
        try:
            fd = os.open(self.path, flags, 0o666)
        except FileNotFoundError:
            raise InputError(f"{self.path}: no such log file") from None
        except IsADirectoryError:
            raise InputError(f"{self.path}: is a folder, not a log file") from None
        except PermissionError:
            if flags & (os.O_WRONLY | os.O_RDWR):
                raise InputError(
                    f"{self.path}: the log is read-only for you (permission denied); nothing was appended"
                ) from None
            raise InputError(f"{self.path}: permission denied: you may not read this log") from None
        if stat.S_ISDIR(os.fstat(fd).st_mode):  # Linux opens a folder for reading; reading it fails later
            os.close(fd)
            raise InputError(f"{self.path}: is a folder, not a log file")
        return os.fdopen(fd, mode)

    # --- reading ---------------------------------------------------------------

    def _load(self, start: int) -> tuple[bytes, int, int]:
        """The file's bytes after line `start`, with the byte and line they begin at."""
        import fcntl  # a JSONL log's lock: SQLite stores (the default) never load it

        with self._opened(os.O_RDONLY, "rb") as fh:
            fcntl.flock(fh, fcntl.LOCK_SH)
            if start and self._mark is not None and self._mark[0] == start:
                fh.seek(self._mark[1] - 1)  # still a line's end? else the file was replaced: read it all
                if fh.read(1) == b"\n":
                    return fh.read(), self._mark[1], start
                fh.seek(0)
            return fh.read(), 0, 0

    def committed(self, start: int = 0) -> tuple[list[bytes], TornTail | None]:
        """The whole lines after the first `start`, and the torn tail after them if there is one.

        With `heal`, a crash's unfinished batch is cut first (see `cut_crash_tail`).
        """
        lines, torn = self._committed(start)
        if self.heal and (torn is not None or _short_batch(lines)) and self._heal():
            lines, torn = self._committed(start)
        return lines, torn

    def _committed(self, start: int) -> tuple[list[bytes], TornTail | None]:
        data, base, at_line = self._load(start)
        end = len(data) if data.endswith(b"\n") else data.rfind(b"\n") + 1
        whole = data[:end].split(b"\n")[:-1] if end else []
        if b"\r\n" in data:  # a log whose newlines an editor turned into CRLF still reads
            whole = [line[:-1] if line.endswith(b"\r") else line for line in whole]
        count = at_line + len(whole)  # whole lines in the file
        lines = whole[max(0, start - at_line) :]
        self._mark = (count, base + end)
        if end == len(data):
            return lines, None
        offset, size = base + end, base + len(data)
        torn = TornTail(
            f"{self.path}: the last line is torn: the {size - offset} bytes from byte {offset} have no "
            f"newline (the log was cut mid-write); the {count} whole lines before byte {offset} are "
            f"intact and open read-only (`tabletrail repair {self.path} --dry-run` shows them); "
            f"`tabletrail repair {self.path}` cuts the torn tail and keeps a backup",
            offset,
            size,
            lines,
        )
        return lines, torn

    def read(self, start: int = 0) -> Iterator[bytes]:
        """The lines after the first `start`; a torn last line is an error naming its byte offset."""
        lines, torn = self.committed(start)
        if torn is not None:
            if start == 0 and lines:  # a file that is no log at all says so, rather than "torn"
                decode(lines[0], f"{self.path}:1")
            raise torn
        return iter(lines)

    def version(self) -> int:
        data, _, _ = self._load(0)
        return data.count(b"\n")

    # --- writing ---------------------------------------------------------------

    def append(self, lines: Sequence[bytes], *, expected: int | None = None) -> None:
        """Append one batch; with `expected`, only if the log is still at that version."""
        import fcntl

        blob = b"".join(line + b"\n" for line in lines)
        flags = os.O_WRONLY | os.O_APPEND | (os.O_CREAT if expected is None else 0)
        with self._opened(flags, "ab") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            size = os.fstat(fh.fileno()).st_size
            if expected is not None:
                self._check(fh.fileno(), size, expected)
                size = os.fstat(fh.fileno()).st_size  # a crash's tail may have been cut
            key = self._key(lines[0] if size == 0 and lines else None)  # before a byte is written
            fh.write(blob)
            fh.flush()
            if self.durable:
                os.fsync(fh.fileno())
            if expected is not None:
                self._mark = (expected + len(lines), size + len(blob))
                version = expected + len(lines)
            else:
                self._mark = None
                version = self.path.read_bytes().count(b"\n")  # no flock: we hold the writer's lock
            if lines:
                self._keep_tip(version, lines[-1], key)  # still under the lock: tips are kept in log order

    def _check(self, fd: int, size: int, expected: int) -> None:
        """Under the writer's lock: is the file still at version `expected`?"""
        if self._mark == (expected, size):
            return
        data = self.path.read_bytes()
        if self.heal and data and not data.endswith(b"\n"):
            data = data[: self._cut(fd, data)]
        if data and not data.endswith(b"\n"):
            cut = data.rfind(b"\n") + 1
            raise TornTail(
                f"{self.path}: the last line is torn (no newline after byte {cut}); nothing was "
                f"appended: run `tabletrail repair {self.path}` first",
                cut,
                len(data),
                [],
            )
        actual = data.count(b"\n")
        if actual != expected:
            raise VersionConflict(str(self.path), expected, actual)

    def create(self, lines: Sequence[bytes], *, refused: Sequence[bytes] = ()) -> None:
        """Start a new log; refuses to overwrite an existing file.

        The lines are written to a temporary file first and linked into place when
        whole, so a crash or an error half-way never leaves a partial log behind.
        """
        import tempfile  # only a new JSONL log needs it

        blob = b"".join(line + b"\n" for line in lines)
        key = tip_key(lines[0], f"{self.path}: line 1") if lines else b""
        if self.path.is_dir():
            raise InputError(f"{self.path}: is a folder, not a log file")
        if self.path.exists():
            raise InputError(f"{self.path}: a log already exists here; pick another name")
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".new", dir=self.path.parent)
        except FileNotFoundError:
            raise InputError(f"{self.path}: no such folder to create the log in") from None
        except PermissionError:
            raise InputError(f"{self.path}: permission denied: cannot create the log here") from None
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(blob)
                fh.flush()
                if self.durable:
                    os.fsync(fh.fileno())
            os.chmod(tmp, 0o666 & ~_UMASK)  # as open() would have made it, not mkstemp's 0o600
            os.link(tmp, self.path)  # fails if another writer created the log meanwhile: never overwrites
        except FileExistsError:
            raise InputError(f"{self.path}: a log already exists here; pick another name") from None
        finally:
            os.unlink(tmp)
        if lines:
            self._tip_key = key
            self._keep_tip(len(lines), lines[-1], key)
        self._mark = (len(lines), len(blob))
        if refused:
            with open(self.side_path, "wb") as fh:
                fh.write(b"".join(line + b"\n" for line in refused))
                if self.durable:
                    os.fsync(fh.fileno())
        if self.durable:
            fsync_folder(self.path)

    # --- the tip, kept beside the log ------------------------------------------------

    @property
    def tip_path(self) -> Path:
        return self.path.with_name(self.path.name + ".tip")

    def _keep_tip(self, version: int, last_line: bytes, key: bytes) -> None:
        """Write LOG.tip whole (a temporary file renamed over it) after the batch is durable.

        A crash between the two leaves the tip whole batches behind, which `verify`
        tells for a crash, not an edit (`lagging_batch`), and the next append or
        `repair` moves it; an unwritable folder leaves the log without a
        kept tip, which `verify` warns about. Neither stops the append, already
        durable. A keyed log's tip is keyed like its chain (`key`, from `tip_key`).
        """
        tmp = self.tip_path.with_name(self.tip_path.name + ".new")
        try:
            with open(tmp, "w", encoding="ascii") as fh:
                fh.write(tip_text(version, last_line, key) + "\n")
                fh.flush()
                if self.durable:
                    os.fsync(fh.fileno())
            os.replace(tmp, self.tip_path)
        except OSError:
            with contextlib.suppress(OSError):
                tmp.unlink()

    def _key(self, first_line: bytes | None) -> bytes:
        """The key of this log's tip, read off line 1 (given, or read from the file once)."""
        if self._tip_key is None:
            if first_line is None:
                with self._opened(os.O_RDONLY, "rb") as fh:
                    first_line = fh.readline().rstrip(b"\r\n")
            self._tip_key = tip_key(first_line, f"{self.path}:1")
        return self._tip_key

    def kept_tip(self) -> tuple[int, str] | None:
        """The tip LOG.tip holds, or None when there is no such file (an older log, a copied one)."""
        try:
            return parse_tip(self.tip_path.read_text(encoding="ascii", errors="replace"))
        except OSError:
            return None

    # --- the refusal side log ----------------------------------------------------

    @property
    def side_path(self) -> Path:
        return self.path.with_name(self.path.name + ".refused")

    def note_refusal(self, refused: Refused) -> None:
        """Append to the side log next to the log file (LOG.refused).

        A side log that cannot be written (a read-only folder, a folder by that
        name) must not hide the refusal itself: with `warn`, it is told and the
        refusal goes on to the player; without, it is an InputError.
        """
        try:
            with open(self.side_path, "ab") as fh:
                fh.write(_encoder.encode(refused) + b"\n")
        except OSError as exc:
            unkept(self.warn, self.side_path, exc.strerror or str(exc))

    def refused_lines(self) -> list[bytes]:
        try:
            data = self.side_path.read_bytes()
        except FileNotFoundError:
            return []
        lines = data.split(b"\n")
        return lines[:-1] if lines[-1] == b"" else lines

    def refused(self) -> list[Refused]:
        return decode_refusals(self.refused_lines(), lambda n: f"{self.side_path}:{n}")

    # --- after a crash -------------------------------------------------------------

    def _heal(self) -> bool:
        """Cut a crash's unfinished batch under the writer's lock; False when there is none or it can't."""
        import fcntl

        try:
            with open(self.path, "rb+") as fh:
                fcntl.flock(fh, fcntl.LOCK_EX)
                data = fh.read()
                return self._cut(fh.fileno(), data) < len(data)
        except OSError:
            return False  # read-only for this user: the tail stays an error, and the prefix opens read-only

    def _cut(self, fd: int, data: bytes) -> int:
        """Truncate the open log `fd` (holding `data`, under LOCK_EX) after its last whole batch.

        Returns where the file now ends. The cut bytes go to LOG.torn-<time> first,
        and `warn` is told once. Nothing is cut when the damage is not a crash's
        (blank lines an editor left, no whole batch at all): `repair` is for those.
        """
        found = cut_crash_tail(data)
        if found is None:
            return len(data)
        end, what = found
        kept = data[:end].split(b"\n")
        try:  # only a log is healed: a file that is no log at all is left as it is, and named
            first, last = decode(kept[0], f"{self.path}:1"), decode(kept[-2], f"{self.path}:{len(kept) - 1}")
        except InputError:
            return len(data)
        if type(first.event) is not EncounterStarted or last.seq != len(kept) - 1:
            return len(data)
        # Whole lines of a batch the kept tip counts were acknowledged: a crash (which tears a line, or
        # stops before the tip moves) did not leave them short; a hand did. That is for verify and repair.
        tip = self.kept_tip()
        if tip is not None and tip[0] > last.seq and data.endswith(b"\n"):
            return len(data)
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        keep = _free_name(self.path.with_name(f"{self.path.name}.torn-{stamp}"))
        try:
            with open(keep, "xb") as out:
                out.write(data[end:])
                out.flush()
                os.fsync(out.fileno())
            os.ftruncate(fd, end)
            os.fsync(fd)
        except OSError:
            keep.unlink(missing_ok=True)
            return len(data)
        self._mark = None
        if self.warn is not None:
            self.warn(
                f"{self.path}: a crash left {what} after byte {end}, never acknowledged: cut, and kept in "
                f"{keep.name}; the log ends with its last whole batch"
            )
        return end

    def _move_tip(self) -> str:
        """Move a tip a crash left whole batches behind (see `lagging_batch`) to the log's end.

        Says what it did, or "" when the tip is not behind in that way (then it is
        left alone: a tip that disagrees otherwise is for `verify` to report).
        """
        import fcntl

        with self._opened(os.O_RDONLY, "rb") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)  # no writer between reading the log and moving its tip
            lines = fh.read().splitlines()
            tip = self.kept_tip()
            lag = lagging_batch(lines, tip[0]) if tip is not None and lines else None
            if tip is None or lag is None:
                return ""
            key = self._key(lines[0])
            if tip[1] != tip_hash(lines[tip[0] - 1], key):  # a tip this log's writers keep, else not a crash
                return ""
            self._keep_tip(len(lines), lines[-1], key)
        return (
            f"{self.tip_path}: the tip was behind the log (lines {lag[0]}-{lag[1]}, whole batches, were "
            "written and the tip not yet moved: a crash between the two, not an edit); it now names the "
            "log's last line"
        )

    def damage(self) -> tuple[int, int, str] | None:
        """What a crash left at the end: (first byte to cut, file size, what it is), or None.

        Three things can follow the last whole batch: blank lines (an editor's),
        a torn line (no newline), and whole lines of a batch whose first record
        says it holds more.
        """
        lines, torn = self.committed()
        assert self._mark is not None
        end = self._mark[1]  # the byte after the last whole line
        size = torn.size if torn else end
        what = f"a torn line of {size - end} bytes" if torn else ""
        blank = 0
        while lines and not lines[-1].strip():  # an editor's blank lines at the end: no record lost
            lines.pop()
            blank += 1
        if blank:
            data = self.path.read_bytes()
            for _ in range(blank):
                end = data.rfind(b"\n", 0, end - 1) + 1
            part = f"{blank} blank line{'s' if blank != 1 else ''} at the end"
            what = f"{part} and {what}" if what else part
        if lines:
            last = len(lines) - 1
            batch = decode(lines[last], f"{self.path}:{last + 1}").batch
            first = last
            while first > 0 and decode(lines[first - 1], f"{self.path}:{first}").batch == batch:
                first -= 1
            head = decode(lines[first], f"{self.path}:{first + 1}")
            held = last - first + 1
            if head.size and held < head.size:
                data = self.path.read_bytes()
                for _ in range(held):  # back to the start of the batch's first line
                    end = data.rfind(b"\n", 0, end - 1) + 1
                part = f"batch {batch} with {held} of its {head.size} records (from line {first + 1})"
                what = f"{part} and {what}" if what else part
        return (end, size, what) if what else None

    def repair(self) -> str:
        """Cut what a crash left after the last whole batch, after copying the file to a backup."""
        import fcntl
        import shutil  # only a repair copies a file

        found = self.damage()
        if found is None:
            return self._move_tip() or f"nothing to repair: {self.path} ends with a whole batch"
        end, size, what = found
        if end == 0:
            raise InputError(
                f"{self.path}: no whole batch comes before {what}: there is nothing to keep "
                "(is it a log at all?); nothing was cut"
            )
        backup = _free_name(self.path.with_name(self.path.name + ".bak"))
        shutil.copyfile(self.path, backup)
        with open(backup, "rb+") as fh:
            os.fsync(fh.fileno())
        with open(self.path, "rb+") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            if os.fstat(fh.fileno()).st_size != size:
                raise InputError(f"{self.path}: the log changed while it was being repaired; nothing was cut")
            fh.truncate(end)
            os.fsync(fh.fileno())
        self._mark = None
        return (
            f"cut {size - end} bytes from byte {end} of {self.path}: {what}; "
            f"the whole file was first copied to {backup}"
        )


class _Head(msgspec.Struct):
    """The two fields of a record that say where a batch starts and how long it is."""

    batch: int = 0
    size: int = 0


_head = msgspec.json.Decoder(_Head)


def _batch_of(line: bytes) -> _Head | None:
    try:
        return _head.decode(line)
    except (msgspec.DecodeError, RecursionError):
        return None


def _short_batch(lines: list[bytes]) -> bool:
    """Do the last whole lines hold a batch shorter than its first record announces?"""
    if not lines:
        return False
    last = _batch_of(lines[-1])
    if last is None or not last.batch:
        return False
    for held, line in enumerate(reversed(lines), start=1):
        head = _batch_of(line)
        if head is None or head.batch != last.batch:
            return False  # the batch's first line is before these lines: it was whole when read
        if head.size:
            return held < head.size
    return False


def cut_crash_tail(data: bytes) -> tuple[int, str] | None:
    """Where a log's last whole batch ends and what follows it, when a crash left it; else None.

    A crash leaves a torn line (no newline) and/or whole lines of a batch short
    of the records its first line announces. Blank lines (an editor's) or a
    file with no whole batch at all are not a crash's doing: None.
    """
    end = data.rfind(b"\n") + 1
    what = f"a torn line of {len(data) - end} bytes" if end < len(data) else ""
    lines = data[:end].split(b"\n")[:-1]
    if lines and not lines[-1].strip():
        return None
    if _short_batch(lines):
        last = _batch_of(lines[-1])
        assert last is not None
        held = 0
        while lines and (_batch_of(lines[-1]) or _Head()).batch == last.batch:
            end -= len(lines.pop()) + 1
            held += 1
        part = f"{held} record{'s' if held != 1 else ''} of batch {last.batch}"
        what = f"{part} and {what}" if what else part
    if not what or end == 0:
        return None
    return end, what


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _umask()  # read once, at import: os.umask is process-wide and not safe to flip in threads


def _free_name(path: Path) -> Path:
    """`path`, or path.2, path.3… if it is taken: a backup never overwrites an older one."""
    n = 1
    candidate = path
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.name}.{n}")
    return candidate


def batch_lines(
    events: Sequence[Event],
    *,
    seq: int,
    batch: int,
    prev: str,
    actor: str,
    at: str,
    command_id: str | None = None,
    key: bytes = b"",
) -> list[bytes]:
    """One batch's events as log lines after record `seq` (whose line hashes to `prev`).

    The first record announces the batch's size and carries its command id, so a
    reader can tell a batch cut short; every line carries the hash of the one before
    (keyed by the table's secret when the log's chain is: line 1 then says so).
    """
    lines = []
    for n, event in enumerate(events):
        head = n == 0
        record = Record(
            seq=seq + 1 + n,
            batch=batch,
            actor=actor,
            at=at,
            prev=prev,
            event=event,
            size=len(events) if head else 0,
            command_id=command_id if head else None,
            schema=SCHEMA_VERSION,
            keyed=key_check(key) if key and seq + n == 0 else "",
        )
        line = encode(record)
        prev = line_hash(line, key)
        lines.append(line)
    return lines


class Store(Protocol):
    """What the encounter needs of a store: MemoryStore, JsonlStore, SqliteStore, or your own."""

    name: str

    def read(self, start: int = 0) -> Iterator[bytes]: ...

    def append(self, lines: Sequence[bytes]) -> None: ...


class VersionedStore(Store, Protocol):
    """A store whose append takes the version its writer saw (`versioned = True`): every store shipped."""

    versioned: bool

    def append(self, lines: Sequence[bytes], *, expected: int | None = None) -> None: ...


class SnapshotStore(Store, Protocol):
    """A store that keeps snapshots and reads any window of versions: the database stores."""

    @property
    def snapshot_every(self) -> int: ...

    def read(self, start: int = 0, stop: int | None = None) -> Iterator[bytes]: ...

    def latest_snapshot(self, fmt: int, upto: int | None = None) -> tuple[int, bytes] | None: ...

    def save_snapshots(self, fmt: int, snapshots: Sequence[tuple[int, bytes]]) -> None: ...


def is_versioned(store: Store) -> TypeGuard[VersionedStore]:
    """Does this store's append check the version (it says so: `versioned = True`)?"""
    return bool(getattr(store, "versioned", False))


def keeps_snapshots(store: Store) -> TypeGuard[SnapshotStore]:
    """Does this store keep snapshots (it has `latest_snapshot`)? Then it reads windows of versions too."""
    return getattr(store, "latest_snapshot", None) is not None


def read_records(store: Store) -> Iterator[Record]:
    """Every record in order, checked for sequence and batch order as it goes."""
    expected_prev = ""
    key = b""
    for lineno, line in enumerate(store.read(), start=1):
        where = f"{store.name}:{lineno}"
        record = decode(line, where)
        if record.seq != lineno:
            raise InputError(f"{where}: seq is {record.seq}, expected {lineno}")
        if lineno == 1:
            if not isinstance(record.event, EncounterStarted):
                raise InputError(f"{where}: a log must start with an encounter-started event")
            key = chain_key(record, where)
        if record.prev != expected_prev:
            raise InputError(f"{where}: {chain_broken(lineno)}")
        expected_prev = line_hash(line, key)
        yield record


__all__ = [
    "SCHEMA_VERSION",
    "DuplicateCommand",
    "JsonlStore",
    "MemoryStore",
    "Record",
    "Refused",
    "SnapshotStore",
    "Store",
    "TornTail",
    "VersionedStore",
    "VersionConflict",
    "batch_lines",
    "decode",
    "decode_many",
    "encode",
    "line_hash",
    "tip_hash",
    "chain_key",
    "key_check",
    "table_key",
    "now",
    "read_records",
    "is_versioned",
    "keeps_snapshots",
]

"""`JsonlStore`: a log in a JSON Lines file, the interchange format. Whole batches appended under a
lock, never a byte rewritten; the refusal side log, the kept tip and the snapshots beside it; a
crash's torn tail cut by `repair`, a backup kept.

The store is what this module holds; it leans on three helpers beside it: the snapshots sidecar
LOG.snapshots (`jsonl_snapshots`), lines found by byte offset without splitting the file
(`line_seek`), and batches and command ids found without decoding an event (`jsonl_batches`).
"""

import contextlib
import mmap
import os
import stat
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

import msgspec
from tabletrail.events.errors import InputError
from tabletrail.events.stores.chain import parse_tip, tip_hash, tip_key, tip_text
from tabletrail.events.stores.conflicts import VersionConflict
from tabletrail.events.stores.db_store import DEFAULT_SNAPSHOT_EVERY
from tabletrail.events.stores.file_mode import NEW_FILE_MODE
from tabletrail.events.stores.jsonl_batches import CommandIds, span_back, span_forward
from tabletrail.events.stores.jsonl_snapshots import (
    KEPT_SNAPSHOTS,
    NOTHING,
    Kept,
    Sidecar,
    entry,
    fits,
    unsealed,
    version_of,
    write_sidecar,
)
from tabletrail.events.stores.line_seek import LineBoundaries
from tabletrail.events.stores.record import decode
from tabletrail.events.stores.refusals import Refused, Warn, decode_refusals, unkept
from tabletrail.events.stores.tail import TornTail, cut_crash_tail, lagging_batch, short_batch
from tabletrail.events.types import EncounterStarted

_encoder = msgspec.json.Encoder()


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


class JsonlStore:
    """A JSON Lines file. Appends whole batches at the end; never rewrites a byte.

    Writers take an exclusive lock on the file for each append and check that it
    still ends where they last saw it end (else ConflictError); readers take a
    shared lock, so a reader never sees half a batch being written.
    """

    versioned = True

    def __init__(
        self,
        path: str | Path,
        *,
        durable: bool = True,
        warn: Warn | None = None,
        heal: bool = False,
        snapshot_every: int | None = None,
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
        self._every = snapshot_every  # None: the interval LOG.snapshots keeps, else the default
        self._kept_every: int | None = None  # that interval (0: none said), once the sidecar was read
        self._lines = LineBoundaries()  # where lines start, learnt from fitting snapshots and scans
        self._anchors: dict[int, tuple[int, int]] = {}  # snapshot version -> (its batch, its end byte)
        self._ids = CommandIds()  # the log's command ids, read once, then only what was appended

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
            line, byte = self._lines.nearest(fh, start, self._mark)  # a snapshot's or the last read's end
            fh.seek(byte)
            return fh.read(), byte, line

    def _window(self, start: int, stop: int) -> list[bytes]:
        """Lines start+1..stop, from the nearest known boundary, counted without splitting the file."""
        import fcntl

        if stop <= start:
            return []
        with self._opened(os.O_RDONLY, "rb") as fh:
            fcntl.flock(fh, fcntl.LOCK_SH)
            return self._lines.window(fh, start, stop, self._mark)

    def committed(self, start: int = 0) -> tuple[list[bytes], TornTail | None]:
        """The whole lines after the first `start`, and the torn tail after them if there is one.

        With `heal`, a crash's unfinished batch is cut first (see `cut_crash_tail`).
        """
        lines, torn = self._committed(start)
        if self.heal and (torn is not None or short_batch(lines)) and self._heal():
            lines, torn = self._committed(start)
        return lines, torn

    def _committed(self, start: int) -> tuple[list[bytes], TornTail | None]:
        data, base, at_line = self._load(start)
        end = len(data) if data.endswith(b"\n") else data.rfind(b"\n") + 1
        whole = data.split(b"\n")  # the bytes split once, in place: no copy of the file or of the list
        del whole[-1]  # what follows the last newline: nothing, or a torn line
        if b"\r\n" in data:  # a log whose newlines an editor turned into CRLF still reads
            whole = [line[:-1] if line.endswith(b"\r") else line for line in whole]
        count = at_line + len(whole)  # whole lines in the file
        lines = whole if start <= at_line else whole[start - at_line :]
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

    def read(self, start: int = 0, stop: int | None = None) -> Iterator[bytes]:
        """The lines after the first `start` (up to line `stop`); a torn last line is an error naming its
        byte offset. A window (`stop` given) holds whole lines only and never looks past them."""
        if stop is not None:
            return iter(self._window(start, stop))
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
            os.chmod(tmp, NEW_FILE_MODE)  # as open() would have made it, not mkstemp's 0o600
            os.link(tmp, self.path)  # fails if another writer created the log meanwhile: never overwrites
        except FileExistsError:
            raise InputError(f"{self.path}: a log already exists here; pick another name") from None
        finally:
            os.unlink(tmp)
        if lines:
            self._tip_key = key
        # A sidecar left by an earlier log of this name is none of this one's, nor is its interval.
        self._kept_every = None
        self._drop_snapshots(self._every or 0)
        if lines:
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

    # --- snapshots, kept beside the log ----------------------------------------------

    @property
    def snapshot_every(self) -> int:
        """Events between snapshots (0: none are saved): the constructor's choice, else the one LOG.snapshots
        keeps (an export's `--snapshot-every`, kept as a database keeps it), else the default."""
        if self._every is not None:
            return self._every
        if self._kept_every is None:
            self._sidecar()
        return self._kept_every or DEFAULT_SNAPSHOT_EVERY

    @property
    def snapshots_path(self) -> Path:
        return self.path.with_name(self.path.name + ".snapshots")

    def latest_snapshot(self, fmt: int, upto: int | None = None) -> tuple[int, bytes] | None:
        """The newest kept snapshot in this format at or before version `upto` that still fits the log.

        Fitting, its offsets are learnt: `read(version)` then seeks to the tail.
        """
        wanted = [k for k in self._kept() if k.fmt == fmt and (upto is None or k.version <= upto)]
        found = self._fitting(sorted(wanted, key=version_of, reverse=True), first=True)
        return (found[0].version, found[0].data) if found else None

    def snapshots(self, fmt: int) -> list[tuple[int, bytes]]:
        """Every kept snapshot in this format that fits the log, oldest first (`verify` checks each)."""
        wanted = sorted((k for k in self._kept() if k.fmt == fmt), key=version_of)
        return [(k.version, k.data) for k in self._fitting(wanted)]

    def save_snapshots(self, fmt: int, snapshots: Sequence[tuple[int, bytes]]) -> None:
        """Keep these snapshots with those already kept that still fit, the newest KEPT_SNAPSHOTS of them.

        A snapshot of a version the log does not hold (or one cut since) is left out. The file is
        written whole and renamed over the old one, so a reader sees one or the other; a folder that
        can't be written keeps no snapshots, silently, as a cache may.
        """
        import fcntl

        given = dict(snapshots)
        if not given:
            return
        newest = sorted(given)[-KEPT_SNAPSHOTS:]
        try:
            with self._opened(os.O_RDONLY, "rb") as fh:
                fcntl.flock(fh, fcntl.LOCK_SH)  # the offsets are taken with no writer half-way
                old = [k for k in self._kept() if k.fmt == fmt and k.version not in given]
                kept = self._fitting(old, fh=fh)
                for version, (begin, line) in self._lines.lines_at(fh, newest, self._mark).items():
                    new = entry(fmt, version, begin, line, given[version])
                    if new is not None:
                        kept.append(new)
                key = self._key(None)
        except InputError:
            return  # no log to keep them for, or its key is not at hand: the fold says what is wrong
        kept = sorted(kept, key=version_of)[-KEPT_SNAPSHOTS:]
        if kept:
            write_sidecar(self.snapshots_path, Sidecar(self.snapshot_every, kept), key)
        else:
            self._drop_snapshots(self.snapshot_every)

    def batch_span(self, batch: int) -> tuple[int, int] | None:
        """The first and last version of a batch, if the log holds it.

        Read back from the kept snapshot nearest after it (undo reaches back a batch at a time, so
        most are a few lines back), else forward from line 1.
        """
        import fcntl

        with self._opened(os.O_RDONLY, "rb") as fh:
            fcntl.flock(fh, fcntl.LOCK_SH)
            after = [(b, v) for v, (b, _) in self._anchors.items() if b >= batch]
            if after:
                version = min(after)[1]
                span = span_back(fh, batch, version, self._anchors[version][1])
                if span is not None:
                    return span or None
            return span_forward(fh, batch)

    def find_command(self, command_id: str) -> tuple[int, int] | None:
        """The first and last version of the batch this command id appended, if any.

        An encounter opened from a snapshot holds only the ids after it; a retried id from before is
        found here. The ids are gathered once from the lines that carry one (the bytes searched, each
        such line decoded), then only from what was appended since: the file is read whole once per
        store, not once per command.
        """
        import fcntl

        with self._opened(os.O_RDONLY, "rb") as fh:
            fcntl.flock(fh, fcntl.LOCK_SH)
            size = os.fstat(fh.fileno()).st_size
            if size == 0:
                return None
            with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
                self._ids.gather(data, os.fstat(fh.fileno()).st_ino)
            found = self._ids.ids.get(command_id)
            if found is None:
                return None
            seq, batch, held = found
            if held:
                return seq, seq + held - 1
            return span_forward(fh, batch) or (seq, seq)  # an older line that did not say its size

    def _kept(self) -> list[Kept]:
        """The snapshots LOG.snapshots holds as written; [] when it is missing, damaged, or not sealed
        with this log's key (`unsealed`)."""
        return self._sidecar().kept

    def _sidecar(self) -> Sidecar:
        """LOG.snapshots as written (NOTHING when missing, damaged or not sealed with this log's key);
        the interval it keeps is learnt for `snapshot_every`."""
        try:
            data = self.snapshots_path.read_bytes()
            key = self._key(None)
        except (OSError, InputError):
            found = NOTHING
        else:
            found = unsealed(data, key)
        self._kept_every = max(found.every, 0)
        return found

    def _fitting(
        self, kept: Sequence[Kept], *, first: bool = False, fh: IO[bytes] | None = None
    ) -> list[Kept]:
        """The snapshots whose line still sits at its bytes, whole, with its digest, number and batch
        (with `first`, only the first that does). Each that fits teaches this store where its line
        starts and ends. Read under a shared lock of the log; no log, no snapshot."""
        import fcntl

        if not kept:
            return []
        if fh is None:
            try:
                with self._opened(os.O_RDONLY, "rb") as own:
                    fcntl.flock(own, fcntl.LOCK_SH)
                    return self._fitting(kept, first=first, fh=own)
            except InputError:
                return []
        size = os.fstat(fh.fileno()).st_size
        out: list[Kept] = []
        for k in kept:
            if fits(fh, k, size):
                self._lines.learn(k.version, k.begin, k.end)
                self._anchors[k.version] = (k.batch, k.end)
                out.append(k)
                if first:
                    break
        return out

    def _drop_snapshots(self, every: int) -> None:
        """Remove the snapshots: the log was cut or started anew here, so none of them may be offered.
        An interval `every` other than the default stays in a sidecar of no snapshot; else it goes."""
        self._forget()
        with contextlib.suppress(OSError):
            self.snapshots_path.unlink()  # first: one that could not be written anew is gone all the same
        if every > 0 and every != DEFAULT_SNAPSHOT_EVERY:
            with contextlib.suppress(InputError):  # no log line to seal it with: nothing to keep it for
                write_sidecar(self.snapshots_path, Sidecar(every, []), self._key(None))

    def _forget(self) -> None:
        """Forget the line boundaries learnt: the file was cut, so later ones may name other lines."""
        self._lines.forget()
        self._anchors.clear()

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
        self._forget()  # the sidecar stays: each snapshot is checked against the lines left before use
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
        self._drop_snapshots(self.snapshot_every)  # none may speak for lines cut; the next command keeps one
        return (
            f"cut {size - end} bytes from byte {end} of {self.path}: {what}; "
            f"the whole file was first copied to {backup}"
        )


def _free_name(path: Path) -> Path:
    """`path`, or path.2, path.3… if it is taken: a backup never overwrites an older one."""
    n = 1
    candidate = path
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.name}.{n}")
    return candidate

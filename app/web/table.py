"""One encounter log shared by every screen of the table view: folded in memory, written under a lock.

The log on disk stays the source of truth. `Table` keeps the encounter folded
and folds in what others appended (another screen's server, or `tabletrail do`
in a terminal) before answering; every write happens under one lock and carries
the version (record count) its page saw, so two GMs clicking at once can't both
act on a board one of them no longer sees: the second is Stale (a 409).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from tabletrail.core.board.refusal import Rejection
from tabletrail.events.commands import Command
from tabletrail.events.errors import ConflictError, InputError
from tabletrail.events.picture import MAX_PICTURE_BYTES, PictureSpec
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.protocol import Store
from tabletrail.events.stores.record import Record
from tabletrail.service.encounter import Encounter
from tabletrail.service.stores import store_for
from tabletrail.web.invites import HeardKeep, Invites, encounter_key, keep_for

if TYPE_CHECKING:
    from tabletrail.web.live import Heard  # needs psycopg: only hosted tables have one


class Stale(Exception):
    """A write based on a version of the log that is no longer the latest."""

    def __init__(self, seen: int, now: int) -> None:
        super().__init__(f"stale version {seen}, the log is at {now}")
        self.seen = seen
        self.now = now


class Encoded(NamedTuple):
    """The key of what a table encodes once a version: what it is (BOARD, EVENTS…) and for which side.

    A tuple, never one string glued from the two: a side is named by the scenario, and a side named
    "events<TAB>gm" must not find the GM's event list under its own name."""

    kind: str
    role: str
    part: tuple[int, ...] = ()  # which part of it: the event list's changes since a version, or one page


BOARD, EVENTS, EVENTS_GZ = "board", "events", "events.gz"
# A part (`Encoded.part`) is kept for the table's other pages only while small and few: a page may ask
# for the changes since any version, and those since version 1 are nearly the whole list.
PARTS_KEPT, PART_BYTES = 16, 64 * 1024


class Hold:
    """The table's re-entrant lock, which remembers whether the log was looked at during this hold.

    A request holds it for its whole answer and may ask for the live encounter several
    times (a POST: its version, the command's check, the write, the answer); the log is
    looked at once a hold, so a hosted table asks its database once and the request
    sees one version throughout. A write made meanwhile elsewhere is still caught:
    the append carries the version it was decided on.
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self.depth = 0  # how many times the holder has entered
        self.looked = False  # the log was looked at since the outermost enter

    def __enter__(self) -> Hold:
        self._lock.acquire()
        self.depth += 1
        if self.depth == 1:
            self.looked = False
        return self

    def __exit__(self, *exc: object) -> None:
        self.depth -= 1
        self._lock.release()


class Table:
    """One encounter log shared by every screen: read when it changes, written under a lock."""

    def __init__(self, path: str | Path, store: Store | None = None, heard: Heard | None = None) -> None:
        self.path = Path(path)
        self.served = self.path  # the log `serve` was given: the Foundry bridge may play another (switch)
        self.store = store if store is not None else store_for(str(path))
        self.lock = Hold()
        self._enc: Encounter | None = None
        self._mark: tuple[int, ...] | None = None
        self.closing = threading.Event()  # set when the server stops: live streams end cleanly
        self.live()  # a missing or broken log is an error now, not at the first click
        keep = keep_for(path, self.store)
        if heard is not None:  # the listener says when another worker made or revoked a link
            keep = HeardKeep(keep, heard.links_mark)
        self.invites = Invites(keep, encounter_key(self.store))
        # What encoded_once made: for which encounter and version, and per key; one tuple, replaced whole,
        # so `encoded_at` can read it without the lock.
        self._encoded: tuple[Encounter | None, int, dict[Encoded, bytes]] = (None, -1, {})
        self._pictures: dict[str, tuple[Path, int, int]] = {}  # sha256 -> the file found, its size, mtime

    def switch(self, path: Path) -> None:
        """Play another log from now on (the Foundry bridge's scene): what was read and encoded of the
        old one is dropped; the links, kept with the log `serve` was given, stay valid."""
        with self.lock:
            self.path = path
            self.store = store_for(str(path))
            self._enc = None
            self._mark = None
            self._encoded = (None, -1, {})
            self.live()

    def picture_file(self, spec: PictureSpec) -> Path | None:
        """The battle-map picture the scenario pinned: at the path kept in the log, else by its name
        beside the log (a log and its picture copied to another machine). Only a file whose sha256
        is the one in the log is served; a found file is hashed again only once it changes."""
        if not spec.sha256:
            return None
        known = self._pictures.get(spec.sha256)
        if known is not None:
            path, size, mtime = known
            with contextlib.suppress(OSError):
                st = path.stat()
                if (st.st_size, st.st_mtime_ns) == (size, mtime):
                    return path
        beside = (
            [self.path.parent / spec.name] if isinstance(self.store, JsonlStore) or self.path.exists() else []
        )
        for path in [Path(spec.file), *beside]:
            try:
                st = path.stat()
                if not path.is_file() or st.st_size > MAX_PICTURE_BYTES:
                    continue
                if hashlib.sha256(path.read_bytes()).hexdigest() == spec.sha256:
                    self._pictures[spec.sha256] = (path, st.st_size, st.st_mtime_ns)
                    return path
            except OSError:
                continue
        return None

    def _signature(self) -> tuple[int, ...] | None:
        """Cheap to take, and different once anyone appended: the file's size and time, or the version."""
        if isinstance(self.store, JsonlStore):
            try:
                st = os.stat(self.path)
            except OSError:
                return None
            return st.st_size, st.st_mtime_ns
        version = getattr(self.store, "version", None)
        return (version(),) if version is not None else None

    def live(self, heard: int | None = None) -> Encounter:
        """The encounter as the log has it now: what others appended is folded in first.

        `heard`: the log's version as this worker's listener heard it, taken instead of asking a
        database. Only a read may pass it (it can trail the log by a NOTIFY still on its way); a
        write always asks, so it is never decided on a board that is not the newest."""
        with self.lock:
            if self.lock.looked and self.lock.depth > 1 and self._enc is not None:
                return self._enc  # looked at already during the request that holds the lock
            told = heard is not None and not isinstance(self.store, JsonlStore)
            mark = (heard,) if told and heard is not None else self._signature()
            if self._enc is None:
                self._enc = Encounter.open(self.store)
            elif mark is None or mark != self._mark:
                try:
                    self._enc.refresh()
                except InputError:
                    self._enc = Encounter.open(self.store)  # not a plain append: read it all again
            self._mark = mark
            self.lock.looked = True
            return self._enc

    def version(self) -> int:
        return len(self.live().records)

    def encoded_once(self, enc: Encounter, version: int, key: Encoded, encode: Callable[[], bytes]) -> bytes:
        """What `encode()` makes at this version of `enc`, made once for every page that asks by `key` (a
        side's board, its event list): after a move the table's six pages ask together, and a side's
        pages see the same."""
        with self.lock:
            held, held_version, made_for = self._encoded
            if held is not enc or held_version != version:
                made_for = {}
                self._encoded = (enc, version, made_for)
            made = made_for.get(key)
            if made is None:
                made = encode()
                parts = sum(1 for k in made_for if k.part)
                if not key.part or (len(made) <= PART_BYTES and parts < PARTS_KEPT):
                    made_for[key] = made
            return made

    def encoded_at(self, version: int, key: Encoded) -> bytes | None:
        """What `encoded_once` made by `key` at `version` of the live encounter, if it made it.

        Read without the lock, so the event loop can answer a page with it at once (no thread):
        five of a move's six pages find their side's board made by the first."""
        held, held_version, made_for = self._encoded
        if held is None or held is not self._enc or held_version != version or len(held.records) != version:
            return None  # made for another encounter or version, or the encounter moved on since
        return made_for.get(key)

    def past(self, at: int) -> Encounter:
        """A read-only view of the encounter as it stood after sequence number `at`."""
        return Encounter.open(self.store, upto=at)

    def write(
        self, seen: int, command: Command, text: str, command_id: str | None = None
    ) -> list[Record] | Rejection:
        """Run a command if the page saw the latest version; raises Stale otherwise."""
        with self.lock:
            enc = self.live()
            now = len(enc.records)
            if seen != now:
                raise Stale(seen, now)
            try:
                result = enc.execute(command, text, command_id)
            except ConflictError:  # another program appended between our look and our write
                self.lock.looked = False  # look again: the page is told the version it missed
                raise Stale(seen, self.version()) from None
            # Our own append is already folded in: a database's version is the record count it now holds.
            self._mark = self._signature() if isinstance(self.store, JsonlStore) else (len(enc.records),)
            return result

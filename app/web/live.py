"""Live updates across server workers: one PostgreSQL LISTEN per worker, no polling per page.

Every append to a PostgreSQL store sends `NOTIFY tabletrail` right after its commit
("schema<TAB>encounter<TAB>version", events/stores/postgres_store.py), whichever worker
or terminal made it; making or revoking a link sends "invites" in the version's
place. A worker keeps one connection listening and wakes the streams of that
encounter; an open page costs nothing while the table is quiet.

What the listener has heard also spares the database: while it listens, the
newest version of an encounter is the one its last NOTIFY gave (it trails a
commit by the NOTIFY's own way there, so a write still asks), and the links a
worker read stay right until an "invites" NOTIFY says otherwise. So a live page
is told of a move, and kept alive, without a query or a thread (`Heard`), and the
board and event list it then asks for are folded without asking for the version
first (api_board.state, api_audit.events: `?seen=` the version it was told of, so
a worker whose NOTIFY is still on its way reads the log instead). The event list a
page asks for after a move is only what changed since the version it holds
(`?after=V`), made once a side and version as the whole list was.

A command's NOTIFY carries its batch's lines when they fit (events/stores/postgres_store.py,
`notice_text`): the listener keeps the last KEEP_LINES of each encounter this worker
serves, and the encounter's store folds a move from them (`lines_after`) instead of
reading it back. Only lines that follow one another with no version missing are
handed over, and only when they reach every version heard or read: after a NOTIFY
without lines (a batch too big), a lost one (a gap in the versions), or a loss of
listening, the store reads the database as before. The lines are folded as read
ones are: decoded, their sequence and hash chain checked.

When the connection drops (PostgreSQL restarting) every stream is woken (it finds
the database unavailable and says so), what was heard is forgotten, the broker
connects again every RETRY_SECONDS, and once it listens again it wakes every
stream once more: each reads the version it missed and the pages catch up.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass

import anyio
import psycopg
from tabletrail.events.stores.postgres_store import INVITES_CHANGED, HeardLines, read_notice
from tabletrail.web.numbers import whole

RETRY_SECONDS = 0.5
KEEP_LINES = 64  # the lines an encounter's NOTIFYs carried that the listener keeps (the newest)


class Broker:
    """This worker's listener: an anyio.Event per encounter, set (and replaced) whenever it changes, and
    what the notifications said (versions, links changed) while it has been listening."""

    def __init__(self, conninfo: str, schema: str, channel: str) -> None:
        self.conninfo = conninfo
        self.schema = schema
        self.channel = channel
        self.up = False  # listening now: a change made now will be heard
        self.epoch = 0  # counts every start and loss of listening: what was heard before is not trusted
        self._events: dict[str, anyio.Event] = {}
        self._versions: dict[str, int] = {}
        self._links: dict[str, int] = {}  # encounter -> how many "invites" notifications came
        # encounter -> (the version before the first kept line, the lines that followed it, heard in NOTIFYs):
        # for the encounters this worker serves (`follow`); a tuple replaced whole, read by store threads
        self._lines: dict[str, tuple[int, tuple[bytes, ...]]] = {}
        self._followed: set[str] = set()
        self.lines_served = 0  # reads `lines_after` answered, and those it left to the database
        self.lines_missed = 0
        self._task: asyncio.Task[None] | None = None

    def changed(self, encounter: str) -> anyio.Event:
        """The event set at this encounter's next change. Take it BEFORE reading the version: no change
        between the read and the wait is missed."""
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._listen())
        event = self._events.get(encounter)
        if event is None:
            event = self._events[encounter] = anyio.Event()
        return event

    def version(self, encounter: str) -> int | None:
        """The encounter's newest version as heard, or None when that can't be trusted (not listening, or
        nothing heard of it yet since listening began)."""
        return self._versions.get(encounter) if self.up else None

    def note(self, encounter: str, version: int, epoch: int) -> None:
        """A version read from the database while listening since `epoch`: heard from now on."""
        if self.up and epoch == self.epoch:
            self._versions[encounter] = max(version, self._versions.get(encounter, version))

    def follow(self, encounter: str) -> HeardLines:
        """Keep the lines NOTIFYs carry for this encounter; what its store asks them with (`lines_after`)."""
        self._followed.add(encounter)
        return Followed(self, encounter)

    def lines_after(self, encounter: str, start: int, known: int) -> list[bytes] | None:
        """The encounter's lines after version `start` as NOTIFYs carried them, up to the newest heard, if
        they reach `known` (the newest version its store read or wrote) and every version heard; else
        None (the store reads the database). Called from the store's threads: what the listener changes
        is replaced whole, never changed in place."""
        heard = self._versions.get(encounter, 0)  # read before the lines: they are kept before it moves
        held = self._lines.get(encounter) if self.up else None
        if held is None:
            self.lines_missed += 1
            return None
        low, lines = held
        top = low + len(lines)
        if start >= top:  # nothing newer was heard than what the reader holds
            if start == known and start >= heard:  # ... nor read: it holds all anyone here knows of
                self.lines_served += 1
                return []
            # Else it is behind what its store read, or ahead of it: a reader that folded heard lines
            # alone, or one a forged NOTIFY led on (the database's answer is shorter, and the store says so).
            self.lines_missed += 1
            return None
        if start < low or top < max(heard, known):  # kept from later on, or something heard or read is not
            self.lines_missed += 1
            return None
        self.lines_served += 1
        return list(lines[start - low :])

    def _keep(self, encounter: str, version: int, carried: tuple[bytes, ...] | None) -> None:
        """A NOTIFY said the encounter reached `version`, carrying the batch's lines or not (None)."""
        held = self._lines.get(encounter)
        if held is not None and version <= held[0] + len(held[1]):  # an older batch told late
            low, kept = held
            first = version - len(carried) if carried is not None else version
            both = max(low, first)  # the versions both tell
            if (
                carried is not None
                and version > low
                and kept[both - low : version - low] != carried[both - first :]
            ):
                # Two NOTIFYs told different lines at one version: one was forged (any role that can
                # connect may NOTIFY). Nothing kept is trusted: the store reads the database.
                del self._lines[encounter]
            return
        if carried is None:  # too big to ride along: the store reads from here on (a gap before `version`)
            self._lines[encounter] = (version, ())
            return
        first = version - len(carried)  # the version before the batch's first line
        if held is not None and held[0] <= first <= held[0] + len(held[1]):
            low, lines = held[0], held[1][: first - held[0]] + carried
        else:  # nothing kept yet, or a version missed between (a NOTIFY lost, or never sent): start again
            low, lines = first, carried
        extra = len(lines) - KEEP_LINES
        self._lines[encounter] = (low + extra, lines[extra:]) if extra > 0 else (low, lines)

    def links_mark(self, encounter: str) -> tuple[int, int] | None:
        """Different whenever the encounter's links may have changed; None when not listening."""
        return (self.epoch, self._links.get(encounter, 0)) if self.up else None

    def _heard(self, payload: str) -> None:
        schema, encounter, what, carried = read_notice(payload)
        if schema != self.schema:
            return
        if what == INVITES_CHANGED:
            self._links[encounter] = self._links.get(encounter, 0) + 1
        elif (version := whole(what)) is not None:
            if encounter in self._followed:
                self._keep(encounter, version, carried)  # before the version: see `lines_after`
            self._versions[encounter] = max(version, self._versions.get(encounter, 0))
        self._wake(encounter)

    def _wake(self, encounter: str | None = None) -> None:
        """Set the encounter's event (None: every encounter's) and start a fresh one for the next change."""
        names = [encounter] if encounter is not None else list(self._events)
        for name in names:
            event = self._events.pop(name, None)
            if event is not None:
                event.set()

    def _forget(self) -> None:
        self.epoch += 1
        self._versions.clear()
        self._links.clear()
        self._lines.clear()

    async def _listen(self) -> None:
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(self.conninfo, autocommit=True) as conn:
                    await conn.execute(f"LISTEN {self.channel}")
                    self._forget()  # what was missed while not listening is read again
                    self.up = True
                    self._wake()  # back after an outage: everyone reads what they missed
                    async for note in conn.notifies():
                        self._heard(note.payload)
            except (psycopg.Error, OSError):
                pass
            if self.up:
                self.up = False
                self._forget()
                self._wake()  # the streams find out the database is gone, and say so
            await asyncio.sleep(RETRY_SECONDS)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task


@dataclass(frozen=True)
class Followed:
    """One encounter's lines as this worker's listener heard them (its store's `heard_lines`)."""

    broker: Broker
    encounter: str

    def after(self, start: int, known: int) -> list[bytes] | None:
        return self.broker.lines_after(self.encounter, start, known)

    def untrue(self) -> None:
        self.broker._lines.pop(self.encounter, None)


@dataclass(frozen=True)
class Heard:
    """One encounter as this worker's listener knows it (what a table view is given by hosted.py)."""

    broker: Broker
    encounter: str

    def changed(self) -> anyio.Event:
        return self.broker.changed(self.encounter)

    def version(self) -> int | None:
        return self.broker.version(self.encounter)

    def epoch(self) -> int:
        return self.broker.epoch

    def note(self, version: int, epoch: int) -> None:
        self.broker.note(self.encounter, version, epoch)

    def links_mark(self) -> tuple[int, int] | None:
        return self.broker.links_mark(self.encounter)

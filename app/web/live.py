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
from tabletrail.events.stores.postgres_store import INVITES_CHANGED
from tabletrail.web.numbers import whole

RETRY_SECONDS = 0.5


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

    def links_mark(self, encounter: str) -> tuple[int, int] | None:
        """Different whenever the encounter's links may have changed; None when not listening."""
        return (self.epoch, self._links.get(encounter, 0)) if self.up else None

    def _heard(self, payload: str) -> None:
        schema, _, rest = payload.partition("\t")
        if schema != self.schema:
            return
        encounter, _, what = rest.partition("\t")
        if what == INVITES_CHANGED:
            self._links[encounter] = self._links.get(encounter, 0) + 1
        elif (version := whole(what)) is not None:
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

"""Live updates across server workers: one PostgreSQL LISTEN per worker, no polling per page.

Every append to a PostgreSQL store sends `NOTIFY tabletrail` on commit
("schema<TAB>encounter<TAB>version", events/postgres_store.py), whichever worker
or terminal made it. A worker keeps one connection listening and wakes the
streams of that encounter; an open page costs nothing while the table is quiet.

When the connection drops (PostgreSQL restarting) every stream is woken (it finds
the database unavailable and says so), the broker connects again every
RETRY_SECONDS, and once it listens again it wakes every stream once more: each
reads the version it missed and the pages catch up by themselves.
"""

from __future__ import annotations

import asyncio
import contextlib

import anyio
import psycopg

RETRY_SECONDS = 0.5


class Broker:
    """This worker's listener: an anyio.Event per encounter, set (and replaced) whenever it changes."""

    def __init__(self, conninfo: str, schema: str, channel: str) -> None:
        self.conninfo = conninfo
        self.schema = schema
        self.channel = channel
        self.up = False  # listening now: a change made now will be heard
        self._events: dict[str, anyio.Event] = {}
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

    def _wake(self, encounter: str | None = None) -> None:
        """Set the encounter's event (None: every encounter's) and start a fresh one for the next change."""
        names = [encounter] if encounter is not None else list(self._events)
        for name in names:
            event = self._events.pop(name, None)
            if event is not None:
                event.set()

    async def _listen(self) -> None:
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(self.conninfo, autocommit=True) as conn:
                    await conn.execute(f"LISTEN {self.channel}")
                    self.up = True
                    self._wake()  # back after an outage: everyone reads what they missed
                    async for note in conn.notifies():
                        schema, _, rest = note.payload.partition("\t")
                        if schema == self.schema:
                            self._wake(rest.partition("\t")[0])
            except (psycopg.Error, OSError):
                pass
            if self.up:
                self.up = False
                self._wake()  # the streams find out the database is gone, and say so
            await asyncio.sleep(RETRY_SECONDS)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

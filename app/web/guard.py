"""The table view's connections, bounded: a request must arrive in time, and one client can't hold them all.

uvicorn closes a connection idle between requests (`timeout_keep_alive`) and caps
what one incomplete request may buffer (h11's `h11_max_incomplete_event_size`), but
a connection that sends half a request line, or half a body, and then waits is
held for ever: 1,100 of them exhaust a process's descriptors (a ulimit of 1,024)
and every other screen's requests time out. `GuardedH11` is uvicorn's h11
protocol with what is missing:

- a request's head (request line and headers) must arrive within HEADER_SECONDS
  of its first byte (or of the connection opening), its body within BODY_SECONDS
  of its head; otherwise the connection is closed (a 408 when it can still be said);
- one client address holds at most PER_CLIENT connections at once: another is
  answered 503 and closed at once;
- the whole process answers at most `max_connections` at once (uvicorn's
  `limit_concurrency`): what its descriptor limit allows, less room for its logs
  and database connections. The process first raises its soft limit to the hard
  one (up to MOST_CONNECTIONS): a convention's live pages, spread unevenly over
  the workers, must not meet a cap set for a 1,024-descriptor default.

Behind a reverse proxy every client shares the proxy's address: its own limits
(nginx's `client_header_timeout`, `limit_conn`) then guard the table, and these
bound the proxy.
"""

from __future__ import annotations

import asyncio
import os
from collections import Counter
from dataclasses import dataclass
from typing import Any

import h11
from tabletrail.events.errors import InputError
from tabletrail.web.numbers import quoted, whole
from uvicorn import Config
from uvicorn.protocols.http.h11_impl import H11Protocol


@dataclass(frozen=True)
class Limits:
    """How long a request may take to arrive, and how many connections one client may hold."""

    header_seconds: float = 10.0
    body_seconds: float = 30.0
    per_client: int = 64
    max_connections: int = 900  # below a default descriptor limit of 1,024, with room for the logs


MOST_CONNECTIONS = 10_000  # a process never holds more, whatever its descriptor limit
DESCRIPTOR_ROOM = 124  # descriptors kept for logs, database connections and the listening socket


def connection_cap() -> int:
    """How many connections this process may hold: its descriptor limit (raised to the hard limit,
    as far as MOST_CONNECTIONS needs) less DESCRIPTOR_ROOM; 900 where the limit can't be read."""
    try:
        import resource
    except ImportError:  # not a POSIX system
        return Limits.max_connections
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = MOST_CONNECTIONS + DESCRIPTOR_ROOM
    if soft < want and (hard == resource.RLIM_INFINITY or soft < hard):
        raised = want if hard == resource.RLIM_INFINITY else min(hard, want)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
        except (ValueError, OSError):
            pass
    return max(100, min(MOST_CONNECTIONS, soft - DESCRIPTOR_ROOM))


PER_CLIENT_ENV = "TABLETRAIL_PER_CLIENT"  # a venue behind one reverse proxy (or a load test) raises the cap


def limits_from_env() -> Limits:
    """The limits in force: TABLETRAIL_PER_CLIENT, when set, is the cap per client address (all of a
    venue's phones arrive from its reverse proxy's one address)."""
    raw = os.environ.get(PER_CLIENT_ENV, "")
    cap = connection_cap()
    if not raw:
        return Limits(max_connections=cap)
    per_client = whole(raw)
    if per_client is None or not 1 <= per_client <= 100_000:
        said = "expected a whole number of connections, 1 to 100000"
        raise InputError(f"{PER_CLIENT_ENV}={quoted(raw)}: {said}")
    return Limits(per_client=per_client, max_connections=cap)


LIMITS = limits_from_env()

# Open connections per (server address, client address), across every protocol instance of this process.
_OPEN: Counter[tuple[Any, str]] = Counter()


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with a deadline on each request's head and body and a cap per client."""

    limits: Limits = LIMITS

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._timer: asyncio.TimerHandle | None = None
        self._key = (self.server, self.client[0] if self.client else "")
        _OPEN[self._key] += 1
        if _OPEN[self._key] > self.limits.per_client:
            self._refuse(503, b"too many connections from this address; close some and retry")
            return
        self._arm(self.limits.header_seconds)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        _OPEN[self._key] -= 1
        if _OPEN[self._key] <= 0:
            del _OPEN[self._key]
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._timer is None and self.conn.their_state is h11.IDLE:
            self._arm(self.limits.header_seconds)  # the first byte of the next request on this connection
        head_pending = self.conn.their_state is h11.IDLE
        cycle = self.cycle
        super().data_received(data)
        if self.cycle is not None and self.cycle is not cycle:  # a request began; its app runs next turn
            # (a stand-in for the transport: what the cycle uses of it is passed through)
            self.cycle.transport = HeadWithBody(self.transport, self.loop)  # type: ignore[assignment]
        state = self.conn.their_state
        if state is h11.SEND_BODY and head_pending:
            self._arm(self.limits.body_seconds)  # the head arrived: now the body has its own time
        elif state is not h11.IDLE and state is not h11.SEND_BODY:
            self._disarm()  # the whole request is in (or the connection is done): the app's turn

    def on_response_complete(self) -> None:
        super().on_response_complete()
        # Between requests uvicorn's keep-alive timer closes an idle connection; ours waits for a byte.
        if self.conn.their_state is not h11.SEND_BODY:
            self._disarm()

    def _arm(self, seconds: float) -> None:
        self._disarm()
        self._timer = self.loop.call_later(seconds, self._too_slow)

    def _disarm(self) -> None:
        timer = getattr(self, "_timer", None)
        if timer is not None:
            timer.cancel()
            self._timer = None

    def _too_slow(self) -> None:
        self._timer = None
        if self.transport.is_closing():
            return
        if self.conn.their_state is h11.IDLE:  # not even its head: nothing was asked, so say why
            self._refuse(408, b"the request did not arrive in time")
            return
        if self.cycle is not None:
            self.cycle.disconnected = True  # the app reading the body is told the client is gone
        self.transport.close()

    def _refuse(self, status: int, message: bytes) -> None:
        """Say why in a short response when nothing has been answered yet, and close."""
        reason = {408: b"Request Timeout", 503: b"Service Unavailable"}[status]
        head = b"HTTP/1.1 %d %s\r\ncontent-type: text/plain; charset=utf-8\r\n" % (status, reason)
        self.transport.write(
            head + b"content-length: %d\r\nconnection: close\r\n\r\n" % len(message) + message
        )
        self.transport.close()


class HeadWithBody:
    """A response's transport that sends its head together with what follows it in the same turn.

    uvicorn writes a response's status line and headers, then its body, each with a send of its own:
    two segments, and two wake-ups of the page that reads them, for every answer (issue 40: a move
    makes a dozen answers on a hosted server, and sends were a fifth of a loaded worker's event loop).
    The first write of a response is held until the next one, which leaves with it, or until the
    loop's turn ends (a live stream's head, waiting for its first event); every later write goes at
    once. The bytes sent, and their order, are the same."""

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._held: bytes | None = None
        self._first = True

    def write(self, data: bytes) -> None:
        if not data:
            return
        if self._first:  # the head: held for the body
            self._first = False
            self._held = data
            self._loop.call_soon(self._flush)
        elif self._held is not None:
            held, self._held = self._held, None
            self._transport.write(held + data)
        else:
            self._transport.write(data)

    def _flush(self) -> None:
        held, self._held = self._held, None
        if held is not None and not self._transport.is_closing():
            self._transport.write(held)

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size() + len(self._held or b"")

    def close(self) -> None:
        self._flush()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


GUARDED = "tabletrail.web.guard:GuardedH11"  # as uvicorn imports a protocol in each worker process


def config(app: Any, limits: Limits = LIMITS, **options: Any) -> Config:
    """uvicorn's Config for the table view: the guarded protocol with these limits, and the cap."""
    protocol = type("Guarded", (GuardedH11,), {"limits": limits})
    options.setdefault("limit_concurrency", limits.max_connections)
    return Config(app, http=protocol, **options)

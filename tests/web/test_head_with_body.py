"""A response's head leaves with its body in one send (app/web/guard.py, HeadWithBody; issue 40).

The same bytes in the same order, whatever follows the head: a body in the same turn (one write),
nothing yet (a live stream's head goes at the end of the turn), the connection closed (flushed first).
"""

from __future__ import annotations

import asyncio

from tabletrail.web.guard import HeadWithBody


class Wire:
    """A transport that keeps what each write sent."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.sent.append(data)

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def get_write_buffer_size(self) -> int:
        return 0

    def get_extra_info(self, name: str) -> str:
        return f"extra {name}"


def test_a_head_and_its_body_leave_in_one_write() -> None:
    async def answer() -> list[bytes]:
        wire = Wire()
        out = HeadWithBody(wire, asyncio.get_running_loop())  # type: ignore[arg-type]
        out.write(b"HTTP/1.1 200 OK\r\n\r\n")
        assert out.get_write_buffer_size() == 19 and not wire.sent  # held for the body
        out.write(b"{}")
        out.write(b"")  # the end of a message with a length: nothing
        await asyncio.sleep(0)
        return wire.sent

    assert asyncio.run(answer()) == [b"HTTP/1.1 200 OK\r\n\r\n{}"]


def test_a_head_alone_goes_at_the_end_of_the_turn_and_later_writes_at_once() -> None:
    async def stream() -> list[list[bytes]]:
        wire = Wire()
        out = HeadWithBody(wire, asyncio.get_running_loop())  # type: ignore[arg-type]
        out.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n")
        seen = [list(wire.sent)]
        await asyncio.sleep(0)
        seen.append(list(wire.sent))
        out.write(b"5\r\nhello\r\n")
        seen.append(list(wire.sent))
        assert out.get_extra_info("peername") == "extra peername"  # the rest is the transport's
        return seen

    head = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
    assert asyncio.run(stream()) == [[], [head], [head, b"5\r\nhello\r\n"]]


def test_closing_sends_what_is_held_first() -> None:
    async def closed() -> Wire:
        wire = Wire()
        out = HeadWithBody(wire, asyncio.get_running_loop())  # type: ignore[arg-type]
        out.write(b"HTTP/1.1 204 No Content\r\n\r\n")
        out.close()
        await asyncio.sleep(0)  # the turn's flush finds nothing left to send
        return wire

    wire = asyncio.run(closed())
    assert wire.sent == [b"HTTP/1.1 204 No Content\r\n\r\n"] and wire.closed

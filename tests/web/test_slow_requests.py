"""Half-sent requests can't hold the table view (issue 28, item 13).

A connection that sent half a request line, or a head and half its body, was
held for ever; 1,100 of them exhausted the descriptors and every other screen
timed out. These run a real server (uvicorn on 127.0.0.1, a free port, the
configuration `tabletrail serve` uses, with short limits) and real sockets,
bounded in count (at most 20) and time (a few seconds each).
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
import uvicorn
from support_web import bearer, invite, new_log, records
from tabletrail.web.guard import Limits, config
from tabletrail.web.server import create_app

LIMITS = Limits(header_seconds=0.6, body_seconds=0.6, per_client=8, max_connections=100)


@contextmanager
def serving(log: Path, limits: Limits = LIMITS) -> Iterator[tuple[str, int]]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    app = create_app(log)
    server = uvicorn.Server(
        config(app, limits, log_level="warning", lifespan="off", timeout_graceful_shutdown=1)
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    for _ in range(200):  # a guard against a server that never starts, not a measurement
        if server.started:
            break
        time.sleep(0.05)
    try:
        yield "127.0.0.1", sock.getsockname()[1]
    finally:
        app.state.table.closing.set()
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def half_sent(where: tuple[str, int], data: bytes) -> socket.socket:
    s = socket.create_connection(where, timeout=5)
    s.sendall(data)
    return s


def closed_within(s: socket.socket, seconds: float) -> bytes | None:
    """What the server sent before closing the connection, or None if it still held it after `seconds`."""
    s.settimeout(seconds)
    got = b""
    try:
        while chunk := s.recv(4096):
            got += chunk
    except TimeoutError:
        return None
    except ConnectionResetError:
        pass
    return got


def test_a_half_sent_head_is_closed_and_the_others_are_answered(tmp_path: Path):
    log = new_log(tmp_path)
    token = invite(log, "blue")[1]
    with serving(log) as where:
        slow = [half_sent(where, b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n") for _ in range(6)]
        silent = socket.create_connection(where, timeout=5)  # not a byte
        start = time.monotonic()
        told = [closed_within(s, 4) for s in [*slow, silent]]
        assert all(t is not None for t in told), "every half-sent connection is closed"
        assert time.monotonic() - start < 3, "within the head's time, not for ever"
        assert all(t.startswith(b"HTTP/1.1 408") for t in told if t), told
        url = f"http://{where[0]}:{where[1]}/api/state"
        assert httpx.get(url, headers=bearer(token), timeout=5).status_code == 200
        for s in [*slow, silent]:
            s.close()


class Kept(logging.Handler):
    """Every record uvicorn logs (its loggers don't propagate to the root, where caplog listens)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextmanager
def uvicorn_logs() -> Iterator[Kept]:
    kept = Kept()
    loggers = [logging.getLogger(name) for name in ("uvicorn", "uvicorn.error", "uvicorn.asgi")]
    for logger in loggers:
        logger.addHandler(kept)
    try:
        yield kept
    finally:
        for logger in loggers:
            logger.removeHandler(kept)


def test_a_half_sent_body_is_closed_quietly_and_appends_nothing(tmp_path: Path):
    log = new_log(tmp_path)
    token = invite(log, "gm")[1]
    before = records(log)
    with serving(log) as where, uvicorn_logs() as logs:
        head = (
            "POST /api/do HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Authorization: Bearer {token}\r\nContent-Length: 200\r\n\r\n"
        )
        s = half_sent(where, head.encode() + b'{"version": 4, "te')
        assert closed_within(s, 4) is not None, "closed after the body's time"
        s.close()
        leaving = half_sent(where, head.encode() + b'{"version": 4, "te')
        leaving.close()  # a client leaving mid-body
        time.sleep(0.3)
        url = f"http://{where[0]}:{where[1]}/api/state"
        assert httpx.get(url, headers=bearer(token), timeout=5).status_code == 200
    assert records(log) == before
    loud = [r for r in logs.records if r.exc_info or "Traceback" in r.getMessage()]
    assert loud == [], [r.getMessage() for r in loud]


def test_one_client_holds_at_most_its_share_of_connections(tmp_path: Path):
    log = new_log(tmp_path)
    token = invite(log, "blue")[1]
    limits = Limits(header_seconds=5, body_seconds=5, per_client=8, max_connections=100)
    with serving(log, limits) as where:
        held = [socket.create_connection(where, timeout=5) for _ in range(8)]
        time.sleep(0.2)
        extra = [socket.create_connection(where, timeout=5) for _ in range(4)]
        answers = [closed_within(s, 2) for s in extra]
        assert all(a is not None and a.startswith(b"HTTP/1.1 503") for a in answers), answers
        assert all(closed_within(s, 0.2) is None for s in held), "its share is kept open"
        for s in held:
            s.close()
        time.sleep(0.2)
        url = f"http://{where[0]}:{where[1]}/api/state"
        assert httpx.get(url, headers=bearer(token), timeout=5).status_code == 200


def test_the_cap_per_client_is_read_from_the_environment_and_a_wrong_value_named(
    monkeypatch: pytest.MonkeyPatch,
):
    from tabletrail.events.errors import InputError
    from tabletrail.web import guard

    monkeypatch.setenv(guard.PER_CLIENT_ENV, "500")
    assert guard.limits_from_env().per_client == 500
    monkeypatch.delenv(guard.PER_CLIENT_ENV)
    assert guard.limits_from_env().per_client == guard.Limits().per_client
    for bad in ("abc", "0", "-3", "1e9"):
        monkeypatch.setenv(guard.PER_CLIENT_ENV, bad)
        with pytest.raises(InputError, match="TABLETRAIL_PER_CLIENT"):
            guard.limits_from_env()

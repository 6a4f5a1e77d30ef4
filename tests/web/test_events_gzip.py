"""The event list grows with the log and every page asks for it after each move (api_audit.events):
it is gzipped for a page that accepts it, once per side and version, and is the same list either way."""

from __future__ import annotations

import gzip
import json

import pytest
from starlette.requests import Request
from starlette.testclient import TestClient
from tabletrail.web.api import audit as api_audit
from tabletrail.web.api.audit import accepts_gzip

from tests.web.test_board_made_once import table  # noqa: F401  (the fixture: a JSONL table, links for gm, blue, blue 2, red)


def raw_events(client: TestClient, token: str, encoding: str) -> tuple[str | None, bytes]:
    """The answer's Content-Encoding and its bytes as sent (not decoded by the client)."""
    headers = {"Authorization": f"Bearer {token}", "Accept-Encoding": encoding}
    with client.stream("GET", "/api/events", headers=headers) as answer:
        assert answer.status_code == 200
        return answer.headers.get("content-encoding"), b"".join(answer.iter_raw())


def test_a_page_that_accepts_gzip_gets_the_same_list_gzipped_once_per_side(table, monkeypatch):  # noqa: F811
    client, links = table
    moved = client.post(
        "/api/do",
        json={"version": 4, "text": "move ari 2,2"},
        headers={"Authorization": f"Bearer {links['gm']}"},
    )
    assert moved.status_code == 200, moved.text
    packed: list[int] = []
    compress = gzip.compress

    def counted(data: bytes, level: int = 9) -> bytes:
        packed.append(len(data))
        return compress(data, level)

    monkeypatch.setattr(api_audit.gzip, "compress", counted)
    for who in ("blue", "blue 2", "red", "gm"):
        encoding, sent = raw_events(client, links[who], "gzip, deflate")
        plain_encoding, plain = raw_events(client, links[who], "identity")
        assert (encoding, plain_encoding) == ("gzip", None)
        assert json.loads(gzip.decompress(sent)) == json.loads(plain), who
    assert len(packed) == 3, "once for each side (blue's second page gets the first's)"
    listed = json.loads(plain)
    assert listed["version"] == len(listed["events"]) > 4


@pytest.mark.parametrize(
    ("header", "takes"),
    [("gzip, deflate, br", True), ("GZIP", True), ("gzip;q=0.5", True), ("br, gzip;q=0", False),
     ("gzip;q=0.0", False), ("gzip;q=abc", False), ("deflate", False), ("", False), ("x-gzip", False)],
)  # fmt: skip
def test_gzip_is_sent_only_where_the_header_takes_it(header: str, takes: bool):
    asked = Request({"type": "http", "headers": [(b"accept-encoding", header.encode())]})
    assert accepts_gzip(asked) is takes

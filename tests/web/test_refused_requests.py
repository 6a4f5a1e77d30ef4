"""Requests the table view refuses at the route (issue 28, item 14, its web parts).

- A token in the address (`?token=`) is read only where a browser can't set a
  header: the live stream (EventSource) and the pictures an SVG <image> fetches.
  Anywhere else, and on every POST, it opens nothing (a link's token in an
  address ends up in histories and logs; a header does not).
- An invitation's body is checked by its type: `{"hours": 1e308}` was a 500 with a
  traceback, and the invite was saved (it expired at infinity). Now it is a 400
  naming the field, and nothing is saved.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient
from support_web import bearer, big_log, invite, new_log, records
from tabletrail.web.server import create_app

BASE = "http://127.0.0.1:8000"


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return new_log(tmp_path)


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", "/api/state", None),
        ("GET", "/api/events", None),
        ("GET", "/api/reach?fighter=ari", None),
        ("GET", "/api/invites", None),
        ("POST", "/api/do", {"version": 4, "text": "move ari 2,2"}),
        ("POST", "/api/preview", {"text": "move ari 2,2"}),
        ("POST", "/api/undo", {"version": 4}),
        ("POST", "/api/invites", {"role": "blue"}),
    ],
)
def test_a_token_in_the_address_opens_no_ordinary_route(log: Path, method: str, path: str, body: dict | None):
    token = invite(log, "gm")[1]
    client = TestClient(create_app(log), base_url=BASE)
    before = records(log)
    sep = "&" if "?" in path else "?"
    answer = client.request(method, f"{path}{sep}token={token}", json=body)
    assert answer.status_code == 401, answer.text
    assert "Authorization" in answer.json()["message"]
    assert records(log) == before
    assert client.request(method, path, json=body, headers=bearer(token)).status_code in (200, 422)


def test_the_live_stream_and_the_pictures_still_take_it(tmp_path: Path):
    log = big_log(tmp_path / "hall")
    token = invite(log, "blue")[1]
    client = TestClient(create_app(log), base_url=BASE)
    stream = client.get(f"/api/stream?seconds=0&token={token}")
    assert stream.status_code == 200 and "event: version" in stream.text
    assert client.get(f"/api/image/ari?token={token}").status_code == 200


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"role": "blue", "hours": 1e308}, "hours"),
        ({"role": "blue", "hours": 0}, "hours"),
        ({"role": "blue", "hours": -2}, "hours"),
        ({"role": "blue", "hours": 24 * 366 + 1}, "hours"),
        ({"role": "blue", "label": "x" * 201}, "label"),
        ({"role": "b" * 65}, "role"),
    ],
)
def test_an_invites_body_out_of_bounds_is_a_400_naming_the_field_and_saves_nothing(
    log: Path, body: dict, field: str
):
    client = TestClient(create_app(log), base_url=BASE, headers=bearer(invite(log, "gm")[1]))
    kept = client.get("/api/invites").json()["invites"]
    answer = client.post("/api/invites", json=body)
    assert answer.status_code == 400, answer.text
    assert f"$.{field}" in answer.json()["message"], answer.json()
    assert client.get("/api/invites").json()["invites"] == kept


def test_an_invite_for_a_year_is_made(log: Path):
    client = TestClient(create_app(log), base_url=BASE, headers=bearer(invite(log, "gm")[1]))
    made = client.post("/api/invites", json={"role": "blue", "hours": 24 * 366, "label": "Maya"})
    assert made.status_code == 200 and made.json()["expires"] - made.json()["made"] == 24 * 366 * 3600

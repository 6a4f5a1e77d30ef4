"""A move's pages ask for the board together: it is made once per side and version (issue 29).

Each page still reads its own link in `me`, a side never gets another side's
board, and the next version is made afresh.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from tabletrail.web import redact, views
from tabletrail.web.api import board as api_board
from tabletrail.web.invites import GM
from tabletrail.web.server import create_app

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "speed-meters-skirmish.toml"


@pytest.fixture
def table(tmp_path: Path):
    log = tmp_path / "fight.jsonl"
    subprocess.run([sys.executable, "-m", "tabletrail", "new", str(SCENARIO), "--log", str(log)], check=True)
    app = create_app(log)
    links = {role: app.state.table.invites.make(role)[1] for role in (GM, "blue", "red")}
    links["blue 2"] = app.state.table.invites.make("blue")[1]
    return TestClient(app, base_url="http://127.0.0.1"), links


def test_the_board_is_made_once_per_side_and_each_page_reads_its_own_link(table, monkeypatch):
    client, links = table
    made: list[str] = []
    board = views.board
    side_board = api_board.board_for  # a side's board (its cards made once a version for every side)

    def counted(held, enc, version, role):
        made.append(role)
        return side_board(held, enc, version, role)

    monkeypatch.setattr(api_board, "board_for", counted)
    got = {
        who: client.get("/api/state", headers={"Authorization": f"Bearer {token}"}).json()
        for who, token in links.items()
    }
    assert sorted(made) == ["blue", "gm", "red"], "the second blue page got the first one's board"
    assert got["blue"]["me"]["invite"] != got["blue 2"]["me"]["invite"]
    assert {k: v for k, v in got["blue"].items() if k != "me"} == {
        k: v for k, v in got["blue 2"].items() if k != "me"
    }
    assert got["gm"]["me"]["gm"] and not got["red"]["me"]["gm"]
    tab = client.app.state.table
    enc = tab.live()
    version = len(enc.records)
    red = tab.invites.check(links["red"])
    expected = json.loads(json.dumps(redact.board(red, enc, board(enc, version, "red"))))
    assert {k: v for k, v in got["red"].items() if k not in ("me", "exposed")} == expected

    moved = client.post(
        "/api/do",
        json={"version": version, "text": "end-turn"},
        headers={"Authorization": f"Bearer {links[GM]}"},
    )
    assert moved.status_code == 200, moved.text
    again = client.get("/api/state", headers={"Authorization": f"Bearer {links['blue']}"}).json()
    assert again["version"] == moved.json()["version"] and made.count("blue") == 2, (
        "a new version, a new board"
    )

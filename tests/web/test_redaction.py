"""A player's screen reads no GM ruling's words, no setting a ruling changed, no seed (issue 28, item 10).

README, "Playing across devices": a player's screen "commands only that side's
fighters, undoes only that side's commands and shows no rulings". What a player
reads is redacted on the server, per role, in every answer it reads: the board,
the event list, an explanation, a dry run, the live stream. The settings the
table set openly (the scenario's and the defaults, as the encounter began) stay
visible: every cost the player is shown follows them. A setting a GM ruling
changed since is the GM's, and so is the seed of the encounter's dice (it tells
every seeded roll to come).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from support_web import bearer, invite, new_log
from tabletrail.web.server import create_app

SECRETS = ("hidden pit trap", "collapsed floor", "we roll at the table now")
RULINGS = [
    'require-test 3,1 target=3 why="hidden pit trap"',
    'forbid 1,2 why="collapsed floor"',
    'setting checks table why="we roll at the table now"',
]


@pytest.fixture(params=["web.jsonl", "web.db"])
def log(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    return new_log(tmp_path, name=request.param)


def client(log: Path, role: str) -> TestClient:
    return TestClient(create_app(log), base_url="http://127.0.0.1:8000", headers=bearer(invite(log, role)[1]))


def ruled(log: Path) -> tuple[TestClient, TestClient]:
    """The GM's client and blue's, after the GM made three rulings with their reasons."""
    gm, blue = client(log, "gm"), client(log, "blue")
    for text in RULINGS:
        version = gm.get("/api/state").json()["version"]
        answer = gm.post("/api/do", json={"version": version, "text": text})
        assert answer.status_code == 200, answer.json()
    return gm, blue


def leaked(answer: object) -> list[str]:
    text = json.dumps(answer)
    return [s for s in SECRETS if s in text]


def test_the_gm_reads_every_ruling_and_setting(log: Path):
    gm, _ = ruled(log)
    board = gm.get("/api/state").json()
    assert [c[3] for c in board["rulings"]["test"]] == ["hidden pit trap"]
    assert [c[3] for c in board["rulings"]["forbid"]] == ["collapsed floor"]
    assert board["settings"]["checks"] == "table"
    assert leaked(gm.get("/api/events").json()) == list(SECRETS)


def test_a_players_board_has_no_rulings_and_only_the_settings_set_openly(log: Path):
    gm, blue = ruled(log)
    board = blue.get("/api/state").json()
    assert leaked(board) == []
    assert board["rulings"] == {"forbid": [], "test": []}  # the page draws none
    assert "checks" not in board["settings"], "changed by a ruling: the GM's"
    assert board["settings"]["strict_turns"] is True, "set as the encounter began: open"
    assert board["undo"]["text"] == "a GM ruling", "the undo button names no ruling's words"
    assert board["version"] == gm.get("/api/state").json()["version"]
    past = blue.get("/api/state?at=5").json()
    assert leaked(past) == [] and past["rulings"] == {"forbid": [], "test": []}


def test_a_players_event_list_says_a_ruling_was_made_and_not_what_or_why(log: Path):
    gm, blue = ruled(log)
    mine, theirs = blue.get("/api/events").json(), gm.get("/api/events").json()
    assert leaked(mine) == []
    assert [e["seq"] for e in mine["events"]] == [e["seq"] for e in theirs["events"]], "numbered alike"
    rulings = [e for e in mine["events"] if e["batch"] > 1]
    assert rulings and all(e["text"] == "the GM made a ruling" and e["note"] == "" for e in rulings)


def test_a_players_explanation_of_any_event_leaks_no_ruling_and_no_seed(log: Path):
    gm, blue = ruled(log)
    version = gm.get("/api/state").json()["version"]
    moved = blue.post("/api/do", json={"version": version, "text": "move ari 2,2"})
    assert moved.status_code == 200, moved.json()
    count = blue.get("/api/state").json()["version"]
    for seq in range(1, count + 1):
        x = blue.get(f"/api/events/{seq}").json()
        assert leaked(x) == [], (seq, leaked(x))
        assert x["rulings"] == {"in_force": [], "cells": [], "made_here": []}
        assert "checks" not in {s["name"] for s in x["settings"]}
    first = blue.get("/api/events/1").json()
    assert "seed" not in first["event"]["scenario"], "the seed tells every seeded roll to come"
    assert gm.get("/api/events/1").json()["event"]["scenario"]["seed"] == 7


def test_a_players_dry_run_and_live_stream_leak_no_ruling(log: Path):
    _, blue = ruled(log)
    version = blue.get("/api/state").json()["version"]
    dry = blue.post("/api/preview", json={"version": version, "text": "move ari 2,2"})
    assert dry.status_code == 200 and leaked(dry.json()) == []
    stream = blue.get("/api/stream?seconds=0")
    assert stream.status_code == 200 and "event: version" in stream.text
    assert [s for s in SECRETS if s in stream.text] == []


def test_where_the_engine_quotes_a_rulings_why_a_player_reads_the_gms_reason(log: Path):
    """A move refused at a forbidden cell, and the dry run of a move across a test, said as the engine
    says them but with the GM's words left out; the GM still reads them."""
    gm, blue = ruled(log)
    version = blue.get("/api/state").json()["version"]
    refused = blue.post("/api/do", json={"version": version, "text": "move ari 1,2"})
    assert refused.status_code == 422 and leaked(refused.json()) == [], refused.json()
    assert "the GM's reason" in refused.json()["message"]
    across = blue.post("/api/preview", json={"text": "move ari 3,1 roll=5"}).json()
    assert leaked(across) == [], across
    mine = gm.post("/api/preview", json={"text": "move ari 1,2"}).json()
    assert "collapsed floor" in mine["reason"]
    done = blue.post("/api/do", json={"version": version, "text": "move ari 3,1 roll=5"})
    assert done.status_code == 200 and leaked(done.json()) == [], done.json()
    assert leaked(blue.get("/api/events").json()) == []
    assert "hidden pit trap" in json.dumps(gm.get("/api/events").json()["events"][-3:])


def test_the_ruled_batches_kept_between_requests_are_those_a_full_scan_finds(log: Path):
    """redact.ruling_batches extends what it found by the batches folded since (issue 29)."""
    from tabletrail.core.engine.ruleset import ENGINE_HANDLERS
    from tabletrail.web import redact

    gm = client(log, "gm")
    table = gm.app.state.table  # type: ignore[attr-defined]

    def scanned() -> set[int]:
        commands = table.live().timeline.commands
        return {b for b, issued in commands.items() if type(issued.command) in ENGINE_HANDLERS}

    assert redact.ruling_batches(table.live()) == scanned() == set()
    for text in [RULINGS[0], "end-turn", RULINGS[1]]:
        version = gm.get("/api/state").json()["version"]
        assert gm.post("/api/do", json={"version": version, "text": text}).status_code == 200
        assert redact.ruling_batches(table.live()) == scanned()
    assert len(scanned()) == 2

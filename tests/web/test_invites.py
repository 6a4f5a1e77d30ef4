"""Invitation links: a token says who asks, the server writes `by=` from it, and a forged,
revoked or expired token opens nothing (401/403, never 500), whatever the store.

Every refused write is checked against the log's records: nothing appended.
"""

from __future__ import annotations

import json
import threading
import time
import warnings
from pathlib import Path

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient
from support_web import bearer, invite, new_log, records
from tabletrail.cli import main
from tabletrail.service.encounter import Encounter
from tabletrail.service.stores import store_for
from tabletrail.web.invites import Invites, encounter_key, keep_for
from tabletrail.web.server import create_app

BASE = "http://127.0.0.1:8000"


@pytest.fixture(params=["web.jsonl", "web.db"])
def log(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    return new_log(tmp_path, name=request.param)


def client(log: Path, token: str | None = None) -> TestClient:
    return TestClient(create_app(log), base_url=BASE, headers=bearer(token) if token else {})


def version(c: TestClient) -> int:
    return c.get("/api/state").json()["version"]


def do(c: TestClient, text: str) -> dict:
    r = c.post("/api/do", json={"version": version(c), "text": text})
    assert r.status_code == 200, r.json()
    return r.json()


def last_actor(log: Path) -> tuple[str, str]:
    enc = Encounter.open(store_for(str(log)))
    batch = enc.records[-1].batch
    return enc.timeline.actors[batch], enc.timeline.commands[batch].text


# --- who a token speaks for ---------------------------------------------------------------------


def test_a_players_command_is_written_as_said_by_its_side(log: Path):
    blue = client(log, invite(log, "blue")[1])
    me = blue.get("/api/me").json()
    assert me["role"] == "blue" and me["gm"] is False
    done = do(blue, "move ari 3,1")
    assert done["text"] == "move ari 3,1"  # the player's screen says no by= (issue 27)...
    assert last_actor(log) == ("blue", "move ari 3,1 by=blue")  # ...the log records who asked
    assert all("by=" not in r["text"] for r in done["records"])


def test_a_player_may_not_move_another_sides_fighter_by_any_request(log: Path):
    gm = client(log, invite(log)[1])
    blue = client(log, invite(log, "blue")[1])
    do(gm, "end-turn")
    do(gm, "end-turn")  # cy's turn now: the refusal below is about sides, not turns
    before = records(log)
    v = version(blue)
    attempts = [
        {"version": v, "move": {"fighter": "cy", "to": [7, 4]}},
        {"version": v, "text": "move cy 7,4"},
        {"version": v, "text": "move cy 7,4 by=red"},
        {"version": v, "text": "move cy 7,4", "by": "red"},
        {"version": v, "text": "move cy 7,4", "by": "gm"},
        {"version": v, "text": "move cy 7,4 by=gm"},
    ]
    for body in attempts:
        for path in ("/api/do", "/api/preview"):
            r = blue.post(path, json=body)
            assert r.status_code == 403, (path, body, r.json())
    assert records(log) == before


def test_a_player_may_not_undo_another_sides_command_but_may_undo_its_own(log: Path):
    gm = client(log, invite(log)[1])
    blue = client(log, invite(log, "blue")[1])
    red = client(log, invite(log, "red")[1])
    do(blue, "move ari 3,1")
    do(gm, "end-turn")
    do(gm, "end-turn")
    do(red, "move cy 7,4")
    before = records(log)
    for verb in ("undo", "redo"):
        r = blue.post(f"/api/{verb}", json={"version": version(blue)})
        assert r.status_code in (403, 422), r.json()
    r = blue.post("/api/undo", json={"version": version(blue)})
    assert r.status_code == 403 and "entered by red" in r.json()["message"]
    assert records(log) == before
    r = red.post("/api/undo", json={"version": version(red)})
    assert r.status_code == 200
    assert Encounter.open(store_for(str(log))).records[-1].actor == "red"


def test_rulings_settings_reveal_and_links_are_the_gms(log: Path):
    blue = client(log, invite(log, "blue")[1])
    before = records(log)
    v = version(blue)
    for text in ('forbid 3,3 why="lava"', "setting diagonal every-1"):
        assert blue.post("/api/do", json={"version": v, "text": text}).status_code == 403
    r = blue.post("/api/preview", json={"version": v, "text": "move ari 3,1", "reveal": True})
    assert r.status_code == 403
    assert blue.get("/api/invites").status_code == 403
    assert blue.post("/api/invites", json={"role": "blue"}).status_code == 403
    assert records(log) == before


# --- forged, foreign, revoked, expired, missing --------------------------------------------------


def forged(log: Path, other: Path) -> dict[str, tuple[str | None, int]]:
    """Each kind of bad token, with the status it must get."""
    ident, revoked = invite(log, "blue")
    store = store_for(str(log))
    Invites(keep_for(log, store), encounter_key(store)).revoke(ident)
    expired = invite(log, "blue", hours=1e-9)[1]
    time.sleep(0.01)
    good = invite(log, "blue")[1]
    return {
        "missing": (None, 401),
        "random": ("tt1.0123456789ab." + "A" * 43, 401),
        "malformed": ("not-a-token", 401),
        "cut short": (good[:-5], 401),
        "wrong secret": (good[:-3] + ("AAA" if not good.endswith("AAA") else "BBB"), 401),
        "other encounter's": (invite(other, "blue")[1], 401),
        "revoked": (revoked, 403),
        "expired": (expired, 403),
    }


def test_forged_tokens_open_nothing_and_never_crash(log: Path, tmp_path: Path):
    other = new_log(tmp_path / "other", name=log.name) if (tmp_path / "other").mkdir() is None else None
    assert other is not None
    app = create_app(log)
    before = records(log)
    for kind, (token, status) in forged(log, other).items():
        c = TestClient(app, base_url=BASE, headers=bearer(token) if token else {})
        v = len(before)
        answers = [
            c.get("/api/state"),
            c.get("/api/events"),
            c.get("/api/reach?fighter=ari"),
            c.post("/api/do", json={"version": v, "text": "move ari 3,1"}),
            c.post("/api/preview", json={"version": v, "text": "move ari 3,1"}),
            c.post("/api/undo", json={"version": v}),
            c.get("/api/invites"),
            c.get("/api/stream?seconds=0"),
            TestClient(app, base_url=BASE).get(f"/api/stream?seconds=0&token={token or ''}"),
        ]
        for r in answers:
            assert r.status_code == status, (kind, r.request.url, r.status_code, r.text)
            assert r.json()["message"], kind
        page = TestClient(app, base_url=BASE).get(f"/join/{token or 'x'}")
        assert page.status_code == status and "text/html" in page.headers["content-type"], kind
        assert "ask the GM" in page.text and "<svg" not in page.text, kind
    assert records(log) == before


def test_links_survive_a_restart_and_a_revoke_is_seen_at_once(log: Path):
    ident, token = invite(log, "red")
    assert client(log, token).get("/api/state").status_code == 200
    again = create_app(log)  # a new server process on the same log
    assert TestClient(again, base_url=BASE, headers=bearer(token)).get("/api/state").status_code == 200
    assert main(["invite", str(log), "--revoke", ident]) == 0  # from a terminal, while serving
    r = TestClient(again, base_url=BASE, headers=bearer(token)).get("/api/state")
    assert r.status_code == 403 and "revoked" in r.json()["message"]


def test_revoking_a_link_ends_its_open_live_stream(log: Path):
    gm_token = invite(log)[1]
    ident, token = invite(log, "red")
    app = create_app(log)
    gm = TestClient(app, base_url=BASE, headers=bearer(gm_token))
    red = TestClient(app, base_url=BASE)

    def revoke_soon() -> None:
        time.sleep(0.5)
        assert gm.post(f"/api/invites/{ident}/revoke").status_code == 200

    t = threading.Thread(target=revoke_soon)
    t.start()
    r = red.get(f"/api/stream?seconds=20&token={token}")  # open when it starts; ends when revoked
    t.join()
    assert r.status_code == 200
    assert "event: version" in r.text and "event: denied" in r.text
    assert red.get(f"/api/stream?seconds=0&token={token}").status_code == 403


def test_the_gm_page_makes_lists_and_revokes_links(log: Path):
    gm = client(log, invite(log)[1])
    made = gm.post("/api/invites", json={"role": "blue", "label": "Maya"}).json()
    assert made["url"].startswith(f"{BASE}/join/tt1.") and made["role"] == "blue"
    listed = gm.get("/api/invites").json()["invites"]
    assert {"id": made["id"], "label": "Maya"}.items() <= next(
        i for i in listed if i["id"] == made["id"]
    ).items()
    assert all("digest" not in i and "token" not in i for i in listed)
    assert TestClient(create_app(log), base_url=BASE).get(made["url"][len(BASE) :]).status_code == 200
    assert gm.post("/api/invites", json={"role": "purple"}).status_code == 404  # no such side
    assert gm.post("/api/invites/nope/revoke").status_code == 404
    assert gm.post(f"/api/invites/{made['id']}/revoke").status_code == 200
    assert client(log, made["token"]).get("/api/state").status_code == 403


def test_the_token_is_kept_only_as_a_digest(log: Path):
    _, token = invite(log, "blue")
    secret = token.split(".")[2]
    kept = Path(f"{log}.invites").read_bytes() if log.suffix == ".jsonl" else log.read_bytes()
    assert secret.encode() not in kept


def test_the_invite_verb_prints_a_link_and_lists_without_tokens(
    log: Path, capsys: pytest.CaptureFixture[str]
):
    assert main(["invite", str(log), "--side", "blue", "--url", "http://table.example:8000", "--json"]) == 0
    made = json.loads(capsys.readouterr().out)["data"]
    assert made["url"].startswith("http://table.example:8000/join/tt1.") and made["role"] == "blue"
    assert client(log, made["url"].rsplit("/", 1)[1]).get("/api/me").json()["role"] == "blue"
    assert main(["invite", str(log), "--list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["data"]["invites"]
    assert [i["id"] for i in listed] == [made["id"]] and "tt1." not in json.dumps(listed)
    assert main(["invite", str(log), "--side", "purple"]) == 2
    assert "no side 'purple'" in capsys.readouterr().err
    assert main(["invite", str(log)]) == 2
    assert "give --side SIDE" in capsys.readouterr().err
    assert main(["invite", str(log), "--revoke", "nope"]) == 2
    assert "no invite 'nope'" in capsys.readouterr().err

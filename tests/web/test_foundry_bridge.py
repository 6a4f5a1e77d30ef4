"""The Foundry VTT bridge's operations (issue 39): an encounter made from a scene (the GM's only), a token's
movement decided and recorded once under Foundry's movement id, and `serve --allow-origin`'s CORS."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

with warnings.catch_warnings():  # starlette 1.x asks for httpx2; httpx is what the test extra installs
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient
from starlette.applications import Starlette
from support_web import bearer, invite, new_log, records
from tabletrail.cli import main
from tabletrail.cli.serve import origins
from tabletrail.events.errors import InputError
from tabletrail.web.api.foundry import verbs
from tabletrail.web.server import create_app

CRYPT = Path(__file__).resolve().parents[1] / "fixtures" / "foundry" / "crypt-v13.json"
ORIGIN = "https://foundry.example.com"


def scene() -> dict:
    return json.loads(CRYPT.read_text(encoding="utf-8"))


def compact(raw: dict) -> dict:
    """The scene as the module sends it: what the converter reads, defaults left out."""
    keep = ("name", "width", "height", "padding", "grid", "walls", "tokens")
    walls = [
        {k: v for k, v in w.items() if k in ("c", "move", "sight", "door", "ds", "dir")} for w in raw["walls"]
    ]
    tokens = [{k: v for k, v in t.items() if k in ("_id", "name", "x", "y", "width", "height", "disposition")}
              for t in raw["tokens"]]  # fmt: skip
    return {k: raw[k] for k in keep} | {"walls": walls, "tokens": tokens}


@pytest.fixture
def served(tmp_path: Path) -> Path:
    return new_log(tmp_path)


APPS: dict[tuple[Path, tuple[str, ...]], Starlette] = {}


def client(log: Path, token: str, origin_allowed: tuple[str, ...] = ()) -> TestClient:
    """A client of the one server of this log (every client of a test shares it, as screens share a table)."""
    app = APPS.setdefault((log, origin_allowed), create_app(log, origins=origin_allowed))
    return TestClient(app, base_url="http://127.0.0.1:8000", headers=bearer(token))


def start(gm: TestClient, **extra: object) -> dict:
    tokens = {"tok0000000000001": {"stats": {"speed": 4}}, "tok0000000000003": {"stats": {"speed": 3}}}
    body = {"scene": compact(scene()), "ruleset": "speed-meters", "tokens": tokens}
    r = gm.post("/api/foundry/encounter", json=body | extra)
    assert r.status_code == 200, r.json()
    return r.json()


def test_the_gm_starts_refereeing_a_scene_and_the_table_plays_it(served: Path):
    gm = client(served, invite(served)[1])
    before = records(served)
    said = start(gm)
    assert records(served) == before  # the served log is left as it was
    assert Path(said["log"]).name == "web.crypt-of-the-lost.jsonl" and Path(said["log"]).is_file()
    assert said["origin"] == [280, 140] and said["grid"] == 140 and said["ruleset"] == "speed-meters"
    assert {f["fighter"] for f in said["fighters"]} == {"ari", "bo", "ghoul", "ghoul-2", "ogre"}
    assert said["sides"] == ["friendly", "hostile"]
    assert said["verbs"]["blink"] == "teleport" and said["verbs"]["displace"] == "place"
    board = gm.get("/api/state").json()
    assert {f["id"] for f in board["fighters"]} == {"ari", "bo", "ghoul", "ghoul-2", "ogre"}
    assert gm.get("/api/me").status_code == 200  # the GM's link still speaks for the GM
    again = start(gm)  # a second start makes a second log, never overwrites the first
    assert again["log"].endswith("web.crypt-of-the-lost-2.jsonl")


def test_only_the_gm_may_start_refereeing(served: Path):
    player = client(served, invite(served, "blue")[1])
    r = player.post("/api/foundry/encounter", json={"scene": compact(scene()), "ruleset": "speed-meters"})
    assert r.status_code == 403
    assert not list(served.parent.glob("web.crypt*"))


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"scene": {"width": 10}, "ruleset": "nope"}, "unknown ruleset 'nope'"),
        ({"scene": compact(scene()) | {"grid": {"type": 3, "size": 100}}, "ruleset": "speed-meters"},
         "a hex (even rows) grid; tabletrail plays on squares"),
        ({"scene": compact(scene()), "ruleset": "speed-meters",
          "tokens": {"tok0000000000001": {"side": "watcher"}}},
         "'watcher' is the name of a view-only link's role, not a side"),
    ],
)  # fmt: skip
def test_a_bad_scene_is_refused_in_words_and_starts_nothing(served: Path, body: dict, words: str):
    """An unknown ruleset is a malformed request (400: the contract lists the rulesets); a scene that
    can't be refereed is a well-formed one the server can't use (422)."""
    gm = client(served, invite(served)[1])
    r = gm.post("/api/foundry/encounter", json=body)
    status = 400 if body["ruleset"] == "nope" else 422
    assert r.status_code == status and words in r.json()["message"], r.json()
    assert not list(served.parent.glob("web.*.jsonl"))


def test_a_move_is_recorded_once_under_its_movement_id_with_its_cost_and_what_is_left(served: Path):
    gm = client(served, invite(served)[1])
    start(gm)
    player = client(served, gm.post("/api/invites", json={"role": "friendly"}).json()["token"])
    body = {"fighter": "ari", "cells": [[1, 2], [1, 3]], "command_id": "mOvEmEnT0000001a", "action": "walk"}
    r = player.post("/api/foundry/move", json=body)
    assert r.status_code == 200, r.json()
    said = r.json()
    assert said["at"][:2] == [1, 3] and said["cost"] == 200 and said["left"] == 200 and said["unit"] == "m"
    version = player.get("/api/state").json()["version"]
    again = player.post("/api/foundry/move", json=body)  # a retry: the same records, nothing new
    assert again.status_code == 200 and again.json()["replayed"] is True
    assert player.get("/api/state").json()["version"] == version


def test_an_overrun_is_refused_with_the_rule_and_its_numbers_and_nothing_is_written(served: Path):
    gm = client(served, invite(served)[1])
    said = start(gm)
    version = gm.get("/api/state").json()["version"]
    r = gm.post(
        "/api/foundry/move", json={"fighter": "ari", "cells": [[1, 8]], "command_id": "overrun000000001"}
    )
    assert r.status_code == 422
    refused = r.json()
    assert refused["rule"] == "speed-meters/movement" and "only 4 m are left" in refused["reason"], refused
    assert gm.get("/api/state").json()["version"] == version
    assert Path(said["log"]).is_file()


def test_a_player_moves_only_its_own_sides_tokens_and_never_displaces(served: Path):
    gm = client(served, invite(served)[1])
    start(gm)
    player = client(served, gm.post("/api/invites", json={"role": "friendly"}).json()["token"])
    r = player.post(
        "/api/foundry/move", json={"fighter": "ghoul", "cells": [[9, 3]], "command_id": "notmine000000001"}
    )
    assert r.status_code == 403
    body = {"fighter": "ari", "cells": [[5, 5]], "command_id": "displace00000001", "action": "displace"}
    r = player.post("/api/foundry/move", json=body)
    assert r.status_code == 403 and "place is the GM's" in r.json()["message"]


def test_the_gms_displace_is_a_ruling_and_blink_is_a_teleport(served: Path):
    gm = client(served, invite(served)[1])
    start(gm)
    body = {"fighter": "ari", "cells": [[4, 6]], "command_id": "displace00000002", "action": "displace"}
    r = gm.post("/api/foundry/move", json=body)
    assert r.status_code == 200 and r.json()["at"][:2] == [4, 6] and r.json()["placed"] is True
    body = {"fighter": "ari", "cells": [[4, 7]], "command_id": "blink00000000001", "action": "blink"}
    r = gm.post("/api/foundry/move", json=body)
    assert r.status_code == 422 and r.json()["rule"].startswith("speed-meters/"), (
        r.json()
    )  # no Teleport range


def test_an_unknown_action_is_a_400_and_a_cell_off_the_map_a_404(served: Path):
    """An action the contract doesn't list is a malformed request; a cell is well formed but not on
    this map (as the ruler answers)."""
    gm = client(served, invite(served)[1])
    start(gm)
    body = {"fighter": "ari", "cells": [[2, 2]], "command_id": "sidestep00000001", "action": "sidestep"}
    r = gm.post("/api/foundry/move", json=body)
    assert r.status_code == 400 and "unknown movement action 'sidestep'" in r.json()["message"]
    r = gm.post(
        "/api/foundry/move", json={"fighter": "ari", "cells": [[40, 2]], "command_id": "offmap0000000001"}
    )
    assert r.status_code == 404 and "40,2 is off the 12x9 map" in r.json()["message"]
    r = gm.post("/api/foundry/move", json={"fighter": "ari", "cells": [], "command_id": "nocells000000001"})
    assert r.status_code == 400 and "cells" in r.json()["message"]  # the body's type says at least one


def test_each_ruleset_names_a_verb_for_walk_and_none_it_lacks():
    assert verbs("speed-meters")["fly"] == "fly"
    assert verbs("round-meters")["fly"] is None and verbs("round-meters")["walk"] == "move"
    assert verbs("initiative-yards")["blink"] is None


def test_cors_answers_the_allowed_origin_only_and_never_with_credentials(served: Path):
    token = invite(served)[1]
    allowed = client(served, token, (ORIGIN,))
    asks = {
        "Origin": ORIGIN,
        "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "authorization",
    }
    pre = allowed.options("/api/state", headers=asks)
    assert pre.status_code == 200 and pre.headers["access-control-allow-origin"] == ORIGIN
    assert "access-control-allow-credentials" not in pre.headers
    r = allowed.get("/api/state", headers={"Origin": ORIGIN})
    assert r.status_code == 200 and r.headers["access-control-allow-origin"] == ORIGIN
    other = allowed.get("/api/state", headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in other.headers
    plain = client(served, token)  # no --allow-origin: no CORS header for anyone
    assert "access-control-allow-origin" not in plain.get("/api/state", headers={"Origin": ORIGIN}).headers
    unauth = TestClient(create_app(served, origins=(ORIGIN,)), base_url="http://127.0.0.1:8000")
    assert unauth.get("/api/state", headers={"Origin": ORIGIN}).status_code == 401  # a token as ever


def test_allow_origin_takes_origins_only():
    assert origins(["https://Foundry.Example.com/", "http://localhost:30000"]) == (
        "https://foundry.example.com",
        "http://localhost:30000",
    )
    for bad in ("foundry.example.com", "https://foundry.example.com/game", "ftp://x"):
        with pytest.raises(InputError, match="is not an origin; give scheme://host"):
            origins([bad])


def test_serve_refuses_allow_origin_for_a_hosted_table(capsys: pytest.CaptureFixture[str]):
    code = main(["serve", "postgresql://127.0.0.1/test", "--allow-origin", ORIGIN])
    assert (
        code == 2
        and "a hosted table (a PostgreSQL database) takes no other origins" in capsys.readouterr().err
    )

"""The GM's home page of a served folder and the encounter builder's API (app/web/home.py,
api_home.py, api_builder.py, app/service/drafts.py): who may call each route, what the scenario reader
refuses at its field, drafts that survive a restart, Start as `tabletrail new`, and exports."""

from __future__ import annotations

import shutil
import tomllib
import warnings
from pathlib import Path
from typing import Any

import msgspec
import pytest
from support_web import bearer, invite, new_log
from tabletrail.events.scenario.reader import load_scenario, parse_scenario
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.projections.audit import verify_store
from tabletrail.service.encounter import Encounter
from tabletrail.service.scenario_toml import raw_of, toml_text
from tabletrail.service.stores import store_for
from tabletrail.web.home import HOME_INVITES, create_folder_app
from tabletrail.web.invites import GM

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

ROOT = Path(__file__).resolve().parents[2]
CAVE = ROOT / "scenarios" / "cave.dd2vtt"
HOSTS = ("127.0.0.1", "localhost", "testserver")


def home_client(folder: Path) -> tuple[TestClient, str]:
    """A client of the folder's app with the GM's home link, as `serve FOLDER` prints it."""
    app = create_folder_app(folder, HOSTS)
    _, token = app.state.home.invites.make(GM, label="test")
    return TestClient(app, base_url="http://127.0.0.1:8000", headers=bearer(token)), token


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path


def new_draft(client: TestClient, **body: Any) -> dict[str, Any]:
    r = client.post("/api/home/drafts", json={"name": "Cellar room", "ruleset": "initiative-yards", **body})
    assert r.status_code == 200, r.text
    return r.json()


def put(client: TestClient, draft: dict[str, Any], scenario: dict[str, Any]) -> Any:
    return client.put(f"/api/home/drafts/{draft['name']}", json={"scenario": scenario})


def fighter(fid: str, side: str, x: int, y: int, **stats: Any) -> dict[str, Any]:
    return {"id": fid, "name": fid.title(), "side": side, "at": [x, y], "initiative": 4, "height": 2, **stats}


def room(draft: dict[str, Any]) -> dict[str, Any]:
    """The issue's 12 x 10 room: rough terrain, a sight-only wall, a door, four fighters on two sides."""
    raw = dict(draft["scenario"])
    rows = [list(r) for r in raw["map"]["rows"]]
    for x in (5, 6):
        rows[4][x] = "r"
    raw["map"] = {
        "rows": ["".join(r) for r in rows],
        "legend": {".": {"terrain": "floor"}, "r": {"terrain": "rough"}},
        "walls": ["6,0-6,3", {"at": "2,6-5,6", "blocks": "sight"}],
        "doors": [{"at": "5,3|6,3", "closed": True, "locked": False}],
    }
    raw["fighters"] = [
        fighter("ari", "blue", 1, 1),
        fighter("bo", "blue", 2, 1),
        fighter("cyn", "red", 9, 8),
        fighter("dax", "red", 10, 8),
    ]
    return raw


def test_the_home_is_the_folders_own_link_players_and_watchers_never_reach_it(folder: Path):
    log = new_log(folder)
    client, token = home_client(folder)
    assert client.get(f"/home/{token}").status_code == 200
    assert client.get("/api/home").status_code == 200
    for role in ("blue", "watcher", "gm"):  # a link of an encounter, even its GM's, is not the folder's
        other = invite(log, role)[1]
        assert client.get(f"/home/{other}").status_code == 401
        r = client.get("/api/home", headers=bearer(other))
        assert r.status_code == 401 and r.json()["error"] == "bad link"
        assert client.post("/api/home/drafts", json={"name": "x"}, headers=bearer(other)).status_code == 401
    assert client.get("/api/home", headers={"Authorization": ""}).status_code == 401
    assert (folder / HOME_INVITES).exists()
    # and the folder's link opens no encounter's table
    assert client.get(f"/e/{log.name}/api/me").status_code == 401


def test_the_home_lists_each_encounter_with_its_ruleset_round_and_who_is_to_act(folder: Path):
    log = new_log(folder)
    client, _ = home_client(folder)
    rows = client.get("/api/home").json()["encounters"]
    state = Encounter.open(store_for(str(log))).state
    (row,) = rows
    assert row["name"] == log.name and row["title"] == state.scenario.name
    assert row["ruleset"] == state.ruleset and row["round"] == state.turn.round
    assert row["acting"] == state.fighter(state.turn.active).name


def test_a_draft_is_checked_by_the_reader_and_refused_at_its_field_saving_nothing(folder: Path):
    client, _ = home_client(folder)
    draft = new_draft(client)
    good = room(draft)
    r = put(client, draft, good)
    assert r.status_code == 200 and r.json()["ready"], r.text
    kept = (folder / ".drafts" / f"{draft['name']}.json").read_bytes()
    wrongs = {
        "fighters[1].at": lambda s: s["fighters"][1].update(at=[1, 1]),  # two on one cell
        "fighters[0].initiative": lambda s: s["fighters"][0].update(initiative=-3),  # a stat out of range
        "map.doors[0].at": lambda s: s["map"]["doors"][0].update(at="1,1|3,1"),  # cells that don't touch
        "fighters[2].at": lambda s: s["fighters"][2].update(at=[40, 2]),  # off the map
        "map.walls[1].blocks": lambda s: s["map"]["walls"][1].update(blocks="smell"),
        "encounter.name": lambda s: s["encounter"].update(name=""),
    }
    for field, spoil in wrongs.items():
        bad = msgspec.json.decode(msgspec.json.encode(good))
        spoil(bad)
        r = put(client, draft, bad)
        assert r.status_code == 422, (field, r.text)
        assert r.json()["field"] == field, (field, r.json())
        assert (folder / ".drafts" / f"{draft['name']}.json").read_bytes() == kept  # nothing saved
    # a fighter on a wall: the wall is a legend terrain painted under it
    bad = msgspec.json.decode(msgspec.json.encode(good))
    bad["map"]["legend"]["#"] = {"terrain": "wall"}
    bad["map"]["rows"][1] = "#" * 12
    r = put(client, draft, bad)
    assert r.status_code == 422 and r.json()["field"] == "fighters[0].at"
    assert "wall" in r.json()["message"]
    r = client.post(
        f"/api/home/drafts/{draft['name']}/grid", json={"width": 2000, "height": 2000, "check": True}
    )
    assert r.status_code == 422 and r.json()["field"] == "map.rows"
    r = client.post(f"/api/home/drafts/{draft['name']}/grid", json={"width": 20, "height": 20, "check": True})
    assert r.status_code == 200 and r.json() == {"problem": None}  # checked, not made
    r = client.post(f"/api/home/drafts/{draft['name']}/grid", json={"width": 2000, "height": 2000})
    assert r.status_code == 422 and r.json()["field"] == "map.rows" and "MAX_MAP_CELLS" in r.json()["message"]
    assert (folder / ".drafts" / f"{draft['name']}.json").read_bytes() == kept


def test_a_new_draft_is_refused_at_its_field_and_keeps_nothing(folder: Path):
    client, _ = home_client(folder)
    for body, field in (
        ({"name": " ", "ruleset": "initiative-yards"}, "encounter.name"),
        ({"name": "x", "ruleset": "chess"}, "encounter.ruleset"),
        ({"name": "x", "ruleset": "initiative-yards", "width": 0}, "map.rows"),
        ({"name": "x", "ruleset": "initiative-yards", "width": 5000}, "map.rows"),
        ({"name": "x", "scenario": "nowhere.toml"}, "scenario"),
    ):
        r = client.post("/api/home/drafts", json=body)
        assert r.status_code == 422 and r.json()["field"] == field, (body, r.text)
    assert client.get("/api/home/drafts").json()["drafts"] == []


def test_a_draft_without_fighters_is_kept_but_cannot_start(folder: Path):
    client, _ = home_client(folder)
    draft = new_draft(client)
    assert draft["ready"] is False and draft["problem"]["field"] == "fighters"
    r = client.post(f"/api/home/drafts/{draft['name']}/start")
    assert r.status_code == 422 and r.json()["field"] == "fighters"
    assert not list(folder.glob("*.db"))


def test_a_draft_survives_a_restart_and_start_writes_what_tabletrail_new_writes(folder: Path):
    client, _ = home_client(folder)
    draft = new_draft(client)
    scenario = room(draft)
    assert put(client, draft, scenario).status_code == 200
    client, _ = home_client(folder)  # a new server on the same folder
    again = client.get(f"/api/home/drafts/{draft['name']}").json()
    assert again["scenario"] == scenario and again["ready"]
    r = client.post(f"/api/home/drafts/{draft['name']}/start")
    assert r.status_code == 200, r.text
    started = r.json()
    log = folder / started["encounter"]
    assert {link["role"] for link in started["links"]} == {"gm", "blue", "red", "watcher"}
    assert all(link["qr"].startswith("<svg") for link in started["links"])
    assert verify_store(store_for(str(log), heal=False))["ok"]
    first = Encounter.open(store_for(str(log))).state.scenario
    assert first == parse_scenario(scenario, source="draft")  # the log's scenario is the builder's
    assert client.get(f"/api/home/drafts/{draft['name']}").status_code == 404  # the draft is gone
    # The players' links open the table the builder started.
    blue = next(link for link in started["links"] if link["role"] == "blue")
    token = blue["url"].rsplit("/", 1)[1]
    assert client.get(f"/e/{log.name}/api/me", headers=bearer(token)).json()["role"] == "blue"


def test_exports_scenario_log_and_bundle_and_the_toml_reimports_to_the_same_first_line(folder: Path):
    client, _ = home_client(folder)
    draft = new_draft(client)
    put(client, draft, room(draft))
    log = folder / client.post(f"/api/home/drafts/{draft['name']}/start").json()["encounter"]
    toml = client.get(f"/api/home/encounters/{log.name}/export", params={"as": "toml"})
    assert toml.status_code == 200 and "attachment" in toml.headers["content-disposition"]
    (folder / "again.toml").write_bytes(toml.content)
    memory = MemoryStore()
    Encounter.create(memory, load_scenario(folder / "again.toml"), where="again.toml")
    ours = msgspec.json.decode(next(iter(store_for(str(log)).read())))
    theirs = msgspec.json.decode(memory.lines[0])
    assert ours["event"] == theirs["event"]  # the same first line, but for when it was written
    jsonl = client.get(f"/api/home/encounters/{log.name}/export", params={"as": "jsonl"})
    assert jsonl.content.splitlines() == list(store_for(str(log)).read())
    page = client.get(f"/api/home/encounters/{log.name}/export", params={"as": "bundle"})
    assert page.status_code == 200 and page.content.startswith(b"<!doctype html>")
    assert client.get(f"/api/home/encounters/{log.name}/export", params={"as": "pdf"}).status_code == 400
    assert client.get("/api/home/encounters/..%2Fx.db/export", params={"as": "toml"}).status_code == 404


def test_open_copy_and_archive(folder: Path):
    log = new_log(folder)
    client, _ = home_client(folder)
    url = client.post(f"/api/home/encounters/{log.name}/open").json()["url"]
    token = url.rsplit("/", 1)[1]
    assert client.get(f"/e/{log.name}/api/me", headers=bearer(token)).json()["gm"] is True
    copied = client.post(f"/api/home/encounters/{log.name}/copy").json()
    assert copied["scenario"]["map"]["rows"] == list(Encounter.open(store_for(str(log))).state.scenario.rows)
    r = client.post(f"/api/home/encounters/{log.name}/archive")
    assert r.status_code == 200
    assert not log.exists() and (folder / "archive" / log.name).exists()
    assert client.get("/api/home").json()["encounters"] == []
    assert client.post(f"/api/home/encounters/{log.name}/archive").status_code == 404


def test_a_name_archived_twice_keeps_each_logs_files_beside_it_and_no_other_log(folder: Path):
    """The second fight.jsonl archived becomes fight-2.jsonl with fight-2.jsonl.tip and .snapshots beside it
    (not fight.jsonl-2.tip, which no store reads); a log whose name only starts with it stays put."""
    client, _ = home_client(folder)
    for round_ in (1, 2):
        log = new_log(folder, name="fight.jsonl")
        (folder / "fight.jsonl.snapshots").write_bytes(b"cache %d" % round_)
        assert (folder / "fight.jsonl.tip").exists()  # the store keeps its tip beside the log
        other = new_log(folder, name="fight.jsonl-b.jsonl")  # another encounter, not one of its files
        assert (
            client.post(f"/api/home/encounters/{log.name}/archive")
            .json()["to"]
            .endswith("fight.jsonl" if round_ == 1 else "fight-2.jsonl")
        )
        assert other.exists() and not log.exists()
        other.unlink()
    archive = folder / "archive"
    assert sorted(p.name for p in archive.iterdir()) == [
        "fight-2.jsonl", "fight-2.jsonl.snapshots", "fight-2.jsonl.tip",
        "fight.jsonl", "fight.jsonl.snapshots", "fight.jsonl.tip",
    ]  # fmt: skip
    assert (archive / "fight-2.jsonl.snapshots").read_bytes() == b"cache 2"
    assert store_for(str(archive / "fight-2.jsonl")).kept_tip() is not None  # its tip still found beside it


def test_a_link_the_gm_makes_at_a_folders_table_opens_that_table(folder: Path):
    """The Links panel of a table served from a folder (at /e/NAME/) gives a link that opens it, for the
    side it was made for; a link without the /e/NAME part would be a 404 for the player."""
    log = new_log(folder)
    client, _ = home_client(folder)
    gm = client.post(f"/api/home/encounters/{log.name}/open").json()["url"].rsplit("/", 1)[1]
    made = client.post(f"/e/{log.name}/api/invites", json={"role": "blue"}, headers=bearer(gm)).json()
    assert made["url"].startswith(f"http://127.0.0.1:8000/e/{log.name}/join/tt1."), made["url"]
    page = client.get(made["url"][len("http://127.0.0.1:8000") :], headers={"authorization": ""})
    assert page.status_code == 200 and page.content.startswith(b"<!doctype html>")
    me = client.get(f"/e/{log.name}/api/me", headers=bearer(made["token"])).json()
    assert me["role"] == "blue" and me["gm"] is False


def test_a_universal_vtt_file_is_the_drafts_map_with_its_report_and_picture(folder: Path):
    client, _ = home_client(folder)
    draft = new_draft(client, ruleset="speed-meters")
    r = client.post(
        f"/api/home/drafts/{draft['name']}/map",
        params={"file": "cave.dd2vtt"},
        content=CAVE.read_bytes(),
        headers={"Content-Type": "application/octet-stream"},
    )
    assert r.status_code == 200, r.text
    made = r.json()
    assert any(line.startswith("map: 12 x 10 cells") for line in made["report"])
    assert made["scenario"]["map"]["walls"] and "picture" in made["scenario"]
    assert client.get(f"/api/home/drafts/{draft['name']}/picture").status_code == 200
    # a malformed file is refused at the map's field and changes nothing
    before = (folder / ".drafts" / f"{draft['name']}.json").read_bytes()
    r = client.post(f"/api/home/drafts/{draft['name']}/map", content=b'{"resolution": 3')
    assert r.status_code == 422 and r.json()["field"] == "map.file" and "not JSON" in r.json()["message"]
    assert (folder / ".drafts" / f"{draft['name']}.json").read_bytes() == before


def test_a_scenario_written_by_hand_opens_in_the_builder(folder: Path):
    shutil.copy(ROOT / "scenarios" / "ap-squares-derelict.toml", folder / "hand.toml")
    client, _ = home_client(folder)
    assert "hand.toml" in client.get("/api/home").json()["scenarios"]
    draft = new_draft(client, scenario="hand.toml")
    assert draft["ready"]
    raw = tomllib.loads((folder / "hand.toml").read_text())
    assert draft["scenario"]["map"]["rows"] == raw["map"]["rows"]
    assert parse_scenario(draft["scenario"]).fighters == load_scenario(folder / "hand.toml").fighters


def test_the_toml_writer_round_trips_every_shipped_scenario(tmp_path: Path):
    for path in sorted((ROOT / "scenarios").glob("*.toml")):
        scenario = load_scenario(path)
        (tmp_path / path.name).write_text(toml_text(raw_of(scenario)))
        assert load_scenario(tmp_path / path.name) == scenario, path.name


def test_the_catalogue_is_the_rulesets_own(folder: Path):
    from tabletrail.core.engine.registry import RULESETS

    client, _ = home_client(folder)
    data = client.get("/api/home/rulesets").json()
    for rs in data["rulesets"]:
        real = RULESETS[rs["id"]]
        assert [s["name"] for s in rs["settings"]] == [s.name for s in real.all_settings()]
        assert [s["name"] for s in rs["stats"]] == [s.name for s in real.stats]
    assert "rough" in {t["terrain"] for t in data["terrains"]}


def test_serve_on_a_folder_prints_the_gm_home_link_and_answers_it(tmp_path: Path):
    import signal
    import socket
    import subprocess
    import sys
    import time

    import httpx

    log = new_log(tmp_path)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "tabletrail", "serve", str(tmp_path), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith(
            f"serving the encounters of {tmp_path} at http://127.0.0.1:{port}/"
        )
        link = proc.stdout.readline().strip()
        assert f"http://127.0.0.1:{port}/home/tt1." in link
        token = link.rsplit("/", 1)[1]
        listed = None
        for _ in range(100):
            try:
                listed = httpx.get(
                    f"http://127.0.0.1:{port}/api/home", headers=bearer(token), timeout=1
                ).json()
                break
            except httpx.TransportError:
                time.sleep(0.1)
        assert listed is not None and [e["name"] for e in listed["encounters"]] == [log.name]
        assert httpx.get(f"http://127.0.0.1:{port}/home/{token}", timeout=5).status_code == 200
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert "stopped serving" in out


def test_a_started_maps_picture_goes_with_its_copy_and_a_draft_serves_only_its_own(folder: Path):
    client, _ = home_client(folder)
    draft = new_draft(client, ruleset="speed-meters")
    client.post(f"/api/home/drafts/{draft['name']}/map", content=CAVE.read_bytes())
    scenario = client.get(f"/api/home/drafts/{draft['name']}").json()["scenario"]
    scenario["fighters"] = [{"id": "ari", "side": "blue", "at": [5, 5], "speed": 6}]
    assert client.put(f"/api/home/drafts/{draft['name']}", json={"scenario": scenario}).status_code == 200
    log = client.post(f"/api/home/drafts/{draft['name']}/start").json()["encounter"]
    picture = folder / f"{Path(log).stem}.png"
    assert picture.is_file()  # beside the log, as `import-map` then `new` leave it
    copied = client.post(f"/api/home/encounters/{log}/copy").json()
    assert Path(copied["scenario"]["picture"]["file"]).parent == Path(".")  # the copy's own picture
    got = client.get(f"/api/home/drafts/{copied['name']}/picture")
    assert got.status_code == 200 and got.content == picture.read_bytes()
    # a draft that names a picture elsewhere on the server is not served it
    elsewhere = copied["scenario"]
    elsewhere["picture"]["file"] = str(picture)
    assert client.put(f"/api/home/drafts/{copied['name']}", json={"scenario": elsewhere}).status_code == 200
    assert client.get(f"/api/home/drafts/{copied['name']}/picture").status_code == 404


@pytest.mark.parametrize("shipped", sorted(p.name for p in (ROOT / "scenarios").glob("*.toml")))
def test_every_shipped_scenario_opens_in_the_builder_saves_unchanged_and_starts_as_written(
    folder: Path, shipped: str
):
    client, _ = home_client(folder)
    draft = new_draft(client, scenario=shipped)
    assert draft["ready"], draft["problem"]
    again = put(client, draft, draft["scenario"])
    assert again.status_code == 200, again.text
    log = folder / client.post(f"/api/home/drafts/{draft['name']}/start").json()["encounter"]
    assert verify_store(store_for(str(log), heal=False))["ok"]
    written = load_scenario(ROOT / "scenarios" / shipped)
    started = Encounter.open(store_for(str(log))).state.scenario
    assert started.fighters == written.fighters and started.rows == written.rows
    assert started.legend == written.legend and started.settings == written.settings
    assert started.wall_specs() == written.wall_specs() and started.door_list() == written.door_list()

"""The battle-map picture under the grid, and walls and doors drawn on the board (issue 19, part 2).

A map imported from a Universal VTT file (`tabletrail import-map`) is served by the
table view: `/api/state` says where the picture sits, `/api/picture` serves the very
file the encounter began with, and the page draws it under the grid with the walls and
doors on their edges. The browser test saves screenshots (1366x768, 1024x768) under /tmp.
"""

from __future__ import annotations

import hashlib
import shutil
import warnings
from pathlib import Path

import pytest
from support_web import bearer, invite, new_log
from tabletrail.cli import main
from tabletrail.web.server import create_app

with warnings.catch_warnings():  # starlette 1.x asks for httpx2; httpx is what the test extra installs
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "uvtt"
SHOTS = Path("/tmp/tabletrail-map-shots")


def imported_log(
    folder: Path, fixture: str = "door.dd2vtt", log: str = "table.jsonl", lock: str | None = None
) -> Path:
    """A log started from a Universal VTT map imported into `folder` (scenario + picture beside it);
    `lock` names a door the GM then locks by hand in the scenario (UVTT has no locked doors)."""
    scenario = folder / "map.toml"
    argv = ["import-map", str(FIXTURES / fixture), "--ruleset", "speed-meters", "-o", str(scenario)]
    assert main(argv) == 0
    if lock:
        text = scenario.read_text(encoding="utf-8")
        door = f'{{ at = "{lock}", closed = true }}'
        assert door in text
        scenario.write_text(text.replace(door, f'{{ at = "{lock}", closed = true, locked = true }}'), "utf-8")
    assert main(["new", str(scenario), "--log", str(folder / log)]) == 0
    return folder / log


def client(log: Path, role: str = "gm") -> TestClient:
    return TestClient(create_app(log), base_url="http://127.0.0.1:8000", headers=bearer(invite(log, role)[1]))


@pytest.mark.parametrize("name", ["table.jsonl", "table.db"])
def test_the_board_says_where_the_picture_sits_and_serves_that_file(tmp_path, capsys, name):
    log = imported_log(tmp_path, log=name)
    capsys.readouterr()
    c = client(log)
    board = c.get("/api/state").json()
    data = (tmp_path / "map.png").read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    assert board["picture"] == {
        "url": f"/api/picture?v={digest[:16]}",
        "pixels_per_grid": 20.0,
        "origin": [0.0, 0.0],
        "width": 200,
        "height": 160,
        "kind": "png",
        "name": "map.png",
    }
    got = c.get(board["picture"]["url"])
    assert got.status_code == 200 and got.content == data
    assert got.headers["content-type"] == "image/png"
    # The walls and doors the engine keeps are on the board beside it (h19a's fields).
    assert [5, 1, 5, 3] in board["walls"] and {d["at"] for d in board["doors"]} >= {"4,3|5,3", "8,2|9,2"}
    # A player's link sees the picture too; no link sees nothing.
    assert client(log, "blue").get("/api/picture").status_code == 200
    assert (
        TestClient(create_app(log), base_url="http://127.0.0.1:8000").get("/api/picture").status_code == 401
    )


def test_a_log_copied_with_its_picture_finds_it_beside_it(tmp_path, capsys):
    (tmp_path / "here").mkdir()
    log = imported_log(tmp_path / "here")
    capsys.readouterr()
    moved = tmp_path / "there"
    moved.mkdir()
    shutil.copy(log, moved / log.name)
    shutil.copy(log.with_name("map.png"), moved / "map.png")
    shutil.rmtree(log.parent)  # the path kept in the log is gone
    got = client(moved / log.name).get("/api/picture")
    assert got.status_code == 200 and got.content == (moved / "map.png").read_bytes()


def test_a_picture_changed_since_the_encounter_began_is_not_served(tmp_path, capsys):
    log = imported_log(tmp_path)
    capsys.readouterr()
    c = client(log)
    assert c.get("/api/picture").status_code == 200
    picture = tmp_path / "map.png"
    picture.write_bytes(picture.read_bytes() + b"\x00")  # another file now, under the same name
    got = c.get("/api/picture")
    assert got.status_code == 404
    assert "map.png is neither at" in got.json()["message"] and "sha256" in got.json()["message"]


def test_a_scenario_without_a_picture_has_none(tmp_path):
    log = new_log(tmp_path)
    c = client(log)
    assert c.get("/api/state").json()["picture"] is None
    got = c.get("/api/picture")
    assert got.status_code == 404 and "no [picture]" in got.json()["message"]


# --- in the browser --------------------------------------------------------------------------------

try:
    from tests.e2e.test_table_view import ARGS, CHROMIUM, WAIT_MS, Running, box
except pytest.skip.Exception:  # no chromium: the browser test below skips, the ones above still run
    CHROMIUM = None


def assert_covers_the_map(page) -> None:  # noqa: ANN001
    """The picture's corners are the outer corners of cells 0,0 and 9,7 (each cell's box holds half
    the grid line drawn around it: the pitch from one cell to the next tells how much)."""
    pic = box(page.locator("#picture"))
    first, second, last = (box(page.locator(f'#terrain [data-cell="{c}"]')) for c in ("0,0", "1,0", "9,7"))
    line = (first["width"] - (second["x"] - first["x"])) / 2
    assert abs(pic["x"] - first["x"] - line) < 1 and abs(pic["y"] - first["y"] - line) < 1, (pic, first)
    assert abs(pic["x"] + pic["width"] - (last["x"] + last["width"] - line)) < 1
    assert abs(pic["y"] + pic["height"] - (last["y"] + last["height"] - line)) < 1


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
@pytest.mark.parametrize("size", [(1366, 768), (1024, 768)], ids=["laptop", "tablet"])
def test_the_picture_lies_under_the_grid_with_walls_and_doors_on_their_edges(tmp_path, capsys, size):
    sync_api = pytest.importorskip("playwright.sync_api")
    expect = sync_api.expect
    log = imported_log(tmp_path, lock="8,2|9,2")
    capsys.readouterr()
    with Running(log) as server, sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_context(viewport={"width": size[0], "height": size[1]}).new_page()
            page.set_default_timeout(WAIT_MS)
            with page.expect_response(lambda r: "/api/picture" in r.url) as answer:
                page.goto(server.gm)
            assert answer.value.status == 200
            picture = page.locator("#picture")
            expect(picture).to_have_attribute("width", "10")
            expect(picture).to_have_attribute("height", "8")
            expect(page.locator("#board")).to_have_class("has-picture")
            # The picture covers the map exactly: its corners are the corners of cells 0,0 and 9,7.
            assert_covers_the_map(page)
            # Every wall of the board is drawn on its grid line, and each door in its state.
            board = client(log).get("/api/state").json()
            expect(page.locator("#walls .wall")).to_have_count(len(board["walls"]))
            wall = box(page.locator('[data-wall="5,1-5,3"]'))
            cell = box(page.locator('[data-cell="5,1"]'))
            assert abs(wall["x"] + wall["width"] / 2 - cell["x"]) < 1.5  # on the west edge of column 5
            for door in board["doors"]:
                expect(page.locator(f'[data-door="{door["at"]}"]')).to_have_attribute(
                    "data-state", door["state"]
                )
            expect(page.locator('[data-door="4,4|4,5"] .leaf')).to_have_count(1)  # open: the leaf swung
            expect(page.locator('[data-door="4,3|5,3"] .slab')).to_have_count(1)  # closed: across the edge
            expect(page.locator('[data-door="8,2|9,2"]')).to_have_attribute("data-state", "locked")
            expect(page.locator('[data-door="8,2|9,2"] .lock')).to_have_count(1)
            SHOTS.mkdir(exist_ok=True)
            page.screenshot(path=str(SHOTS / f"map-{size[0]}x{size[1]}.png"))
            # Zoomed in, the picture scales with the grid: it still meets cell 0,0's corner.
            page.locator("#zoom-in").click()
            page.locator("#zoom-in").click()
            assert_covers_the_map(page)
            page.screenshot(path=str(SHOTS / f"map-{size[0]}x{size[1]}-zoomed.png"))
            # Scout opens the middle door from the command box: the board redraws it open.
            page.locator("#command").fill("open scout 4,3|5,3")
            page.locator("#command-form button[type=submit]").click()
            page.locator("#confirm").click()
            expect(page.locator('[data-door="4,3|5,3"]')).to_have_attribute("data-state", "open")
            expect(page.locator('[data-door="4,3|5,3"] .leaf')).to_have_count(1)
            page.screenshot(path=str(SHOTS / f"map-{size[0]}x{size[1]}-opened.png"))
        finally:
            browser.close()


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_a_cave_is_drawn_as_the_staircase_the_engine_keeps(tmp_path, capsys):
    """The cave's diagonal walls are drawn as the edges the importer chose, over the picture's curve."""
    sync_api = pytest.importorskip("playwright.sync_api")
    expect = sync_api.expect
    log = imported_log(tmp_path, fixture="cave.dd2vtt")
    capsys.readouterr()
    board = client(log).get("/api/state").json()
    with Running(log) as server, sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
            page.set_default_timeout(WAIT_MS)
            with page.expect_response(lambda r: "/api/picture" in r.url) as answer:
                page.goto(server.gm)
            assert answer.value.status == 200
            expect(page.locator("#walls .wall")).to_have_count(len(board["walls"]))
            drawn = {
                page.locator("#walls .wall").nth(i).get_attribute("data-wall")
                for i in range(len(board["walls"]))
            }
            assert drawn == {f"{x1},{y1}-{x2},{y2}" for x1, y1, x2, y2 in board["walls"]}
            expect(page.locator("#picture")).to_have_attribute("width", "12")
            SHOTS.mkdir(exist_ok=True)
            page.screenshot(path=str(SHOTS / "cave-1366x768.png"))
        finally:
            browser.close()

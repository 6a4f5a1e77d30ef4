"""`import-map`, second round (issue 28): objects stop sight and not steps, and limits come first.

Universal VTT's `objects_line_of_sight` are things that block light (a potted plant, a
statue, a table): snapped to cell edges, an outline 0.4 cells wide closes a whole edge, so by
default they become walls that stop only sight (`--objects sight`); `--objects walls` makes
them stop steps too, `--objects ignore` leaves them out. A portal not closed made a wall
(`--open-portals wall`) is a window: it stops steps, not sight. The report counts each kind.

A file's polylines, points and the cells their segments run are counted before any geometry,
so a file that would take minutes to snap is refused at once, naming the limit, and nothing
is written (item 6; `benchmarks/bench_import_limits.py` prints how long the refusal takes).
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from support import do, encounter, refuse
from tabletrail.cli import main
from tabletrail.core.board.sight import sees
from tabletrail.core.board.walls import WALLS
from tabletrail.events.errors import InputError
from tabletrail.events.maps import uvtt

from tests.maps.test_import_uvtt import FIXTURES, report, run

ROOM = FIXTURES / "room.dd2vtt"


def walls_of(path: Path) -> list:
    return tomllib.loads(path.read_text(encoding="utf-8"))["map"]["walls"]


PILLAR = {"3,4-4,4", "3,5-4,5", "3,4-3,5", "4,4-4,5"}  # the room's object: an outline round cell 3,4


def test_objects_stop_sight_and_not_steps_by_default(tmp_path, capsys):
    data = report(tmp_path, capsys, "room")
    walls = walls_of(tmp_path / "room.toml")
    assert {w["at"] for w in walls if isinstance(w, dict) and w["blocks"] == "sight"} == PILLAR
    assert not PILLAR & {w for w in walls if isinstance(w, str)}
    assert (data["objects"], data["both_edges"], data["sight_edges"], data["movement_edges"]) == (
        "sight",
        31,
        4,
        0,
    )
    # The scout may walk into the pillar's cell, and not see through it.
    text = (tmp_path / "room.toml").read_text(encoding="utf-8").replace("at = [5, 4]", "at = [2, 4]")
    text = text[: text.index("[picture]")] + text[text.index("# The fighters") :]
    enc = encounter(text)
    do(enc, "move scout 3,4")
    assert not sees(enc.state.grid, (2, 4, 0), (4, 4, 0), doors=enc.state.doors)


def test_the_report_says_how_many_edges_stop_what(tmp_path, capsys):
    out, _ = run(capsys, "import-map", ROOM, "--ruleset", "speed-meters", "-o", tmp_path / "r.toml")
    assert "31 edges stop movement and sight, 4 sight only (objects: --objects sight), 0 movement only" in out


def test_objects_may_be_made_walls_or_left_out(tmp_path, capsys):
    (tmp_path / "w").mkdir()
    (tmp_path / "i").mkdir()
    walled = report(tmp_path / "w", capsys, "room", "--objects", "walls")
    assert set(walls_of(tmp_path / "w" / "room.toml")) >= PILLAR
    assert (walled["both_edges"], walled["sight_edges"]) == (35, 0)
    ignored = report(tmp_path / "i", capsys, "room", "--objects", "ignore")
    written = walls_of(tmp_path / "i" / "room.toml")
    assert all(isinstance(w, str) for w in written) and not PILLAR & set(written)
    assert (ignored["objects_ignored"], ignored["wall_edges"]) == (1, 31)


def test_an_unknown_objects_choice_is_refused_in_one_line():
    with pytest.raises(InputError, match="--objects: 'glass': expected one of sight, walls, ignore"):
        uvtt.convert(
            ROOM.read_bytes(), ruleset="speed-meters", source="r", name="r", picture_stem="r", objects="glass"
        )


def test_a_window_stops_steps_and_not_sight(tmp_path, capsys):
    data = report(tmp_path, capsys, "door", "--open-portals", "wall")
    windows = [w for w in walls_of(tmp_path / "door.toml") if isinstance(w, dict)]
    assert {w["at"] for w in windows} == {"3,5-5,5"} and {w["blocks"] for w in windows} == {"movement"}
    assert data["movement_edges"] == 2
    text = (tmp_path / "door.toml").read_text(encoding="utf-8")
    text = text[: text.index("[picture]")] + text[text.index("# The fighters") :]
    enc = encounter(text.replace(f"at = [{data['width'] // 2}, {data['height'] // 2}]", "at = [3, 5]"))
    assert "a wall between 3,5 and 3,4" in refuse(enc, "move scout 3,4", WALLS).reason
    assert sees(enc.state.grid, (3, 5, 0), (3, 3, 0), doors=enc.state.doors)


# --- item 6: the limits before the geometry ---------------------------------------------------------


def big_map(path: Path, walls: int, points: int, size: int = 100) -> Path:
    """A map of `walls` polylines of `points` points each, zig-zagging corner to corner."""
    lines = [
        [{"x": (j * 37 + i) % size, "y": (j * 53 + 2 * i) % size} for j in range(points)]
        for i in range(walls)
    ]
    doc = {
        "resolution": {
            "map_origin": {"x": 0, "y": 0},
            "map_size": {"x": size, "y": size},
            "pixels_per_grid": 70,
        },
        "line_of_sight": lines,
        "portals": [],
    }
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_a_file_of_a_thousand_walls_of_fifty_points_is_refused_for_their_length(tmp_path, capsys):
    """The issue's file (2.5 MB: 1,000 walls x 50 points) snapped for a minute before this."""
    source = big_map(tmp_path / "big.dd2vtt", 1_000, 50)
    out = tmp_path / "out"
    out.mkdir()
    _, err = run(capsys, "import-map", source, "--ruleset", "speed-meters", "-o", out / "big.toml", code=2)
    assert err.startswith(f"error: {source}: line_of_sight[") and err.count("\n") == 1
    assert "the walls' segments run more than 100,000 cells" in err and "(MAX_UVTT_WALL_CELLS)" in err
    assert list(out.iterdir()) == []


def test_too_many_polylines_points_or_portals_are_refused_naming_the_limit(tmp_path, monkeypatch):
    data = big_map(tmp_path / "m.dd2vtt", 30, 4, size=10).read_bytes()

    def convert() -> None:
        uvtt.convert(data, ruleset="speed-meters", source="m", name="m", picture_stem="m")

    monkeypatch.setattr(uvtt, "MAX_UVTT_POLYLINES", 29)
    with pytest.raises(InputError, match=r"m: line_of_sight: 30 wall polylines .* \(MAX_UVTT_POLYLINES\)"):
        convert()
    monkeypatch.setattr(uvtt, "MAX_UVTT_POLYLINES", 30)
    monkeypatch.setattr(uvtt, "MAX_UVTT_POINTS", 119)
    with pytest.raises(InputError, match=r"120 wall points; a map may have 119 \(MAX_UVTT_POINTS\)"):
        convert()
    monkeypatch.setattr(uvtt, "MAX_UVTT_POINTS", 120)
    convert()  # at the limits: converted
    doc = json.loads(data)
    doc["portals"] = [{"position": {"x": 1, "y": 1.5}, "bounds": [{"x": 1, "y": 1}, {"x": 1, "y": 2}]}] * 3
    monkeypatch.setattr(uvtt, "MAX_UVTT_PORTALS", 2)
    with pytest.raises(InputError, match=r"m: portals: 3 portals; a map may have 2 \(MAX_UVTT_PORTALS\)"):
        uvtt.convert(json.dumps(doc).encode(), ruleset="speed-meters", source="m", name="m", picture_stem="m")


def test_a_portal_spanning_the_whole_coordinate_range_takes_only_the_edges_on_the_map(tmp_path):
    doc = {
        "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": 4, "y": 4}, "pixels_per_grid": 10},
        "portals": [
            {"position": {"x": 0, "y": 2}, "bounds": [{"x": -99_999, "y": 2}, {"x": 99_999, "y": 2}]}
        ],
    }
    got = uvtt.convert(
        json.dumps(doc).encode(), ruleset="speed-meters", source="p", name="p", picture_stem="p"
    )
    assert got.report.doors == 4 and got.report.doors_wide == 1


def test_main_refuses_without_a_traceback(tmp_path, capsys):
    source = big_map(tmp_path / "b.uvtt", 1_000, 50)
    assert (
        main(
            ["import-map", str(source), "--ruleset", "speed-meters", "-o", str(tmp_path / "b.toml"), "--json"]
        )
        == 2
    )
    out = capsys.readouterr().out
    assert json.loads(out)["kind"] == "error" and "MAX_UVTT_WALL_CELLS" in out

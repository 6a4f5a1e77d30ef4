"""`tabletrail import-map`: Universal VTT battle maps into scenarios (issue 19, part 2).

The fixtures in tests/fixtures/uvtt/ are built to the published format by
tests/fixtures/uvtt/build.py (an orthogonal room with an object wall, doors, a
cave of short diagonal segments, a map cut off-origin); the scenarios they turn
into are kept in tests/golden/uvtt-*.toml and compared as text.
"""

from __future__ import annotations

import base64
import json
import struct
import tomllib
from collections import deque
from pathlib import Path

import pytest
from tabletrail.cli import main
from tabletrail.events.errors import InputError
from tabletrail.events.maps import uvtt
from tabletrail.events.picture import sniff
from tabletrail.events.scenario.reader import load_scenario
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.service.encounter import Encounter

HERE = Path(__file__).resolve().parents[1]
FIXTURES = HERE / "fixtures" / "uvtt"
GOLDEN = HERE / "golden"
MAPS = {"room": "room.dd2vtt", "door": "door.dd2vtt", "cave": "cave.dd2vtt", "offset": "offset.uvtt"}


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path, code: int = 0) -> tuple[str, str]:
    got = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert got == code, f"exit {got}: {err}"
    assert "Traceback" not in out + err
    return out, err


def imported(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, *extra: str) -> dict:
    out = tmp_path / f"{name}.toml"
    run(capsys, "import-map", FIXTURES / MAPS[name], "--ruleset", "speed-meters", "-o", out, *extra)
    return tomllib.loads(out.read_text(encoding="utf-8"))


def report(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, *extra: str) -> dict:
    out = tmp_path / f"{name}.toml"
    text, _ = run(
        capsys, "import-map", FIXTURES / MAPS[name], "--ruleset", "speed-meters", "-o", out, "--json", *extra
    )
    doc = json.loads(text)
    assert doc["kind"] == "import-map"
    return doc["data"]


def segments(scenario: dict) -> set[str]:
    """Every wall's segment, whatever it stops (a table { at, blocks } stops only one of the two)."""
    return {w if isinstance(w, str) else w["at"] for w in scenario["map"]["walls"]}


def unit_edges(walls: list[str]) -> set[tuple[str, int, int]]:
    """Each wall segment as the cell edges it covers."""
    out = set()
    for w in walls:
        w = w if isinstance(w, str) else w["at"]
        (x1, y1), (x2, y2) = (tuple(int(n) for n in end.split(",")) for end in w.split("-"))
        assert x1 == x2 or y1 == y2, f"{w} is not along a grid line"
        if y1 == y2:
            out |= {("h", x, y1) for x in range(min(x1, x2), max(x1, x2))}
        else:
            out |= {("v", x1, y) for y in range(min(y1, y2), max(y1, y2))}
    return out


def reachable(scenario: dict, start: tuple[int, int]) -> set[tuple[int, int]]:
    """Cells a walk from `start` reaches stepping to orthogonal neighbours without crossing a wall."""
    edges = unit_edges(scenario["map"]["walls"])
    rows = scenario["map"]["rows"]
    w, h = len(rows[0]), len(rows)
    seen, todo = {start}, deque([start])
    while todo:
        x, y = todo.popleft()
        for nx, ny, edge in (
            (x + 1, y, ("v", x + 1, y)),
            (x - 1, y, ("v", x, y)),
            (x, y + 1, ("h", x, y + 1)),
            (x, y - 1, ("h", x, y)),
        ):
            if 0 <= nx < w and 0 <= ny < h and edge not in edges and (nx, ny) not in seen:
                seen.add((nx, ny))
                todo.append((nx, ny))
    return seen


# --- the golden outputs ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(MAPS))
def test_each_map_converts_to_its_golden_scenario_and_picture(tmp_path, capsys, name):
    out = tmp_path / f"{name}.toml"
    run(capsys, "import-map", FIXTURES / MAPS[name], "--ruleset", "speed-meters", "-o", out)
    assert out.read_text(encoding="utf-8") == (GOLDEN / f"uvtt-{name}.toml").read_text(encoding="utf-8")
    source = json.loads((FIXTURES / MAPS[name]).read_text(encoding="utf-8"))
    assert (tmp_path / f"{name}.png").read_bytes() == base64.b64decode(source["image"])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [f"{name}.toml", f"{name}.png"]
    )  # no temp left


def test_the_output_starts_an_encounter_with_its_picture(tmp_path, capsys):
    scenario = tmp_path / "door.toml"
    run(capsys, "import-map", FIXTURES / "door.dd2vtt", "--ruleset", "speed-meters", "-o", scenario)
    out, _ = run(capsys, "new", scenario, "--log", tmp_path / "fight.jsonl")
    assert "started 'door' under speed-meters" in out
    picture = Encounter.open(JsonlStore(tmp_path / "fight.jsonl")).state.scenario.picture
    data = (tmp_path / "door.png").read_bytes()
    import hashlib

    assert picture.sha256 == hashlib.sha256(data).hexdigest()
    assert (picture.kind, picture.width, picture.height, picture.pixels_per_grid) == ("png", 200, 160, 20.0)
    assert picture.file == str((tmp_path / "door.png").resolve())


@pytest.mark.parametrize("ruleset", ["initiative-yards", "round-meters", "ap-squares", "speed-meters"])
def test_every_ruleset_gets_a_fighter_it_can_start_with(tmp_path, capsys, ruleset):
    scenario = tmp_path / "room.toml"
    run(capsys, "import-map", FIXTURES / "room.dd2vtt", "--ruleset", ruleset, "-o", scenario)
    run(capsys, "new", scenario, "--log", tmp_path / "fight.jsonl")


# --- walls -----------------------------------------------------------------------------------------


def test_orthogonal_walls_lie_on_the_cell_edges_they_follow(tmp_path, capsys):
    sc = imported(tmp_path, capsys, "room", "--objects", "walls")  # the pillar stops steps too
    # The box 1,1-9,7, the inner wall 5,1-5,4, and the pillar (objects_line_of_sight) around cell 3,4.
    assert {"1,1-9,1", "1,7-9,7", "1,1-1,7", "9,1-9,7", "5,1-5,4"} <= segments(sc)
    assert {"3,4-4,4", "3,5-4,5", "3,4-3,5", "4,4-4,5"} <= segments(sc)
    assert len(sc["map"]["rows"]) == 8 and {len(r) for r in sc["map"]["rows"]} == {10}
    assert set("".join(sc["map"]["rows"])) == {"."} and sc["map"]["legend"] == {".": "floor"}
    # Inside the box and outside it are apart; the pillar's cell is shut in.
    assert (0, 0) not in reachable(sc, (2, 2))
    assert reachable(sc, (3, 4)) == {(3, 4)}
    (tmp_path / "r").mkdir()
    data = report(tmp_path / "r", capsys, "room", "--objects", "walls")
    assert (data["polylines"], data["object_polylines"], data["straight"], data["diagonal"]) == (2, 1, 9, 0)
    assert data["wall_edges"] == 8 + 8 + 6 + 6 + 3 + 4


def test_a_diagonal_cave_wall_becomes_a_staircase_that_leaks_nowhere(tmp_path, capsys):
    data = report(tmp_path, capsys, "cave")
    sc = tomllib.loads((tmp_path / "cave.toml").read_text(encoding="utf-8"))
    assert data["diagonal"] > 0 and data["staircase_edges"] >= 2 * data["diagonal"]
    assert data["lights"] == 2
    inside = reachable(sc, (6, 5))
    assert (0, 0) not in inside and (11, 9) not in inside
    assert {(5, 5), (7, 5), (6, 3)} <= inside
    # The ridge 3.2,3.1 - 6.1,6.2 runs 3,3 -> 6,6 as alternate steps, hugging the line.
    assert {("h", 3, 3), ("v", 4, 3), ("h", 4, 4), ("v", 5, 4), ("h", 5, 5), ("v", 6, 5)} <= unit_edges(
        sc["map"]["walls"]
    )


def test_the_tolerance_decides_how_much_a_wall_is_smoothed(tmp_path, capsys):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    exact = report(tmp_path / "a", capsys, "cave", "--tolerance", "0")
    smooth = report(tmp_path / "b", capsys, "cave", "--tolerance", "1")
    assert exact["points_simplified"] == 0 and exact["tolerance"] == 0
    assert smooth["points_simplified"] > 0
    assert smooth["diagonal"] + smooth["straight"] < exact["diagonal"] + exact["straight"]


@pytest.mark.parametrize("tolerance", ["-0.1", "2.5", "nan"])
def test_a_tolerance_out_of_range_is_refused(tmp_path, capsys, tolerance):
    _, err = run(
        capsys,
        "import-map",
        FIXTURES / "room.dd2vtt",
        "--ruleset",
        "speed-meters",
        "-o",
        tmp_path / "x.toml",
        "--tolerance",
        tolerance,
        code=2,
    )
    assert err.startswith("error: --tolerance:") and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_an_off_origin_map_is_shifted_to_start_at_0_0_and_clipped_at_its_edges(tmp_path, capsys):
    data = report(tmp_path, capsys, "offset")
    sc = tomllib.loads((tmp_path / "offset.toml").read_text(encoding="utf-8"))
    # map_origin 10.5,-4: the grid shifts by 10,-4 and the picture starts half a cell in.
    assert data["shift"] == [10, -4] and sc["picture"]["origin"] == [0.5, 0.0]
    assert (len(sc["map"]["rows"][0]), len(sc["map"]["rows"])) == (7, 5)  # 0.5 + 6.5 cells wide
    assert segments(sc) == {"2,0-2,5", "2,3-7,3", "4,1-7,1"}
    assert (data["clipped"], data["off_map"]) == (1, 1)


def test_walls_on_the_map_rim_are_left_out(tmp_path, capsys):
    sc = imported(tmp_path, capsys, "offset")
    # 2,3-7,3 reaches the right rim and 4,1-7,1 was clipped there: no wall runs along x = 7 or y = 0.
    for kind, x, y in unit_edges(sc["map"]["walls"]):
        assert not (kind == "v" and x in (0, 7)) and not (kind == "h" and y in (0, 5))


# --- doors -----------------------------------------------------------------------------------------


def test_portals_become_doors_on_the_edges_they_span(tmp_path, capsys):
    data = report(tmp_path, capsys, "door")
    sc = tomllib.loads((tmp_path / "door.toml").read_text(encoding="utf-8"))
    doors = {d["at"]: d["closed"] for d in sc["map"]["doors"]}
    assert doors == {"4,3|5,3": True, "3,4|3,5": False, "4,4|4,5": False, "8,2|9,2": True}
    # The middle wall ran on under its door: the door's edge is left to the door.
    assert {"5,1-5,3", "5,4-5,7"} <= segments(sc) and "5,1-5,7" not in segments(sc)
    assert ("v", 5, 3) not in unit_edges(sc["map"]["walls"])
    assert (data["portals"], data["doors"], data["doors_open"]) == (3, 4, 2)
    assert (data["doors_wide"], data["doors_turned"], data["walls_under_doors"]) == (1, 1, 2)


def test_portals_not_closed_can_be_made_walls_as_windows(tmp_path, capsys):
    data = report(tmp_path, capsys, "door", "--open-portals", "wall")
    sc = tomllib.loads((tmp_path / "door.toml").read_text(encoding="utf-8"))
    assert {d["at"] for d in sc["map"]["doors"]} == {"4,3|5,3", "8,2|9,2"}  # the closed ones
    assert {("h", 3, 5), ("h", 4, 5)} <= unit_edges(sc["map"]["walls"])  # the open one's two edges
    assert (data["windows"], data["doors"], data["doors_open"]) == (2, 2, 0)
    assert (2, 2) not in reachable(sc, (3, 6))  # no way through the window row


def test_a_portal_with_no_bounds_takes_its_way_from_its_rotation(tmp_path):
    doc = {
        "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": 4, "y": 4}, "pixels_per_grid": 10},
        "portals": [
            {"position": {"x": 2, "y": 1.5}, "rotation": 1.5708, "closed": True},  # along y: on line x = 2
            {"position": {"x": 1.5, "y": 3}, "rotation": 0, "closed": True},  # along x: on line y = 3
            {"position": {"x": 0, "y": 1.5}, "rotation": 1.5708, "closed": True},  # on the rim: no cell west
        ],
    }
    got = convert(doc)
    doors = [d["at"] for d in tomllib.loads(got.toml)["map"]["doors"]]
    assert doors == ["1,1|2,1", "1,2|1,3"]
    assert got.report.doors_off_map == 1
    assert "1 portal on the map's rim or beyond it left out" in "\n".join(got.report.lines())


def convert(doc: dict, **kw) -> uvtt.Imported:
    return uvtt.convert(
        json.dumps(doc).encode(), ruleset="speed-meters", source="m.uvtt", name="m", picture_stem="m", **kw
    )


# --- what the report says --------------------------------------------------------------------------


def test_the_report_says_what_was_approximated_in_plain_words(tmp_path, capsys):
    out, _ = run(
        capsys, "import-map", FIXTURES / "cave.dd2vtt", "--ruleset", "speed-meters", "-o", tmp_path / "c.toml"
    )
    assert (
        f"imported {FIXTURES / 'cave.dd2vtt'} into {tmp_path / 'c.toml'} (speed-meters), picture c.png" in out
    )
    assert "diagonal segments became staircases of" in out and "cell edges" in out
    assert "not mapped: 2 lights" in out
    assert "picture: PNG, 240 x 200 pixels" in out
    assert f"tabletrail new {tmp_path / 'c.toml'}" in out


def test_a_picture_that_does_not_match_the_grid_is_noted(tmp_path):
    source = json.loads((FIXTURES / "room.dd2vtt").read_text(encoding="utf-8"))
    source["resolution"]["pixels_per_grid"] = 50  # the picture is 200 x 160: 20 a cell
    got = convert(source)
    assert (
        "the picture is 200 x 160 pixels where map_size x pixels_per_grid says 500 x 400"
        in got.report.picture_mismatch
    )


def test_a_file_without_a_picture_makes_a_scenario_without_one(tmp_path, capsys):
    source = json.loads((FIXTURES / "room.dd2vtt").read_text(encoding="utf-8"))
    del source["image"]
    path = tmp_path / "bare.dd2vtt"
    path.write_text(json.dumps(source), encoding="utf-8")
    out, _ = run(capsys, "import-map", path, "--ruleset", "speed-meters", "-o", tmp_path / "bare.toml")
    assert "picture: none in the file" in out
    assert "picture" not in tomllib.loads((tmp_path / "bare.toml").read_text(encoding="utf-8"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bare.dd2vtt", "bare.toml"]


# --- bad input: one line naming the field, exit 2, nothing written ----------------------------------


def _room(**changes: object) -> str:
    source = json.loads((FIXTURES / "room.dd2vtt").read_text(encoding="utf-8"))
    for path, value in changes.items():
        node = source
        keys = path.split("__")
        for key in keys[:-1]:
            node = node[int(key)] if isinstance(node, list) else node[key]
        last = keys[-1]
        if value is KeyError:
            del node[last]
        elif isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return json.dumps(source)


def _swap(old: str, new: str) -> str:
    """The room fixture with one piece of its JSON text replaced (for numbers JSON has no words for)."""
    text = _room()
    assert old in text
    return text.replace(old, new, 1)


BAD = {
    "not json": ("{ this is not json", "not a Universal VTT file: not JSON"),
    "a list": ("[1, 2]", "not a Universal VTT file: expected a JSON object, got a list"),
    "no resolution": (_room(resolution=KeyError), "resolution: missing"),
    "no map_size": (_room(resolution__map_size=KeyError), "resolution.map_size: missing"),
    "map too big": (
        _room(resolution__map_size={"x": 5000, "y": 5000}),
        "resolution.map_size: a 5000 x 5000 map",
    ),
    "zero ppg": (
        _room(resolution__pixels_per_grid=0),
        "resolution.pixels_per_grid: expected a number above 0",
    ),
    "NaN": (_swap('"x": 9,', '"x": NaN,'), "line_of_sight[0][1].x: nan is not a finite number"),
    "Infinity origin": (
        _swap('"map_origin": {"x": 0', '"map_origin": {"x": Infinity'),
        "resolution.map_origin.x: inf is not a finite number",
    ),
    "1e400": (
        _swap('"x": 9,', '"x": 1e400,'),
        "line_of_sight[0][1].x: inf is not a finite number",
    ),
    "huge": (
        _swap('"x": 9,', '"x": 123456789,'),
        "line_of_sight[0][1].x: 1.23457e+08 is out of range",
    ),
    "a string point": (
        _room(line_of_sight__0__1="9,1"),
        "line_of_sight[0][1]: expected an object, got a string",
    ),
    "no y": (_room(line_of_sight__0__1={"x": 9}), "line_of_sight[0][1].y: missing"),
    "image not base64": (_room(image="%%% not base64 %%%"), "image: not base64"),
    "image not a picture": (
        _room(image=base64.b64encode(b"GIF89a this is no png").decode()),
        "image: not a PNG, JPEG or WebP picture (it starts b'GIF89a t')",
    ),
    "closed not bool": (
        _room(portals=[{"position": {"x": 5, "y": 2}, "bounds": [], "closed": "yes"}]),
        "portals[0].closed: expected true or false, got a string",
    ),
    "portal without position": (_room(portals=[{"closed": True}]), "portals[0].position: missing"),
    "deep": ("[" * 100_000 + "]" * 100_000, "not a Universal VTT file: its brackets nest too deeply"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_is_one_line_naming_the_field_and_writes_nothing(tmp_path, capsys, case):
    text, words = BAD[case]
    folder = tmp_path / "out"
    folder.mkdir()
    source = tmp_path / "bad.dd2vtt"
    source.write_text(text, encoding="utf-8")
    _, err = run(capsys, "import-map", source, "--ruleset", "speed-meters", "-o", folder / "bad.toml", code=2)
    assert err.count("\n") == 1 and err.startswith(f"error: {source}: "), err
    assert words in err
    assert list(folder.iterdir()) == []


def test_a_file_too_big_is_refused_before_it_is_read_as_json(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(uvtt, "MAX_UVTT_BYTES", 1_000)
    _, err = run(
        capsys,
        "import-map",
        FIXTURES / "room.dd2vtt",
        "--ruleset",
        "speed-meters",
        "-o",
        tmp_path / "x.toml",
        code=2,
    )
    assert "bytes; a Universal VTT file may hold 1,000 (MAX_UVTT_BYTES)" in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_not_utf8_is_named(tmp_path):
    with pytest.raises(InputError, match=r"m.uvtt: not a Universal VTT file: not UTF-8 text"):
        uvtt.convert(b"\xff\xfe{", ruleset="speed-meters", source="m.uvtt", name="m", picture_stem="m")


def test_existing_files_are_kept_unless_forced(tmp_path, capsys):
    out = tmp_path / "room.toml"
    out.write_text("mine", encoding="utf-8")
    _, err = run(
        capsys, "import-map", FIXTURES / "room.dd2vtt", "--ruleset", "speed-meters", "-o", out, code=2
    )
    assert f"{out}: already exists" in err
    assert out.read_text(encoding="utf-8") == "mine" and not (tmp_path / "room.png").exists()
    run(capsys, "import-map", FIXTURES / "room.dd2vtt", "--ruleset", "speed-meters", "-o", out, "--force")
    assert out.read_text(encoding="utf-8") == (GOLDEN / "uvtt-room.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--ruleset", "chess", "-o", "x.toml"], "chess"),
        (["--ruleset", "speed-meters", "-o", "x.txt"], "-o x.txt: the scenario is a TOML file"),
        (["--ruleset", "speed-meters", "-o", "nowhere/x.toml"], "no folder nowhere"),
    ],
)
def test_bad_arguments_are_named(tmp_path, capsys, monkeypatch, argv, words):
    monkeypatch.chdir(tmp_path)
    _, err = run(capsys, "import-map", FIXTURES / "room.dd2vtt", *argv, code=2)
    assert words in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


# --- [picture] in a scenario -----------------------------------------------------------------------


SCENARIO = """
[encounter]
name = "pic"
ruleset = "speed-meters"
[map]
rows = ["...", "..."]
[map.legend]
"." = "floor"
[picture]
{picture}
[[fighters]]
id = "a"
side = "blue"
at = [0, 0]
speed = 5
"""


@pytest.mark.parametrize(
    ("picture", "words"),
    [
        (
            'file = "gone.png"\npixels_per_grid = 70',
            "picture.file: 'gone.png': no such file next to the scenario",
        ),
        (
            'file = "notes.png"\npixels_per_grid = 70',
            "picture.file: 'notes.png': not a PNG, JPEG or WebP picture",
        ),
        (
            'file = "map.png"\npixels_per_grid = 0',
            "picture.pixels_per_grid: expected the pixels a cell spans",
        ),
        ('file = "map.png"\npixels_per_grid = 70\norigin = [nan, 0]', "picture.origin: expected [x, y]"),
        ('file = "map.png"\npixels_per_grid = 70\nscale = 2', "picture.scale: unknown field"),
        ("pixels_per_grid = 70", "picture.file: expected the picture's file name"),
    ],
)
def test_a_scenario_picture_is_checked_where_it_is_named(tmp_path, picture, words):
    (tmp_path / "notes.png").write_text("just words", encoding="utf-8")
    (tmp_path / "map.png").write_bytes(TINY_PNG)
    path = tmp_path / "pic.toml"
    path.write_text(SCENARIO.format(picture=picture), encoding="utf-8")
    with pytest.raises(InputError) as got:
        load_scenario(path)
    assert words in str(got.value) and str(got.value).startswith(f"{path}:")


TINY_PNG = base64.b64decode(json.loads((FIXTURES / "offset.uvtt").read_text(encoding="utf-8"))["image"])


def test_a_scenario_without_a_picture_logs_as_before(tmp_path, capsys):
    """No [picture]: the scenario in the log has no picture key (older logs verify byte for byte)."""
    run(
        capsys, "new", HERE.parent / "scenarios" / "speed-meters-skirmish.toml", "--log", tmp_path / "f.jsonl"
    )
    assert '"picture"' not in (tmp_path / "f.jsonl").read_text(encoding="utf-8").splitlines()[0]


# --- telling a picture by its bytes ----------------------------------------------------------------


def test_pictures_are_told_by_their_bytes_not_their_names():
    assert sniff(TINY_PNG) == ("png", 130, 100)
    jpeg = (
        b"\xff\xd8\xff\xe0"
        + struct.pack(">H", 16)
        + b"JFIF\x00"
        + b"\x00" * 9
        + b"\xff\xc0"
        + struct.pack(">HBHH", 17, 8, 480, 640)
    )
    assert sniff(jpeg) == ("jpeg", 640, 480)
    lossy = (
        b"RIFF\x00\x00\x00\x00WEBPVP8 \x00\x00\x00\x00"
        + b"\x00\x00\x00"
        + b"\x9d\x01\x2a"
        + struct.pack("<HH", 300, 200)
    )
    assert sniff(lossy) == ("webp", 300, 200)
    bits = (299) | (199 << 14)
    lossless = b"RIFF\x00\x00\x00\x00WEBPVP8L\x00\x00\x00\x00\x2f" + bits.to_bytes(4, "little")
    assert sniff(lossless) == ("webp", 300, 200)
    extended = (
        b"RIFF\x00\x00\x00\x00WEBPVP8X\x00\x00\x00\x00"
        + b"\x00" * 4
        + (299).to_bytes(3, "little")
        + (199).to_bytes(3, "little")
    )
    assert sniff(extended) == ("webp", 300, 200)
    for not_a_picture in (b"", b"GIF89a", b"\x89PNG\r\n\x1a\n", b"<svg/>", b"RIFF\x00\x00\x00\x00WAVEfmt "):
        assert sniff(not_a_picture) is None

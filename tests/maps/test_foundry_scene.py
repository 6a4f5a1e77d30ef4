"""Foundry VTT scenes into scenarios (issue 39): `import-map` of a scene export, and the converter the
bridge module's "Referee this combat" uses (events/maps/foundry_scene.py).

The fixtures in tests/fixtures/foundry/ are written by tests/fixtures/foundry/build.py in the shape
Foundry's "Export Data" gives a v13 scene and a v9 one. Real exports people made are checked too when
there is a folder of them (with their licence notes): the one TABLETRAIL_FOUNDRY_EXPORTS names, else the
steering repository's `shared/foundry-exports/` beside this checkout. Developers may not commit data
fetched from other repositories, so none ships here (the note of issue 39 says which were run).
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest
from tabletrail.cli import main
from tabletrail.events.errors import InputError
from tabletrail.events.maps.foundry_scene import TokenSpec, convert_scene, is_scene
from tabletrail.events.scenario.reader import load_scenario, parse_scenario
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.service.encounter import Encounter

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "foundry"
CRYPT = FIXTURES / "crypt-v13.json"
HALL = FIXTURES / "hall-v9.json"


def scene(path: Path = CRYPT) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path, code: int = 0) -> tuple[str, str]:
    got = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert got == code, f"exit {got}: {err}"
    assert "Traceback" not in out + err
    return out, err


def walls_of(toml: str) -> dict[str, str]:
    """Every wall segment and what it stops."""
    raw = tomllib.loads(toml)["map"]["walls"]
    return {w: "both" if isinstance(w, str) else w["blocks"] for w in raw} | {
        w["at"]: w["blocks"] for w in raw if isinstance(w, dict)
    }


def test_a_v13_scene_becomes_a_scenario_with_its_walls_doors_and_tokens_on_cells():
    done = convert_scene(scene(), ruleset="speed-meters", source="crypt.json", stats=["speed"])
    raw = tomllib.loads(done.toml)
    assert len(raw["map"]["rows"]) == 9 and len(raw["map"]["rows"][0]) == 12
    walls = {
        w if isinstance(w, str) else w["at"]: w if isinstance(w, str) else w["blocks"]
        for w in raw["map"]["walls"]
    }
    assert (
        walls["7,0-7,3"] == "7,0-7,3" and walls["7,4-7,6"] == "7,4-7,6"
    )  # the hall's wall, both sides of the door
    assert walls["3,3-4,3"] == "sight" and walls["4,3-4,4"] == "sight"  # the pillar: move 0, sight 20
    assert "2,1-3,1" not in walls  # a sound-only wall stops neither
    assert not any(w.startswith(("0,0", "12,")) for w in walls)  # the rim closes the map already
    doors = {d["at"]: d for d in raw["map"]["doors"]}
    assert doors["6,3|7,3"] == {"at": "6,3|7,3", "closed": True}
    assert doors["9,5|9,6"] == {"at": "9,5|9,6", "closed": True, "locked": True}  # ds 2
    assert "9,6-10,6" not in walls  # the wall under the vault door is left to the door
    fighters = {f["id"]: f for f in raw["fighters"]}
    assert fighters["ari"]["at"] == [1, 1] and fighters["ari"]["side"] == "friendly"
    assert fighters["ghoul"]["side"] == "hostile" and fighters["ghoul-2"]["at"] == [
        5,
        5,
    ]  # a token off its cell
    assert (
        fighters["ogre"]["at"] == [9, 7] and fighters["ogre"]["size"] == "large"
    )  # 2x2: its top-left middle
    assert "lost" not in fighters  # off the scene
    assert [(p.token, p.fighter) for p in done.fighters][0] == ("tok0000000000001", "ari")
    assert done.origin == (280, 140) and done.grid == 140
    assert done.cell_of(280 + 140 * 9 + 70, 140 + 140 * 7 + 1) == (9, 7)
    parse_scenario(raw, source="crypt")  # it loads as written


def test_the_report_says_what_was_approximated_with_counts():
    done = convert_scene(scene(), ruleset="speed-meters", source="crypt.json", stats=["speed"])
    text = "\n".join(done.report.lines())
    assert "from 14 wall documents" in text
    assert "1 diagonal segment became staircases of 5 cell edges" in text
    assert "1 one-way wall made to stop both ways" in text
    assert "1 wall of limited sight made to block it fully" in text
    assert "1 wall stopping neither movement nor sight left out" in text
    assert "doors: 2 cell edges from 2 door walls (0 open, 1 locked)" in text
    assert "fighters: 5 from 6 tokens" in text and "1 token off the scene left out" in text
    assert "assumed for fighters whose actor did not say: speed 6" in text


def test_sides_and_stats_from_the_caller_win_over_disposition_and_examples():
    tokens = {
        "tok0000000000001": TokenSpec(side="maya", stats={"speed": 9}),
        "tok0000000000004": TokenSpec(skip=True),
    }
    done = convert_scene(scene(), ruleset="speed-meters", source="crypt", stats=["speed"], tokens=tokens)
    fighters = {f["id"]: f for f in tomllib.loads(done.toml)["fighters"]}
    assert fighters["ari"]["side"] == "maya" and fighters["ari"]["speed"] == 9
    assert fighters["bo"]["speed"] == 6  # no actor value: the example, said in the report
    assert "ghoul-2" not in fighters


def test_a_v9_scene_with_a_shifted_picture_keeps_its_grid_and_reads_sense_walls():
    done = convert_scene(scene(HALL), ruleset="speed-meters", source="hall.json", stats=["speed"])
    raw = tomllib.loads(done.toml)
    assert len(raw["map"]["rows"][0]) == 9 and len(raw["map"]["rows"]) == 6  # half a cell more: shiftX 50
    assert done.origin == (100, 200)
    assert "3,0-3,3" in raw["map"]["walls"]  # x = 400 px is grid line 3 of the shifted map
    assert raw["map"]["doors"] == [{"at": "2,3|3,3", "closed": False}]  # ds 1: open
    fighters = {f["id"]: f["at"] for f in raw["fighters"]}
    assert fighters == {"hero": [2, 1], "giant-rat": [5, 3]}


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"grid": {"type": 2, "size": 100}}, "a hex (odd rows) grid; tabletrail plays on squares"),
        ({"grid": {"type": 0, "size": 100}}, "a gridless grid; tabletrail plays on squares"),
        ({"grid": {"type": 1, "size": 0}}, "grid.size: expected pixels a cell above 0"),
        ({"width": "wide"}, "width: expected a number, got a string"),
        ({"walls": [{"c": [0, 0, 10]}]}, "walls[0].c: expected the wall's two ends [x0, y0, x1, y1], got 3"),
        (
            {"walls": [{"c": [0, 0, 100, 0], "ds": 7, "door": 1}]},
            "walls[0].ds: expected 0 (closed), 1 (open)",
        ),
        ({"walls": [{"c": [0, 0, 100, 0], "move": "yes"}]}, "walls[0].move: expected a number (0 for none)"),
        ({"tokens": [{"_id": "a", "x": "left"}]}, "tokens[0].x: expected a number, got a string"),
        ({"width": 10**7}, "width: 1e+07 is out of range"),
    ],
)
def test_a_bad_scene_is_one_line_naming_the_field(change: dict, words: str):
    raw = scene() | change
    with pytest.raises(InputError) as err:
        convert_scene(raw, ruleset="speed-meters", source="crypt.json", stats=["speed"])
    assert f"crypt.json: {words}" in str(err.value) or words in str(err.value)
    assert "\n" not in str(err.value)


def test_a_scene_with_no_tokens_gets_an_example_fighter_or_is_refused_for_refereeing():
    empty = scene() | {"tokens": []}
    done = convert_scene(empty, ruleset="speed-meters", source="crypt.json", stats=["speed"])
    raw = tomllib.loads(done.toml)
    assert [f["id"] for f in raw["fighters"]] == ["scout"] and raw["fighters"][0]["at"] == [6, 4]
    assert "no token on the scene: one example fighter, scout, stands at 6,4" in done.report.lines()
    parse_scenario(raw, source="crypt")
    with pytest.raises(
        InputError, match=r"tokens: no token stands on the scene: place the combatants' tokens"
    ):
        convert_scene(empty, ruleset="speed-meters", source="crypt.json", stats=["speed"], need_tokens=True)


def test_a_scene_is_told_from_a_uvtt_file_by_its_content():
    assert is_scene(scene()) and is_scene(scene(HALL))
    assert not is_scene({"resolution": {}, "width": 1, "height": 1, "grid": {"size": 1}, "walls": []})
    assert not is_scene({"name": "an actor", "system": {}})


def test_import_map_writes_a_scenario_that_starts_an_encounter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    out = tmp_path / "crypt.toml"
    said, _ = run(capsys, "import-map", CRYPT, "--ruleset", "speed-meters", "-o", out)
    assert "imported the Foundry scene" in said and "fighters: 5 from 6 tokens" in said
    assert not list(tmp_path.glob("crypt.png"))  # no picture: the background stays in Foundry
    enc = Encounter.create(JsonlStore(tmp_path / "crypt.jsonl", durable=False), load_scenario(out))
    assert {f.id for f in enc.state.fighters} == {"ari", "bo", "ghoul", "ghoul-2", "ogre"}


def test_import_map_json_is_one_document_with_the_fighters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    said, _ = run(
        capsys, "import-map", HALL, "--ruleset", "initiative-yards", "-o", tmp_path / "h.toml", "--json"
    )
    doc = json.loads(said)
    assert doc["kind"] == "import-map" and doc["data"]["format"] == "foundry-scene"
    assert doc["data"]["fighters"][0] == {"token": "t9hero0000000001", "fighter": "hero", "at": [2, 1],
                                          "side": "friendly"}  # fmt: skip


def test_import_map_refuses_a_hex_scene_in_words_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    source = tmp_path / "hex.json"
    source.write_text(json.dumps(scene() | {"grid": {"type": 4, "size": 100}}), encoding="utf-8")
    _, err = run(capsys, "import-map", source, "--ruleset", "speed-meters", "-o", tmp_path / "x.toml", code=2)
    assert "hex (odd columns) grid; tabletrail plays on squares: set the scene's grid to Square" in err
    assert not (tmp_path / "x.toml").exists()


def test_import_map_refuses_uvtt_options_for_a_scene(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    argv = ("import-map", CRYPT, "--ruleset", "speed-meters", "-o", tmp_path / "x.toml", "--objects", "walls")
    _, err = run(capsys, *argv, code=2)
    assert "a Foundry scene has no portals or objects" in err


SHARED_EXPORTS = Path(__file__).resolve().parents[3] / "shared" / "foundry-exports"
REAL = os.environ.get("TABLETRAIL_FOUNDRY_EXPORTS") or (
    str(SHARED_EXPORTS) if SHARED_EXPORTS.is_dir() else None
)


@pytest.mark.skipif(not REAL, reason="no real Foundry exports (TABLETRAIL_FOUNDRY_EXPORTS, shared/)")
def test_real_exports_people_made_convert_and_start_an_encounter(tmp_path: Path):
    exports = sorted(Path(REAL or ".").glob("*.json"))
    assert exports, f"{REAL}: no .json exports in it"
    for path in exports:
        raw = json.loads(path.read_text(encoding="utf-8"))
        done = convert_scene(raw, ruleset="speed-meters", source=path.name, stats=["speed"])
        scenario = parse_scenario(tomllib.loads(done.toml), source=path.name)
        Encounter.create(JsonlStore(tmp_path / f"{path.stem}.jsonl", durable=False), scenario)

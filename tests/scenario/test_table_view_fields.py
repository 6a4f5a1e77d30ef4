"""Scenario fields the table view draws: fighter names, side colours, token pictures.

Each is optional; an older scenario (and an older log) gets the defaults.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import msgspec
import pytest
from support import grid
from tabletrail.events.errors import InputError
from tabletrail.events.scenario.reader import load_scenario, parse_scenario

BASE = f"""
[encounter]
name = "Colours"
ruleset = "speed-meters"
{grid(["#####", "#...#", "#####"])}
[[fighters]]
id = "ari"
side = "blue"
at = [1, 1]
speed = 4
"""


def write(folder: Path, extra: str = "", fighter: str = "") -> Path:
    path = folder / "s.toml"
    path.write_text(BASE + fighter + extra)
    return path


def test_a_scenario_without_the_new_fields_gets_the_defaults(tmp_path: Path):
    sc = load_scenario(write(tmp_path))
    assert sc.side_colours() == {} and sc.fighters[0].picture == "" and sc.fighters[0].name == "ari"
    # Nothing new is written into the log for them: an older log's first line stays as it was.
    line = msgspec.json.encode(sc)
    assert b'"sides"' not in line and b'"image"' not in line


def test_side_colours_and_a_picture_relative_to_the_scenario_file(tmp_path: Path):
    (tmp_path / "tokens").mkdir()
    (tmp_path / "tokens" / "ari.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    sc = load_scenario(write(tmp_path, '[sides.blue]\ncolour = "#1f5fbf"\n', 'image = "tokens/ari.png"\n'))
    assert sc.side_colours() == {"blue": "#1f5fbf"}
    assert sc.fighters[0].picture == str((tmp_path / "tokens" / "ari.png").resolve())
    assert "image" not in sc.fighters[0].stats


@pytest.mark.parametrize(
    ("extra", "fighter", "message"),
    [
        ('[sides.red]\ncolour = "#fff"\n', "", "sides.red: no fighter is on side 'red'"),
        ('[sides.blue]\ncolour = "bright!"\n', "", "sides.blue.colour: expected #rgb, #rrggbb"),
        ('[sides.blue]\nshade = "#fff"\n', "", "sides.blue: expected a table with colour"),
        ("", 'image = "tokens/none.png"\n', "fighters[0].image: 'tokens/none.png': no such file"),
        ("", 'image = "notes.txt"\n', "fighters[0].image: 'notes.txt': expected a picture"),
    ],
)
def test_a_bad_colour_or_picture_names_the_field(tmp_path: Path, extra: str, fighter: str, message: str):
    with pytest.raises(InputError, match=re.escape(message)):
        load_scenario(write(tmp_path, extra, fighter))


def test_without_a_file_the_picture_is_kept_as_written():
    sc = parse_scenario(tomllib.loads(BASE.replace("speed = 4", 'speed = 4\nimage = "a.png"')))
    assert sc.fighters[0].picture == "a.png"

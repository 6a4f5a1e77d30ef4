"""Shared by the table-view tests: a small speed-meters encounter written to a real log file.

(No tests here; the API and browser tests import it.)
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from support import CLOCK, grid
from tabletrail.encounter import Encounter
from tabletrail.events.log import JsonlStore
from tabletrail.events.scenario import parse_scenario

ROWS = [
    "##########",
    "#........#",
    "#..~~....#",
    "#..^..#..#",
    "#..:.....#",
    "##########",
]


def scenario_toml(checks: str = "seeded") -> str:
    """ari (blue, Speed 4) and bo (blue) at the top left, cy (red) to the right.

    `~` is rough sand (2 m a space), `^` a 1 m platform, `:` a 2.5 m one, `#` walls.
    """
    legend = '"^" = {terrain = "floor", ground = 1}\n":" = {terrain = "floor", ground = 2.5}'
    return f"""
[encounter]
name = "Web test"
ruleset = "speed-meters"
seed = 7
[settings]
checks = "{checks}"
{grid(ROWS, legend)}
[[fighters]]
id = "ari"
name = "Ari"
side = "blue"
at = [1, 1]
speed = 4
[[fighters]]
id = "bo"
side = "blue"
at = [2, 1]
speed = 3
[[fighters]]
id = "cy"
side = "red"
at = [7, 3]
speed = 3
"""


def new_log(folder: Path, checks: str = "seeded", name: str = "web.jsonl") -> Path:
    """A fresh encounter log on disk, as `tabletrail new` would write it."""
    path = folder / name
    scenario = parse_scenario(tomllib.loads(scenario_toml(checks)), source="web test scenario")
    Encounter.create(JsonlStore(path, durable=False), scenario, clock=lambda: CLOCK)
    return path

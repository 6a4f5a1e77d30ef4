"""Scenario builders shared by the speed-meters tests, and a check that they load."""

from __future__ import annotations

from support import encounter, grid

# Map characters every speed-meters test may use, besides support.grid's # . ~
LEGEND = """
"^" = {terrain = "floor", ground = 1}
":" = {terrain = "floor", ground = 2.5}
"_" = {terrain = "gap", ground = -4}
"w" = {terrain = "deep-water", depth = 3}
"C" = {terrain = "floor", ground = 6, climb = 2}
"B" = {terrain = "floor", ground = 6, climb = 3}
"H" = "hazard"
"T" = {terrain = "obstacle", height = 2}
"o" = {terrain = "obstacle", height = 0.5}
"s" = "soft"
"P" = {terrain = "floor", ground = 30}
"Q" = {terrain = "floor", ground = 10}
"S" = {terrain = "soft", ground = 0}
"""


def fighter(fid: str, side: str = "blue", at: tuple[int, ...] = (1, 1), **stats: object) -> str:
    """One [[fighters]] table; keyword arguments are stats (speed defaults to 5), size and tags."""
    stats.setdefault("speed", 5)
    lines = [f'id = "{fid}"', f'side = "{side}"', f"at = {list(at)}"]
    for key, value in stats.items():
        if isinstance(value, str):
            lines.append(f'{key} = "{value}"')
        elif isinstance(value, list | tuple):
            lines.append(f"{key} = {[str(v) for v in value]!r}".replace("'", '"'))
        else:
            lines.append(f"{key} = {value}")
    return "[[fighters]]\n" + "\n".join(lines) + "\n"


def scene(rows: list[str], *fighters: str, settings: str = "", seed: int = 1) -> str:
    """A speed-meters scenario: the rows with LEGEND, the fighters in turn order."""
    return f"""
[encounter]
name = "speed-meters test"
ruleset = "speed-meters"
seed = {seed}
[settings]
{settings}
{grid(rows, LEGEND)}
{"".join(fighters)}
"""


def test_the_scene_builder_makes_a_valid_encounter():
    enc = encounter(scene(["#####", "#.^w#", "#####"], fighter("a", brawn=2, tags=["aquatic"], size="small")))
    a = enc.state.fighter("a")
    assert a.stats == {"speed": 5, "brawn": 2} and a.tags == ("aquatic",) and a.size == "small"
    assert enc.state.grid.top[1][2] == 100

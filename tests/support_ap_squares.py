"""Scenario builder shared by the ap-squares tests (this module holds no tests)."""

from __future__ import annotations

from support import encounter, grid
from tabletrail.core.engine.registry import get
from tabletrail.service.encounter import Encounter

RULES = get("ap-squares")

# 10 x 7: open floor at x 1..8, y 1..5, walls all round.
ROOM = [
    "##########",
    "#........#",
    "#........#",
    "#........#",
    "#........#",
    "#........#",
    "##########",
]


def arena(
    *fighters: str,
    rows: list[str] | None = None,
    settings: str = "",
    legend: str = "",
    initiative: tuple[str, ...] = (),
    seed: int = 7,
) -> str:
    """Scenario TOML. A fighter is written 'id side x,y [stat=value…] [tags=a|b]'."""
    order = "initiative = [" + ", ".join(f'"{i}"' for i in initiative) + "]"
    parts = [
        f"""
[encounter]
name = "ap test"
ruleset = "ap-squares"
seed = {seed}
{order if initiative else ""}
[settings]
{settings}
{grid(rows or ROOM, legend)}
"""
    ]
    for spec in fighters:
        fid, side, at, *extra = spec.split()
        x, y = at.split(",")
        lines = [f'[[fighters]]\nid = "{fid}"\nside = "{side}"\nat = [{x}, {y}]']
        for item in extra:
            key, value = item.split("=")
            if key == "tags":
                lines.append("tags = [" + ", ".join(f'"{t}"' for t in value.split("|")) + "]")
            else:
                lines.append(f"{key} = {value}")
        parts.append("\n".join(lines))
    return "\n".join(parts)


def game(*fighters: str, **kwargs) -> Encounter:  # noqa: ANN003 - passed through to arena
    return encounter(arena(*fighters, **kwargs))


def pos(enc: Encounter, fid: str) -> tuple[int, int]:
    f = enc.state.fighter(fid)
    return f.pos[0], f.pos[1]


def ap_left(enc: Encounter, fid: str) -> int:
    """AP left this cycle, in whole AP."""
    return RULES.ap_left(enc.state, fid) // 100


def gravity_of(enc: Encounter, fid: str) -> str:
    return enc.state.fighter(fid).state("gravity", "grounded")


def marks(enc: Encounter, fid: str) -> dict:
    return enc.state.fighter(fid).marks


def next_cycle(enc: Encounter) -> None:
    """End turns until a new cycle starts."""
    from support import do

    start = enc.state.turn.round
    while enc.state.turn.round == start:
        do(enc, "end-turn")

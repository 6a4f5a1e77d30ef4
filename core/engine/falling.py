"""Falling, the part every ruleset shares: straight down, landing prone (unless a ruleset rules not).

What a fall costs (damage per yard, a d6 table…) is each ruleset's own rule;
where the fighter lands and that it lands prone is written once, here.
"""

from __future__ import annotations

from tabletrail.core.board.geometry import XY
from tabletrail.core.fold.batch import Batch
from tabletrail.events import types as ev


def landing_height(b: Batch, cell: XY) -> int:
    """Where a body falling onto this cell stops: the top of what stands there."""
    x, y = cell
    return b.state.grid.top[y][x]


def fall(
    b: Batch,
    fighter_id: str,
    cell: XY,
    *,
    rules: tuple[str, ...],
    note: str = "",
    from_z: int | None = None,
    prone: bool = True,
) -> int:
    """Drop a fighter straight down onto `cell`, prone unless the ruleset rules otherwise (`prone`).
    Returns the height fallen, centi-units."""
    f = b.state.fighter(fighter_id)
    assert f is not None
    start = f.pos[2] if from_z is None else from_z
    land = landing_height(b, cell)
    b.emit(ev.Placed(fighter=fighter_id, to=(cell[0], cell[1], land), how="fall", rules=rules, note=note))
    posture = f.states.get("posture", "standing")
    if not prone:
        return max(0, start - land)
    b.emit(
        ev.StateChanged(
            fighter=fighter_id,
            machine="posture",
            trigger="knock_down",
            source=posture,
            dest="prone",
            rules=rules,
            note="lands prone",
        )
    )
    return max(0, start - land)

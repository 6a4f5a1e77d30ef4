"""The board projection: the encounter state as plain data.

The fold that builds the state (`evolve`, `fold`, `initial_state`) is domain
code and lives in `core/fold/evolve.py`; this module only shows its result.
"""

from __future__ import annotations

from typing import Any

from msgspec import to_builtins
from tabletrail.core.board.state import EncounterState
from tabletrail.core.board.walls import door_list, wall_lines


def view(state: EncounterState) -> dict[str, Any]:
    """The board as plain data: what `replay --json` prints and replays are checked against.

    Settings are not part of the board: a later version may add a setting (with its
    default) without changing the board an old log replays to. A map with walls or
    doors on its cell edges adds `walls` (merged segments [x1, y1, x2, y2] in grid
    corners) and `doors` ({at, cells, state}); a map without them shows neither.
    """
    out = {
        "ruleset": state.ruleset,
        "turn": to_builtins(state.turn),
        "fighters": [to_builtins(f) for f in state.fighters],
        "links": [list(link) for link in state.links],
        "marks": to_builtins(state.marks),
        "dice_drawn": state.dice,
    }
    if state.grid.edges is not None:
        out["walls"] = wall_lines(state.scenario)
        out["doors"] = door_list(state)
    return out

"""initiative-yards dragging: a friendly or a movable object, at half max movement (drag).

`Dragging` is that family as a part of the ruleset: the drag walks on the move
action as any move does (the ruleset's `go`, with walk.py's `Walk` priced for
a drag), then puts the target down.
"""

from __future__ import annotations

from tabletrail.core.rulesets.initiative_yards.board import DRAGGING, OBJECT, engaged_with
from tabletrail.core.rulesets.initiative_yards.part import YardsPart
from tabletrail.core.rulesets.initiative_yards.walk import Walk
from tabletrail.events.commands.initiative_yards import Drag
from tabletrail.ruleset_api import (
    CU,
    WALLS,
    Batch,
    Dice,
    distance,
    fmt,
    half_down,
    handles,
    path_cells,
    reach_blocked,
    require,
    show,
    step_blocked,
    waypoint,
)
from tabletrail.ruleset_api import events as ev


class Dragging(YardsPart):
    """A move that drags someone along and puts it down within 1 yd of the end."""

    @handles(Drag)
    def drag(self, b: Batch, cmd: Drag, dice: Dice) -> None:
        rule = self.rule("drag")
        f, tether = self.rs.mover(b, cmd.fighter, "a drag")
        target = self.rs.fighter(b.state, cmd.target)
        require(target.id != f.id, rule, f"{f.id} can't drag itself")
        require(
            target.side == f.side or OBJECT in target.tags,
            rule,
            f"{target.id} is of side {target.side}, not {f.side}: only friendlies or movable objects "
            "are dragged",
        )
        diag = b.state.settings["diagonal"]
        start = distance(diag, f.pos, target.pos)
        require(
            start <= CU and abs(f.pos[2] - target.pos[2]) <= CU,
            rule,
            f"{target.id} is {fmt(start)} yd from {f.id}: a drag target must start within 1 yd",
        )
        wall = reach_blocked(b.state, f.pos, target.pos)
        require(not wall, WALLS, f"{f.id} can't take hold of {target.id} through {wall}")
        foes = engaged_with(b.state, target.id)
        require(
            not foes,
            self.rule("engage-break"),
            f"{target.id} is engaged with {', '.join(o.id for o in foes)}: an engagement ends only by "
            "resolving a combat, so it can't be dragged away before then",
        )
        half = half_down(self.rs.initiative(f))
        used = f.used("movement")
        require(
            used < half,
            rule,
            f"dragging halves the move action to {fmt(half)} yd (half of {fmt(self.rs.initiative(f))}), "
            f"but {fmt(used)} yd of it are already spent",
        )
        cells = path_cells(b.state, f, cmd.path, rule)
        if b.state.fighter(f.id).marks.get(DRAGGING) != target.id:  # type: ignore[union-attr]
            b.emit(
                ev.Marked(
                    fighter=f.id,
                    key=DRAGGING,
                    value=target.id,
                    rules=(rule,),
                    note=f"{f.id} drags {target.id}: this move action is at most {fmt(half)} yd, "
                    f"half of {fmt(self.rs.initiative(f))}",
                )
            )
        f = b.state.fighter(f.id)  # type: ignore[assignment]
        stopped = self.rs.go(
            b, f, Walk(self.rs, dice, tether=tether, mode="drag"), cells, dice, rule=rule, what="the drag"
        )
        end = b.state.fighter(f.id).pos  # type: ignore[union-attr]
        put = waypoint(b.state, cmd.put, rule)
        away = distance(diag, end, put)
        top = b.state.grid.top[put[1]][put[0]]
        require(
            away <= CU and abs(top - end[2]) <= CU,
            rule,
            f"{show(put)} is {fmt(away)} yd from where {f.id} ends ({show(end)}): the dragged target is "
            f"placed within 1 yd" + (f" (the drag stopped early: {stopped})" if stopped else ""),
        )
        wall = step_blocked(b.state, end, put)
        require(not wall, WALLS, f"{target.id} can't be put on {show(put)} from {show(end)}: {wall}")
        grid = b.state.grid
        # drag: "place the target ... anywhere within a yard": the top of a low obstacle too (a place
        # to stand, as vault's "climb up on top of the piece of terrain" says); not a wall.
        require(
            not grid.blocked(*put),
            rule,
            f"{target.id} can't be put on {show(put)}: it is {grid.kind(*put).terrain}",
        )
        others = [o.id for o in b.state.at(*put) if o.id != target.id]
        require(not others, rule, f"{target.id} can't be put on {show(put)}: {', '.join(others)} is there")
        b.emit(
            ev.Placed(
                fighter=target.id,
                to=(put[0], put[1], top),
                how="drag",
                rules=(rule,),
                note=f"dragged by {f.id}, put {fmt(away)} yd from it",
            )
        )
        self.rs.arrived(b, target.id, target.pos)  # engage: set down in an enemy's Reach, it is engaged

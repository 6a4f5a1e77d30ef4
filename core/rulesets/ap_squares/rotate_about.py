"""ap-squares rotate-about: circling a pivot square at the starting distance (rotate-about).

`rotate_path` draws the circle's squares; `rotate-about` walks them like any
move, paying AP a square. `RotatingAbout` is the family's part: the command,
and the ban on turning back, which outlasts what is not doing something else
(a new cycle, fresh AP, an occupant's answer on the way round).
"""

from __future__ import annotations

from functools import cmp_to_key
from typing import Any

from tabletrail.core.rulesets.ap_squares.hooks import ApPart
from tabletrail.core.rulesets.ap_squares.invasion import INVADING, travel
from tabletrail.core.rulesets.ap_squares.zero_g_base import ap
from tabletrail.events.commands.ap_squares import RotateAbout
from tabletrail.ruleset_api import (
    CU,
    NEIGHBOURS,
    XY,
    Batch,
    Dice,
    EncounterState,
    Fighter,
    distance,
    fmt,
    handles,
    plural,
    require,
    show,
)
from tabletrail.ruleset_api import events as ev

ROTATION = "rotation"  # mark: the rotation just made (pivot, direction, the tile it came from)


class RotatingAbout(ApPart):
    """rotate-about: a move along the circle about a pivot, never turning back."""

    @handles(RotateAbout)
    def rotate_about(self, b: Batch, cmd: RotateAbout, dice: Dice) -> None:
        rule = self.rule("rotate-about")
        f = self.rs.acting(b.state, cmd.fighter)
        policy = self.rs.mover(b.state, f)
        grid = b.state.grid
        pivot = (cmd.pivot[0], cmd.pivot[1])
        require(
            grid.inside(*pivot), rule, f"the pivot {show(pivot)} is off the {grid.width}x{grid.height} map"
        )
        require(cmd.squares >= 1, rule, f"squares must be at least 1, got {cmd.squares}")
        least, left = cmd.squares * policy.per_square * CU, self.rs.ap_left(b.state, f.id)
        require(
            least <= left,
            policy.rule,
            f"{plural(cmd.squares, 'square')} of {policy.mode} cost at least {ap(least)}; "
            f"{f.id} has {ap(left)} left",
        )
        here = (f.pos[0], f.pos[1])
        measure = b.state.settings["rotate_distance"]
        radius = distance(measure, here, pivot)
        require(radius > 0, rule, f"{f.id} stands on the pivot {show(pivot)}: there is no circle to follow")
        cells = rotate_path(measure, here, pivot, cmd.direction == "cw", cmd.squares)
        outside = next((c for c in cells if not grid.inside(*c)), None)
        require(
            outside is None, rule, f"the circle about {show(pivot)} leaves the map at {show(outside or here)}"
        )
        # "never allows a character to change directions and return to the tile they immediately
        # travelled from": not even by splitting the rotation into two commands.
        last = self.last_rotation(b.state, f)
        if last and last["pivot"] == list(pivot) and last["direction"] != cmd.direction and last["back"]:
            back = tuple(last["back"])
            require(
                cells[0] != back,
                rule,
                f"{f.id} just rotated {last['direction']} about {show(pivot)} from {show(back)}: rotating "
                f"about never changes direction to return to the tile it immediately travelled from",
            )
        turn = "clockwise" if cmd.direction == "cw" else "counter-clockwise"
        travel(
            self.rs,
            b,
            f.id,
            policy,
            cells,
            dice,
            (policy.rule, rule),
            note=f"rotating {turn} about {show(pivot)} at {fmt(radius)} m ({measure})",
        )
        now = b.state.fighter(f.id)
        assert now is not None
        path = [here, *cells]
        at = (now.pos[0], now.pos[1])
        if (
            at == here
            and INVADING in now.marks
            and not (last and last["pivot"] == list(pivot) and last["direction"] == cmd.direction)
        ):
            # invade: the rotation waits before its first square; once let in, it will have come
            # from here (let_in). Until then there is no tile it travelled from.
            b.emit(
                ev.Marked(
                    fighter=f.id,
                    key=ROTATION,
                    value={
                        "pivot": list(pivot),
                        "direction": cmd.direction,
                        "back": None,
                        "at": list(at),
                        "spent": now.used("ap"),
                        "round": b.state.turn.round,
                    },
                    rules=(rule,),
                    note=f"{f.id} starts rotating {turn} about {show(pivot)}, waiting to enter "
                    f"{show(cells[0])}",
                )
            )
        elif at != here and at in path:
            b.emit(
                ev.Marked(
                    fighter=f.id,
                    key=ROTATION,
                    value={
                        "pivot": list(pivot),
                        "direction": cmd.direction,
                        "back": list(path[path.index(at) - 1]),
                        "at": list(at),
                        "spent": now.used("ap"),
                        "round": b.state.turn.round,
                    },
                    rules=(rule,),
                    note=f"{f.id} rotates {turn}: it may not turn back to {show(path[path.index(at) - 1])} "
                    "until it does something else",
                )
            )

    def settle(self, b: Batch, dice: Dice) -> None:
        """rotate-about: after every command, a rotation its character has moved on from is forgotten."""
        self.forget_rotations(b)

    def forget_rotations(self, b: Batch) -> None:
        """rotate-about: a rotation is remembered only until the character does something else."""
        self.rs.forget_marks(
            b,
            ROTATION,
            self.last_rotation,
            self.rule("rotate-about"),
            "{fighter} has done something else since rotating: the rotation is over",
        )

    def last_rotation(
        self, state: EncounterState, f: Fighter, cycle: int | None = None
    ) -> dict[str, Any] | None:
        """rotate-about: the fighter's rotation just made (in `cycle`, by default the current one), if
        it has done nothing else since: not moved, not spent AP."""
        last = f.marks.get(ROTATION)
        if not last:
            return None
        same = (
            last["at"] == [f.pos[0], f.pos[1]]
            and last["spent"] == f.used("ap")
            and last["round"] == (state.turn.round if cycle is None else cycle)
        )
        return last if same else None

    def keep_rotation(self, b: Batch, fighter_id: str, last: dict[str, Any], why: str) -> None:
        """rotate-about: the rotation `last` still stands after `why`, which is not doing something
        else: its AP and cycle are written afresh, so it is not forgotten."""
        now = self.rs.fighter(b.state, fighter_id)
        b.emit(
            ev.Marked(
                fighter=fighter_id,
                key=ROTATION,
                value={**last, "spent": now.used("ap"), "round": b.state.turn.round},
                rules=(self.rule("rotate-about"),),
                note=f"{why}: {fighter_id} has done nothing else since rotating, so it still may not "
                f"turn back to {show(last['back'])}",
            )
        )

    def rotations_standing(
        self, state: EncounterState, cycle: int, only: str | None = None
    ) -> dict[str, dict[str, Any]]:
        """rotate-about: the rotations made in `cycle` that still stand, to carry through a refresh of
        AP or a new cycle. The text sets no cycle limit ("never allows"), unlike invade's "during the
        same cycle"; a table that lets a new cycle end the rotation sets rotate_back_new_cycle."""
        if state.settings["rotate_back_new_cycle"]:
            return {}
        return {
            f.id: last
            for f in state.fighters
            if (only is None or f.id == only) and (last := self.last_rotation(state, f, cycle)) is not None
        }

    def refreshed(self, b: Batch, before: EncounterState, cycle: int, only: str | None, why: str) -> None:
        """rotate-about: a new cycle or fresh AP is not the character doing something else: the
        rotations that stood in `cycle` on the board `before` it are written afresh."""
        for fighter_id, last in self.rotations_standing(before, cycle, only).items():
            self.keep_rotation(b, fighter_id, last, why)

    def kept_out(self, b: Batch, invader: Fighter, cell: XY) -> None:
        """rotate-about: a rotation body-blocked on its way round has done nothing since but be
        blocked; it still may not "change directions and return to the tile they immediately
        travelled from" (and going on round is the square invade forbids this cycle).

        `invader` is the fighter as it stood before the block's own facts, so its rotation is read
        as it stood then."""
        last = self.last_rotation(b.state, invader)
        if last is not None and last["back"]:  # kept out of its first square: it travelled from nowhere
            self.keep_rotation(b, invader.id, last, f"body-blocked out of {show(cell)}")

    def let_in(self, b: Batch, before: Fighter, cell: XY) -> None:
        """rotate-about: a rotation that waited for the occupant's answer and was let in (a parry
        "still enters", or allowed) goes on round into `cell`: that is not doing something else, so
        it may not turn back to the square it waited on."""
        last = self.last_rotation(b.state, before)
        now = self.rs.fighter(b.state, before.id)
        if last is None or (now.pos[0], now.pos[1]) != cell:
            return
        back = [before.pos[0], before.pos[1]]
        b.emit(
            ev.Marked(
                fighter=before.id,
                key=ROTATION,
                value={
                    **last,
                    "back": back,
                    "at": [cell[0], cell[1]],
                    "spent": now.used("ap"),
                    "round": b.state.turn.round,
                },  # fmt: skip
                rules=(self.rule("rotate-about"),),
                note=f"let into {show(cell)}, {before.id} goes on rotating "
                f"{'clockwise' if last['direction'] == 'cw' else 'counter-clockwise'} about "
                f"{show(tuple(last['pivot']))}: it may not turn back to {show(tuple(back))} until it does "
                "something else",
            )
        )


def rotate_path(measure: str, start: XY, pivot: XY, clockwise: bool, squares: int) -> list[XY]:
    """The squares of a rotate-about: `squares` steps around `pivot`, never turning back.

    The radius is the distance (under `measure`) from the pivot to the start.
    From each square the next is the neighbour that turns strictly onward about
    the pivot whose distance best matches the radius; of equally good ones, the
    one that turns least (so no square of the circle is skipped), then the nearer.
    Map rows grow downward, so clockwise on the map is a positive cross product.
    """
    radius = distance(measure, start, pivot)
    sign = 1 if clockwise else -1

    def rel(c: XY) -> XY:
        return c[0] - pivot[0], c[1] - pivot[1]

    def turn(a: XY, c: XY) -> int:
        (ax, ay), (cx, cy) = rel(a), rel(c)
        return sign * (ax * cy - ay * cx)

    def order(a: XY, c: XY) -> int:
        miss = abs(distance(measure, a, pivot) - radius) - abs(distance(measure, c, pivot) - radius)
        if miss:
            return -1 if miss < 0 else 1
        ahead = turn(a, c)  # > 0: c lies further on than a, so a comes first
        if ahead:
            return -1 if ahead > 0 else 1
        return distance(measure, a, pivot) - distance(measure, c, pivot)

    path: list[XY] = []
    here = start
    for _ in range(squares):
        onward = [(here[0] + dx, here[1] + dy) for dx, dy in NEIGHBOURS]
        onward = [c for c in onward if turn(here, c) > 0]
        here = min(onward, key=cmp_to_key(order))
        path.append(here)
    return path

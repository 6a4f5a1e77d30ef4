"""ap-squares leaps: the reflexive leap out of an area effect (reflexive-leap).

The GM announces an area effect (`area-effect`); each character caught and
aware of it may dive out on a Celerity roll, or with no way out halve the
damage on a Dexterity roll (`reflexive-leap`); the GM then lands it on the
rest (`area-hit`). `Leaps` is the family's part; until the area effect lands
the encounter takes only those answers (`ApSquares.decide`).
"""

from __future__ import annotations

from tabletrail.core.rulesets.ap_squares.hooks import ApPart
from tabletrail.core.rulesets.ap_squares.zero_g_base import (
    GROUNDED,
    ap,
    cell_list,
    gravity,
    is_object,
    weightless,
)
from tabletrail.events.commands.ap_squares import AreaEffect, AreaHit, ReflexiveLeap
from tabletrail.ruleset_api import (
    CU,
    WALLS,
    XY,
    Answer,
    Awaited,
    Batch,
    Dice,
    EncounterState,
    Fighter,
    Refusal,
    check,
    forbidden,
    handles,
    line,
    path_blocked,
    plural,
    require,
    show,
)
from tabletrail.ruleset_api import events as ev

# The document's numbers, in whole AP (or as stated).
LEAP_MIN_AP = 2  # reflexive-leap: "must have at least two (2) AP remaining", whatever the leap costs
LEAP_EXTRA_AP = 2  # reflexive-leap: each meter beyond the first
LEAP_DIFFICULTY = 18  # reflexive-leap: the Celerity roll to dive out
LEAP_EXTRA_DIFFICULTY = 3  # reflexive-leap: each meter beyond the first
HALVE_DIFFICULTY = 13  # reflexive-leap: the Dexterity roll to halve the damage

AREA = "area-effect"  # BoardMarked: {"cells", "damage", "unaware", "caught"} until it lands


class Leaps(ApPart):
    """reflexive-leap: area effects, the leap or the Dexterity roll that answers them, and the GM's hit."""

    answers = frozenset({"reflexive-leap"})

    def awaited(self, state: EncounterState) -> list[Awaited]:
        """Those caught by an area effect and aware of it leap or halve its damage; then the GM lands it."""
        out = []
        area = state.marks.get(AREA)
        if isinstance(area, dict):
            for fid in area.get("caught", ()):
                caught = state.fighter(str(fid))
                if caught is None or caught.id in area.get("unaware", ()):
                    continue
                who = caught.id
                answers = (
                    Answer("Leap clear", f"reflexive-leap {who} {{cell}}", actor=who, needs="cell"),
                    Answer("Halve the damage", f"reflexive-leap {who}", actor=who),
                )
                damage = area.get("damage", 0)
                prompt = f"An area effect of {damage} damage is about to land on {caught.name or who}"
                out.append(Awaited("area", who, prompt, answers, blocking=True))
            land = (Answer("Land it", "area-hit"),)
            out.append(
                Awaited("area", "", "The area effect lands once those caught have answered", land, True)
            )
        return out

    @handles(AreaEffect)
    def area_effect(self, b: Batch, cmd: AreaEffect, dice: Dice) -> None:
        rule = self.rule("reflexive-leap")
        self.rs.gm_only(cmd, rule, "announce an area effect")
        grid = b.state.grid
        require(bool(cmd.cells), rule, "an area effect needs at least one square")
        for c in cmd.cells:
            require(grid.inside(c[0], c[1]), rule, f"{show(c)} is off the {grid.width}x{grid.height} map")
        require(cmd.damage >= 0, rule, f"damage must not be negative, got {cmd.damage}")
        for fid in cmd.unaware:
            self.rs.fighter(b.state, fid)
        cells = {(c[0], c[1]) for c in cmd.cells}
        caught = [f.id for f in b.state.fighters if not is_object(f) and (f.pos[0], f.pos[1]) in cells]
        b.emit(
            ev.BoardMarked(
                key=AREA,
                value={
                    "cells": cell_list(cells),
                    "damage": cmd.damage,
                    "unaware": sorted(set(cmd.unaware)),
                    "caught": caught,
                },
                rules=(rule,),
                note=f"an area effect of {cmd.damage} damage over {plural(len(cells), 'square')} catches "
                f"{', '.join(caught) or 'nobody'}; those aware with {LEAP_MIN_AP}+ AP may leap",
            )
        )

    @handles(ReflexiveLeap)
    def reflexive_leap(self, b: Batch, cmd: ReflexiveLeap, dice: Dice) -> None:
        rule = self.rule("reflexive-leap")
        area = b.state.marks.get(AREA)
        if area is None:
            raise Refusal(rule, "no area effect is coming: there is nothing to leap from")
        f = self.rs.fighter(b.state, cmd.fighter)
        require(f.id in area["caught"], rule, f"{f.id} at {show(f.pos)} is not caught in the area effect")
        require(cmd.by in (f.side, "gm"), rule, f"the leap is {f.id}'s to choose: by={f.side} or by=gm")
        require(f.id not in area["unaware"], rule, f"{f.id} does not know the area effect is coming")
        hindered = self.hindered(f)
        require(not hindered, rule, f"{f.id} can't move without penalty: {hindered}")
        base = int(b.state.settings["leap_ap"])
        left = self.rs.ap_left(b.state, f.id)
        require(
            left >= LEAP_MIN_AP * CU,
            rule,
            f"{f.id} has {ap(left)} left; a reflexive leap needs at least {LEAP_MIN_AP} AP remaining",
        )
        cells = {(c[0], c[1]) for c in area["cells"]}
        damage = int(area["damage"])
        here = (f.pos[0], f.pos[1])
        if cmd.to is not None:
            dest = (cmd.to[0], cmd.to[1])
            extra = self.dive_target(b.state, f, dest, cells)
            cost = base + LEAP_EXTRA_AP * extra
            require(
                cost * CU <= left,
                rule,
                f"a {extra + 1} m leap to {show(dest)} costs {cost} AP ({base} + {LEAP_EXTRA_AP} for each of "
                f"{plural(extra, 'extra meter')}); {f.id} has {ap(left)} left",
            )
            self.rs.pay(b, f.id, cost, rule, f"a {extra + 1} m reflexive leap")
            difficulty = LEAP_DIFFICULTY + LEAP_EXTRA_DIFFICULTY * extra
            roll = check(
                b,
                dice,
                fighter=f.id,
                name="celerity (reflexive leap)",
                rule=rule,
                target=difficulty,
                modifier=int(self.rs.stat(f, "celerity")),
                note=f"dive {extra + 1} m to {show(dest)}: Celerity difficulty {LEAP_DIFFICULTY}"
                + (
                    f" + {LEAP_EXTRA_DIFFICULTY} x {plural(extra, 'extra meter')} = {difficulty}"
                    if extra
                    else ""
                ),
            )
            if roll.passed:
                b.emit(
                    ev.Placed(
                        fighter=f.id,
                        to=(dest[0], dest[1], b.state.grid.top[dest[1]][dest[0]]),
                        how="reflexive leap",
                        rules=(rule,),
                        note=f"{f.id} dives from {show(here)} to {show(dest)} and avoids all {damage} damage",
                    )
                )
            elif damage:
                b.emit(
                    ev.Damaged(
                        fighter=f.id,
                        amount=damage,
                        cause="area effect",
                        rules=(rule,),
                        note=f"the dive fails ({roll.number + roll.modifier} < {difficulty}): {f.id} stays "
                        f"at {show(here)} and takes the full {damage} damage",
                    )
                )
        else:
            way_out = self.way_out(b.state, f, cells, (left // CU - base) // LEAP_EXTRA_AP)
            require(
                way_out is None,
                rule,
                f"{f.id} could dive to {show(way_out or here)}, outside the area: the Dexterity roll is "
                "for those with no way to leap out (give the square to dive to)",
            )
            self.rs.pay(b, f.id, base, rule, "a reflexive leap with no way out")
            roll = check(
                b,
                dice,
                fighter=f.id,
                name="dexterity (reflexive leap)",
                rule=rule,
                target=HALVE_DIFFICULTY,
                modifier=int(self.rs.stat(f, "dexterity")),
                note=f"no square to dive to: Dexterity difficulty {HALVE_DIFFICULTY} halves the damage",
            )
            up = b.state.settings["halve_rounding"] == "up"
            taken = (damage + up) // 2 if roll.passed else damage
            if taken:
                b.emit(
                    ev.Damaged(
                        fighter=f.id,
                        amount=taken,
                        cause="area effect",
                        rules=(rule,),
                        note=f"Dexterity {roll.number + roll.modifier} vs {HALVE_DIFFICULTY}: "
                        + (f"half of {damage} = {taken}" if roll.passed else f"the full {damage}"),
                    )
                )
        b.emit(
            ev.BoardMarked(
                key=AREA,
                value={**area, "caught": [x for x in area["caught"] if x != f.id]},
                rules=(rule,),
                note=f"{f.id} has reacted to the area effect",
            )
        )

    def hindered(self, f: Fighter) -> str:
        """Why the fighter can't move without penalty ("" when it can)."""
        if gravity(f) != GROUNDED:
            return f"{gravity(f).replace('_', ' ')} in zero gravity"
        if f.state("posture", "standing") == "prone":
            return "prone"
        return ""

    def open_square(self, state: EncounterState, cell: XY, fighter_id: str) -> bool:
        """A square a leap can land on: on the map, not a wall or solid, nobody in it."""
        grid = state.grid
        return (
            grid.inside(*cell)
            and not grid.blocked(*cell)
            and not grid.has(*cell, "solid")
            and not [o for o in state.at(*cell) if o.id != fighter_id]
        )

    def way_out(self, state: EncounterState, f: Fighter, area: set[XY], extra: int) -> XY | None:
        """The nearest square outside the area a dive may land on, if any: "no way to leap out of the
        way" counts every leap the AP allow, each `extra` meter beyond the first for 2 AP more."""
        x, y = f.pos[0], f.pos[1]
        for n in range(1, extra + 2):
            ring = [
                (x + dx, y + dy)
                for dy in range(-n, n + 1)
                for dx in range(-n, n + 1)
                if max(abs(dx), abs(dy)) == n
            ]
            for cell in ring:
                if not self.landing_problem(state, f, cell, area):
                    return cell
        return None

    def landing_problem(self, state: EncounterState, f: Fighter, dest: XY, area: set[XY]) -> str:
        """Why a reflexive leap can't land on `dest` ("" if it can); the dive and the way out share it."""
        here = (f.pos[0], f.pos[1])
        grid = state.grid
        if not grid.inside(*dest):
            return f"{show(dest)} is off the {grid.width}x{grid.height} map"
        if dest == here:
            return f"{f.id} is already at {show(dest)}"
        if dest in area:
            return f"{show(dest)} is inside the area effect: a dive must land outside it"
        if dest in weightless(state):
            return f"{show(dest)} is weightless: a dive lands on a floor that gravity holds"
        if not self.open_square(state, dest, f.id):
            return f"{show(dest)} is not open ground to land on (a wall, a solid object or someone is there)"
        ruling = forbidden(state, *dest, f)
        if ruling:
            return f"the GM ruled {show(dest)} can't be crossed: {ruling[3]}"
        for cell in line(here, dest)[:-1]:
            if grid.blocked(*cell) or grid.has(*cell, "solid"):
                what = grid.kind(*cell).terrain
                return f"the leap to {show(dest)} would pass through the {what} at {show(cell)}"
        wall = path_blocked(state, here, line(here, dest))
        if wall:
            return f"the leap to {show(dest)} would cross a wall on its way ({wall})"
        return ""

    def dive_target(self, state: EncounterState, f: Fighter, dest: XY, area: set[XY]) -> int:
        """Check a dive's landing square; returns the meters beyond the first."""
        here = (f.pos[0], f.pos[1])
        if state.grid.inside(*dest):
            wall = path_blocked(state, here, line(here, dest))
            require(not wall, WALLS, f"the leap to {show(dest)} can't cross a wall: {wall}")
        problem = self.landing_problem(state, f, dest, area)
        require(not problem, self.rule("reflexive-leap"), problem)
        return max(abs(dest[0] - f.pos[0]), abs(dest[1] - f.pos[1])) - 1

    @handles(AreaHit)
    def area_hit(self, b: Batch, cmd: AreaHit, dice: Dice) -> None:
        rule = self.rule("reflexive-leap")
        self.rs.gm_only(cmd, rule, "land an area effect")
        area = b.state.marks.get(AREA)
        if area is None:
            raise Refusal(rule, "no area effect is waiting to land")
        damage = int(area["damage"])
        for fid in area["caught"]:
            if damage:
                b.emit(
                    ev.Damaged(
                        fighter=fid,
                        amount=damage,
                        cause="area effect",
                        rules=(rule,),
                        note=f"{fid} did not leap: the full {damage} damage",
                    )
                )
        b.emit(ev.BoardMarked(key=AREA, value=None, rules=(rule,), note="the area effect has landed"))

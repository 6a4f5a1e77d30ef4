"""speed-meters walking: the Movement action on foot (movement, maneuver, jump, stop).

"A Movement action moves up to Speed meters": each Movement is an action with a
fresh Speed and 2 m of jump/roll/slide maneuvers (stop); it goes at most 1 m up,
by jumping, and jumps 1 m up or 2 m across (jump); a rough space costs 2 m
(rough, priced in steps.py). Once a Movement stops it can't resume, but a door
opened or closed on the way as part of the move is not stopping: a walk ending
beside a door with meters left is marked `on-the-way`, and a door used next
keeps it going. The GM's meters (`adjust`) belong to the next Movement.
"""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace
from tabletrail.core.rulesets.speed_meters.board import (
    GIVEN,
    above_ground,
    actions_of,
    mode_of,
    partner,
    with_given,
)
from tabletrail.core.rulesets.speed_meters.part import SpeedPart
from tabletrail.core.rulesets.speed_meters.steps import MANEUVER_LIMIT, _Walking
from tabletrail.ruleset_api import (
    DOORS,
    GM_RULING,
    Batch,
    Dice,
    EncounterState,
    Fighter,
    Move,
    Refusal,
    doors_beside,
    fmt,
    handles,
    length_of,
    part_of_move,
    show,
    walk,
)
from tabletrail.ruleset_api import events as ev

# stop: a walking Movement that ended beside a door with meters left, which a door used on the way
# keeps going: {"at", "turn", "actions", "movement", "maneuver" (the fighter as it ended), "speed",
# "left", "maneuvers" (what is left of the 2 m), "risen", "parity", "door" (one was used since)}
ON_THE_WAY = "on-the-way"


def can_walk(state: EncounterState, f: Fighter) -> bool:
    """movement: a living fighter on its feet or prone (mode walking), not held in a grab, walks."""
    return mode_of(f) == "walking" and not f.marks.get("dead") and partner(state, f.id) is None


def as_it_stands(state: EncounterState, f: Fighter) -> dict[str, Any]:
    """stop: what must not change for a Movement to be going on: where the fighter is, its turn, what
    it has spent."""
    return {
        "at": list(f.pos),
        "turn": [state.turn.round, state.turn.index],
        "actions": f.used("actions"),
        "movement": f.used("movement"),
        "maneuver": f.used("maneuver"),
    }


def paused(state: EncounterState, f: Fighter) -> dict[str, Any] | None:
    """stop: the fighter's Movement that ended beside a door, if it has done nothing since
    (a door used on the way aside)."""
    mark = f.marks.get(ON_THE_WAY)
    if not mark or mode_of(f) != "walking":
        return None
    now = as_it_stands(state, f)
    return mark if all(mark[k] == v for k, v in now.items()) else None


def movement_going_on(state: EncounterState, f: Fighter) -> dict[str, Any] | None:
    """stop: the Movement a walk goes on with: it ended beside a door, and the fighter's acts since
    are only doors used on the way."""
    mark = paused(state, f)
    return mark if mark and mark["door"] else None


class Walking(SpeedPart):
    """The Movement on foot: each a new action with a fresh Speed; a door on the way is not stopping."""

    def start_turn(self, b: Batch, fighter_id: str, dice: Dice) -> None:
        """stop: a new turn brings new actions, and every budget a Movement or a force spends."""
        b.emit(
            ev.Refreshed(
                fighter=fighter_id,
                resources=("actions", "movement", "maneuver", "forced", "grapple", "glide"),
                rules=(self.rule("stop"),),
                note="a new turn brings new actions",
            )
        )

    def settle(self, b: Batch, dice: Dice) -> None:
        """adjust: the GM's meters wait for the next Movement; stop: a Movement goes on past a door only."""
        self.keep_given(b)
        self.forget_pauses(b)

    # --- the reachable area: ordinary walking -------------------------------------------------

    def walker(self, state: EncounterState, f: Fighter) -> _Walking | None:
        """movement: how a walking fighter's next Movement is priced step by step (steps.py)."""
        if not can_walk(state, f):
            return None
        return _Walking(self.rs, self.rs.stat(f, "speed"), jumps=False)

    def move_budget(self, state: EncounterState, f: Fighter) -> int:
        """stop: what the next walk may cost: a fresh Speed, or what is left of one paused at a door."""
        # Each Movement is a fresh Speed, if an action is left to start one.
        if not can_walk(state, f):
            return 0
        going = movement_going_on(state, f)  # stop: past a door, the same Movement's meters left
        if going:
            return int(going["left"])
        return with_given(f, self.rs.stat(f, "speed")) if f.used("actions") < actions_of(state, f) else 0

    # --- movement: walking ------------------------------------------------------------

    @handles(Move)
    def move(self, b: Batch, cmd: Move, dice: Dice) -> None:
        f = self.rs.mover(b.state, cmd.fighter, ("walking",), "a Movement")
        cells = self.rs.cells(b.state, f, cmd.path)
        going = movement_going_on(b.state, f)  # stop: a door on the way did not stop it
        if going:
            speed, budget, maneuvers = int(going["speed"]), int(going["left"]), int(going["maneuvers"])
            policy = _Walking(self.rs, speed, jumps=True, maneuvers=maneuvers)
            policy.spent, policy.risen, parity = speed - budget, int(going["risen"]), int(going["parity"])
            b.emit(
                ev.Unmarked(
                    fighter=f.id,
                    key=ON_THE_WAY,
                    rules=(self.rule("stop"),),
                    note=f"{f.id} walks on past the door: the same Movement, {fmt(budget)} m of it left, "
                    "no new action",
                )
            )
        else:
            speed = budget = with_given(f, self.rs.stat(f, "speed"))  # adjust: what the GM gave or took
            maneuvers = with_given(f, MANEUVER_LIMIT, "maneuver")
            self.rs.begin_movement(b, f)
            policy, parity = _Walking(self.rs, speed, jumps=True, maneuvers=maneuvers), 0
        taken, stopped = walk(
            b,
            policy,
            f.id,
            cells,
            budget=budget,
            budget_rule=self.rule("movement"),
            rules=(self.rule("movement"),) if not going else (self.rule("movement"), self.rule("stop")),
            what="the Movement",
            dice=dice,
            parity=parity,
        )
        if policy.maneuver:  # maneuver: what the jumps took of the 2 m
            b.emit(
                ev.Spent(
                    fighter=f.id,
                    resource="maneuver",
                    amount=policy.maneuver,
                    rules=(self.rule("maneuver"), self.rule("jump")),
                    note=f"{fmt(policy.maneuver)} m of this Movement were jumps (at most "
                    f"{fmt(maneuvers)} m may be maneuvers)",
                )
            )
        now = b.state.fighter(f.id)
        assert now is not None
        up = above_ground(b.state, now)
        if up > 0:  # jump: a normal Movement can't end in the air
            if b.state.settings["ledge_drop"] != "fall":
                raise Refusal(
                    self.rule("jump"),
                    f"a Movement can't end in the air: {show(now.pos)} is {fmt(up)} m above the ground "
                    "(a jump must land within 1 m below its take-off)",
                )
            # occupancy: "can't end a Movement in an occupied space": where the step off lands is
            # where this Movement ends, so nobody may be lying or standing there.
            x, y, _ = now.pos
            self.rs.can_end(b.state, replace(now, pos=(x, y, b.state.grid.top[y][x])))
            self.rs.drop(
                b, dice, f.id, rule=self.rule("jump"), bumps=cmd.bumps, note=f"steps off at {show(now.pos)}"
            )
        elif not stopped:
            self.pause_beside_door(
                b,
                f.id,
                speed=speed,
                left=budget - length_of(taken),  # the exact length, rounded once
                maneuvers=maneuvers - policy.maneuver,
                risen=policy.risen,
                parity=taken[-1].parity if taken else parity,
            )

    # --- stop: a door on the way is not stopping ----------------------------------------------

    def pause_beside_door(
        self, b: Batch, fid: str, *, speed: int, left: int, maneuvers: int, risen: int, parity: int
    ) -> None:
        """stop: a walking Movement ending beside a door, with meters left, may be going on.

        "May stop moving at any point … Once you stop moving, however, you can't start moving again
        as part of the same Action": opening a door priced as part of a move (core/engine/doors.py,
        `part_of_move`) is not stopping, so if the fighter's next act is that door, its next walk
        is this Movement going on with what is left (`movement_going_on`).
        """
        f = self.rs.fighter(b.state, fid)
        if left <= 0 or not part_of_move(self.rs, b.state) or not doors_beside(b.state, fid):
            return
        if mode_of(f) != "walking" or above_ground(b.state, f) != 0:
            return
        b.emit(
            ev.Marked(
                fighter=fid,
                key=ON_THE_WAY,
                value={
                    **as_it_stands(b.state, f),
                    "speed": speed,
                    "left": left,
                    "maneuvers": max(0, maneuvers),
                    "risen": risen,
                    "parity": parity,
                    "door": False,
                },
                rules=(self.rule("stop"),),
                note=f"{fid} is beside a door with {fmt(left)} m of this Movement left: using the door "
                "on the way does not stop the Movement",
            )
        )

    def door_on_the_way(self, b: Batch, fid: str, what: str) -> None:
        """stop: a door used on the way keeps the fighter's Movement going (it is not stopping)."""
        f = self.rs.fighter(b.state, fid)
        mark = paused(b.state, f)
        if mark is None or not part_of_move(self.rs, b.state):
            return
        b.emit(
            ev.Marked(
                fighter=fid,
                key=ON_THE_WAY,
                value={**mark, **as_it_stands(b.state, f), "door": True},
                rules=(self.rule("stop"), DOORS),
                note=f"{what} on the way is not stopping: {fid}'s next walk goes on with the "
                f"{fmt(int(mark['left']))} m left of this Movement",
            )
        )

    def forget_pauses(self, b: Batch) -> None:
        """stop: a Movement is going on only until the fighter does something else than use a door."""
        self.rs.forget_marks(
            b,
            ON_THE_WAY,
            paused,
            self.rule("stop"),
            "{fighter} has done something else: its Movement has stopped",
        )

    def keep_given(self, b: Batch) -> None:
        """adjust: meters the GM gives (or takes) between two Movements, when none is in progress,
        are kept for the next Movement, which starts with a fresh Speed (stop) and would wipe them."""
        for event in list(b.events):
            if not isinstance(event, ev.RulingMade) or event.kind not in (
                "adjust-movement",
                "adjust-maneuver",
            ):
                continue
            f = b.state.fighter(event.detail["fighter"])
            assert f is not None
            resource, amount = event.detail["resource"], int(event.detail["amount"])
            given = {**f.marks.get(GIVEN, {})}
            given[resource] = given.get(resource, 0) + amount
            given = {k: v for k, v in given.items() if v}
            if given:
                b.emit(
                    ev.Marked(
                        fighter=f.id,
                        key=GIVEN,
                        value=given,
                        rules=(GM_RULING,),
                        note=f"{f.id}'s next Movement has them: each Movement starts with a fresh Speed",
                    )
                )
            else:
                b.emit(ev.Unmarked(fighter=f.id, key=GIVEN, rules=(GM_RULING,), note="nothing given is left"))

"""round-meters passes: rounds, initiative passes and turns (passes, round-budget).

A round is one or more passes, each every combatant's turn in initiative
order; combatants with no AP left are skipped after the first pass, and a
round's Movement and AP come back whole when the next one starts. A turn that
ends with no action taken loses AP (delay, passes). `Passes`, a part of
`RoundMeters`, runs that order in place of the engine's one pass a round: the
ruleset's turn order (`begin`, `advance`, end-turn, `close_turn`) hands it here.
"""

from __future__ import annotations

from tabletrail.core.rulesets.round_meters.marks import (
    DELAY_IDLE_AP,
    DELAYED,
    DELAYED_STATE,
    HELD,
    SPRINTS,
    WAITING,
)
from tabletrail.core.rulesets.round_meters.part import RoundPart
from tabletrail.ruleset_api import (
    DIAGONALS,
    TURN,
    Batch,
    Dice,
    EndTurn,
    fmt,
    plural,
    require,
)
from tabletrail.ruleset_api import events as ev


class Passes(RoundPart):
    """The TURN machine: what comes after each turn, pass and round."""

    def next_turn(self, b: Batch, dice: Dice) -> None:
        """passes: the next turn of this pass in initiative order; then a new pass, or a new round."""
        for _ in range(3):  # this pass; a new pass or round (someone can act in it); safety
            turn = b.state.turn
            for fid in turn.order:
                f = b.state.fighter(fid)
                assert f is not None
                state = f.state("turn", TURN.initial)
                if state == DELAYED_STATE:
                    self.begin_turn(b, fid, dice)
                    return
                if state != WAITING:
                    continue
                if turn.pass_no > 1 and self.rs.ap_left(f) <= 0:
                    self.rs.change(
                        b,
                        f,
                        "turn",
                        "skip",
                        self.rule("passes"),
                        f"{fid} has no AP left ({f.used('ap')} of {self.rs.ap(f)} spent): no turn in pass "
                        f"{turn.pass_no}",
                    )
                    continue
                self.begin_turn(b, fid, dice)
                return
            self.end_pass(b, dice)
        raise AssertionError("a new pass or round always has a combatant who can act")

    def end_pass(self, b: Batch, dice: Dice) -> None:
        """passes: after the last turn of a pass, another pass while AP is left, else a new round."""
        turn = b.state.turn
        with_ap = [(f.id, self.rs.ap_left(f)) for f in b.state.fighters if self.rs.ap_left(f) > 0]
        cap = int(b.state.settings["max_passes"])
        passes = self.rule("passes")
        if with_ap and (not cap or turn.pass_no < cap):
            who = ", ".join(f"{fid} ({left} AP)" for fid, left in with_ap)
            b.emit(
                ev.PassStarted(
                    pass_no=turn.pass_no + 1,
                    rules=(passes,),
                    note=f"round {turn.round}, pass {turn.pass_no + 1}: AP left for {who}; "
                    "combatants with none are skipped",
                )
            )
            self.new_pass(b, passes)
            return
        why = "nobody has AP left" if not with_ap else f"pass {turn.pass_no} is the last (max_passes = {cap})"
        b.emit(
            ev.RoundStarted(
                round=turn.round + 1,
                rules=(passes, self.rule("round-budget")),
                note=f"round {turn.round + 1} begins after {turn.pass_no} pass(es): {why}",
            )
        )
        self.new_pass(b, passes)
        self.rs.start_round(b, turn.round + 1, dice)

    def new_pass(self, b: Batch, rule: str) -> None:
        """passes: everyone waits for its turn again."""
        t = b.state.turn
        for f in b.state.fighters:
            self.rs.change(
                b,
                f,
                "turn",
                "new_pass",
                rule,
                f"round {t.round}, pass {t.pass_no}: {f.id} waits for its turn",
            )

    def start_round(self, b: Batch, round_no: int, dice: Dice) -> None:
        """round-budget, passes: Movement and AP come back whole; the sprint penalty ends.

        Each fighter's lines (refreshed, diagonals, penalty) stand together in the log, so one loop
        writes them all: the sprint penalty ends here, not in sprint.py."""
        for f in b.state.fighters:
            b.emit(
                ev.Refreshed(
                    fighter=f.id,
                    resources=("movement", "ap"),
                    rules=(self.rule("round-budget"), self.rule("passes")),
                    note=f"round {round_no}: {f.id} has {fmt(self.rs.stat(f, 'movement'))} m of Movement and "
                    f"{self.rs.ap(f)} AP again ({fmt(self.rs.meters_left(f))} m and {self.rs.ap_left(f)} AP "
                    "were left unused)",
                )
            )
            # round-budget: the round's Movement, diagonals and all, starts over
            self.rs.unmark(
                b,
                f,
                DIAGONALS,
                self.rule("round-budget"),
                f"round {round_no}: the alternating count of diagonals starts again",
            )
            if SPRINTS in f.marks:
                self.rs.unmark(
                    b,
                    f,
                    SPRINTS,
                    self.rule("sprint"),
                    f"the {self.rs.penalty(f)} of {plural(f.marks[SPRINTS]['sprints'], 'Sprint')} lasted "
                    f"for the remainder of round {round_no - 1} only",
                )

    def begin_turn(self, b: Batch, fighter_id: str, dice: Dice) -> None:
        """passes, delay: the fighter's turn (or its delayed turn) starts, and with it the hooks'."""
        f = b.state.fighter(fighter_id)
        assert f is not None
        turn = b.state.turn
        delayed = f.state("turn", TURN.initial) == DELAYED_STATE
        rule = self.rule("delay") if delayed else self.rule("passes")
        place = f"{turn.order.index(fighter_id) + 1} of {len(turn.order)} in initiative order"
        b.emit(
            ev.TurnStarted(
                fighter=fighter_id,
                round=turn.round,
                pass_no=turn.pass_no,
                rules=(rule,),
                note=f"round {turn.round}, pass {turn.pass_no}: {fighter_id}'s "
                + ("delayed turn arrives" if delayed else "turn")
                + f" ({place}; {fmt(self.rs.meters_left(f))} m and {self.rs.ap_left(f)} AP left this round)",
            )
        )
        self.rs.change(b, f, "turn", "start", rule, f"{fighter_id} acts in pass {turn.pass_no}")
        self.rs.start_turn(b, fighter_id, dice)

    def end_turn_asked(self, b: Batch, cmd: EndTurn, dice: Dice) -> None:
        """passes, hold: the end-turn command; a turn with a held action ends holding it."""
        turn = b.state.turn
        active = turn.active
        if cmd.fighter:
            require(
                cmd.fighter == active,
                self.rule("passes"),
                f"it is {active}'s turn (round {turn.round}, pass {turn.pass_no}), not {cmd.fighter}'s",
            )
        self.rs.end_turn(b, active, dice)
        f = b.state.fighter(active)
        if f is not None and HELD in f.marks:  # hold: it waits for its trigger until its next turn
            self.close_turn(
                b, active, "hold", self.rule("hold"), f"{active}'s turn ends; its held action waits", dice
            )
            return
        self.close_turn(b, active, "finish", self.rule("passes"), f"{active}'s turn ends", dice)

    def end_turn(self, b: Batch, fighter_id: str, dice: Dice) -> None:
        """delay, passes: a turn without an action loses AP (the normal rule for taking no action).

        A delayed turn loses the document's 1 AP; any other turn idle_ap_loss (a house rule).
        """
        f = b.state.fighter(fighter_id)
        assert f is not None
        if self.rs.acted(b.state, f):
            return
        delayed = DELAYED in f.marks
        left = self.rs.ap_left(f)
        loss = min(DELAY_IDLE_AP if delayed else int(b.state.settings["idle_ap_loss"]), left)
        if loss <= 0:
            return
        why = (
            f"{fighter_id} took no action when its delayed turn arrived"
            if delayed
            else f"{fighter_id} ends its turn without taking an action (moving is not an action)"
        )
        b.emit(
            ev.Spent(
                fighter=fighter_id,
                resource="ap",
                amount=loss,
                rules=(self.rule("delay") if delayed else self.rule("passes"),),
                note=f"{why}: the normal rule for taking no action "
                + ("" if delayed else "(idle_ap_loss) ")
                + f"costs {loss} AP ({left} → {left - loss} of {self.rs.ap(f)})",
            )
        )

    def close_turn(self, b: Batch, fighter_id: str, trigger: str, rule: str, note: str, dice: Dice) -> None:
        """End the fighter's turn by a TURN trigger (finish, delay, hold) and pass it on."""
        f = b.state.fighter(fighter_id)
        assert f is not None
        if trigger != "delay":
            self.rs.unmark(
                b, f, DELAYED, self.rule("delay"), f"{fighter_id}'s delayed turn has come and gone"
            )
        self.rs.change(b, f, "turn", trigger, rule, note)
        b.emit(ev.TurnEnded(fighter=fighter_id, rules=(rule,), note=note))
        self.next_turn(b, dice)

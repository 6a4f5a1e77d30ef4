"""round-meters passes: rounds, initiative passes and turns (passes, round-budget).

A round is one or more passes, each every combatant's turn in initiative
order; combatants with no AP left are skipped after the first pass, and a
round's Movement and AP come back whole when the next one starts. A turn that
ends with no action taken loses AP (delay, passes). `Passes` lives here only
to keep the ruleset readable; `RoundMeters` inherits it.
"""

from __future__ import annotations

from tabletrail.core.rulesets.round_meters.shared import (
    ACTING,
    ACTION,
    DELAY_IDLE_AP,
    DELAYED,
    DELAYED_STATE,
    DONE,
    HELD,
    HOLDING,
    SPRINTS,
    WAITING,
    Shared,
)
from tabletrail.ruleset_api import (
    DIAGONALS,
    TURN,
    Batch,
    Dice,
    EncounterState,
    EndTurn,
    Fighter,
    Refusal,
    fmt,
    handles,
    plural,
    require,
)
from tabletrail.ruleset_api import events as ev


class Passes(Shared):
    """The TURN machine: who acts now, and what comes after each turn, pass and round."""

    def actor(self, state: EncounterState, fighter_id: str, rule: str, strict: bool | None = None) -> Fighter:
        """The fighter, who must be in the TURN machine's acting state (its turn, this pass)."""
        f = self.fighter(state, fighter_id)
        if strict is None:
            strict = bool(state.settings.get("strict_turns", True))
        if strict and f.state("turn", TURN.initial) != ACTING:
            t = state.turn
            raise Refusal(
                rule,
                f"it is {t.active}'s turn (round {t.round}, pass {t.pass_no}), not {f.id}'s: "
                f"{f.id} is {self.standing(state, f)}",
            )
        return f

    def standing(self, state: EncounterState, f: Fighter) -> str:
        """Where a fighter stands in this pass, in words."""
        p = state.turn.pass_no
        return {
            WAITING: f"waiting for its turn in pass {p}",
            ACTING: "acting",
            DELAYED_STATE: f"delayed until later in pass {p}",
            HOLDING: f"holding an action (its turn in pass {p} is over)",
            DONE: f"done for pass {p}",
        }[f.state("turn", TURN.initial)]

    def begin(self, b: Batch, dice: Dice) -> None:
        self.next_turn(b, dice)

    def advance(self, b: Batch, dice: Dice) -> None:
        self.next_turn(b, dice)

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
                if turn.pass_no > 1 and self.ap_left(f) <= 0:
                    self.change(
                        b,
                        f,
                        "turn",
                        "skip",
                        self.rule("passes"),
                        f"{fid} has no AP left ({f.used('ap')} of {self.ap(f)} spent): no turn in pass "
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
        with_ap = [(f.id, self.ap_left(f)) for f in b.state.fighters if self.ap_left(f) > 0]
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
        self.start_round(b, turn.round + 1, dice)

    def new_pass(self, b: Batch, rule: str) -> None:
        t = b.state.turn
        for f in b.state.fighters:
            self.change(
                b,
                f,
                "turn",
                "new_pass",
                rule,
                f"round {t.round}, pass {t.pass_no}: {f.id} waits for its turn",
            )

    def start_round(self, b: Batch, round_no: int, dice: Dice) -> None:
        """round-budget, passes: Movement and AP come back whole; the sprint penalty ends."""
        for f in b.state.fighters:
            b.emit(
                ev.Refreshed(
                    fighter=f.id,
                    resources=("movement", "ap"),
                    rules=(self.rule("round-budget"), self.rule("passes")),
                    note=f"round {round_no}: {f.id} has {fmt(self.stat(f, 'movement'))} m of Movement and "
                    f"{self.ap(f)} AP again ({fmt(self.meters_left(f))} m and {self.ap_left(f)} AP "
                    "were left unused)",
                )
            )
            # round-budget: the round's Movement, diagonals and all, starts over
            self.unmark(
                b,
                f,
                DIAGONALS,
                self.rule("round-budget"),
                f"round {round_no}: the alternating count of diagonals starts again",
            )
            if SPRINTS in f.marks:
                self.unmark(
                    b,
                    f,
                    SPRINTS,
                    self.rule("sprint"),
                    f"the {self.penalty(f)} of {plural(f.marks[SPRINTS]['sprints'], 'Sprint')} lasted "
                    f"for the remainder of round {round_no - 1} only",
                )

    def begin_turn(self, b: Batch, fighter_id: str, dice: Dice) -> None:
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
                + f" ({place}; {fmt(self.meters_left(f))} m and {self.ap_left(f)} AP left this round)",
            )
        )
        self.change(b, f, "turn", "start", rule, f"{fighter_id} acts in pass {turn.pass_no}")
        self.start_turn(b, fighter_id, dice)

    @handles(EndTurn)
    def end_turn_command(self, b: Batch, cmd: EndTurn, dice: Dice) -> None:
        turn = b.state.turn
        active = turn.active
        if cmd.fighter:
            require(
                cmd.fighter == active,
                self.rule("passes"),
                f"it is {active}'s turn (round {turn.round}, pass {turn.pass_no}), not {cmd.fighter}'s",
            )
        self.end_turn(b, active, dice)
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
        if self.acted(b.state, f):
            return
        delayed = DELAYED in f.marks
        left = self.ap_left(f)
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
                + f"costs {loss} AP ({left} → {left - loss} of {self.ap(f)})",
            )
        )

    def close_turn(self, b: Batch, fighter_id: str, trigger: str, rule: str, note: str, dice: Dice) -> None:
        """End the fighter's turn by a TURN trigger (finish, delay, hold) and pass it on."""
        f = b.state.fighter(fighter_id)
        assert f is not None
        if trigger != "delay":
            self.unmark(b, f, DELAYED, self.rule("delay"), f"{fighter_id}'s delayed turn has come and gone")
        self.change(b, f, "turn", trigger, rule, note)
        b.emit(ev.TurnEnded(fighter=fighter_id, rules=(rule,), note=note))
        self.next_turn(b, dice)

    def acted(self, state: EncounterState, f: Fighter) -> bool:
        """Did the fighter take an action (spend AP) in its own turn of this pass?"""
        last = f.marks.get(ACTION) or {}
        t = state.turn
        return (
            bool(last)
            and (not last["held"] or bool(last.get("turn_acted")))  # hold: a hold set off in this turn
            and last["round"] == t.round
            and last["pass"] == t.pass_no
        )

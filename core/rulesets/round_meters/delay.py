"""round-meters delay: a turn moved later in the pass, kept for the combat (delay).

`Delaying`, a part of `RoundMeters`: the delay command, and what the table
view says of a delayed turn. A delayed turn's arrival and its idle AP are the
passes' (passes.py).
"""

from __future__ import annotations

from tabletrail.core.rulesets.round_meters.marks import (
    ACTION,
    DELAY_IDLE_AP,
    DELAYED,
    DELAYED_STATE,
    WAITING,
)
from tabletrail.core.rulesets.round_meters.part import RoundPart
from tabletrail.events.commands.round_meters import Delay
from tabletrail.ruleset_api import TURN, Batch, Dice, Fighter, Refusal, handles, require
from tabletrail.ruleset_api import events as ev


class Delaying(RoundPart):
    """Delaying: behind a combatant who has not acted, or to the end of the pass."""

    @handles(Delay)
    def delay(self, b: Batch, cmd: Delay, dice: Dice) -> None:
        """delay: later in this pass (behind one who has not acted, or at its end), kept for the combat."""
        rule = self.rule("delay")
        state = b.state
        t = state.turn
        # "During your turn, you may Delay"
        f = self.rs.actor(state, cmd.fighter, rule, strict=True)
        # "You cannot Delay into a later pass."
        require(
            cmd.into_pass in (0, t.pass_no),
            rule,
            f"{f.id} cannot Delay into pass {cmd.into_pass}: a Delay stays within the current pass "
            f"{t.pass_no} (behind a combatant who has not acted yet, or to the end of pass {t.pass_no})",
        )
        # "Your turn occurs at that later point": a delay moves the whole turn, before any action.
        if state.settings["delay_before_action"] and self.rs.acted(state, f):
            last = f.marks[ACTION]
            raise Refusal(
                rule,
                f"{f.id} already took an action this turn ({last['kind']}, {last['ap']} AP); a Delay moves "
                "the whole turn, so it comes before any action",
            )
        order = [fid for fid in t.order if fid != f.id]
        # Still to come in this pass: who waits for its turn, and who delayed and has not acted yet.
        to_come = (WAITING, DELAYED_STATE)
        if cmd.after:
            # "Choose a combatant who has not yet acted during the current pass"
            other = self.rs.fighter(state, cmd.after)
            require(other.id != f.id, rule, f"{f.id} cannot Delay behind itself")
            require(
                other.state("turn", TURN.initial) in to_come,
                rule,
                f"{other.id} has already acted or begun its turn in pass {t.pass_no} "
                f"({self.rs.standing(state, other)}): a turn behind {other.id} would fall in pass "
                f"{t.pass_no + 1}, and {f.id} cannot Delay into a later pass",
            )
            order.insert(order.index(other.id) + 1, f.id)
            where = f"behind {other.id}"
        else:
            # "or choose to act at the end of the current pass"
            waiting = [
                o.id for o in state.fighters if o.id != f.id and o.state("turn", TURN.initial) in to_come
            ]
            require(
                bool(waiting),
                rule,
                f"nobody is left to act after {f.id} in pass {t.pass_no}: its turn is already the end of "
                f"the pass, and {f.id} cannot Delay into a later pass",
            )
            order.append(f.id)
            where = f"to the end of pass {t.pass_no}"
        # "your new position becomes your Initiative position for the rest of the combat"
        b.emit(
            ev.OrderChanged(
                order=tuple(order),
                index=t.index,
                rules=(rule,),
                note=f"{f.id} delays {where}: initiative order {' > '.join(order)} (was "
                f"{' > '.join(t.order)}), kept for the rest of the combat",
            )
        )
        b.emit(
            ev.Marked(
                fighter=f.id,
                key=DELAYED,
                value={"after": cmd.after, "round": t.round, "pass": t.pass_no},
                rules=(rule,),
                note=f"{f.id}'s turn of pass {t.pass_no} comes {where}; taking no action then costs "
                f"{DELAY_IDLE_AP} AP",
            )
        )
        self.rs.close_turn(b, f.id, "delay", rule, f"{f.id}'s turn moves {where}", dice)

    def turn_words(self, f: Fighter) -> str:
        """A delayed turn waits behind the combatant it was moved after, or for the pass's end."""
        if f.state("turn", "") != DELAYED_STATE:
            return ""
        after = str((f.marks.get(DELAYED) or {}).get("after", ""))
        return f"delayed behind {after}" if after else "delayed to the end of the pass"

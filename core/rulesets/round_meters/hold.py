"""round-meters hold: a specific action, a specific trigger, its AP paid at once (hold).

The trigger vocabulary (who, what, where) the engine can check, and what an
event tells a trigger (`happenings`, as part.py's `Happened`); `Holding`, a
part of `RoundMeters`: holding,
reading a trigger, firing held actions the moment their trigger happens (a
step, a move, an action, any fact of a batch), or losing them at the holder's
next turn, and what the table view shows of a held action. How a held action
resolves is the ruleset's (`RoundMeters.resolve_held`): as the action itself.
"""

from __future__ import annotations

from typing import Any

from tabletrail.core.rulesets.round_meters.marks import ACTION, HELD, HOLDING, SPRINT_AP
from tabletrail.core.rulesets.round_meters.part import Happened, RoundPart
from tabletrail.events.commands.round_meters import Hold
from tabletrail.ruleset_api import (
    Awaited,
    Batch,
    Dice,
    EncounterState,
    Fighter,
    Refusal,
    handles,
    parse_cell,
    require,
    show,
)
from tabletrail.ruleset_api import events as ev

# The vocabulary of held triggers: what the engine can check (who, what, where).
TRIGGER_USAGE = {
    "enemy-enters": "enemy-enters X,Y [X,Y…]",
    "starts-move": "starts-move FIGHTER",
    "takes-action": "takes-action FIGHTER KIND",
}
TRIGGER_KINDS = tuple(TRIGGER_USAGE)


def quote_hint(kind: str) -> str:
    """An unquoted trigger of several words reaches the hold as its first word (the rest fills `target`)."""
    return f"(a trigger of several words is quoted: hold FIGHTER ACTION '{TRIGGER_USAGE[kind]}')"


def parse_kinds(text: str) -> tuple[str, ...]:
    """The hold_triggers setting: trigger kinds separated by commas, each from TRIGGER_KINDS."""
    kinds = tuple(k.strip() for k in text.split(",") if k.strip())
    for k in kinds:
        if k not in TRIGGER_KINDS:
            raise ValueError(f"{k!r} is not a trigger kind (known: {', '.join(TRIGGER_KINDS)})")
    return kinds


def happenings(e: ev.Event) -> list[Happened]:
    """What an event tells a held trigger: starting a move, entering cells, taking an action."""
    if isinstance(e, ev.Moved):
        return [Happened("starts-move", e.fighter)] + [
            Happened("enters", e.fighter, (s.to[0], s.to[1])) for s in e.steps
        ]
    if isinstance(e, ev.Placed):
        return [Happened("enters", e.fighter, (e.to[0], e.to[1]))]
    if isinstance(e, ev.Marked) and e.key == ACTION and isinstance(e.value, dict):
        return [Happened("takes-action", e.fighter, action=str(e.value.get("kind", "")))]
    return []


class Holding(RoundPart):
    """Held actions: declared with their trigger, fired when it happens, lost at the next turn."""

    @handles(Hold)
    def hold(self, b: Batch, cmd: Hold, dice: Dice) -> None:
        """hold: a specific action and a specific trigger; its AP is paid at once."""
        rule = self.rule("hold")
        state = b.state
        f = self.rs.actor(state, cmd.fighter, rule, strict=True)
        # hold: a held action is paid for and stays held until its trigger or the holder's next turn
        # ("If the trigger occurs before your next turn, resolve the held action immediately"); one
        # mark holds it, so a second hold is refused rather than silently dropping the first.
        pending = f.marks.get(HELD)
        if pending:
            at = f" at {pending['target']}" if pending["target"] else ""
            raise Refusal(
                rule,
                f"{f.id} already holds {pending['action']}{at} ({pending['text']}), its {pending['ap']} AP "
                f"paid, until that trigger happens or {f.id}'s next turn: one held action at a time",
            )
        # "declaring a specific action": any action of the table, or the Sprint (a Minor Action).
        costs = {**self.rs.costs(state), "sprint": SPRINT_AP}
        # "A held action must be specific enough for the GM to determine when it triggers."
        require(
            cmd.action in costs,
            rule,
            f"{cmd.action!r} is not a specific action: hold one of {self.rs.priced(costs)}",
        )
        # hold: what makes a hold specific is its action and its trigger; a target is optional,
        # as in the document's own example, "firing when an enemy enters a doorway".
        target = self.rs.aim(state, cmd.target, rule) if cmd.target.strip() else ""
        trigger = self.trigger(state, f, cmd.trigger)
        cost, left = costs[cmd.action], self.rs.ap_left(f)
        require(
            left >= cost,
            rule,
            f"{f.id} has {left} of {self.rs.ap(f)} AP left this round; holding {cmd.action} pays its "
            f"{cost} AP at once",
        )
        t = state.turn
        text = " ".join(cmd.trigger.split())
        # "When you Hold an Action, immediately spend the AP required for that action."
        b.emit(
            ev.Spent(
                fighter=f.id,
                resource="ap",
                amount=cost,
                rules=(rule,),
                note=f"holds {cmd.action}{' at ' + target if target else ''}: its {cost} AP are paid at once "
                f"({left} → {left - cost} of {self.rs.ap(f)})",
            )
        )
        b.emit(
            ev.Marked(
                fighter=f.id,
                key=HELD,
                value={
                    "action": cmd.action,
                    "target": target,
                    "ap": cost,
                    "trigger": trigger,
                    "text": text,
                    "round": t.round,
                    "pass": t.pass_no,
                },
                rules=(rule,),
                note=f"{f.id} holds {cmd.action}{' at ' + target if target else ''} for: {text}; lost at "
                f"{f.id}'s next turn if it has not happened by then",
            )
        )
        if state.settings["hold_ends_turn"]:
            self.rs.close_turn(b, f.id, "hold", rule, f"{f.id}'s turn ends on a held action", dice)
            return
        # round-budget: "moving before, after, or between actions"; the hold was this turn's action.
        b.emit(
            ev.Marked(
                fighter=f.id,
                key=ACTION,
                value={"kind": "hold", "target": target, "ap": cost, "round": t.round, "pass": t.pass_no,
                       "held": False},
                rules=(rule,),
                note=f"{f.id}'s turn goes on after the hold (hold_ends_turn = false)",
            )
        )  # fmt: skip

    def trigger(self, state: EncounterState, holder: Fighter, text: str) -> dict[str, Any]:
        """Read a trigger from the vocabulary; anything vague or too broad is refused with why."""
        rule = self.rule("hold")
        words = text.split()
        allowed = parse_kinds(str(state.settings["hold_triggers"]))
        kind = words[0] if words else ""
        if kind not in allowed:
            raise Refusal(
                rule,
                f"{text.strip()!r} is too vague for the GM to tell when it triggers: a trigger is one of "
                + ", ".join(TRIGGER_USAGE[k] for k in allowed),
            )
        args = words[1:]
        if kind == "enemy-enters":
            require(
                bool(args),
                rule,
                f"enemy-enters needs the cells it watches, e.g. enemy-enters 4,5 5,5 {quote_hint(kind)}",
            )
            cells: list[list[int]] = []
            for word in args:
                try:
                    cell = parse_cell(word)
                except ValueError as exc:
                    raise Refusal(rule, f"enemy-enters: {exc}") from None
                require(
                    state.grid.inside(cell[0], cell[1]),
                    rule,
                    f"enemy-enters: {show(cell)} is off the {state.grid.width}x{state.grid.height} map",
                )
                if [cell[0], cell[1]] not in cells:
                    cells.append([cell[0], cell[1]])
            most = int(state.settings["hold_max_cells"])
            require(
                len(cells) <= most,
                rule,
                f"enemy-enters watches {len(cells)} cells, more than hold_max_cells = {most}: too broad "
                "to hold; narrow it to a doorway or a corridor",
            )
            return {"kind": kind, "cells": cells}
        expected = 1 if kind == "starts-move" else 2
        require(
            len(args) == expected,
            rule,
            f"{kind} takes "
            + ("FIGHTER" if expected == 1 else "FIGHTER KIND")
            + f", got {' '.join(args)!r}"
            + ("" if args else f" {quote_hint(kind)}"),
        )
        require(
            state.fighter(args[0]) is not None,
            rule,
            f"{kind}: no fighter {args[0]!r} (fighters: {', '.join(f.id for f in state.fighters)})",
        )
        who = args[0]
        require(
            who != holder.id,
            rule,
            f"{kind} {who}: {holder.id} cannot wait for itself; it acts on its own turns",
        )
        if kind == "starts-move":
            return {"kind": kind, "fighter": who}
        kinds = ["sprint", *self.rs.costs(state)]
        require(
            args[1] in kinds,
            rule,
            f"takes-action: {args[1]!r} is not an action kind (kinds: {', '.join(kinds)})",
        )
        return {"kind": kind, "fighter": who, "action": args[1]}

    def triggered(
        self, state: EncounterState, holder: Fighter, trigger: dict[str, Any], what: Happened
    ) -> bool:
        """Does this happening meet the holder's trigger?"""
        if what.fighter == holder.id:
            return False
        kind = trigger["kind"]
        if kind == "enemy-enters":
            mover = state.fighter(what.fighter)
            return (
                what.kind == "enters"
                and mover is not None
                and mover.side != holder.side
                and [what.cell[0], what.cell[1]] in [list(c) for c in trigger["cells"]]  # type: ignore[index]
            )
        if kind == "starts-move":
            return what.kind == "starts-move" and what.fighter == trigger["fighter"]
        return (
            what.kind == "takes-action"
            and what.fighter == trigger["fighter"]
            and what.action == trigger["action"]
        )

    def watching(self, state: EncounterState, what: Happened) -> list[str]:
        """Holders whose trigger this happening meets, in initiative order."""
        out = []
        for fid in state.turn.order:
            f = state.fighter(fid)
            held = f.marks.get(HELD) if f is not None else None
            if f is not None and held and self.triggered(state, f, held["trigger"], what):
                out.append(fid)
        return out

    def fire(self, b: Batch, what: Happened, dice: Dice) -> None:
        """hold: every held action this happening triggers resolves now, interrupting.

        `dice`: the command's, for a held action that rolls as it resolves (a Sprint's test).
        """
        for fid in self.watching(b.state, what):
            f = b.state.fighter(fid)
            assert f is not None
            held = f.marks.get(HELD)
            if not held or not self.triggered(b.state, f, held["trigger"], what):
                continue  # an earlier interrupt in this chain already resolved it
            rule = self.rule("hold")
            b.emit(
                ev.Unmarked(
                    fighter=fid,
                    key=HELD,
                    rules=(rule,),
                    note=f"{what.words()}: the trigger of {fid}'s held {held['action']} ({held['text']}) "
                    f"happened before {fid}'s next turn",
                )
            )
            at = f" at {held['target']}" if held["target"] else ""
            self.rs.resolve_held(
                b,
                dice,
                fid,
                held,
                f"{fid}'s held {held['action']}{at} resolves at once, interrupting "
                f"({held['ap']} AP were paid when it was held)",
            )

    def start_turn(self, b: Batch, fighter_id: str, dice: Dice) -> None:
        """hold: a held action whose trigger did not come before this turn is lost; its AP stays spent."""
        f = b.state.fighter(fighter_id)
        assert f is not None
        held = f.marks.get(HELD)
        if held:
            b.emit(
                ev.Unmarked(
                    fighter=fighter_id,
                    key=HELD,
                    rules=(self.rule("hold"),),
                    note=f"{fighter_id}'s held {held['action']} is lost: its trigger ({held['text']}) did "
                    f"not happen before {fighter_id}'s next turn; the {held['ap']} AP stay spent",
                )
            )

    def settle(self, b: Batch, dice: Dice) -> None:
        """hold: every fact of the batch meets the held triggers, so facts from other commands (a GM
        placing a piece) set held actions off as well."""
        if not any(HELD in f.marks for f in b.state.fighters):
            return
        for e in list(b.events):
            for what in happenings(e):
                self.fire(b, what, dice)

    # --- what the table view shows ------------------------------------------------------------

    def awaited(self, state: EncounterState) -> list[Awaited]:
        """A held action waits for its trigger, which the engine fires (hold)."""
        out = []
        for f in state.fighters:
            held = f.marks.get(HELD)
            if isinstance(held, dict) and held:
                at = f" at {held['target']}" if held.get("target") else ""
                action = held.get("action", "an action")
                prompt = f"{f.name or f.id} holds {action}{at} until: {held.get('text', '')}"
                out.append(Awaited("held", f.id, prompt))
        return out

    def turn_words(self, f: Fighter) -> str:
        """A holder's turn is over, its held action waiting (or spent)."""
        if f.state("turn", "") != HOLDING:
            return ""
        held = f.marks.get(HELD) or {}
        if not held:
            return "held action spent"
        target = f" at {held['target']}" if held.get("target") else ""
        return f"holding {held.get('action', 'an action')}{target}"

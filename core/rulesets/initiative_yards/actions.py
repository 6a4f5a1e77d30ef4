"""initiative-yards combined actions: a non-move action at any point of a move (combined).

`act` takes one of the turn's non-move actions; while engaged it must be a
Strike, a Command or a Manifest (engaged-actions), and a Strike waits for the
table's outcome (`resolve`, in engagement.py). `Actions` is that family as a
part of the ruleset.
"""

from __future__ import annotations

from tabletrail.core.rulesets.initiative_yards.board import ENGAGED_ACTIONS, STRIKING, engaged_with
from tabletrail.core.rulesets.initiative_yards.part import YardsPart
from tabletrail.events.commands.initiative_yards import Act
from tabletrail.ruleset_api import Batch, Dice, fmt, handles, plural, require
from tabletrail.ruleset_api import events as ev


class Actions(YardsPart):
    """The non-move actions of a turn, taken between the pieces of its move."""

    @handles(Act)
    def act(self, b: Batch, cmd: Act, dice: Dice) -> None:
        rule = self.rule("combined")
        f = self.rs.acting(b.state, cmd.fighter)
        action = cmd.action.strip().lower()
        require(action.replace("-", "").isalnum(), rule, f"name the action in one word, not {cmd.action!r}")
        per = b.state.settings["actions_per_turn"]
        taken = f.used("actions")
        require(
            taken < per,
            rule,
            f"{f.id} has taken {taken} of its {plural(per, 'non-move action')} this turn",
        )
        foes = engaged_with(b.state, f.id)
        cited: tuple[str, ...] = (rule,)
        if foes:
            require(
                action in ENGAGED_ACTIONS,
                self.rule("engaged-actions"),
                f"{f.id} is engaged with {', '.join(o.id for o in foes)}: only Strike, Command and "
                f"Manifest are allowed, not {action}",
            )
            cited = (rule, self.rule("engaged-actions"))
        target = self.rs.fighter(b.state, cmd.target) if cmd.target else None
        require(
            not (action == "strike" and target is not None and target.id == f.id),
            rule,
            f"{f.id} can't strike itself: name the foe it strikes (target=...)",
        )
        pending = f.marks.get(STRIKING)
        # engage-break: "they can only break the engagement by resolving a combat": a Strike awaiting
        # its outcome is resolved before the next one (actions_per_turn > 1), never dropped by it.
        require(
            not (action == "strike" and target is not None and pending and pending != target.id),
            self.rule("engage-break"),
            f"{f.id}'s Strike at {pending} awaits its outcome: resolve it first (resolve {f.id} {pending} "
            f"outcome=...), then strike {target.id if target else ''}",
        )
        at = f" at {target.id}" if target else ""
        b.emit(
            ev.Spent(
                fighter=f.id,
                resource="actions",
                amount=1,
                rules=cited,
                note=f"{action}{at} after {fmt(f.used('movement'))} yd of the move action; "
                f"{fmt(self.rs.left(b.state, f))} yd of it may still follow",
            )
        )
        if action == "strike" and target is not None:
            b.emit(
                ev.Marked(
                    fighter=f.id,
                    key=STRIKING,
                    value=target.id,
                    rules=cited,
                    note=f"a Strike at {target.id}: the table enters its outcome with resolve",
                )
            )

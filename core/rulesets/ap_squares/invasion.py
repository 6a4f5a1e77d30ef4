"""ap-squares invasion: entering an occupied square, and the occupant's answer (invade).

A move stops just before the first square another character holds and waits
there for the occupant's `react-invasion`: a parry with a melee weapon, a
body-block, or letting the invader in. `travel` is every move a character
makes on its own (walk, crawl, rotate-about), as invade stops it; `Invasion`
is the family's part: the answer, the wait the table view shows, and the ban
on a second attempt, which lapses with the cycle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from msgspec.structs import replace
from tabletrail.core.rulesets.ap_squares.hooks import ApPart
from tabletrail.core.rulesets.ap_squares.stepping import BLOCKED, Stepping, occupants
from tabletrail.core.rulesets.ap_squares.zero_g_base import annotate, ap
from tabletrail.events.commands.ap_squares import ReactInvasion
from tabletrail.ruleset_api import (
    XY,
    Answer,
    Awaited,
    Batch,
    Dice,
    EncounterState,
    Fighter,
    Refusal,
    Step,
    check,
    forbidden,
    handles,
    plural,
    refuse_step,
    require,
    show,
    walk,
)
from tabletrail.ruleset_api import events as ev

if TYPE_CHECKING:
    from tabletrail.core.rulesets.ap_squares.hooks import ApRuleset

BLOCK_AP = 2  # invade: a body-block parry, in whole AP

# Marked on an invader whose move waits: {"cell": [x, y], "occupant": id, "parity": diagonals so far}
INVADING = "invading"

# The occupant's answers to an invasion, as the table view's buttons say them.
INVASION_ANSWERS = (("parry", "Parry"), ("block", "Body-block"), ("allow", "Let in"))


def pending_invasion(state: EncounterState) -> tuple[Fighter, Any] | None:
    """The invader whose move waits before an occupied square, and its mark, if any."""
    for f in state.fighters:
        if INVADING in f.marks:
            return f, f.marks[INVADING]
    return None


def travel(
    rs: ApRuleset,
    b: Batch,
    fighter_id: str,
    policy: Stepping,
    cells: list[XY],
    dice: Dice,
    rules: tuple[str, ...],
    note: str = "",
) -> None:
    """A character's own move along `cells` (a walk, a crawl, a rotation), paying AP per square;
    it stops before an occupied square for its occupant.

    invade: the move ends just before the first square another character holds;
    the invasion waits there (a Marked fact) until the occupant's `react-invasion`,
    and the rest of the path is dropped (the invader moves on with a new command).
    """
    rule = rs.rule("invade")
    state = b.state
    stop = next((i for i, c in enumerate(cells) if occupants(state, c, fighter_id)), None)
    since = len(b.events)
    budget = rs.ap_left(state, fighter_id)
    what = f"the {policy.mode}"
    if stop is None:
        walk(b, policy, fighter_id, cells, budget=budget, budget_rule=policy.rule, rules=rules,
             resource="ap", what=what, dice=dice)  # fmt: skip
        annotate(b, since, note)
        return
    cell = cells[stop]
    held = [o.id for o in occupants(state, cell, fighter_id)]
    require(
        bool(state.settings["share_square"]),
        rule,
        f"{show(cell)} is held by {', '.join(held)}, and this table lets no two characters share "
        "a square (share_square = false)",
    )
    taken: list[Step] = []
    if stop:
        taken, stopped = walk(b, policy, fighter_id, cells[:stop], budget=budget, budget_rule=policy.rule,
                              rules=rules, resource="ap", what=what, dice=dice)  # fmt: skip
        annotate(b, since, note)
        if stopped:
            return
    f = rs.fighter(b.state, fighter_id)
    # walk checks the squares it enters; this one waits, so it is checked here: a wall or shut
    # door on the way (tabletrail/walls) or a GM ruling keeps the invader out before anyone answers.
    refuse_step(b.state, f.pos, cell, what)
    ruling = forbidden(b.state, *cell, f)
    if ruling:
        raise Refusal(ruling[2], f"the GM ruled {show(cell)} can't be crossed: {ruling[3]}")
    parity = taken[-1].parity if taken else 0  # walk: the diagonals of this move so far (1-2-1)
    step = policy.price(b.state, f, f.pos, cell, parity)
    left = rs.ap_left(b.state, fighter_id)
    require(
        step.cost <= left,
        policy.rule,
        f"{what} into {show(cell)} would cost {ap(step.cost)}, but only {ap(left)} are left",
    )
    dropped = len(cells) - stop - 1
    b.emit(
        ev.Marked(
            fighter=fighter_id,
            key=INVADING,
            value={"cell": [cell[0], cell[1]], "occupant": held[0], "parity": parity},
            rules=(rule, *rules),
            note=f"{fighter_id} tries to enter {show(cell)}, held by {held[0]}: the move waits for "
            f"{held[0]}'s answer (parry, body-block for {BLOCK_AP} AP, or allow); entering will cost "
            f"{ap(step.cost)}"
            + (
                f"; the {plural(dropped, 'square')} after it {'is' if dropped == 1 else 'are'} dropped"
                if dropped
                else ""
            ),
        )
    )


class Invasion(ApPart):
    """invade: the occupant's answer (parry, body-block or let in), and what follows."""

    answers = frozenset({"react-invasion"})

    def new_cycle(self, b: Batch, f: Fighter, round_no: int) -> None:
        """invade: the ban on a second attempt lasts for the cycle only."""
        self.rs.unmark(
            b,
            f,
            BLOCKED,
            self.rule("invade"),
            f"cycle {round_no} starts: {f.id} may try the squares it was blocked from again",
        )

    def awaited(self, state: EncounterState) -> list[Awaited]:
        """An invaded square's occupant answers before the encounter goes on (the table view asks)."""
        out = []
        for f in state.fighters:
            invading = f.marks.get(INVADING)
            occ = state.fighter(str(invading.get("occupant", ""))) if isinstance(invading, dict) else None
            if occ is not None:
                answers = tuple(
                    Answer(label, f"react-invasion {occ.id} {choice}", actor=occ.id)
                    for choice, label in INVASION_ANSWERS
                )
                prompt = f"{f.name or f.id} is entering {occ.name or occ.id}'s square"
                out.append(Awaited("invasion", occ.id, prompt, answers, blocking=True))
        return out

    @handles(ReactInvasion)
    def react_invasion(self, b: Batch, cmd: ReactInvasion, dice: Dice) -> None:
        """invade: the occupant parries with a weapon, body-blocks, or lets the invader in."""
        rule = self.rule("invade")
        waiting = pending_invasion(b.state)
        require(waiting is not None, rule, "no move is waiting to enter an occupied square")
        assert waiting is not None
        invader, mark = waiting
        cell = (mark["cell"][0], mark["cell"][1])
        occ = self.rs.fighter(b.state, mark["occupant"])
        require(
            cmd.fighter == occ.id,
            rule,
            f"{invader.id} is entering {occ.id}'s square {show(cell)}: the answer is {occ.id}'s, "
            f"not {cmd.fighter}'s",
        )
        require(
            cmd.by in (occ.side, "gm"),
            rule,
            f"the answer is {occ.id}'s to choose: give by={occ.side} (its side) or by=gm, not by={cmd.by}",
        )
        enters, outcome = True, f"{invader.id} enters"
        if cmd.choice == "parry":
            target, words, penalised = self.rs.defense(b.state, invader)
            parry = check(
                b,
                dice,
                fighter=occ.id,
                name="parry (invaded)",
                rule=rule,
                target=target,
                modifier=int(self.rs.stat(occ, "parry")),
                beat=True,
                note=f"{occ.id} parries {invader.id}'s body with its melee weapon: the parry must exceed "
                f"{invader.id}'s Defense {words}",
            )
            if penalised:
                b.events[-1] = replace(parry, rules=(rule, self.rule("zero-g-penalties")))
            total = parry.number + parry.modifier
            if parry.passed:
                damage = int(self.rs.stat(occ, "weapon_damage"))
                b.emit(
                    ev.Damaged(
                        fighter=invader.id,
                        amount=damage,
                        cause=f"{occ.id}'s parry",
                        rules=(rule,),
                        note=f"parry {total} > Defense {target}: {damage} weapon damage; "
                        f"the parry does not keep {invader.id} out",
                    )
                )
                outcome = f"parry {total} > Defense {target}, {damage} damage; {invader.id} still enters"
            else:
                outcome = f"parry {total} does not exceed Defense {target}; {invader.id} enters"
        elif cmd.choice == "block":
            self.rs.pay(b, occ.id, BLOCK_AP, rule, f"{occ.id}'s body-block parry")
            mine = check(
                b,
                dice,
                fighter=occ.id,
                name="strength (body-block)",
                rule=rule,
                modifier=int(self.rs.stat(occ, "strength")),
                note=f"{occ.id} body-blocks: opposed Strength rolls",
            )
            held = mine.number + mine.modifier
            theirs = check(
                b,
                dice,
                fighter=invader.id,
                name="strength (squeeze in)",
                rule=rule,
                target=held,
                modifier=int(self.rs.stat(invader, "strength")),
                beat=True,
                note=f"{invader.id} squeezes in only by rolling higher than {occ.id}'s {held}",
            )
            pushed = theirs.number + theirs.modifier
            enters = bool(theirs.passed)
            outcome = (
                f"Strength {pushed} > {held}: {invader.id} squeezes in"
                if enters
                else f"Strength {pushed} is not higher than {held}: {invader.id} is kept out"
            )
        b.emit(
            ev.Unmarked(
                fighter=invader.id,
                key=INVADING,
                rules=(rule,),
                note=f"{occ.id} chose to {cmd.choice} (by={cmd.by}): {outcome}",
            )
        )
        invader = self.rs.fighter(b.state, invader.id)
        policy = self.rs.walker(b.state, invader)
        assert policy is not None, "an invader waiting before a square can still move"
        # The waiting step is the move's next one: it is priced with the diagonals taken before it.
        parity = int(mark.get("parity", 0))
        if enters:
            policy.resume = parity
            walk(b, policy, invader.id, [cell], budget=self.rs.ap_left(b.state, invader.id),
                 budget_rule=policy.rule, rules=(policy.rule, rule), resource="ap",
                 what=f"the {policy.mode}", dice=dice)  # fmt: skip
            self.rs.let_in(b, invader, cell)
            return
        self.shut_out(b, invader, cell, policy.price(b.state, invader, invader.pos, cell, parity).cost,
                      policy.mode)  # fmt: skip

    def shut_out(self, b: Batch, invader: Fighter, cell: XY, wasted: int, mode: str) -> None:
        """invade: "the invading character simply wastes the movement AP" and "may not make another
        attempt to invade the same space during the same cycle"."""
        rule = self.rule("invade")
        b.emit(
            ev.Spent(
                fighter=invader.id,
                resource="ap",
                amount=wasted,
                rules=(rule,),
                note=f"body-blocked: the {ap(wasted)} of the {mode} into {show(cell)} are wasted",
            )
        )
        blocked = [list(c) for c in invader.marks.get(BLOCKED, ())] + [[cell[0], cell[1]]]
        b.emit(
            ev.Marked(
                fighter=invader.id,
                key=BLOCKED,
                value=blocked,
                rules=(rule,),
                note=f"{invader.id} may not try to enter {show(cell)} again this cycle "
                f"(cycle {b.state.turn.round})",
            )
        )
        self.rs.kept_out(b, invader, cell)  # every family hears of it (ApSquares.kept_out)

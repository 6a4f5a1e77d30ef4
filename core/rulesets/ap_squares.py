"""ap-squares: the movement chapter of document 002_0a50226be3a32e43.txt.

Rule ids are the catalogue's `ap-squares/<rule>`; each is cited next to the code
that enforces it.

Action points. A character has `ap` action points per cycle (a stat; the
`ap_per_cycle` setting when a fighter gives none). One cycle is one round of the
turn order. AP come back when a new cycle starts (setting `ap_refresh`), not when
the character's own turn starts, because the document lets a character spend AP
during other characters' turns (a body-block, a reflexive leap, a grab as gravity
fails) and those must count against the same cycle. Inside the engine AP are kept
in hundredths like every length (`Spent(resource="ap", amount=200)` is 2 AP), so
the shared `walk` prices steps in AP; every note and refusal prints whole AP.

Reactions. Whoever is invaded, or caught by an area effect, answers with their own
command (`react-invasion`, `reflexive-leap`) given by their side or the GM, so the
log shows who chose what; until they answer, the encounter waits for them.

Where the document is silent (each a setting when the catalogue names a default):
- invade: a move stops just before the first occupied square and waits there; the
  rest of its path is dropped, and the invader moves on with a new command. When two
  already share the square, the first of them in the scenario answers. Loose objects
  (fighters tagged `object`) never parry: they fill their square, and nobody walks in.
- reflexive-leap: both the dive and the Dexterity roll are "the leap" and cost
  `leap_ap`; a leap's length is counted in squares (a diagonal square is 1 m); a dive
  lands on an open square where gravity holds, never in someone's square; a failed
  dive stays put and takes the full damage; the GM announces the effect
  (`area-effect`) and lands it on whoever has not reacted (`area-hit`).
- rotate-about: of equally good squares the next is the one that turns least about
  the pivot, then the nearer one (see `rotate_path`).
- Dropping prone and standing up cost no AP. Defense is the `defense` stat plus the
  `dexterity` modifier; zero-gravity rulings are listed in core/zero_g.py.
"""

from __future__ import annotations

from functools import cmp_to_key
from typing import Any

from msgspec.structs import replace
from tabletrail.core.batch import Batch
from tabletrail.core.cell_rulings import forbidden
from tabletrail.core.dice import Dice, check
from tabletrail.core.geometry import EUCLIDEAN, EVERY_1, NEIGHBOURS, XY, Pos, distance, expand, line, show
from tabletrail.core.movement import flat_step, walk
from tabletrail.core.refusal import Refusal, require
from tabletrail.core.ruleset import ENGINE_TURN, Rule, Setting, Stat, handles
from tabletrail.core.state import EncounterState, Fighter
from tabletrail.core.units import CU, fmt
from tabletrail.core.zero_g import (
    BRAKE_AP,
    CRAWLING,
    GRAB_AP,
    GROUNDED,
    PUSHING_OFF,
    TRAJECTORY,
    TURN_DRIFT_AP,
    ZeroGravity,
    annotate,
    ap,
    cell_list,
    gravity,
    is_object,
    stable_around,
    trajectory,
    weightless,
)
from tabletrail.events import types as ev
from tabletrail.events.commands import Command, Move
from tabletrail.events.commands.ap_squares import (
    AreaEffect,
    AreaHit,
    ReactInvasion,
    ReflexiveLeap,
    RotateAbout,
)
from tabletrail.events.types import Step

# The document's numbers, in whole AP (or as stated).
WALK_AP = 1  # walk: a square walked
CRAWL_AP = 2  # crawl and zero-g-crawl: a square crawled
BLOCK_AP = 2  # invade: a body-block parry
LEAP_MIN_AP = 2  # reflexive-leap: "must have at least two (2) AP remaining", whatever the leap costs
LEAP_EXTRA_AP = 2  # reflexive-leap: each meter beyond the first
LEAP_DIFFICULTY = 18  # reflexive-leap: the Celerity roll to dive out
LEAP_EXTRA_DIFFICULTY = 3  # reflexive-leap: each meter beyond the first
HALVE_DIFFICULTY = 13  # reflexive-leap: the Dexterity roll to halve the damage

# Marked on an invader whose move waits: {"cell": [x, y], "occupant": id, "parity": diagonals so far}
INVADING = "invading"
BLOCKED = "blocked"  # Marked on an invader: squares it was blocked from this cycle, [[x, y], ...]
AREA = "area-effect"  # BoardMarked: {"cells", "damage", "unaware", "caught"} until it lands


class ApSquares(ZeroGravity):
    id = "ap-squares"
    title = "Action points per cycle, 1 m squares"
    document = "002_0a50226be3a32e43.txt"
    unit = "m"
    rules = (
        Rule("walk", "walking costs 1 AP a square", "AP per cycle is a character stat"),
        Rule("crawl", "crawling (prone) costs 2 AP a square, from the same AP per cycle as walking"),
        Rule(
            "invade",
            "entering an occupied square lets the occupant parry: with a melee weapon (parry roll above "
            "the invader's defense deals weapon damage; the invader still enters) or by body-block (2 AP, "
            "opposed Strength rolls, the invader enters only by rolling higher, else the movement AP is "
            "wasted); a blocked invader may not try the same square again this cycle",
            "two characters may then share the square",
        ),
        Rule(
            "reflexive-leap",
            "against an area effect the character knows of, with at least 2 AP and able to move freely: "
            "dive to an adjacent square outside it on a Celerity roll of 18 (no damage); +3 difficulty and "
            "+2 AP per extra meter; with no way out, a Dexterity roll of 13 halves the damage",
            "the leap costs 2 AP",
        ),
        Rule(
            "rotate-about",
            "circle a pivot square at the starting distance, clockwise or counter-clockwise, never turning "
            "back; each square entered costs movement as usual",
            "path squares are those whose distance best matches the radius",
        ),
        Rule(
            "zero-g-drift",
            "with no wall adjacent, keep momentum; with none, drift 1 square per turn along the trajectory "
            "drawn when gravity was lost; 6 AP turns the trajectory but never speeds it up; loose objects "
            "drift too",
            "the trajectory is one of 8 directions, a check",
        ),
        Rule(
            "push-off",
            "next to a stable solid object: 6 AP, a direction perpendicular or diagonal to its surface, a "
            "speed up to 3 + Strength bonus m per cycle; 4 AP breaks 1 m of speed; direction can't change "
            "until back to drift speed",
        ),
        Rule("zero-g-crawl", "along stable solid objects, any direction, 2 AP a square while adjacent"),
        Rule(
            "zero-g-grab",
            "when gravity disappears, 4 AP grabs an adjacent stable object at once; otherwise the "
            "character starts drifting",
        ),
        Rule(
            "zero-g-penalties",
            "everyone -1 Defense; drifting or pushing off: no Dexterity to Defense, -2 ranged and -3 melee "
            "attacks; crawling: -1 ranged, -2 melee; until gravity returns",
            "the engine reports these modifiers; it does not resolve attacks",
        ),
    )
    settings = (
        Setting(
            "ap_per_cycle",
            10,
            "AP a character has each cycle when its own `ap` stat is not given (house default: the "
            "catalogue makes AP per cycle a character stat)",
            (),
            "ap-squares/walk",
        ),
        Setting(
            "ap_refresh",
            "cycle",
            "when spent AP come back: 'cycle' (as each new cycle starts, so AP spent reacting in other "
            "turns count) or 'turn' (as the character's own turn starts)",
            ("cycle", "turn"),
            "ap-squares/walk",
        ),
        Setting(
            "diagonal",
            EVERY_1,
            "AP cost of a diagonal step: every-1 (a square is a square: 1 AP walking, 2 crawling), "
            "alternating, euclidean, manhattan",
            ("every-1", "alternating", "euclidean", "manhattan"),
            "ap-squares/walk",
        ),
        Setting(
            "rotate_distance",
            EUCLIDEAN,
            "the distance rule rotate-about measures the radius and the best-matching path squares by: "
            "euclidean (between square centres), every-1, alternating, manhattan",
            ("every-1", "alternating", "euclidean", "manhattan"),
            "ap-squares/rotate-about",
        ),
        Setting(
            "share_square",
            True,
            "after an invasion the invader and the occupant share the square; false: occupied squares "
            "can't be entered at all",
            (),
            "ap-squares/invade",
        ),
        Setting(
            "leap_ap",
            2,
            "AP a reflexive leap (dive or brace) costs, before 2 AP for each extra meter",
            (),
            "ap-squares/reflexive-leap",
        ),
        Setting(
            "halve_rounding",
            "down",
            "how halved damage rounds after a successful Dexterity roll: down or up (house default)",
            ("down", "up"),
            "ap-squares/reflexive-leap",
        ),
        Setting(
            "drift_directions",
            8,
            "directions a trajectory is drawn from when gravity fails: 8 (1d8: N, NE, E, SE, S, SW, W, NW) "
            "or 4 (1d4: N, E, S, W)",
            (8, 4),
            "ap-squares/zero-g-drift",
        ),
        Setting(
            "zero_g_penalties",
            "report",
            "report: `modifiers` lists the zero-gravity penalties and a parry meets the lowered Defense; "
            "off: the table plays without them",
            ("report", "off"),
            "ap-squares/zero-g-penalties",
        ),
        Setting("check_formula", "1d20", "dice the seeded source rolls for a check (house default)"),
    )
    stats = (
        Stat("ap", "action points per cycle; the ap_per_cycle setting when 0 or not given", default=0),
        Stat("defense", "Defense before the Dexterity modifier", default=10),
        Stat(
            "dexterity",
            "Dexterity attribute modifier: added to Defense and to Dexterity rolls",
            default=0,
            signed=True,
        ),
        Stat(
            "strength",
            "Strength attribute modifier, added to Strength rolls (body-block)",
            default=0,
            signed=True,
        ),
        Stat("strength_bonus", "Strength attribute bonus: extra m per cycle a push-off may reach", default=0),
        Stat(
            "celerity",
            "Celerity attribute modifier, added to the reflexive-leap dive roll",
            default=0,
            signed=True,
        ),
        Stat(
            "parry",
            "modifier of a parry roll with the melee weapon wielded (unarmed counts)",
            default=0,
            signed=True,
        ),
        Stat("weapon_damage", "damage of that melee weapon", default=1),
    )
    posture_rules = ("ap-squares/crawl", "ap-squares/crawl")
    # Budgets kept in hundredths like lengths (200 = 2 AP), for views that print `spent`.
    centi_resources = ("movement", "maneuver", "ap", "momentum")

    # --- setup -----------------------------------------------------------------

    def begin(self, b: Batch, dice: Dice) -> None:
        super().begin(b, dice)
        self.skip_objects(b, dice)

    def advance(self, b: Batch, dice: Dice) -> None:
        super().advance(b, dice)
        self.skip_objects(b, dice)

    def skip_objects(self, b: Batch, dice: Dice) -> None:
        """zero-g-drift: a loose object's turn is only its drift (done as the turn starts): end it at once."""
        for _ in range(len(b.state.turn.order)):
            body = self.fighter(b.state, b.state.turn.active)
            if not is_object(body):
                return
            self.change(b, body, "turn", "finish", ENGINE_TURN, "a loose object takes no action")
            b.emit(ev.TurnEnded(fighter=body.id, rules=(ENGINE_TURN, self.rule("zero-g-drift"))))
            super().advance(b, dice)

    # --- action points -------------------------------------------------------

    def ap_max(self, state: EncounterState, f: Fighter) -> int:
        """AP per cycle, in hundredths."""
        return int(self.stat(f, "ap") or state.settings["ap_per_cycle"]) * CU

    def ap_left(self, state: EncounterState, fighter_id: str) -> int:
        f = self.fighter(state, fighter_id)
        return self.ap_max(state, f) - f.used("ap")

    def pay(self, b: Batch, fighter_id: str, amount: int, rule: str, what: str) -> None:
        """Spend whole AP on `what`, or refuse with what it costs and what is left."""
        cost = amount * CU
        left = self.ap_left(b.state, fighter_id)
        require(
            cost <= left,
            rule,
            f"{what} costs {ap(cost)}; {fighter_id} has {ap(left)} left this cycle",
        )
        b.emit(
            ev.Spent(
                fighter=fighter_id,
                resource="ap",
                amount=cost,
                rules=(rule,),
                note=f"{what}: {ap(cost)} ({ap(left - cost)} left this cycle)",
            )
        )

    def start_round(self, b: Batch, round_no: int, dice: Dice) -> None:
        """A new cycle: AP (refreshed by cycle) and momentum come back, and blocks lapse."""
        by_cycle = b.state.settings["ap_refresh"] == "cycle"
        for f in b.state.fighters:
            fresh = tuple(r for r in ("ap", "momentum") if r in f.spent and (r != "ap" or by_cycle))
            if fresh:
                # walk: AP are per cycle; zero-g-drift: so is the momentum a drift uses up.
                why = {
                    "ap": (self.rule("walk"), f"{f.id} has {ap(self.ap_max(b.state, f))} again"),
                    "momentum": (self.rule("zero-g-drift"), "the meters drifted are counted afresh"),
                }
                b.emit(
                    ev.Refreshed(
                        fighter=f.id,
                        resources=fresh,
                        rules=tuple(why[r][0] for r in fresh),
                        note=f"cycle {round_no} starts: " + "; ".join(why[r][1] for r in fresh),
                    )
                )
            if BLOCKED in f.marks:
                # invade: the ban on a second attempt lasts for the cycle only.
                b.emit(
                    ev.Unmarked(
                        fighter=f.id,
                        key=BLOCKED,
                        rules=(self.rule("invade"),),
                        note=f"cycle {round_no} starts: {f.id} may try the squares it was blocked from again",
                    )
                )

    def start_turn(self, b: Batch, fighter_id: str, dice: Dice) -> None:
        f = self.fighter(b.state, fighter_id)
        if b.state.settings["ap_refresh"] == "turn" and "ap" in f.spent:
            b.emit(
                ev.Refreshed(
                    fighter=fighter_id,
                    resources=("ap",),
                    rules=(self.rule("walk"),),
                    note=f"{fighter_id}'s turn starts: {ap(self.ap_max(b.state, f))} again "
                    "(ap_refresh = turn)",
                )
            )
        # zero-g-drift / push-off: at the start of its turn a body drifts or keeps its momentum.
        self.drift(b, fighter_id, dice)

    # --- waiting for an answer ---------------------------------------------------

    def decide(self, state: EncounterState, command: Command, dice: Dice) -> list[ev.Event]:
        """While an invasion or an area effect waits for answers, only those answers are taken."""
        waiting = self.pending_invasion(state)
        if waiting is not None and not isinstance(command, ReactInvasion):
            invader, mark = waiting
            raise Refusal(
                self.rule("invade"),
                f"{invader.id}'s move waits to enter {show(mark['cell'])}: {mark['occupant']} must answer "
                f"first (react-invasion {mark['occupant']} parry|block|allow)",
            )
        area = state.marks.get(AREA)
        if area is not None and not isinstance(command, ReflexiveLeap | AreaHit):
            raise Refusal(
                self.rule("reflexive-leap"),
                f"an area effect over {len(area['cells'])} square(s) is about to land: "
                f"{', '.join(area['caught']) or 'nobody'} may reflexive-leap first, "
                "then the GM's area-hit lands it",
            )
        return super().decide(state, command, dice)

    def pending_invasion(self, state: EncounterState) -> tuple[Fighter, Any] | None:
        for f in state.fighters:
            if INVADING in f.marks:
                return f, f.marks[INVADING]
        return None

    # --- walking and crawling ----------------------------------------------------

    def walker(self, state: EncounterState, f: Fighter) -> Stepping | None:
        """walk, crawl (prone) or zero-g-crawl, by the fighter's posture and gravity; None when carried."""
        if is_object(f):
            return None
        g = gravity(f)
        if g == CRAWLING:
            return Stepping(self, "zero-g crawl", self.rule("zero-g-crawl"), CRAWL_AP)
        if g != GROUNDED:
            return None
        if f.state("posture", "standing") == "prone":
            return Stepping(self, "crawl", self.rule("crawl"), CRAWL_AP)
        return Stepping(self, "walk", self.rule("walk"), WALK_AP)

    def move_budget(self, state: EncounterState, f: Fighter) -> int:
        return max(self.ap_left(state, f.id), 0)

    def mover(self, state: EncounterState, f: Fighter) -> Stepping:
        """The fighter's way of moving on its own, or a refusal saying why it has none."""
        require(not is_object(f), self.rule("zero-g-drift"), f"{f.id} is a loose object: it does not act")
        policy = self.walker(state, f)
        if policy is None:
            direction, speed = trajectory(f.marks.get(TRAJECTORY))
            if gravity(f) == PUSHING_OFF:
                raise Refusal(
                    self.rule("push-off"),
                    f"{f.id} is carried {direction} at {speed} m per cycle by a push-off: it can't walk or "
                    f"crawl; brake ({BRAKE_AP} AP a meter) or ride it out",
                )
            raise Refusal(
                self.rule("zero-g-drift"),
                f"{f.id} drifts {direction} at {speed} m per cycle in zero gravity: it can't walk or crawl; "
                f"turn-drift ({TURN_DRIFT_AP} AP), or next to a stable object grab-hold ({GRAB_AP} AP), "
                "let-go or push-off",
            )
        return policy

    @handles(Move)
    def move(self, b: Batch, cmd: Move, dice: Dice) -> None:
        f = self.acting(b.state, cmd.fighter)
        policy = self.mover(b.state, f)
        waypoints: list[XY] = []
        for wp in cmd.path:
            require(
                b.state.grid.inside(wp[0], wp[1]),
                policy.rule,
                f"{show(wp)} is off the {b.state.grid.width}x{b.state.grid.height} map",
            )
            waypoints.append((wp[0], wp[1]))
        cells = expand((f.pos[0], f.pos[1]), waypoints)
        require(bool(cells), policy.rule, f"{f.id} is already at {show(f.pos)}")
        self.travel(b, f.id, policy, cells, dice, (policy.rule,))

    def occupants(self, state: EncounterState, cell: XY, fighter_id: str) -> list[Fighter]:
        """The characters (not loose objects) in a square, other than `fighter_id`."""
        return [o for o in state.at(cell[0], cell[1]) if o.id != fighter_id and not is_object(o)]

    def travel(
        self,
        b: Batch,
        fighter_id: str,
        policy: Stepping,
        cells: list[XY],
        dice: Dice,
        rules: tuple[str, ...],
        note: str = "",
    ) -> None:
        """Move along `cells`, paying AP per square; stop before an occupied square for its occupant.

        invade: the move ends just before the first square another character holds;
        the invasion waits there (a Marked fact) until the occupant's `react-invasion`,
        and the rest of the path is dropped (the invader moves on with a new command).
        """
        rule = self.rule("invade")
        state = b.state
        stop = next((i for i, c in enumerate(cells) if self.occupants(state, c, fighter_id)), None)
        since = len(b.events)
        budget = self.ap_left(state, fighter_id)
        what = f"the {policy.mode}"
        if stop is None:
            walk(b, policy, fighter_id, cells, budget=budget, budget_rule=policy.rule, rules=rules,
                 resource="ap", what=what, dice=dice)  # fmt: skip
            annotate(b, since, note)
            return
        cell = cells[stop]
        held = [o.id for o in self.occupants(state, cell, fighter_id)]
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
        ruling = forbidden(b.state, *cell)  # walk checks the squares it enters; this one waits
        if ruling:
            raise Refusal(ruling[2], f"the GM ruled {show(cell)} can't be crossed: {ruling[3]}")
        f = self.fighter(b.state, fighter_id)
        parity = taken[-1].parity if taken else 0  # walk: the diagonals of this move so far (1-2-1)
        step = policy.price(b.state, f, f.pos, cell, parity)
        left = self.ap_left(b.state, fighter_id)
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
                f"{ap(step.cost)}" + (f"; the {dropped} square(s) after it are dropped" if dropped else ""),
            )
        )

    @handles(ReactInvasion)
    def react_invasion(self, b: Batch, cmd: ReactInvasion, dice: Dice) -> None:
        """invade: the occupant parries with a weapon, body-blocks, or lets the invader in."""
        rule = self.rule("invade")
        waiting = self.pending_invasion(b.state)
        require(waiting is not None, rule, "no move is waiting to enter an occupied square")
        assert waiting is not None
        invader, mark = waiting
        cell = (mark["cell"][0], mark["cell"][1])
        occ = self.fighter(b.state, mark["occupant"])
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
            target, words, penalised = self.defense(b.state, invader)
            parry = check(
                b,
                dice,
                fighter=occ.id,
                name="parry (invaded)",
                rule=rule,
                target=target,
                modifier=int(self.stat(occ, "parry")),
                beat=True,
                note=f"{occ.id} parries {invader.id}'s body with its melee weapon: the parry must exceed "
                f"{invader.id}'s Defense {words}",
            )
            if penalised:
                b.events[-1] = replace(parry, rules=(rule, self.rule("zero-g-penalties")))
            total = parry.number + parry.modifier
            if parry.passed:
                damage = int(self.stat(occ, "weapon_damage"))
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
            self.pay(b, occ.id, BLOCK_AP, rule, f"{occ.id}'s body-block parry")
            mine = check(
                b,
                dice,
                fighter=occ.id,
                name="strength (body-block)",
                rule=rule,
                modifier=int(self.stat(occ, "strength")),
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
                modifier=int(self.stat(invader, "strength")),
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
        invader = self.fighter(b.state, invader.id)
        policy = self.walker(b.state, invader)
        assert policy is not None, "an invader waiting before a square can still move"
        # The waiting step is the move's next one: it is priced with the diagonals taken before it.
        parity = int(mark.get("parity", 0))
        if enters:
            policy.resume = parity
            walk(b, policy, invader.id, [cell], budget=self.ap_left(b.state, invader.id),
                 budget_rule=policy.rule, rules=(policy.rule, rule), resource="ap",
                 what=f"the {policy.mode}", dice=dice)  # fmt: skip
            return
        wasted = policy.price(b.state, invader, invader.pos, cell, parity).cost
        b.emit(
            ev.Spent(
                fighter=invader.id,
                resource="ap",
                amount=wasted,
                rules=(rule,),
                note=f"body-blocked: the {ap(wasted)} of the {policy.mode} into {show(cell)} are wasted",
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

    def after_posture(self, b: Batch, f: Fighter, trigger: str) -> None:
        """Prone and standing mean nothing without gravity; with it, dropping or rising costs no AP."""
        require(
            gravity(f) == GROUNDED,
            self.rule("zero-g-crawl"),
            f"{f.id} is {gravity(f).replace('_', ' ')} in zero gravity: there is no lying down or "
            "standing up",
        )

    # --- rotating about --------------------------------------------------------------

    @handles(RotateAbout)
    def rotate_about(self, b: Batch, cmd: RotateAbout, dice: Dice) -> None:
        rule = self.rule("rotate-about")
        f = self.acting(b.state, cmd.fighter)
        policy = self.mover(b.state, f)
        grid = b.state.grid
        pivot = (cmd.pivot[0], cmd.pivot[1])
        require(
            grid.inside(*pivot), rule, f"the pivot {show(pivot)} is off the {grid.width}x{grid.height} map"
        )
        require(cmd.squares >= 1, rule, f"squares must be at least 1, got {cmd.squares}")
        least, left = cmd.squares * policy.per_square * CU, self.ap_left(b.state, f.id)
        require(
            least <= left,
            policy.rule,
            f"{cmd.squares} square(s) of {policy.mode} cost at least {ap(least)}; {f.id} has {ap(left)} left",
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
        turn = "clockwise" if cmd.direction == "cw" else "counter-clockwise"
        self.travel(
            b,
            f.id,
            policy,
            cells,
            dice,
            (policy.rule, rule),
            note=f"rotating {turn} about {show(pivot)} at {fmt(radius)} m ({measure})",
        )

    # --- area effects and the reflexive leap -------------------------------------------

    @handles(AreaEffect)
    def area_effect(self, b: Batch, cmd: AreaEffect, dice: Dice) -> None:
        rule = self.rule("reflexive-leap")
        self.gm_only(cmd, rule, "an area effect")
        grid = b.state.grid
        require(bool(cmd.cells), rule, "an area effect needs at least one square")
        for c in cmd.cells:
            require(grid.inside(c[0], c[1]), rule, f"{show(c)} is off the {grid.width}x{grid.height} map")
        require(cmd.damage >= 0, rule, f"damage must not be negative, got {cmd.damage}")
        for fid in cmd.unaware:
            self.fighter(b.state, fid)
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
                note=f"an area effect of {cmd.damage} damage over {len(cells)} square(s) catches "
                f"{', '.join(caught) or 'nobody'}; those aware with {LEAP_MIN_AP}+ AP may leap",
            )
        )

    @handles(ReflexiveLeap)
    def reflexive_leap(self, b: Batch, cmd: ReflexiveLeap, dice: Dice) -> None:
        rule = self.rule("reflexive-leap")
        area = b.state.marks.get(AREA)
        require(area is not None, rule, "no area effect is coming: there is nothing to leap from")
        f = self.fighter(b.state, cmd.fighter)
        require(f.id in area["caught"], rule, f"{f.id} at {show(f.pos)} is not caught in the area effect")
        require(cmd.by in (f.side, "gm"), rule, f"the leap is {f.id}'s to choose: by={f.side} or by=gm")
        require(f.id not in area["unaware"], rule, f"{f.id} does not know the area effect is coming")
        hindered = self.hindered(f)
        require(not hindered, rule, f"{f.id} can't move without penalty: {hindered}")
        base = int(b.state.settings["leap_ap"])
        left = self.ap_left(b.state, f.id)
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
                f"{extra} extra meter(s)); {f.id} has {ap(left)} left",
            )
            self.pay(b, f.id, cost, rule, f"a {extra + 1} m reflexive leap")
            difficulty = LEAP_DIFFICULTY + LEAP_EXTRA_DIFFICULTY * extra
            roll = check(
                b,
                dice,
                fighter=f.id,
                name="celerity (reflexive leap)",
                rule=rule,
                target=difficulty,
                modifier=int(self.stat(f, "celerity")),
                note=f"dive {extra + 1} m to {show(dest)}: Celerity difficulty {LEAP_DIFFICULTY}"
                + (f" + {LEAP_EXTRA_DIFFICULTY} x {extra} extra meter(s) = {difficulty}" if extra else ""),
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
            way_out = self.way_out(b.state, f, cells)
            require(
                way_out is None,
                rule,
                f"{f.id} could dive to {show(way_out or here)}, outside the area: the Dexterity roll is "
                "for those with no way to leap out (give the square to dive to)",
            )
            self.pay(b, f.id, base, rule, "a reflexive leap with no way out")
            roll = check(
                b,
                dice,
                fighter=f.id,
                name="dexterity (reflexive leap)",
                rule=rule,
                target=HALVE_DIFFICULTY,
                modifier=int(self.stat(f, "dexterity")),
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

    def way_out(self, state: EncounterState, f: Fighter, area: set[XY]) -> XY | None:
        """The first adjacent square outside the area that a dive may land on, if any."""
        for dx, dy in NEIGHBOURS:
            cell = (f.pos[0] + dx, f.pos[1] + dy)
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
        ruling = forbidden(state, *dest)
        if ruling:
            return f"the GM ruled {show(dest)} can't be crossed: {ruling[3]}"
        for cell in line(here, dest)[:-1]:
            if grid.blocked(*cell) or grid.has(*cell, "solid"):
                what = grid.kind(*cell).terrain
                return f"the leap to {show(dest)} would pass through the {what} at {show(cell)}"
        return ""

    def dive_target(self, state: EncounterState, f: Fighter, dest: XY, area: set[XY]) -> int:
        """Check a dive's landing square; returns the meters beyond the first."""
        problem = self.landing_problem(state, f, dest, area)
        require(not problem, self.rule("reflexive-leap"), problem)
        return max(abs(dest[0] - f.pos[0]), abs(dest[1] - f.pos[1])) - 1

    @handles(AreaHit)
    def area_hit(self, b: Batch, cmd: AreaHit, dice: Dice) -> None:
        rule = self.rule("reflexive-leap")
        self.gm_only(cmd, rule, "landing an area effect")
        area = b.state.marks.get(AREA)
        require(area is not None, rule, "no area effect is waiting to land")
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


# --- step policies -------------------------------------------------------------------------------


class Stepping:
    """How a character's own steps are priced: walk (1 AP), crawl or zero-g crawl (2 AP) a square."""

    def __init__(self, rs: ApSquares, mode: str, rule: str, per_square: int) -> None:
        self.rs = rs
        self.mode = mode
        self.rule = rule
        self.per_square = per_square
        self.unit = "AP"
        self.resume = 0  # diagonals already taken by the move this walk resumes (an invasion's wait)

    def price(self, state: EncounterState, f: Fighter, frm: Pos, to: XY, parity: int) -> Step:
        grid, rs = state.grid, self.rs
        if self.resume:  # the first step only: walk carries the parity on from there
            parity, self.resume = parity + self.resume, 0
        x, y = to
        require(grid.inside(x, y), self.rule, f"{show(to)} is off the {grid.width}x{grid.height} map")
        require(
            not grid.blocked(x, y) and not grid.has(x, y, "solid"),
            self.rule,
            f"{show(to)} is {grid.kind(x, y).terrain}: walls and solid objects can't be entered",
        )
        loose = [o.id for o in state.at(x, y) if o.id != f.id and is_object(o)]
        require(not loose, self.rule, f"the loose object {', '.join(loose)} fills {show(to)}")
        afloat = to in weightless(state)
        if self.mode == "zero-g crawl":
            # zero-g-crawl: any direction, as long as the square touches a stable solid object.
            require(
                not afloat or bool(stable_around(grid, to)),
                self.rule,
                f"{show(to)} touches no stable solid object: a zero-gravity crawl keeps next to one",
            )
        else:
            require(
                not afloat,
                rs.rule("zero-g-crawl"),
                f"{show(to)} is weightless: nobody walks or crawls on the floor there; in zero gravity one "
                "crawls along stable objects, drifts or pushes off",
            )
        # invade: a blocked invader may not try the same square again this cycle.
        blocked = {(c[0], c[1]) for c in f.marks.get(BLOCKED, ())}
        if to in blocked and rs.occupants(state, to, f.id):
            raise Refusal(
                rs.rule("invade"),
                f"{f.id} was body-blocked out of {show(to)} earlier this cycle (cycle {state.turn.round}): "
                "no second attempt until the next cycle",
            )
        return flat_step(
            grid,
            frm,
            to,
            parity,
            diagonal=state.settings["diagonal"],
            terrain_factor=self.per_square,
            mode=self.mode,
        )

    def eventful(self, state: EncounterState, f: Fighter, step: Step) -> bool:
        """An occupied square (an invasion), or a zero-g crawl reaching a square with gravity."""
        cell = (step.to[0], step.to[1])
        if self.rs.occupants(state, cell, f.id):
            return True
        return self.mode == "zero-g crawl" and cell not in weightless(state)

    def on_step(self, b: Batch, fighter_id: str, step: Step) -> str:
        cell = (step.to[0], step.to[1])
        f = b.state.fighter(fighter_id)
        assert f is not None
        if self.mode == "zero-g crawl" and cell not in weightless(b.state) and gravity(f) != GROUNDED:
            self.rs.regain_gravity(b, fighter_id, self.rule, f"{fighter_id} crawls out onto {show(cell)}")
            return f"back under gravity at {show(cell)}: the crawl ends"
        return ""

    def can_end(self, state: EncounterState, f: Fighter) -> None:
        """invade: two characters may share a square, so any square reached may be the end."""

    def cites(self, step: Step) -> tuple[str, ...]:
        return (self.rule,)


# --- rotate-about geometry ------------------------------------------------------------------------


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

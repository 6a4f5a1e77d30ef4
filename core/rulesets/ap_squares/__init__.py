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
  the pivot, then the nearer one (see `rotate_path`). The ban on turning back lasts
  until the character does something else (moves or spends AP): being body-blocked on
  the way round is not that, and neither is a new cycle ("never" sets no cycle limit;
  setting rotate_back_new_cycle).
- push-off: a negative Strength bonus is added as written (setting
  negative_strength_bonus).
- Dropping prone and standing up cost no AP (setting `posture_ap`). Defense is the
  `defense` stat plus the `dexterity` modifier; zero-gravity rulings are listed in
  zero_g.py.

Where each rule's code lives (rule ids are cited next to the code). `ApSquares`
derives from `Ruleset` alone and is made of one part a family, listed in
`ApSquares.parts`; a part knows no other part, and what two families share is the
ruleset's (a method reached as `self.rs`, named by hooks.py's `ApRules`) or a
plain function of a module below the parts. Imports inside the package run one
way: this module on top, then the parts, then hooks.py, stepping.py and
zero_g_base.py; no part imports the ruleset class (issue 37):

- here, `ApSquares`: the catalogue (rules, settings, stats), the AP ledger (AP per
  cycle, what is left, paying), the cycle (AP and momentum come back, loose
  objects' turns), a character's way of moving on its own (`mover`), Defense,
  the answers a waiting encounter takes, and the hooks that tell every part of
  another family's outcome (hooks.py: `ApPart`, and `ApRules`, what parts ask of it);
- stepping.py, `Stepping`: the price of a character's own steps (walk, crawl,
  zero-g-crawl), with invade's ban on a second attempt (`BLOCKED`) it reads;
- zero_g_base.py: the gravity graph and zero gravity's plain questions, which
  walking, invade and reflexive-leap ask too;
- walking.py, `Walking`: walk, crawl (and the zero-g crawl's steps), the move command;
- invasion.py, `Invasion`: invade (`travel`: every move a character makes on its
  own stops before an occupied square);
- rotate_about.py, `RotatingAbout`: rotate-about;
- leaps.py, `Leaps`: reflexive-leap;
- zero_g.py, `ZeroGravity`: zero-g-drift, push-off, zero-g-crawl, zero-g-grab,
  zero-g-penalties (and the drift at a turn's start).
"""

from __future__ import annotations

from typing import Any

from tabletrail.core.rulesets.ap_squares.hooks import ApPart, ApRules
from tabletrail.core.rulesets.ap_squares.invasion import (
    BLOCK_AP,
    INVADING,
    Invasion,
    pending_invasion,
)
from tabletrail.core.rulesets.ap_squares.leaps import (
    AREA,
    HALVE_DIFFICULTY,
    LEAP_DIFFICULTY,
    LEAP_EXTRA_AP,
    LEAP_EXTRA_DIFFICULTY,
    LEAP_MIN_AP,
    Leaps,
)
from tabletrail.core.rulesets.ap_squares.rotate_about import RotatingAbout, rotate_path
from tabletrail.core.rulesets.ap_squares.stepping import BLOCKED, CRAWL_AP, WALK_AP, Stepping
from tabletrail.core.rulesets.ap_squares.walking import Walking
from tabletrail.core.rulesets.ap_squares.zero_g import ZeroGravity
from tabletrail.core.rulesets.ap_squares.zero_g_base import (
    BRAKE_AP,
    GRAB_AP,
    GROUNDED,
    PUSHING_OFF,
    TRAJECTORY,
    TURN_DRIFT_AP,
    ap,
    defense,
    gravity,
    is_object,
    trajectory,
)
from tabletrail.events.commands.ap_squares import AreaHit, ReactInvasion, ReflexiveLeap
from tabletrail.ruleset_api import (
    CU,
    DIAGONAL_RULES,
    ENGINE_TURN,
    EUCLIDEAN,
    EVERY_1,
    XY,
    Batch,
    Command,
    Dice,
    EncounterState,
    Fighter,
    Refusal,
    Rule,
    Ruleset,
    Setting,
    Stat,
    plural,
    require,
    show,
)
from tabletrail.ruleset_api import events as ev

__all__ = [
    "AREA",
    "ApSquares",
    "BLOCKED",
    "BLOCK_AP",
    "CRAWL_AP",
    "HALVE_DIFFICULTY",
    "INVADING",
    "LEAP_DIFFICULTY",
    "LEAP_EXTRA_AP",
    "LEAP_EXTRA_DIFFICULTY",
    "LEAP_MIN_AP",
    "Stepping",
    "WALK_AP",
    "rotate_path",
]


class ApSquares(Ruleset):
    """The chapter as one ruleset made of its families, each a part (see this module's docstring)."""

    # Every hook calls the parts in this order: the document's order, walking first. Only one part
    # takes each engine hook, but for awaited (the invasion's answer is asked before the area's).
    parts = (Walking, Invasion, RotatingAbout, Leaps, ZeroGravity)
    id = "ap-squares"
    title = "Action points per cycle, 1 m squares"
    document = "002_0a50226be3a32e43.txt"
    unit = "m"
    rules = (
        Rule(
            "walk", "walking costs 1 AP a square", "AP per cycle is a character stat (setting ap_per_cycle)"
        ),
        Rule(
            "crawl",
            "crawling (prone) costs 2 AP a square, from the same AP per cycle as walking",
            "dropping prone and standing up cost no AP (setting posture_ap)",
        ),
        Rule(
            "invade",
            "entering an occupied square lets the occupant parry: with a melee weapon (parry roll above "
            "the invader's defense deals weapon damage; the invader still enters) or by body-block (2 AP, "
            "opposed Strength rolls, the invader enters only by rolling higher, else the movement AP is "
            "wasted); a blocked invader may not try the same square again this cycle",
            "two characters may then share the square (setting share_square)",
        ),
        Rule(
            "reflexive-leap",
            "against an area effect the character knows of, with at least 2 AP and able to move freely: "
            "dive to an adjacent square outside it on a Celerity roll of 18 (no damage); +3 difficulty and "
            "+2 AP per extra meter; with no way out, a Dexterity roll of 13 halves the damage",
            "the leap costs 2 AP (setting leap_ap)",
        ),
        Rule(
            "rotate-about",
            "circle a pivot square at the starting distance, clockwise or counter-clockwise, never turning "
            "back; each square entered costs movement as usual",
            "path squares are those whose distance best matches the radius (setting rotate_distance); "
            "the ban on turning back lasts until the character does something else (an occupant's "
            "parry, body-block or leave to enter is not that), a new cycle or not (setting "
            "rotate_back_new_cycle)",
        ),
        Rule(
            "zero-g-drift",
            "with no wall adjacent, keep momentum; with none, drift 1 square per turn along the trajectory "
            "drawn when gravity was lost; 6 AP turns the trajectory but never speeds it up; loose objects "
            "drift too",
            "the trajectory is one of 8 directions, a check (setting drift_directions)",
        ),
        Rule(
            "push-off",
            "next to a stable solid object: 6 AP, a direction perpendicular or diagonal to its surface, a "
            "speed up to 3 + Strength bonus m per cycle; 4 AP breaks 1 m of speed; direction can't change "
            "until back to drift speed",
            "a negative Strength bonus is added as written, lowering the top speed (setting "
            "negative_strength_bonus)",
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
            "the engine reports these modifiers; it does not resolve attacks (setting zero_g_penalties)",
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
            DIAGONAL_RULES,
            "ap-squares/walk",
        ),
        Setting(
            "posture_ap",
            0,
            "AP dropping prone or standing up costs, from the AP per cycle (house default 0: document 002 "
            "prices neither)",
            (),
            "ap-squares/crawl",
        ),
        Setting(
            "rotate_distance",
            EUCLIDEAN,
            "the distance rule rotate-about measures the radius and the best-matching path squares by: "
            "euclidean (between square centres), every-1, alternating, manhattan",
            DIAGONAL_RULES,
            "ap-squares/rotate-about",
        ),
        Setting(
            "rotate_back_new_cycle",
            False,
            "yes: a new cycle ends a rotation, so the character may then reverse onto the tile it just "
            "left; no (house default): the ban lasts until it moves or spends AP otherwise, as the "
            "text's 'never' sets no cycle limit",
            (),
            "ap-squares/rotate-about",
        ),
        Setting(
            "share_square",
            True,
            "after an invasion the invader and the occupant share the square; no: occupied squares "
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
        Setting(
            "negative_strength_bonus",
            "counts",
            "a negative Strength attribute bonus on a push-off: 'counts' (house default: 'three (3) "
            "meters per cycle plus their Strength attribute bonus' adds it as written, so -1 reaches 2 m) "
            "or 'zero' (a bonus is never a penalty: a push-off reaches 3 m at least)",
            ("counts", "zero"),
            "ap-squares/push-off",
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
        Stat(
            "strength_bonus",
            "Strength attribute bonus: extra m per cycle a push-off may reach (a negative one lowers it: "
            "setting negative_strength_bonus)",
            default=0,
            signed=True,
        ),
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
    door_resource = "ap"  # tabletrail/doors: door_cost is paid in AP
    movement_resource = "ap"  # adjust and override cost=: walking and crawling are paid in AP

    def check_settings(self, settings: dict[str, Any]) -> tuple[str, str] | None:
        """AP are never negative: not a cycle's, a leap's nor a posture change's."""
        for name in ("ap_per_cycle", "leap_ap", "posture_ap"):
            if settings[name] < 0:
                return name, f"must not be negative, got {settings[name]}"
        return None

    def ap_parts(self) -> list[ApPart]:
        """The parts, in order, as ap-squares' own (for the hooks `ApPart` adds)."""
        return [p for p in self._parts.values() if isinstance(p, ApPart)]

    # --- the AP ledger every family spends from ---------------------------------------------

    def ap_max(self, state: EncounterState, f: Fighter) -> int:
        """walk: AP per cycle, in hundredths (the `ap` stat, else the ap_per_cycle setting)."""
        return int(self.stat(f, "ap") or state.settings["ap_per_cycle"]) * CU

    def ap_left(self, state: EncounterState, fighter_id: str) -> int:
        """What is left of the fighter's AP this cycle, in hundredths."""
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

    # --- moving on one's own: what walking and rotate-about share --------------------------

    def walker(self, state: EncounterState, f: Fighter) -> Stepping | None:
        """The fighter's own steps (walking.py's part), typed as ap-squares' `Stepping`."""
        policy = super().walker(state, f)
        assert policy is None or isinstance(policy, Stepping)
        return policy

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

    def budget_unit(self, state: EncounterState, f: Fighter) -> str:
        """AP, whether the fighter walks, crawls or drifts: a move is paid from the cycle's AP."""
        return "AP"

    def after_posture(self, b: Batch, f: Fighter, trigger: str) -> None:
        """Prone and standing mean nothing without gravity; with it, dropping or rising costs what the
        table says (setting posture_ap; document 002 prices neither, so the house default is free)."""
        require(
            gravity(f) == GROUNDED,
            self.rule("zero-g-crawl"),
            f"{f.id} is {gravity(f).replace('_', ' ')} in zero gravity: there is no lying down or "
            "standing up",
        )
        cost = int(b.state.settings["posture_ap"])
        if cost:  # crawl: the AP come from the same AP per cycle as walking and crawling
            self.pay(
                b,
                f.id,
                cost,
                self.rule("crawl"),
                "dropping prone" if trigger == "drop_prone" else "standing up",
            )

    def defense(self, state: EncounterState, f: Fighter) -> tuple[int, str, bool]:
        """Defense with Dexterity and the zero-g modifiers in force, as a parry meets it (invade):
        (total, the sum in words, any modifier applied?)."""
        return defense(self, state, f)

    # --- what one family's outcome means to the others (hooks `ApPart` adds) ---------------

    def let_in(self, b: Batch, before: Fighter, cell: XY) -> None:
        """invade: the invader (as it stood waiting, `before`) has entered `cell`: every part's turn."""
        for part in self.ap_parts():
            part.let_in(b, before, cell)

    def kept_out(self, b: Batch, invader: Fighter, cell: XY) -> None:
        """invade: a body-block kept the invader out of `cell`: every part's turn."""
        for part in self.ap_parts():
            part.kept_out(b, invader, cell)

    # --- the cycle ---------------------------------------------------------------------------

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

    def start_round(self, b: Batch, round_no: int, dice: Dice) -> None:
        """A new cycle: AP (refreshed by cycle) and momentum come back, each fighter in turn, with
        what the parts lapse for it (invade's blocks); then what outlasts it (rotate-about's)."""
        before = b.state
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
            for part in self.ap_parts():
                part.new_cycle(b, f, round_no)
        # rotate-about: a new cycle is not doing something else (setting rotate_back_new_cycle).
        for part in self.ap_parts():
            part.refreshed(b, before, round_no - 1, None, f"cycle {round_no} starts")
        super().start_round(b, round_no, dice)

    def start_turn(self, b: Batch, fighter_id: str, dice: Dice) -> None:
        """walk: AP refreshed by turn come back (ap_refresh = turn); then every part's turn (the
        drift at the start of a body's turn)."""
        f = self.fighter(b.state, fighter_id)
        if b.state.settings["ap_refresh"] == "turn" and "ap" in f.spent:
            before = b.state
            b.emit(
                ev.Refreshed(
                    fighter=fighter_id,
                    resources=("ap",),
                    rules=(self.rule("walk"),),
                    note=f"{fighter_id}'s turn starts: {ap(self.ap_max(b.state, f))} again "
                    "(ap_refresh = turn)",
                )
            )
            for part in self.ap_parts():
                part.refreshed(b, before, b.state.turn.round, fighter_id, f"{fighter_id}'s AP come back")
        super().start_turn(b, fighter_id, dice)

    def pending_invasion(self, state: EncounterState) -> tuple[Fighter, Any] | None:
        """invade: the invader whose move waits for an occupant's answer, and its mark, if any."""
        return pending_invasion(state)

    # --- waiting for an answer ---------------------------------------------------------------

    def decide(self, state: EncounterState, command: Command, dice: Dice) -> list[ev.Event]:
        """While an invasion or an area effect waits for answers, only those answers are taken."""
        waiting = pending_invasion(state)
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
                f"an area effect over {plural(len(area['cells']), 'square')} is about to land: "
                f"{', '.join(area['caught']) or 'nobody'} may reflexive-leap first, "
                "then the GM's area-hit lands it",
            )
        return super().decide(state, command, dice)


def _serves(rs: ApSquares) -> ApRules:
    """Never called: mypy checks here that `ApSquares` provides every method its parts ask of it
    (`ApRules`, hooks.py), with the same signatures, since the parts no longer import it."""
    return rs

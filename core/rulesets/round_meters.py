"""round-meters: the movement chapter of document 001_f4ae7af380350405.txt.

Rule ids are the catalogue's `round-meters/<rule>`; each is cited next to the code
that enforces it. Where the document is silent, the choice below is a Setting a
table can change (`tabletrail rules round-meters` lists them):

- Budgets. `movement` (meters) and `ap` are per-round stats. Both refresh when a
  round starts, never when a turn starts: meters moved stay spent across a
  fighter's turns in that round (round-budget). A Sprint's extra meters are a
  negative `Spent` of movement, so they vanish with the round's refresh too.
- Passes (passes). A round is one or more initiative passes, each pass every
  combatant's turn in initiative order. Pass 1 gives everyone a turn. After a
  pass, another follows while some combatant has AP left (and `max_passes`, if
  not 0, is not reached); in it, combatants with no AP left are skipped.
  Otherwise the next round starts. A delayed turn that ends with no action taken
  (no AP spent; moving is not an action) loses the document's 1 AP; any other
  such turn loses `idle_ap_loss` AP (house default 1, the document's "normal rule
  for taking no action"), so passes always run out.
- Tests. Every test is a check of `check_formula` (default 1d20) plus modifiers.
  A Sprint's Athletics test adds the `athletics` stat; it scores one positive Hit
  for every full `hit_step` points of its total above `hit_threshold` (default:
  15 is one Hit, 20 two, 14 none).
- Sprint penalty. Each Sprint adds -5 to the fighter's other tests until the
  round ends; every later test records it in its modifier and note. "Other
  tests" are read as tests other than Sprint tests (`sprint_penalty_on_sprints`).
- Actions. The document prices only the Sprint; the table's actions and their
  AP are the `action_costs` setting. An action is recorded by a `Spent` of ap
  and a `Marked` "action" fact (kind, target, AP, round, pass).
- Delay moves the fighter's place in the order (an `OrderChanged`) for the rest
  of the combat; it must come before the fighter's first action of the turn.
- Hold. A trigger is one of a vocabulary the engine can check (who, what,
  where): "enemy-enters X,Y…", "starts-move FIGHTER", "takes-action FIGHTER
  KIND". The held action resolves the moment its trigger happens, inside the
  batch of the command that set it off: a move resolves it on the step that
  enters the cell, before the move goes on; a move or action resolves it before
  its own first fact. `settle` then checks every fact of the batch once more, so
  facts from other commands (a GM placing a piece) trigger holds as well.
  Undo: because the interrupt is part of the triggering command's batch,
  undoing that command undoes the held action with it and the hold is pending
  again, its AP still paid by the earlier hold batch.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from msgspec.structs import replace
from tabletrail.core.batch import Batch
from tabletrail.core.cell_rulings import FORBID, TEST
from tabletrail.core.dice import Dice, check
from tabletrail.core.geometry import EUCLIDEAN, XY, Pos, expand, parse_cell, show
from tabletrail.core.machines import TURN
from tabletrail.core.movement import flat_step, walk
from tabletrail.core.refusal import Refusal, require
from tabletrail.core.ruleset import Modifier, Rule, Ruleset, Setting, Stat, handles
from tabletrail.core.state import EncounterState, Fighter
from tabletrail.core.units import CU, fmt
from tabletrail.events import types as ev
from tabletrail.events.commands import EndTurn, Move
from tabletrail.events.commands.round_meters import Delay, Hold, RollTest, Sprint, TakeAction
from tabletrail.events.errors import InputError
from tabletrail.events.scenario import Scenario
from tabletrail.events.types import CheckRolled, Step

# Numbers the document itself gives.
SPRINT_AP = 1  # "Sprinting is a Minor Action that costs 1 AP."
SPRINT_METERS = 2 * CU  # "For each positive Hit, gain +2 meters of Movement for the current round."
SPRINT_PENALTY = -5  # "a cumulative −5 penalty to all other tests for the remainder of the round"
DELAY_IDLE_AP = 1  # "If you choose not to act when your delayed turn arrives, ... lose 1 AP."
DIFFICULT_FACTOR = 2  # "Each meter moved through Difficult Terrain costs 2 meters of Movement."
DIFFICULT_TAGS = ("difficult", "rough")
# The vocabulary of held triggers: what the engine can check (who, what, where).
TRIGGER_USAGE = {
    "enemy-enters": "enemy-enters X,Y [X,Y…]",
    "starts-move": "starts-move FIGHTER",
    "takes-action": "takes-action FIGHTER KIND",
}
TRIGGER_KINDS = tuple(TRIGGER_USAGE)

# Marks kept on a fighter.
HELD = "held"  # the held action: {action, target, ap, trigger, text, round, pass}
ACTION = "action"  # the latest action taken: {kind, target, ap, round, pass, held}
DELAYED = "delayed"  # a delayed turn pending: {after, round, pass}
SPRINTS = "sprint-penalty"  # {sprints, penalty} this round

# States of the shared TURN machine (core/machines.py).
WAITING, ACTING, DELAYED_STATE, HOLDING, DONE = "waiting", "acting", "delayed", "holding", "done"


class Happened(NamedTuple):
    """Something a held trigger may watch for: a fighter entering a cell, starting a move, acting."""

    kind: str  # "enters", "starts-move", "takes-action"
    fighter: str
    cell: XY | None = None
    action: str = ""

    def words(self) -> str:
        if self.kind == "enters" and self.cell is not None:
            return f"{self.fighter} entered {show(self.cell)}"
        if self.kind == "starts-move":
            return f"{self.fighter} started a move"
        return f"{self.fighter} took the action {self.action}"


def parse_costs(text: str) -> dict[str, int]:
    """'shoot:2,reload:1' -> {'shoot': 2, 'reload': 1}; ValueError says what is wrong."""
    costs: dict[str, int] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        kind, sep, ap = part.partition(":")
        kind = kind.strip()
        if not sep or not kind or " " in kind:
            raise ValueError(f"{part!r} is not KIND:AP (e.g. shoot:2)")
        if kind == "sprint":
            raise ValueError("sprint is the document's own action (1 AP); it can't be priced here")
        if not ap.strip().isdigit():
            raise ValueError(f"{part!r}: the AP of {kind} must be a whole number, got {ap.strip()!r}")
        costs[kind] = int(ap)
    return costs


def parse_kinds(text: str) -> tuple[str, ...]:
    """The hold_triggers setting: trigger kinds separated by commas, each from TRIGGER_KINDS."""
    kinds = tuple(k.strip() for k in text.split(",") if k.strip())
    for k in kinds:
        if k not in TRIGGER_KINDS:
            raise ValueError(f"{k!r} is not a trigger kind (known: {', '.join(TRIGGER_KINDS)})")
    return kinds


def setting_error(settings: dict[str, Any]) -> tuple[str, str] | None:
    """The first of this ruleset's settings whose value can't be used, and why; None if all can."""
    for name, parse in (("action_costs", parse_costs), ("hold_triggers", parse_kinds)):
        try:
            parse(str(settings[name]))
        except ValueError as exc:
            return name, str(exc)
    for name, least in (("hit_step", 1), ("max_passes", 0), ("idle_ap_loss", 0), ("hold_max_cells", 1)):
        if settings[name] < least:
            return name, f"must be at least {least}, got {settings[name]}"
    return None


class RoundMeters(Ruleset):
    id = "round-meters"
    title = "Movement per round, AP for actions"
    document = "001_f4ae7af380350405.txt"
    unit = "m"
    rules = (
        Rule(
            "round-budget",
            "Movement meters per round, spendable in pieces across the character's turns and between "
            "actions; spent meters stay spent until the next round",
        ),
        Rule("move-free", "normal movement costs no AP"),
        Rule(
            "sprint",
            "Minor Action, 1 AP, Athletics test, +2 m this round per positive hit; repeatable; "
            "each sprint adds a cumulative −5 to all other tests this round",
        ),
        Rule(
            "difficult",
            "each meter of difficult terrain costs 2",
            "the GM may, by a logged ruling, require a test or forbid a crossing",
        ),
        Rule("passes", "initiative order runs in passes within a round; AP per round is a character stat"),
        Rule(
            "delay",
            "on your turn, move yourself later: after a combatant who has not acted this pass, or to the "
            "end of the pass; the new position is kept for the rest of the combat; never into a later "
            "pass; not acting when the delayed turn comes loses 1 AP",
        ),
        Rule(
            "hold",
            "declare a specific action and a specific trigger, pay its AP at once; if the trigger happens "
            "before your next turn the action resolves immediately, otherwise it is lost and the AP "
            "stays spent",
            "a trigger must be a checkable condition (who, what, where); a vague one is refused with "
            "a reason",
        ),
    )
    settings = (
        Setting(
            "diagonal",
            EUCLIDEAN,
            "cost of a diagonal step: every-1, alternating, euclidean, manhattan",
            ("every-1", "alternating", "euclidean", "manhattan"),
            "round-meters/round-budget",
        ),
        Setting(
            "check_formula",
            "1d20",
            "dice the seeded source rolls for every test: Athletics, action tests, GM-required terrain "
            "tests (house default; the document names no dice)",
            (),
            "round-meters/sprint",
        ),
        Setting(
            "hit_threshold",
            10,
            "an Athletics total scores one positive Hit for every full hit_step points above this "
            "number (house default: with hit_step 5, 15 is one Hit, 20 two, 14 none)",
            (),
            "round-meters/sprint",
        ),
        Setting(
            "hit_step",
            5,
            "points of an Athletics total above hit_threshold per positive Hit (house default)",
            (),
            "round-meters/sprint",
        ),
        Setting(
            "sprint_penalty_on_sprints",
            False,
            "whether a later Sprint's own Athletics test carries the penalty of earlier Sprints; false "
            "reads the document's 'all other tests' as tests other than Sprint tests",
            (),
            "round-meters/sprint",
        ),
        Setting(
            "max_passes",
            0,
            "most initiative passes in a round; 0: another pass follows while any combatant has AP left "
            "(house default; the document does not say how many passes a round has)",
            (),
            "round-meters/passes",
        ),
        Setting(
            "action_costs",
            "attack:2,shoot:2,cast:2,reload:1,draw:1,aim:1,use:1",
            "the actions a combatant may take or hold and their AP, KIND:AP separated by commas "
            "(house default; the document prices only the Sprint)",
            (),
            "round-meters/passes",
        ),
        Setting(
            "idle_ap_loss",
            1,
            "AP a combatant loses when an ordinary turn ends with no action taken (no AP spent; moving is "
            "not an action): the document's 'normal rule for taking no action' (1 AP for a delayed turn, "
            "which stays 1 whatever this says) applied to every turn (house default); with 0 a pass "
            "follows another while anyone keeps AP, so set max_passes",
            (),
            "round-meters/delay",
        ),
        Setting(
            "hold_triggers",
            ",".join(TRIGGER_KINDS),
            "the trigger kinds a held action may use, separated by commas: enemy-enters X,Y…, "
            "starts-move FIGHTER, takes-action FIGHTER KIND; anything else is too vague to hold",
            (),
            "round-meters/hold",
        ),
        Setting(
            "hold_max_cells",
            9,
            "most cells an enemy-enters trigger may watch; a wider net is too broad to hold",
            (),
            "round-meters/hold",
        ),
        Setting(
            "difficult_rulings",
            "gm-may",
            "'gm-may': the GM may, by a logged ruling (require-test, forbid), require a test to cross "
            "given cells or forbid crossing them; 'cost-only': difficult terrain is its cost alone and "
            "such rulings are refused",
            ("gm-may", "cost-only"),
            "round-meters/difficult",
        ),
    )
    stats = (
        Stat("movement", "Movement: meters a character may move each round", length=True),
        Stat("ap", "action points each round"),
        Stat("athletics", "modifier added to the character's Athletics tests", default=0),
    )
    posture_rules = ("", "")

    # --- settings and stats ------------------------------------------------------

    def check_settings(self, settings: dict[str, Any]) -> tuple[str, str] | None:
        """The checks only this ruleset knows: text lists, positive numbers."""
        return setting_error(settings)

    def validate(self, scenario: Scenario, where: str) -> None:
        super().validate(scenario, where)
        for i, spec in enumerate(scenario.fighters):
            for name in ("ap", "athletics"):
                value = spec.stats.get(name, 0)
                if not float(value).is_integer():
                    raise InputError(f"{where}: fighters[{i}].{name}: expected a whole number, got {value}")

    def ap(self, f: Fighter) -> int:
        return int(self.stat(f, "ap"))

    def ap_left(self, f: Fighter) -> int:
        return self.ap(f) - f.used("ap")

    def meters_left(self, f: Fighter) -> int:
        """round-budget: Movement this round (sprints included) less what was moved, in centi-units."""
        return self.stat(f, "movement") - f.used("movement")

    def penalty(self, f: Fighter) -> int:
        """sprint: the cumulative penalty to the fighter's other tests this round."""
        return int(f.marks.get(SPRINTS, {}).get("penalty", 0))

    def costs(self, state: EncounterState) -> dict[str, int]:
        try:
            return parse_costs(str(state.settings["action_costs"]))
        except ValueError as exc:
            raise Refusal(self.rule("passes"), f"the action_costs setting is unreadable: {exc}") from None

    def modifiers(self, state: EncounterState, fighter_id: str, against: str | None = None) -> list[Modifier]:
        f = self.fighter(state, fighter_id)
        pen = self.penalty(f)
        if not pen:
            return []
        n = f.marks[SPRINTS]["sprints"]
        return [Modifier("tests", pen, self.rule("sprint"), f"{n} Sprint(s) this round, -5 each")]

    # --- the turn machine: rounds, passes, turns -------------------------------

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
            if SPRINTS in f.marks:
                b.emit(
                    ev.Unmarked(
                        fighter=f.id,
                        key=SPRINTS,
                        rules=(self.rule("sprint"),),
                        note=f"the {self.penalty(f)} of {f.marks[SPRINTS]['sprints']} Sprint(s) lasted "
                        f"for the remainder of round {round_no - 1} only",
                    )
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
        if DELAYED in f.marks and trigger != "delay":
            b.emit(
                ev.Unmarked(
                    fighter=fighter_id,
                    key=DELAYED,
                    rules=(self.rule("delay"),),
                    note=f"{fighter_id}'s delayed turn has come and gone",
                )
            )
        self.change(b, f, "turn", trigger, rule, note)
        b.emit(ev.TurnEnded(fighter=fighter_id, rules=(rule,), note=note))
        self.next_turn(b, dice)

    def acted(self, state: EncounterState, f: Fighter) -> bool:
        """Did the fighter take an action (spend AP) in its own turn of this pass?"""
        last = f.marks.get(ACTION)
        t = state.turn
        return bool(last) and not last["held"] and last["round"] == t.round and last["pass"] == t.pass_no

    # --- moving --------------------------------------------------------------------

    def walker(self, state: EncounterState, f: Fighter) -> _Walking:
        return _Walking(self, state)

    def move_budget(self, state: EncounterState, f: Fighter) -> int:
        return max(0, self.meters_left(f))

    @handles(Move)
    def move(self, b: Batch, cmd: Move, dice: Dice) -> None:
        """round-budget, move-free, difficult: a piece of the round's Movement, paid in meters only."""
        f = self.actor(b.state, cmd.fighter, self.rule("passes"))
        cells = self.cells(b.state, f, cmd.path)
        sprinted = int(f.marks.get(SPRINTS, {}).get("meters", 0))
        # hold: a held action waiting for this fighter to start moving interrupts before its first step.
        self.fire(b, Happened("starts-move", f.id))
        start = len(b.events)
        walk(
            b,
            _Walking(self, b.state),
            f.id,
            cells,
            budget=self.meters_left(f),
            budget_rule=self.rule("round-budget"),
            rules=(self.rule("round-budget"), self.rule("move-free")),
            what=f"{f.id}'s move (round {b.state.turn.round}: Movement {fmt(self.stat(f, 'movement'))} m"
            + (f" + {fmt(sprinted)} m sprinted" if sprinted else "")
            + ", spent meters stay spent until the next round)",
            dice=dice,
        )
        self.explain_moves(b, start, f.id)

    def explain_moves(self, b: Batch, start: int, fighter_id: str) -> None:
        """Say on each Moved what it cost, what is left of the round, and that no AP was paid."""
        for i in range(start, len(b.events)):
            e = b.events[i]
            if not isinstance(e, ev.Moved) or e.fighter != fighter_id or e.note:
                continue
            cost = sum(s.cost for s in e.steps)
            rough = [show(s.to) for s in e.steps if self.difficult(b.state, s.to)]
            note = (
                f"{fmt(cost)} m of this round's Movement ({fmt(e.budget)} → {fmt(e.budget - cost)} m left); "
                "no AP: normal movement is free"
            )
            if rough:
                note += f"; difficult terrain at {' '.join(rough)} costs 2 m a meter"
            b.events[i] = replace(e, note=note)

    def difficult(self, state: EncounterState, cell: XY | Pos) -> bool:
        return any(state.grid.has(cell[0], cell[1], tag) for tag in DIFFICULT_TAGS)

    def cells(self, state: EncounterState, f: Fighter, path: tuple[tuple[int, ...], ...]) -> list[XY]:
        grid = state.grid
        for wp in path:
            require(
                grid.inside(wp[0], wp[1]),
                self.rule("round-budget"),
                f"{show(wp)} is off the {grid.width}x{grid.height} map",
            )
        cells = expand((f.pos[0], f.pos[1]), [(wp[0], wp[1]) for wp in path])
        require(bool(cells), self.rule("round-budget"), f"{f.id} is already at {show(f.pos)}")
        return cells

    # --- actions, tests and the sprint ------------------------------------------

    def act(
        self,
        b: Batch,
        fighter_id: str,
        kind: str,
        target: str,
        ap: int,
        rule: str,
        note: str,
        *,
        held: bool = False,
    ) -> None:
        """Record one action: held triggers on it resolve first, then its AP (unless paid by a hold)."""
        self.fire(b, Happened("takes-action", fighter_id, action=kind))
        if not held:
            b.emit(ev.Spent(fighter=fighter_id, resource="ap", amount=ap, rules=(rule,), note=note))
        t = b.state.turn
        b.emit(
            ev.Marked(
                fighter=fighter_id,
                key=ACTION,
                value={
                    "kind": kind,
                    "target": target,
                    "ap": ap,
                    "round": t.round,
                    "pass": t.pass_no,
                    "held": held,
                },
                rules=(rule,),
                note=note
                if held
                else f"{fighter_id} takes the action {kind}" + (f" at {target}" if target else ""),
            )
        )

    def test(
        self,
        b: Batch,
        dice: Dice,
        fighter_id: str,
        name: str,
        rule: str,
        target: int,
        *,
        bonus: int = 0,
        bonus_why: str = "",
        penalised: bool = True,
    ) -> CheckRolled:
        """One test, carrying the sprint penalty in force; the check records it and says so."""
        f = b.state.fighter(fighter_id)
        assert f is not None
        parts = [f"{bonus_why} {bonus:+}"] if bonus else []
        pen = self.penalty(f) if penalised else 0
        if pen:
            parts.append(f"sprint penalty {pen} ({f.marks[SPRINTS]['sprints']} Sprint(s) this round)")
        elif penalised:
            parts.append("no sprint penalty this round")
        elif self.penalty(f):
            parts.append(
                f"the sprint penalty {self.penalty(f)} spares Sprint tests (sprint_penalty_on_sprints)"
            )
        result = check(
            b,
            dice,
            fighter=fighter_id,
            name=name,
            rule=rule,
            target=target,
            modifier=bonus + pen,
            note=f"{name} against {target}: " + ", ".join(parts or ["no modifier"]),
        )
        if pen and rule != self.rule("sprint"):
            b.events[-1] = replace(result, rules=(rule, self.rule("sprint")))
        return result

    @handles(Sprint)
    def sprint(self, b: Batch, cmd: Sprint, dice: Dice) -> None:
        """sprint: 1 AP, an Athletics test, +2 m this round per positive Hit, -5 to other tests."""
        rule = self.rule("sprint")
        f = self.actor(b.state, cmd.fighter, self.rule("passes"))
        left = self.ap_left(f)
        require(
            left >= SPRINT_AP,
            rule,
            f"{f.id} has {left} of {self.ap(f)} AP left this round; a Sprint costs {SPRINT_AP} AP",
        )
        self.act(
            b,
            f.id,
            "sprint",
            "",
            SPRINT_AP,
            rule,
            f"Sprint, a Minor Action: {SPRINT_AP} AP ({left} → {left - SPRINT_AP} of {self.ap(f)})",
        )
        settings = b.state.settings
        threshold, step = int(settings["hit_threshold"]), int(settings["hit_step"])
        athletics = int(self.stat(f, "athletics"))
        result = self.test(
            b,
            dice,
            f.id,
            "Athletics",
            rule,
            threshold + step,
            bonus=athletics,
            bonus_why="athletics",
            penalised=bool(settings["sprint_penalty_on_sprints"]),
        )
        total = result.number + result.modifier
        hits = max(0, (total - threshold) // step)
        scored = (
            f"Athletics {total}: {hits} positive Hit(s), one per full {step} above {threshold}"
            if hits
            else f"Athletics {total}: no positive Hit (one needs {threshold + step}), no extra Movement"
        )
        if hits:
            before = self.meters_left(b.state.fighter(f.id))  # type: ignore[arg-type]
            gain = hits * SPRINT_METERS
            b.emit(
                ev.Spent(
                    fighter=f.id,
                    resource="movement",
                    amount=-gain,
                    rules=(rule, self.rule("round-budget")),
                    note=f"{scored}: +{fmt(gain)} m of Movement this round "
                    f"({fmt(before)} → {fmt(before + gain)} m left)",
                )
            )
        now = b.state.fighter(f.id)
        assert now is not None
        so_far = now.marks.get(SPRINTS, {})
        sprints = int(so_far.get("sprints", 0)) + 1
        meters = int(so_far.get("meters", 0)) + hits * SPRINT_METERS
        b.emit(
            ev.Marked(
                fighter=f.id,
                key=SPRINTS,
                value={"sprints": sprints, "penalty": SPRINT_PENALTY * sprints, "meters": meters},
                rules=(rule,),
                note=(f"{scored}; " if not hits else "")
                + f"{sprints} Sprint(s) this round: {SPRINT_PENALTY * sprints} to {f.id}'s other tests "
                f"for the remainder of round {b.state.turn.round}",
            )
        )

    @handles(TakeAction)
    def take_action(self, b: Batch, cmd: TakeAction, dice: Dice) -> None:
        """passes: an action pays its AP from the round's pool; its test carries any sprint penalty."""
        rule = self.rule("passes")
        f = self.actor(b.state, cmd.fighter, rule)
        costs = self.costs(b.state)
        require(
            cmd.kind in costs,
            rule,
            f"{cmd.kind!r} is not an action of this table (action_costs: {self.priced(costs)}; "
            "a Sprint is the sprint command)",
        )
        cost, left = costs[cmd.kind], self.ap_left(f)
        require(
            left >= cost,
            rule,
            f"{f.id} has {left} of {self.ap(f)} AP left this round; {cmd.kind} costs {cost} AP",
        )
        target = self.aim(b.state, cmd.target, rule) if cmd.target else ""
        self.act(
            b,
            f.id,
            cmd.kind,
            target,
            cost,
            rule,
            f"{cmd.kind}" + (f" at {target}" if target else "") + f": {cost} AP ({left} → {left - cost} "
            f"of {self.ap(f)})",
        )
        if cmd.test is not None:
            self.test(b, dice, f.id, cmd.kind, rule, cmd.test)

    @handles(RollTest)
    def roll_test(self, b: Batch, cmd: RollTest, dice: Dice) -> None:
        """sprint: a test the GM calls for carries the fighter's sprint penalty this round."""
        f = self.fighter(b.state, cmd.fighter)
        athletic = cmd.skill.lower() == "athletics"
        self.test(
            b,
            dice,
            f.id,
            cmd.skill,
            self.rule("sprint"),
            cmd.target,
            bonus=int(self.stat(f, "athletics")) if athletic else 0,
            bonus_why="athletics",
        )

    def priced(self, costs: dict[str, int]) -> str:
        return ", ".join(f"{k} {v} AP" for k, v in costs.items()) or "none"

    def aim(self, state: EncounterState, target: str, rule: str) -> str:
        """A target is a fighter id or a cell x,y on the map."""
        if state.fighter(target) is not None:
            return target
        try:
            cell = parse_cell(target)
        except ValueError:
            fighters = ", ".join(f.id for f in state.fighters)
            raise Refusal(
                rule, f"target {target!r} is neither a fighter ({fighters}) nor a cell x,y"
            ) from None
        require(
            state.grid.inside(cell[0], cell[1]),
            rule,
            f"target {show(cell)} is off the {state.grid.width}x{state.grid.height} map",
        )
        return show(cell)

    # --- delay -------------------------------------------------------------------

    @handles(Delay)
    def delay(self, b: Batch, cmd: Delay, dice: Dice) -> None:
        """delay: later in this pass (behind one who has not acted, or at its end), kept for the combat."""
        rule = self.rule("delay")
        state = b.state
        t = state.turn
        # "During your turn, you may Delay"
        f = self.actor(state, cmd.fighter, rule, strict=True)
        # "You cannot Delay into a later pass."
        require(
            cmd.into_pass in (0, t.pass_no),
            rule,
            f"{f.id} cannot Delay into pass {cmd.into_pass}: a Delay stays within the current pass "
            f"{t.pass_no} (behind a combatant who has not acted yet, or to the end of pass {t.pass_no})",
        )
        # "Your turn occurs at that later point": a delay moves the whole turn, before any action.
        if self.acted(state, f):
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
            other = self.fighter(state, cmd.after)
            require(other.id != f.id, rule, f"{f.id} cannot Delay behind itself")
            require(
                other.state("turn", TURN.initial) in to_come,
                rule,
                f"{other.id} has already acted or begun its turn in pass {t.pass_no} "
                f"({self.standing(state, other)}): a turn behind {other.id} would fall in pass "
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
        self.close_turn(b, f.id, "delay", rule, f"{f.id}'s turn moves {where}", dice)

    # --- hold --------------------------------------------------------------------

    @handles(Hold)
    def hold(self, b: Batch, cmd: Hold, dice: Dice) -> None:
        """hold: a specific action and a specific trigger; its AP is paid at once."""
        rule = self.rule("hold")
        state = b.state
        f = self.actor(state, cmd.fighter, rule, strict=True)
        costs = self.costs(state)
        # "A held action must be specific enough for the GM to determine when it triggers."
        require(
            cmd.action in costs,
            rule,
            f"{cmd.action!r} is not a specific action: hold one of {self.priced(costs)}",
        )
        require(
            bool(cmd.target.strip()),
            rule,
            f"a held {cmd.action} must name its target: add target=FIGHTER or target=x,y",
        )
        target = self.aim(state, cmd.target, rule)
        trigger = self.trigger(state, f, cmd.trigger)
        cost, left = costs[cmd.action], self.ap_left(f)
        require(
            left >= cost,
            rule,
            f"{f.id} has {left} of {self.ap(f)} AP left this round; holding {cmd.action} pays its "
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
                note=f"holds {cmd.action} at {target}: its {cost} AP are paid at once "
                f"({left} → {left - cost} of {self.ap(f)})",
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
                note=f"{f.id} holds {cmd.action} at {target} for: {text}; lost at {f.id}'s next turn if "
                "it has not happened by then",
            )
        )
        self.close_turn(b, f.id, "hold", rule, f"{f.id}'s turn ends on a held action", dice)

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
            require(bool(args), rule, "enemy-enters needs the cells it watches, e.g. enemy-enters 4,5 5,5")
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
            f"{kind} takes " + ("FIGHTER" if expected == 1 else "FIGHTER KIND") + f", got {' '.join(args)!r}",
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
        kinds = ["sprint", *self.costs(state)]
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

    def fire(self, b: Batch, what: Happened) -> None:
        """hold: every held action this happening triggers resolves now, interrupting."""
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
            self.act(
                b,
                fid,
                held["action"],
                held["target"],
                int(held["ap"]),
                rule,
                f"{fid}'s held {held['action']} at {held['target']} resolves at once, interrupting "
                f"({held['ap']} AP were paid when it was held)",
                held=True,
            )

    def settle(self, b: Batch, dice: Dice) -> None:
        """After every command: GM cell rulings only where the table allows them (difficult);
        every fact of the batch meets the held triggers (hold)."""
        if b.state.settings.get("difficult_rulings") == "cost-only":
            for e in b.events:
                if isinstance(e, ev.BoardMarked) and e.key in (FORBID, TEST):
                    before = [list(x) for x in b.start.marks.get(e.key, ())]
                    if any(list(x) not in before for x in e.value or ()):
                        raise Refusal(
                            self.rule("difficult"),
                            "this table plays difficult terrain by its cost alone (difficult_rulings = "
                            "'cost-only'): no GM test or forbid rulings on cells",
                        )
        if not any(HELD in f.marks for f in b.state.fighters):
            return
        for e in list(b.events):
            for what in happenings(e):
                self.fire(b, what)


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


class _Walking:
    """How a step is priced under round-meters: the diagonal rule, doubled on difficult terrain."""

    def __init__(self, rs: RoundMeters, state: EncounterState) -> None:
        self.rs = rs
        self.unit = rs.unit
        self.grid = state.grid

    def price(self, state: EncounterState, f: Fighter, frm: Pos, to: XY, parity: int) -> Step:
        grid = state.grid
        if grid.blocked(*to):
            raise Refusal(
                self.rs.rule("round-budget"),
                f"{show(to)} is {grid.kind(*to).terrain}: a circumstance no move can pass",
            )
        # difficult: "Each meter moved through Difficult Terrain costs 2 meters of Movement."
        factor = DIFFICULT_FACTOR if self.rs.difficult(state, to) else 1
        return flat_step(grid, frm, to, parity, diagonal=state.settings["diagonal"], terrain_factor=factor)

    def cites(self, step: Step) -> tuple[str, ...]:
        """walk adds these to the Moved event: difficult, when this step paid double."""
        x, y = step.to[0], step.to[1]
        return (self.rs.rule("difficult"),) if any(self.grid.has(x, y, t) for t in DIFFICULT_TAGS) else ()

    def test_modifier(self, state: EncounterState, fighter_id: str) -> tuple[int, str]:
        """sprint: a test the GM requires on a cell carries the sprint penalty too."""
        f = state.fighter(fighter_id)
        pen = self.rs.penalty(f) if f is not None else 0
        return pen, (f"sprint penalty {pen} this round" if pen else "")

    def eventful(self, state: EncounterState, f: Fighter, step: Step) -> bool:
        """A cell some held action watches: the walk pauses there so the held action can interrupt."""
        return bool(self.rs.watching(state, Happened("enters", f.id, (step.to[0], step.to[1]))))

    def on_step(self, b: Batch, fighter_id: str, step: Step) -> str:
        self.rs.fire(b, Happened("enters", fighter_id, (step.to[0], step.to[1])))
        return ""  # the held action does not stop the move by itself

    def can_end(self, state: EncounterState, f: Fighter) -> None:
        others = [o.id for o in state.at(f.pos[0], f.pos[1]) if o.id != f.id]
        if others:
            raise Refusal(
                self.rs.rule("round-budget"),
                f"the move would end on {show(f.pos)}, where {', '.join(others)} stands",
            )

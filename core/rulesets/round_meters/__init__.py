"""round-meters: the movement chapter of document 001_f4ae7af380350405.txt.

Rule ids are the catalogue's `round-meters/<rule>`; each is cited next to the code
that enforces it. Where the document is silent, the choice below is a Setting a
table can change (`tabletrail rules round-meters` lists them):

- Budgets. `movement` (meters) and `ap` are per-round stats. Both refresh when a
  round starts, never when a turn starts: meters moved stay spent across a
  fighter's turns in that round (round-budget). A Sprint's extra meters are a
  negative `Spent` of movement, so they vanish with the round's refresh too;
  people are told them as the document counts them (`spent_counted`, `allowed`):
  the Movement allowed goes up, the meters moved never go down.
- The way. The document names no diagonal rule (`diagonal`, house default
  euclidean) and says nothing of others on a move's way: anyone may be passed
  and no one ended on (`fighters_in_the_way`; enemies-block as document 004 reads).
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

Where each rule's code lives (rule ids are cited next to the code): the ruleset
is one class, `RoundMeters`, made of parts, one a family of rules, each called
in every hook in the order `parts` lists them. A part knows no other part:
what two families share is the ruleset's, and a part reaches it as
`self.rs.<method>`, typed by part.py's `RoundRules`, never by importing this
package (which imports the parts): the imports run one way, this on top.

- here, `RoundMeters`: the catalogue (rules, settings, stats), the scenario's
  checks, the round's budgets (AP, meters, the sprint penalty), who acts now
  (the TURN machine's states in words; the engine's turn order handed to
  `Passes`), naming an action's price and target, and what one family offers
  the others (firing held actions, recording an action, a test, a Sprint's
  test, ending a turn);
- part.py: what the families see of the ruleset (`RoundRules`), their base
  (`RoundPart`), and `Happened`, what a held trigger watches for;
- marks.py: the document's numbers, the marks, the turn states;
- walking.py, `Walking`: round-budget, move-free, difficult (and the GM's
  difficult rulings);
- passes.py, `Passes`: passes (rounds, passes, turns, the idle turn's AP);
- actions.py, `Actions`: the table's actions and their AP (passes);
- sprint.py, `Sprinting`: sprint (and the tests its penalty follows);
- delay.py, `Delaying`: delay;
- hold.py, `Holding`: hold (the trigger vocabulary, firing, losing a held
  action).
"""

from __future__ import annotations

from typing import Any

from tabletrail.core.rulesets.round_meters.actions import Actions, parse_costs
from tabletrail.core.rulesets.round_meters.delay import Delaying
from tabletrail.core.rulesets.round_meters.hold import (
    TRIGGER_KINDS,
    TRIGGER_USAGE,
    Holding,
    happenings,
    parse_kinds,
)
from tabletrail.core.rulesets.round_meters.marks import (
    ACTING,
    ACTION,
    DELAY_IDLE_AP,
    DELAYED,
    DELAYED_STATE,
    DIFFICULT_FACTOR,
    DIFFICULT_TAGS,
    DONE,
    HELD,
    HOLDING,
    SPRINT_AP,
    SPRINT_METERS,
    SPRINT_PENALTY,
    SPRINTS,
    WAITING,
)
from tabletrail.core.rulesets.round_meters.part import Happened, RoundRules
from tabletrail.core.rulesets.round_meters.passes import Passes
from tabletrail.core.rulesets.round_meters.sprint import Sprinting
from tabletrail.core.rulesets.round_meters.walking import Walking
from tabletrail.ruleset_api import (
    DIAGONAL_RULES,
    EUCLIDEAN,
    TURN,
    Batch,
    CheckRolled,
    Dice,
    EncounterState,
    EndTurn,
    Fighter,
    InputError,
    Refusal,
    Rule,
    Ruleset,
    Scenario,
    Setting,
    Stat,
    handles,
    parse_cell,
    require,
    show,
)

__all__ = [
    "ACTING",
    "ACTION",
    "DELAYED",
    "DELAYED_STATE",
    "DELAY_IDLE_AP",
    "DIFFICULT_FACTOR",
    "DIFFICULT_TAGS",
    "DONE",
    "HELD",
    "HOLDING",
    "Happened",
    "RoundMeters",
    "SPRINTS",
    "SPRINT_AP",
    "SPRINT_METERS",
    "SPRINT_PENALTY",
    "TRIGGER_KINDS",
    "TRIGGER_USAGE",
    "WAITING",
    "happenings",
    "parse_costs",
    "parse_kinds",
    "setting_error",
]


class RoundMeters(Ruleset):
    """Movement meters and AP per round, in initiative passes; Sprints, Delays and held actions."""

    # Each hook runs its parts in this order: the GM's difficult rulings are refused (walking)
    # before any held action fires on the batch's facts (hold).
    parts = (Walking, Passes, Actions, Sprinting, Delaying, Holding)
    id = "round-meters"
    title = "Movement per round, AP for actions"
    document = "001_f4ae7af380350405.txt"
    unit = "m"
    rules = (
        Rule(
            "round-budget",
            "Movement meters per round, spendable in pieces across the character's turns and between "
            "actions; spent meters stay spent until the next round",
            "the document names no diagonal rule: a diagonal step costs its Euclidean length, 1.41 m, "
            "or by every-1, alternating or manhattan (setting diagonal); it says nothing of others on "
            "the way: anyone may be passed and no one ended on, or enemies block, as document 004 "
            "reads (setting fighters_in_the_way)",
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
            "cost of a diagonal step: every-1, alternating (1, 2, 1, 2... counted over "
            "the round's Movement, across commands and turns), "
            "euclidean, manhattan (house default euclidean: the document names no diagonal rule)",
            DIAGONAL_RULES,
            "round-meters/round-budget",
        ),
        Setting(
            "fighters_in_the_way",
            "pass-anyone",
            "others on a move's way: 'pass-anyone' (house default: the document says nothing of them; "
            "a move passes friend and foe and ends on no one) or 'enemies-block' (a move never passes "
            "an enemy's cell, as document 004 reads: 'Cannot move through spaces occupied by enemies')",
            ("pass-anyone", "enemies-block"),
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
            "whether a later Sprint's own Athletics test carries the penalty of earlier Sprints; no "
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
            "round-meters/passes",  # an ordinary idle turn; a delayed one is delay's 1 AP
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
        Setting(
            "hold_ends_turn",
            False,
            "whether holding an action ends the holder's turn. Default no, as the document reads: the "
            "Hold section never ends the turn, and Movement may come 'before, after, or between actions', "
            "so the holder may move on after holding; yes ends the turn on the hold",
            (),
            "round-meters/hold",
        ),
        Setting(
            "delay_before_action",
            True,
            "a Delay moves the whole turn, so it comes before any action of that turn (house default: "
            "'Your turn occurs at that later point'); no lets a combatant delay after acting",
            (),
            "round-meters/delay",
        ),
    )
    stats = (
        Stat("movement", "Movement: meters a character may move each round", length=True),
        Stat("ap", "action points each round"),
        Stat("athletics", "modifier added to the character's Athletics tests", default=0),
    )
    posture_rules = ("", "")

    # --- settings and stats ------------------------------------------------------------------

    def check_settings(self, settings: dict[str, Any]) -> tuple[str, str] | None:
        """The checks only this ruleset knows: text lists, positive numbers."""
        return setting_error(settings)

    def validate(self, scenario: Scenario, where: str) -> None:
        """The base's stat checks, then AP and Athletics whole numbers (a stat may be any number)."""
        super().validate(scenario, where)
        for i, spec in enumerate(scenario.fighters):
            for name in ("ap", "athletics"):
                value = spec.stats.get(name, 0)
                if not float(value).is_integer():
                    raise InputError(f"{where}: fighters[{i}].{name}: expected a whole number, got {value}")

    # --- budgets as people are told them (the table view, the ruler) ------------------------

    def spent_counted(self, state: EncounterState, f: Fighter) -> dict[str, int]:
        """round-budget, sprint: Movement spent is the meters moved, which "remains spent" until the
        next round; a Sprint's gain is kept as negative spending, so it is added back here."""
        spent = dict(f.spent)
        if "movement" in spent or self.sprinted(f):
            spent["movement"] = f.used("movement") + self.sprinted(f)
        return spent

    def allowed(self, state: EncounterState, f: Fighter, resource: str) -> int | None:
        """round-budget, sprint: the Movement this round, "+2 meters" gained for each positive Hit."""
        return self.stat(f, "movement") + self.sprinted(f) if resource == "movement" else None

    def move_root2(self, state: EncounterState, f: Fighter) -> int:
        """Every move shares the budget (walk carries it): its exact remainder counts."""
        return state.root2(f.id, "movement")

    def further_budget(self, state: EncounterState, f: Fighter) -> tuple[int, str]:
        """sprint: 1 AP buys +2 m of Movement per positive Hit; the ruler shows one Hit's worth."""
        if self.ap_left(f) < SPRINT_AP:
            return 0, ""
        return SPRINT_METERS, f"a Sprint ({SPRINT_AP} AP) with one positive Hit"

    # --- budgets: AP, meters, the sprint penalty ---------------------------------------------

    def ap(self, f: Fighter) -> int:
        """passes: the fighter's AP each round (a stat)."""
        return int(self.stat(f, "ap"))

    def ap_left(self, f: Fighter) -> int:
        """passes: AP this round less what actions, holds and idle turns spent."""
        return self.ap(f) - f.used("ap")

    def meters_left(self, f: Fighter) -> int:
        """round-budget: Movement this round (sprints included) less what was moved, in centi-units."""
        movement: int = self.stat(f, "movement")  # a length: whole centi-units
        return movement - f.used("movement")

    def sprinted(self, f: Fighter) -> int:
        """sprint: the meters of Movement this round's Sprints gained, in centi-units."""
        return int(f.marks.get(SPRINTS, {}).get("meters", 0))

    def penalty(self, f: Fighter) -> int:
        """sprint: the cumulative penalty to the fighter's other tests this round."""
        return int(f.marks.get(SPRINTS, {}).get("penalty", 0))

    def costs(self, state: EncounterState) -> dict[str, int]:
        """passes: the table's actions and their AP (the action_costs setting)."""
        try:
            return parse_costs(str(state.settings["action_costs"]))
        except ValueError as exc:
            raise Refusal(self.rule("passes"), f"the action_costs setting is unreadable: {exc}") from None

    # --- naming an action --------------------------------------------------------------------

    def priced(self, costs: dict[str, int]) -> str:
        """The actions a refusal offers instead, with their AP ("shoot 2 AP, reload 1 AP")."""
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

    # --- the TURN machine: who acts now (passes.py runs the order) ---------------------------

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

    def begin(self, b: Batch, dice: Dice) -> None:
        """passes: the first turn of the encounter is the first of pass 1."""
        self.part(Passes).next_turn(b, dice)

    def advance(self, b: Batch, dice: Dice) -> None:
        """passes: the next turn of this pass, or a new pass, or a new round."""
        self.part(Passes).next_turn(b, dice)

    @handles(EndTurn)
    def end_turn_command(self, b: Batch, cmd: EndTurn, dice: Dice) -> None:
        """passes, hold: a turn ends (holding, if it holds an action) and the next one starts."""
        self.part(Passes).end_turn_asked(b, cmd, dice)

    # --- what one family offers the others ---------------------------------------------------

    def close_turn(self, b: Batch, fighter_id: str, trigger: str, rule: str, note: str, dice: Dice) -> None:
        """passes: end the fighter's turn by a TURN trigger (finish, delay, hold) and pass it on."""
        self.part(Passes).close_turn(b, fighter_id, trigger, rule, note, dice)

    def watching(self, state: EncounterState, what: Happened) -> list[str]:
        """hold: holders whose trigger this happening meets, in initiative order (a walk pauses there)."""
        return self.part(Holding).watching(state, what)

    def fire(self, b: Batch, what: Happened, dice: Dice) -> None:
        """hold: every held action this happening (a step, a move, an action) triggers resolves now."""
        self.part(Holding).fire(b, what, dice)

    def resolve_held(self, b: Batch, dice: Dice, fighter_id: str, held: dict[str, Any], note: str) -> None:
        """hold: a held action is taken now, its AP paid when it was held; a held Sprint resolves like
        any Sprint: its Athletics test, its meters, its penalty."""
        rule = self.rule("hold")
        self.act(b, dice, fighter_id, held["action"], held["target"], int(held["ap"]), rule, note, held=True)
        if held["action"] == "sprint":
            self.sprint_test(b, dice, fighter_id)

    def act(
        self,
        b: Batch,
        dice: Dice,
        fighter_id: str,
        kind: str,
        target: str,
        ap: int,
        rule: str,
        note: str,
        *,
        held: bool = False,
    ) -> None:
        """passes: record one action, after the held actions it triggers, and pay its AP."""
        self.part(Actions).act(b, dice, fighter_id, kind, target, ap, rule, note, held=held)

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
        """sprint: one test, carrying the sprint penalty in force (an action's test too)."""
        return self.part(Sprinting).test(
            b, dice, fighter_id, name, rule, target, bonus=bonus, bonus_why=bonus_why, penalised=penalised
        )

    def sprint_test(self, b: Batch, dice: Dice, fighter_id: str) -> None:
        """sprint: the Athletics test, +2 m this round per positive Hit, and the cumulative penalty."""
        self.part(Sprinting).sprint_test(b, dice, fighter_id)


def _serves(rs: RoundMeters) -> RoundRules:
    """Never called: mypy checks here that RoundMeters has every method its parts reach as `self.rs`."""
    return rs


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

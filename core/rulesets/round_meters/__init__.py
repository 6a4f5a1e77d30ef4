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

Where each rule's code lives (rule ids are cited next to the code):

- here, `RoundMeters`: the catalogue (rules, settings, stats), the scenario's
  checks, and `settle` (difficult rulings, held triggers met by any fact);
- shared.py: the document's numbers, the marks, the round's budgets;
- passes.py: passes (rounds, passes, turns, the idle turn's AP);
- walking.py: round-budget, move-free, difficult;
- actions.py: the table's actions and their AP (passes);
- sprint.py: sprint (and the tests its penalty follows);
- delay.py: delay;
- hold.py: hold (the trigger vocabulary, firing, losing a held action).
"""

from __future__ import annotations

from typing import Any

from tabletrail.core.rulesets.round_meters.delay import Delaying
from tabletrail.core.rulesets.round_meters.hold import (
    TRIGGER_KINDS,
    TRIGGER_USAGE,
    Happened,
    happenings,
    parse_kinds,
)
from tabletrail.core.rulesets.round_meters.shared import (
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
    parse_costs,
)
from tabletrail.core.rulesets.round_meters.sprint import Sprinting
from tabletrail.core.rulesets.round_meters.table_view import TableView
from tabletrail.core.rulesets.round_meters.walking import Walking
from tabletrail.ruleset_api import (
    DIAGONAL_RULES,
    EUCLIDEAN,
    FORBID,
    TEST,
    Batch,
    Dice,
    InputError,
    Refusal,
    Rule,
    Scenario,
    Setting,
    Stat,
)
from tabletrail.ruleset_api import events as ev

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


class RoundMeters(Walking, Sprinting, Delaying):
    parts = (TableView,)  # what the table view shows of its marks
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
        super().validate(scenario, where)
        for i, spec in enumerate(scenario.fighters):
            for name in ("ap", "athletics"):
                value = spec.stats.get(name, 0)
                if not float(value).is_integer():
                    raise InputError(f"{where}: fighters[{i}].{name}: expected a whole number, got {value}")

    # --- after every command -----------------------------------------------------------------

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
                self.fire(b, what, dice)


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

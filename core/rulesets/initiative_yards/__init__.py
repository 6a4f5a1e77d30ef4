"""initiative-yards: the movement chapter of document 000_764c39d2887f9ddf.txt.

Rule ids are the catalogue's `initiative-yards/<rule>`; each is cited next to the code
that enforces it.

How a turn works here. A fighter has one move action a turn: it may cover up to its
Initiative in yards, and every `move`, `drag`, `vault`, `leap` and `pull-up` of the turn
draws on that one budget, so a move may be split around the turn's non-move action
(`act`, combined). Dropping prone or standing up uses the movement (prone-drop,
prone-stand). A prone fighter's drag crawls at 2 a yard on the halved move (setting
prone_drag). The moves the document calls attempts end in an Initiative check, whose
number the table enters (`roll=N`) or the seeded dice draw; a failure has its
consequence in the same batch. A fall stops the walk where the faller lands,
prone; it keeps what is left of its movement to crawl on with (setting
fall_rest: the text, unlike its slippery rule, never takes it).

Map conventions: stairs and ladders are climbed by walking (climb); any cell higher than
the fighter stands (a `ledge` cell, a roof's edge, the rim of a gap it fell into) is
climbed with `pull-up`; an `obstacle` cell (with its `height`), or any cell raised less than
half the fighter's height, is crossed with `vault`;
`gap` cells, and any ground lower than the take-off (the street between two roofs), are
crossed with `leap`, and a gap's floor is its `ground` (write `ground = -4` for a gap 4 yd
deep beside ground at 0). Fighter entries tagged `object`
are movable objects: they take no turns, have no Reach, and can be dragged.

The ruleset is one class made of parts, one a family of rules (core/engine/ruleset.py
`Part`): each handles its own commands and takes part in the hooks, and knows
no other part. What two families share belongs to the ruleset class, or, where
it only reads the board, to board.py's functions. Where each rule's code lives
(rule ids are cited next to the code):

- here, `InitiativeYards`: the catalogue (rules, settings, stats), the
  scenario's checks, the turn's start (move, combined), the move action's
  budget and the Initiative check every attempt ends in, dropping prone and
  standing up with the movement (prone-drop, prone-stand), doors used as part
  of the move (engaged-actions), and what one family asks of another;
- part.py: `YardsPart`, every family's base, and `YardsRules`, all the families ask of
  the ruleset (its shared methods above), so no part module imports this one;
- walk.py: `Walk`, the step policy every kind of move prices its steps with, and what a
  step asks of the ruleset (`WalkRules`);
- board.py: the marks, `hostile`, and reading Reach and engagement off the board;
- walking.py: move, crawl, climb, slippery;
- jumps.py: ledge, vault, leap;
- falls.py: fall;
- dragging.py: drag;
- actions.py: combined;
- engagement.py: engage, engaged-actions, engage-break;
- table_view.py: a Strike awaiting its outcome, as the table view shows it.
"""

from __future__ import annotations

from typing import Any

from tabletrail.core.rulesets.initiative_yards.actions import Actions
from tabletrail.core.rulesets.initiative_yards.board import (
    CLIMBABLE,
    CRAWL_FACTOR,
    DRAGGING,
    ENGAGED,
    ENGAGED_ACTIONS,
    FELL,
    OBJECT,
    REACH,
    SLIP_CHECKED,
    STRIKING,
    engaged_with,
    hostile,
)
from tabletrail.core.rulesets.initiative_yards.dragging import Dragging
from tabletrail.core.rulesets.initiative_yards.engagement import Engagement
from tabletrail.core.rulesets.initiative_yards.falls import Falls, fall_damage
from tabletrail.core.rulesets.initiative_yards.jumps import Jumps
from tabletrail.core.rulesets.initiative_yards.part import YardsRules
from tabletrail.core.rulesets.initiative_yards.table_view import TableView
from tabletrail.core.rulesets.initiative_yards.walk import Walk
from tabletrail.core.rulesets.initiative_yards.walking import Walking
from tabletrail.ruleset_api import (
    CU,
    DIAGONAL_RULES,
    DIAGONALS,
    ENGINE_TURN,
    EUCLIDEAN,
    XY,
    Batch,
    CheckRolled,
    CloseDoor,
    Dice,
    EncounterState,
    Fighter,
    InputError,
    OpenDoor,
    Pos,
    Rule,
    Ruleset,
    Scenario,
    Setting,
    Stat,
    check,
    fmt,
    half_down,
    handles,
    plural,
    require,
)
from tabletrail.ruleset_api import events as ev

__all__ = [
    "CLIMBABLE",
    "CRAWL_FACTOR",
    "DRAGGING",
    "ENGAGED",
    "ENGAGED_ACTIONS",
    "InitiativeYards",
    "OBJECT",
    "SLIP_CHECKED",
    "STRIKING",
    "fall_damage",
    "hostile",
    "negative_setting",
]


class InitiativeYards(Ruleset):
    """One move action of Initiative yards a turn, and what a fighter may do with it."""

    # The families of rules, each a part; every hook calls them in this order. It is the order their
    # handlers and hooks ran in when they were mixins (the reverse of that tower's MRO).
    parts = (Engagement, Actions, Falls, Walking, Dragging, Jumps, TableView)
    id = "initiative-yards"
    title = "Initiative yards per move action"
    document = "000_764c39d2887f9ddf.txt"
    unit = "yd"
    rules = (
        Rule(
            "move",
            "a move action moves up to Initiative yards; turning is free",
            "distances between cell centres; diagonal rule is a ruleset setting "
            "(default Euclidean, exact to 0.01 yd) (setting diagonal)",
        ),
        Rule(
            "prone-drop",
            "dropping prone is done with the movement",
            "it uses the whole movement of that move action (setting drop_prone_cost)",
        ),
        Rule(
            "prone-stand",
            "standing up from prone is done with the movement",
            "it uses the whole movement of that move action (setting stand_up_cost)",
        ),
        Rule("crawl", "while prone, every yard crawled costs 2"),
        Rule("climb", "stairs and ladders: vertical yards cost like horizontal ones"),
        Rule(
            "ledge",
            "jump-and-pull onto a ledge no higher than 1.5 x own height; costs its height in movement; "
            "Initiative check or fall from the top",
            "falling then applies from the ledge top (setting ledge_fall); the top of an obstacle too "
            "tall to vault is climbed onto the same way",
        ),
        Rule(
            "vault",
            "vault an obstacle lower than half own height without paying to climb it; "
            "Initiative check or land prone on the far side",
            "the vault costs the horizontal distance only (setting vault_cost)",
        ),
        Rule(
            "leap",
            "leap a gap no wider than half max movement; Initiative check or fall to the ground "
            "in the middle of the gap",
        ),
        Rule(
            "fall",
            "fall straight down, land prone, 1 damage per whole yard fallen past own height "
            "(1.5 yd tall, 4 yd fall: 2 damage)",
            "walking off an edge more than step_height down steps off and falls (setting step_off); "
            "the walk stops where the faller lands, prone, and it keeps what is left of its movement, "
            "to crawl on with: unlike its slippery rule, the text never takes it (setting fall_rest)",
        ),
        Rule(
            "drag",
            "drag a friendly or movable object that starts within 1 yd; move at half max movement; "
            "place it within 1 yd of the end",
            "while prone the drag is a crawl (2 a yard) on the halved move, a quarter of the ground "
            "(setting prone_drag)",
        ),
        Rule("combined", "a non-move action may be taken at any point of a move; the move then continues"),
        Rule(
            "engage",
            "entering an enemy's Reach, or an enemy's Reach reaching you during a move, engages both; "
            "the move ends there",
        ),
        Rule(
            "engaged-actions",
            "while engaged only Strike, Command and Manifest actions are allowed",
            "Move is refused (setting engaged_move)",
        ),
        Rule(
            "engage-break",
            "engagement ends only by resolving a combat; a standing fighter engaged only with prone "
            "fighters may move away freely",
        ),
        Rule(
            "slippery",
            "moving through or onto slippery/unstable terrain: Initiative check or drop prone and lose "
            "the rest of the movement",
            "one check per slippery cell entered (setting slippery_checks)",
        ),
    )
    settings = (
        Setting(
            "diagonal",
            EUCLIDEAN,
            "cost of a diagonal step: every-1, alternating (1, 2, 1, 2... counted over "
            "the whole move action, across its commands), "
            "euclidean (√2, exact: a path's length is the exact sum of its steps, a crawled diagonal "
            "2·√2 = 2.83, held against the move action exactly and rounded once), manhattan",
            DIAGONAL_RULES,
            "initiative-yards/move",
        ),
        Setting("check_formula", "1d20", "dice the seeded source rolls for a check (house default)"),
        Setting(
            "check_target",
            15,
            "an Initiative check passes when its roll, plus the fighter's Initiative in whole yards "
            "(see check_adds_initiative), reaches this number (house default: 1d20 + Initiative >= 15)",
        ),
        Setting(
            "check_adds_initiative",
            True,
            "add the fighter's Initiative in whole yards to an Initiative check's roll (house default); "
            "with no and check_target = 2 the table enters a pass as roll=2 and a failure as roll=1 "
            "(a table roll is a face of the d20: tabletrail/checks)",
        ),
        Setting(
            "drop_prone_cost",
            "whole",
            "what dropping prone spends: 'whole' the whole movement of the move action (none of it "
            "may be spent yet), 'rest' whatever is left of it",
            ("whole", "rest"),
            "initiative-yards/prone-drop",
        ),
        Setting(
            "stand_up_cost",
            "whole",
            "what standing up spends: 'whole' the whole movement of the move action (none of it "
            "may be spent yet), 'rest' whatever is left of it",
            ("whole", "rest"),
            "initiative-yards/prone-stand",
        ),
        Setting(
            "ledge_fall",
            "top",
            "where a failed jump-and-pull falls from: 'top' the ledge top (the fall counts the "
            "ledge's height), 'base' the fighter slides back down and lands prone without a fall",
            ("top", "base"),
            "initiative-yards/ledge",
        ),
        Setting(
            "vault_cost",
            "horizontal",
            "what a vault costs: 'horizontal' the distance across only, 'climb' also the obstacle's height",
            ("horizontal", "climb"),
            "initiative-yards/vault",
        ),
        Setting(
            "engaged_move",
            "refused",
            "'refused': an engaged fighter may not move at all; 'within-reach': it may shift while "
            "staying within the Reach that engages it with each of its foes",
            ("refused", "within-reach"),
            "initiative-yards/engaged-actions",
        ),
        Setting(
            "slippery_checks",
            "per-cell",
            "'per-cell': one Initiative check per slippery or unstable cell entered; 'per-move': one "
            "per move action",
            ("per-cell", "per-move"),
            "initiative-yards/slippery",
        ),
        Setting(
            "actions_per_turn",
            1,
            "non-move actions a fighter may take each turn besides its move action (house default)",
            (),
            "initiative-yards/combined",
        ),
        Setting(
            "step_height",
            0.0,
            "a rise or drop of up to this many yards is walked without stairs, ladder or ledge, at no "
            "extra cost (house default 0: every change of height needs one)",
            (),
            "initiative-yards/climb",
        ),
        Setting(
            "step_off",
            "fall",
            "walking off an edge more than step_height down (a roof, a ledge, a crate, into a gap): "
            "'fall' steps off and falls straight down by the fall rule (the walk stops there; what is "
            "left of the movement is as fall_rest says); 'refuse' it, so only stairs and ladders lead "
            "down (house default: the document is silent)",
            ("fall", "refuse"),
            "initiative-yards/fall",
        ),
        Setting(
            "fall_rest",
            "keep",
            "what is left of the move action after a fall (a step off an edge, a failed jump-and-pull, "
            "a missed leap): 'keep' (house default: the document says a faller 'falls strait down and "
            "drops prone', and unlike slippery ground never that it loses the rest of its movement; "
            "the faller may crawl on with it at 2 a yard) or 'lost' (the fall ends the move action, as "
            "a slip does)",
            ("keep", "lost"),
            "initiative-yards/fall",
        ),
        Setting(
            "prone_drag",
            "quarter",
            "a prone fighter dragging: 'quarter' (house default: a drag is 'a move as normal but half "
            "their maximum movement', and a prone fighter's move is a crawl at 2 a yard, so both "
            "halvings apply) or 'half' (they don't stack: while dragging, crawled yards cost 1)",
            ("quarter", "half"),
            "initiative-yards/drag",
        ),
    )
    stats = (
        Stat("initiative", "the Initiative value: yards a move action may cover", length=True),
        Stat("height", "the fighter's height in yards (ledges, vaults, falls)", length=True),
        Stat(
            "reach", "the fighter's Reach in yards (engagement); 1 when not given", length=True, default=REACH
        ),
    )
    posture_rules = ("initiative-yards/prone-drop", "initiative-yards/prone-stand")

    # --- the scenario ------------------------------------------------------------

    def check_settings(self, settings: dict[str, Any]) -> tuple[str, str] | None:
        """No negative count of actions, no negative step height."""
        return negative_setting(settings)

    def validate(self, scenario: Scenario, where: str) -> None:
        super().validate(scenario, where)
        for ch, kind in scenario.legend.items():
            if kind.depth and "gap" in kind.all_tags:
                raise InputError(
                    f"{where}: map.legend.{ch!r}.depth: {self.id} reads a gap's floor from its ground "
                    f"(a fall lands there): write ground = {kind.ground - kind.depth} instead of "
                    f"depth = {kind.depth}"
                )
        if all(OBJECT in f.tags for f in scenario.fighters):
            raise InputError(f"{where}: fighters: every entry is tagged {OBJECT!r}; someone must take turns")

    # --- turns ---------------------------------------------------------------------

    def start_turn(self, b: Batch, fighter_id: str, dice: Dice) -> None:
        """An object passes its turn on; a fighter gets a new move action and its non-move actions.

        One Refreshed renews both budgets (move, combined), so it is the ruleset's, as is lifting
        the marks that held for the last move action only; then each part's own turn start.
        """
        f = b.state.fighter(fighter_id)
        assert f is not None
        if OBJECT in f.tags:  # a movable object takes no turn: pass it on at once
            self.change(b, f, "turn", "finish", ENGINE_TURN, note=f"{f.id} is an object")
            b.emit(ev.TurnEnded(fighter=f.id, rules=(ENGINE_TURN,), note=f"{f.id} is an object"))
            self.advance(b, dice)
            return
        per = b.state.settings["actions_per_turn"]
        b.emit(
            ev.Refreshed(
                fighter=f.id,
                resources=("movement", "actions"),
                rules=(self.rule("move"), self.rule("combined")),
                note=f"a new move action of {fmt(self.initiative(f))} yd (Initiative) and "
                f"{plural(per, 'non-move action')}",
            )
        )
        for key in (DRAGGING, SLIP_CHECKED, FELL, DIAGONALS):
            self.unmark(b, f, key, self.rule("move"), "a new move action")
        super().start_turn(b, fighter_id, dice)

    # --- this turn's move action, which every kind of move spends ----------------------

    def initiative(self, f: Fighter) -> int:
        """move: the yards a move action may cover, in centi-yards."""
        initiative: int = self.stat(f, "initiative")  # a length: whole centi-units
        return initiative

    def max_move(self, state: EncounterState, f: Fighter) -> int:
        """This turn's move action at most: Initiative, halved while dragging (drag)."""
        full = self.initiative(f)
        return half_down(full) if DRAGGING in f.marks else full

    def left(self, state: EncounterState, f: Fighter) -> int:
        """What is still unspent of this turn's move action (every move, drag and jump spends it)."""
        return max(0, self.max_move(state, f) - f.used("movement"))

    def move_root2(self, state: EncounterState, f: Fighter) -> int:
        """Every move shares the budget (walk carries it): its exact remainder counts."""
        return state.root2(f.id, "movement")

    def initiative_check(self, b: Batch, dice: Dice, f: Fighter, rule: str, note: str) -> CheckRolled:
        """An Initiative check by the house formula (settings check_*), or the table's roll."""
        adds = b.state.settings["check_adds_initiative"]
        return check(
            b,
            dice,
            fighter=f.id,
            name="Initiative",
            rule=rule,
            target=int(b.state.settings["check_target"]),
            modifier=self.initiative(f) // CU if adds else 0,
            note=note,
        )

    # --- what one family asks of another, answered by the part whose rule it is ---------

    def go(
        self, b: Batch, f: Fighter, policy: Walk, cells: list[XY], dice: Dice, *, rule: str, what: str
    ) -> str:
        """Walk the cells on what is left of the move action (walking.py); a jump and a drag do too."""
        return self.part(Walking).go(b, f, policy, cells, dice, rule=rule, what=what)

    def mover(self, b: Batch, fighter_id: str, what: str) -> tuple[Fighter, tuple[Fighter, ...]]:
        """The acting fighter cleared to move, engaged as it is, and the foes it stays within Reach of
        (engaged-actions, engage-break: engagement.py)."""
        return self.part(Engagement).mover(b, fighter_id, what)

    def arrived(self, b: Batch, fighter_id: str, frm: Pos) -> str:
        """engage: wherever a fighter arrives (engagement.py); why a move ends there, or ""."""
        return self.part(Engagement).arrived(b, fighter_id, frm)

    def fall_down(
        self,
        b: Batch,
        fighter_id: str,
        cell: XY,
        from_z: int,
        cause: str,
        note: str,
        frm: Pos | None = None,
        said: str = "",
    ) -> str:
        """fall: straight down onto `cell`, prone, with its damage (falls.py); why a move ends there."""
        return self.part(Falls).fall_down(b, fighter_id, cell, from_z, cause, note, frm=frm, said=said)

    # --- doors and posture, with the movement ------------------------------------------

    @handles(OpenDoor)
    def open_door(self, b: Batch, cmd: OpenDoor, dice: Dice) -> None:
        """engaged-actions: a door is used as part of the move, so a fighter held by its engagement
        can't ("While engaged, fighters can only use the Strike, Command, and Manifest actions")."""
        self.mover(b, cmd.fighter, "opening a door")
        super().open_door(b, cmd, dice)

    @handles(CloseDoor)
    def close_door(self, b: Batch, cmd: CloseDoor, dice: Dice) -> None:
        """engaged-actions: closing a door is part of the move too."""
        self.mover(b, cmd.fighter, "closing a door")
        super().close_door(b, cmd, dice)

    def after_posture(self, b: Batch, f: Fighter, trigger: str) -> None:
        """prone-drop / prone-stand: the posture change is paid with the move action's movement."""
        drop = trigger == "drop_prone"
        rule = self.posture_rules[0] if drop else self.posture_rules[1]
        verb = "dropping prone" if drop else "standing up"
        foes = engaged_with(b.state, f.id)
        require(
            not foes,
            self.rule("engaged-actions"),
            f"{f.id} is engaged with {', '.join(o.id for o in foes)}: while engaged only Strike, Command "
            f"and Manifest are allowed, and {verb} is done with the movement",
        )
        cost = b.state.settings["drop_prone_cost" if drop else "stand_up_cost"]
        whole, used = self.max_move(b.state, f), f.used("movement")
        if cost == "whole":
            require(
                used == 0,
                rule,
                f"{verb} uses the whole movement of the move action ({fmt(whole)} yd), but "
                f"{fmt(used)} yd of it are already spent this turn",
            )
        left = self.left(b.state, f)
        require(left > 0, rule, f"{verb} is done with the movement, and {f.id} has none left this turn")
        b.emit(
            ev.Spent(
                fighter=f.id,
                resource="movement",
                amount=left,
                rules=(rule,),
                note=f"{verb} uses {'the whole' if cost == 'whole' else 'the rest of the'} movement: "
                f"{fmt(left)} yd",
            )
        )


def _serves(rs: InitiativeYards) -> YardsRules:
    """Never called: mypy checks here that the ruleset answers everything its parts ask of it
    (part.py's `YardsRules`), so the protocol can't drift from the methods it names."""
    return rs


def negative_setting(settings: dict[str, Any]) -> tuple[str, str] | None:
    """The first setting that must not be negative and is, with why; None if none is."""
    for name in ("actions_per_turn", "step_height"):
        if settings[name] < 0:
            return name, f"must not be negative, got {settings[name]}"
    return None

"""initiative-yards: the movement chapter of document 000_764c39d2887f9ddf.txt.

Rule ids are the catalogue's `initiative-yards/<rule>`; each is cited next to the code
that enforces it.

How a turn works here. A fighter has one move action a turn: it may cover up to its
Initiative in yards, and every `move`, `drag`, `vault`, `leap` and `pull-up` of the turn
draws on that one budget, so a move may be split around the turn's non-move action
(`act`, combined). Dropping prone or standing up uses the movement (prone-drop,
prone-stand). The moves the document calls attempts end in an Initiative check, whose
number the table enters (`roll=N`) or the seeded dice draw; a failure has its
consequence in the same batch.

Map conventions: stairs and ladders are climbed by walking (climb); any cell higher than
the fighter stands (a `ledge` cell, a roof's edge, the rim of a gap it fell into) is
climbed with `pull-up`; an `obstacle` cell (with its `height`) is crossed with `vault`;
`gap` cells are crossed with `leap`, and a gap's floor is its `ground` (write
`ground = -4` for a gap 4 yd deep beside ground at 0). Fighter entries tagged `object`
are movable objects: they take no turns, have no Reach, and can be dragged.
"""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace
from tabletrail.core.batch import Batch
from tabletrail.core.dice import Dice, check
from tabletrail.core.falling import fall
from tabletrail.core.geometry import EUCLIDEAN, XY, Pos, distance, line, show
from tabletrail.core.movement import flat_step, rise, walk
from tabletrail.core.refusal import Refusal, require
from tabletrail.core.ruleset import ENGINE_TURN, Rule, Ruleset, Setting, Stat, handles
from tabletrail.core.state import EncounterState, Fighter
from tabletrail.core.units import CU, fmt, half_down, to_cu
from tabletrail.events import types as ev
from tabletrail.events.commands import Cell, Move
from tabletrail.events.commands.initiative_yards import Act, Drag, Leap, PullUp, Resolve, Vault
from tabletrail.events.errors import InputError
from tabletrail.events.scenario import Scenario
from tabletrail.events.types import CheckRolled, Step

ENGAGED = "engaged"  # the Linked kind of an engaged pair, and the ENGAGEMENT state
OBJECT = "object"  # a fighter entry with this tag is a movable object, not a fighter
ENGAGED_ACTIONS = ("strike", "command", "manifest")  # engaged-actions: all an engaged fighter may do
CRAWL_FACTOR = 2  # crawl: every yard crawled costs 2
CLIMBABLE = ("stairs", "ladder")
DRAGGING = "dragging"  # mark: this turn's move action drags someone, so it is halved
SLIP_CHECKED = "slip_checked"  # mark: this move action has had its slippery check (per-move)
STRIKING = "striking"  # mark: the fighter's Strike awaiting the table's outcome


class InitiativeYards(Ruleset):
    id = "initiative-yards"
    title = "Initiative yards per move action"
    document = "000_764c39d2887f9ddf.txt"
    unit = "yd"
    rules = (
        Rule(
            "move",
            "a move action moves up to Initiative yards; turning is free",
            "distances between cell centres; diagonal rule is a ruleset setting "
            "(default Euclidean, exact to 0.01 yd)",
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
            "falling then applies from the ledge top (setting ledge_fall)",
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
        ),
        Rule(
            "drag",
            "drag a friendly or movable object that starts within 1 yd; move at half max movement; "
            "place it within 1 yd of the end",
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
            "cost of a diagonal step: every-1, alternating, euclidean, manhattan",
            ("every-1", "alternating", "euclidean", "manhattan"),
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
            "with false and check_target = 1 the table enters a pass as roll=1 and a failure as roll=0",
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
    )
    stats = (
        Stat("initiative", "the Initiative value: yards a move action may cover", length=True),
        Stat("height", "the fighter's height in yards (ledges, vaults, falls)", length=True),
        Stat("reach", "the fighter's Reach in yards (engagement); 1 when not given", length=True, default=1),
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

    # --- reading the board ---------------------------------------------------------

    def initiative(self, f: Fighter) -> int:
        return self.stat(f, "initiative")

    def max_move(self, state: EncounterState, f: Fighter) -> int:
        """This turn's move action at most: Initiative, halved while dragging (drag)."""
        full = self.initiative(f)
        return half_down(full) if DRAGGING in f.marks else full

    def left(self, state: EncounterState, f: Fighter) -> int:
        return max(0, self.max_move(state, f) - f.used("movement"))

    def reach_of(self, f: Fighter) -> int:
        return 0 if OBJECT in f.tags else self.stat(f, "reach")

    def engaged_with(self, state: EncounterState, fighter_id: str) -> list[Fighter]:
        return [state.fighter(o) for o in state.linked(ENGAGED, fighter_id)]  # type: ignore[misc]

    def within_reach(
        self, state: EncounterState, f: Fighter, at: Pos, other: Fighter
    ) -> tuple[bool, int, int]:
        """Is `other` within Reach of `f` standing at `at` (either one's Reach counts)?

        Returns (inside, horizontal distance, the Reach that counts). Height counts too:
        a foe more than a Reach above or below is out of it.
        """
        d = distance(state.settings["diagonal"], at, other.pos)
        r = max(self.reach_of(f), self.reach_of(other))
        return d <= r and abs(at[2] - other.pos[2]) <= r, d, r

    def newly_in_reach(
        self, state: EncounterState, f: Fighter, frm: Pos, to: Pos
    ) -> list[tuple[Fighter, int, int]]:
        """Enemies a step from `frm` to `to` brings within Reach (engage)."""
        out = []
        linked = set(state.linked(ENGAGED, f.id))
        for other in state.fighters:
            if not hostile(f, other) or other.id in linked:
                continue
            inside, d, r = self.within_reach(state, f, to, other)
            if inside and not self.within_reach(state, f, frm, other)[0]:
                out.append((other, d, r))
        return out

    def slips(self, state: EncounterState, f: Fighter, step: Step) -> bool:
        """Does entering this step's cell call for a slippery check (slippery)?"""
        grid = state.grid
        x, y = step.to[0], step.to[1]
        if not (grid.has(x, y, "slippery") or grid.has(x, y, "unstable")):
            return False
        return not (state.settings["slippery_checks"] == "per-move" and SLIP_CHECKED in f.marks)

    # --- shared mechanics ----------------------------------------------------------

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

    def fall_down(self, b: Batch, fighter_id: str, cell: XY, from_z: int, cause: str, note: str) -> int:
        """fall: straight down onto `cell`, prone, 1 damage per whole yard past own height."""
        rules = (self.rule(cause), self.rule("fall"))
        fallen = fall(b, fighter_id, cell, rules=rules, note=note, from_z=from_z)
        f = b.state.fighter(fighter_id)
        assert f is not None
        height = self.stat(f, "height")
        damage = fall_damage(fallen, height)
        if damage:
            b.emit(
                ev.Damaged(
                    fighter=fighter_id,
                    amount=damage,
                    cause="fall",
                    rules=(self.rule("fall"),),
                    note=f"fell {fmt(fallen)} yd, {fmt(fallen - height)} yd past own height "
                    f"{fmt(height)} yd: {damage} damage (1 per whole yard)",
                )
            )
        return damage

    def engage(self, b: Batch, f: Fighter, foes: list[tuple[Fighter, int, int]]) -> None:
        """engage: link the pair and put both in the ENGAGEMENT graph's engaged state."""
        rule = self.rule("engage")
        for other, d, r in foes:
            a, c = sorted((f.id, other.id))
            why = (
                f"{f.id} at {show(b.state.fighter(f.id).pos)} is {fmt(d)} yd from {other.id}, "  # type: ignore[union-attr]
                f"within a Reach of {fmt(r)} yd: both are engaged"
            )
            b.emit(ev.Linked(kind=ENGAGED, a=a, b=c, rules=(rule,), note=why))
            for fid in (f.id, other.id):
                who = b.state.fighter(fid)
                assert who is not None
                if who.state("engagement", "free") == "free":
                    self.change(b, who, "engagement", "engage", rule, note=why)

    def unlink(self, b: Batch, one: str, two: str, trigger: str, rule: str, note: str) -> None:
        """End one engaged pair; a fighter with no engagement left is free again."""
        a, c = sorted((one, two))
        b.emit(ev.Unlinked(kind=ENGAGED, a=a, b=c, rules=(rule,), note=note))
        for fid in (one, two):
            if not b.state.linked(ENGAGED, fid):
                who = b.state.fighter(fid)
                assert who is not None
                self.change(b, who, "engagement", trigger, rule, note=note)

    def cell(self, state: EncounterState, raw: Cell, rule: str) -> XY:
        require(len(raw) >= 2, rule, f"{raw!r} is not a cell; write x,y")
        require(
            state.grid.inside(raw[0], raw[1]),
            rule,
            f"{show(raw)} is off the {state.grid.width}x{state.grid.height} map",
        )
        return raw[0], raw[1]

    def cells(self, state: EncounterState, f: Fighter, path: tuple[Cell, ...], rule: str) -> list[XY]:
        """The cells a path of waypoints walks through, joined by straight lines."""
        here = (f.pos[0], f.pos[1])
        cells: list[XY] = []
        for raw in path:
            wp = self.cell(state, raw, rule)
            if wp != here:
                cells.extend(line(here, wp))
                here = wp
        require(bool(cells), rule, f"{f.id} is already at {show(f.pos)}")
        return cells

    # --- who may move --------------------------------------------------------------

    def clearance(self, state: EncounterState, f: Fighter) -> tuple[str, list[Fighter]]:
        """May this fighter move, engaged as it is? Returns how, and the foes it is engaged with.

        "free": not engaged. engage-break: "break", a standing fighter engaged only with
        prone fighters breaks away as it moves. engaged-actions: "tether", the
        engaged_move setting lets it shift within their Reach; "held", Move is refused.
        """
        foes = self.engaged_with(state, f.id)
        if not foes:
            return "free", foes
        standing = f.state("posture", "standing") == "standing"
        if standing and all(o.state("posture", "standing") == "prone" for o in foes):
            return "break", foes
        return ("tether" if state.settings["engaged_move"] == "within-reach" else "held"), foes

    def mover(self, b: Batch, fighter_id: str, what: str) -> tuple[Fighter, tuple[Fighter, ...]]:
        """The acting fighter, cleared to move; also the foes it must stay within Reach of."""
        f = self.acting(b.state, fighter_id)
        require(OBJECT not in f.tags, self.rule("move"), f"{f.id} is a movable object: it is only dragged")
        how, foes = self.clearance(b.state, f)
        if how == "break":
            for o in foes:
                self.unlink(
                    b,
                    f.id,
                    o.id,
                    "break_away",
                    self.rule("engage-break"),
                    f"{f.id} is standing and {o.id} is prone: {f.id} breaks away freely as it moves",
                )
            return b.state.fighter(f.id), ()  # type: ignore[return-value]
        if how == "held":
            upright = [o.id for o in foes if o.state("posture", "standing") != "prone"]
            why = (
                f"{f.id} is prone"
                if f.state("posture", "standing") == "prone"
                else f"{', '.join(upright)} {'is' if len(upright) == 1 else 'are'} not prone"
            )
            raise Refusal(
                self.rule("engaged-actions"),
                f"{f.id} is engaged with {', '.join(o.id for o in foes)}: while engaged only Strike, "
                f"Command and Manifest are allowed, so {what} is refused; a combat must be resolved "
                f"first ({why}, so {self.rule('engage-break')} does not free it)",
            )
        return f, tuple(foes) if how == "tether" else ()

    def not_prone(self, f: Fighter, rule: str, what: str) -> None:
        require(
            f.state("posture", "standing") != "prone",
            self.rule(rule),
            f"{f.id} is prone and can only crawl: stand up before {what}",
        )

    # --- turns ---------------------------------------------------------------------

    def start_turn(self, b: Batch, fighter_id: str, dice: Dice) -> None:
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
                f"{per} non-move action(s)",
            )
        )
        for key in (DRAGGING, SLIP_CHECKED):
            if key in f.marks:
                b.emit(
                    ev.Unmarked(fighter=f.id, key=key, rules=(self.rule("move"),), note="a new move action")
                )
        if STRIKING in f.marks:  # engage-break: a Strike is resolved before its striker's next turn
            b.emit(
                ev.Unmarked(
                    fighter=f.id,
                    key=STRIKING,
                    rules=(self.rule("engage-break"),),
                    note=f"the Strike at {f.marks[STRIKING]} was never resolved: it lapses",
                )
            )

    def walker(self, state: EncounterState, f: Fighter) -> _Walk | None:
        if OBJECT in f.tags:
            return None
        how, foes = self.clearance(state, f)
        if how == "held":
            return None
        return _Walk(self, None, tether=tuple(foes) if how == "tether" else ())

    def move_budget(self, state: EncounterState, f: Fighter) -> int:
        return self.left(state, f)

    # --- moving ----------------------------------------------------------------------

    def go(
        self,
        b: Batch,
        f: Fighter,
        policy: _Walk,
        cells: list[XY],
        dice: Dice,
        *,
        rule: str,
        what: str,
    ) -> str:
        """Walk the cells on what is left of this turn's move action; returns why it stopped early."""
        left = self.left(b.state, f)
        require(
            left > 0,
            rule,
            f"{f.id} has no movement left this turn: {fmt(f.used('movement'))} of "
            f"{fmt(self.max_move(b.state, f))} yd spent",
        )
        cited = {self.rule("move"), rule}
        if f.state("posture", "standing") == "prone":
            cited.add(self.rule("crawl"))
        if DRAGGING in f.marks:
            cited.add(self.rule("drag"))
        if policy.tether:
            cited.add(self.rule("engaged-actions"))
        first = len(b.events)
        _, stopped = walk(
            b,
            policy,
            f.id,
            cells,
            budget=left,
            budget_rule=rule,
            rules=tuple(sorted(cited)),
            what=what,
            dice=dice,
        )
        # climb: a move that climbed stairs or a ladder cites the rule that priced it.
        for i in range(first, len(b.events)):
            e = b.events[i]
            if isinstance(e, ev.Moved) and any("climb" in s.mode for s in e.steps):
                b.events[i] = replace(e, rules=tuple(sorted({*e.rules, self.rule("climb")})))
        return stopped

    @handles(Move)
    def move(self, b: Batch, cmd: Move, dice: Dice) -> None:
        f, tether = self.mover(b, cmd.fighter, "a move")
        cells = self.cells(b.state, f, cmd.path, self.rule("move"))
        prone = f.state("posture", "standing") == "prone"
        rule = self.rule("drag") if DRAGGING in f.marks else self.rule("crawl" if prone else "move")
        self.go(
            b,
            f,
            _Walk(self, dice, tether=tether),
            cells,
            dice,
            rule=rule,
            what="the crawl" if prone else "the move",
        )

    def after_posture(self, b: Batch, f: Fighter, trigger: str) -> None:
        """prone-drop / prone-stand: the posture change is paid with the move action's movement."""
        drop = trigger == "drop_prone"
        rule = self.posture_rules[0] if drop else self.posture_rules[1]
        verb = "dropping prone" if drop else "standing up"
        foes = self.engaged_with(b.state, f.id)
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

    @handles(PullUp)
    def pull_up(self, b: Batch, cmd: PullUp, dice: Dice) -> None:
        rule = self.rule("ledge")
        f, tether = self.mover(b, cmd.fighter, "a jump and pull")
        self.not_prone(f, "ledge", "jumping for a ledge")
        to = self.cell(b.state, cmd.to, rule)
        require(
            max(abs(to[0] - f.pos[0]), abs(to[1] - f.pos[1])) == 1,
            rule,
            f"{show(to)} is not next to {f.id} at {show(f.pos)}: jump for a ledge from beside it",
        )
        grid = b.state.grid
        # ledge: "any ledge": every cell higher than the fighter that can be stood on (a map ledge,
        # a roof's edge, the rim of a gap); walls are not stood on, obstacles are vaulted.
        require(
            not grid.blocked(*to) and not grid.has(*to, "obstacle"),
            rule,
            f"{show(to)} is {grid.kind(*to).terrain}: nothing to pull up onto"
            + (f" (vault {f.id} X,Y goes over it)" if grid.has(*to, "obstacle") else ""),
        )
        here = [o.id for o in b.state.at(*to)]
        require(not here, rule, f"{', '.join(here)} is on the ledge at {show(to)}")
        h = grid.top[to[1]][to[0]] - f.pos[2]
        require(h > 0, rule, f"{show(to)} is not above {f.id}: no ledge to pull up onto, walk there")
        height = self.stat(f, "height")
        require(
            2 * h <= 3 * height,
            rule,
            f"ledge {fmt(h)} yd > 1.5 x own height {fmt(height)} yd = {fmt(3 * height // 2)} yd",
        )
        policy = _PullUp(self, dice, tether=tether, base=f.pos)
        self.go(b, f, policy, [to], dice, rule=rule, what="the jump and pull")

    @handles(Vault)
    def vault(self, b: Batch, cmd: Vault, dice: Dice) -> None:
        rule = self.rule("vault")
        f, tether = self.mover(b, cmd.fighter, "a vault")
        self.not_prone(f, "vault", "vaulting")
        land = self.cell(b.state, cmd.to, rule)
        over = line((f.pos[0], f.pos[1]), land)[:-1]
        grid = b.state.grid
        require(bool(over), rule, f"nothing lies between {show(f.pos)} and {show(land)} to vault")
        height = self.stat(f, "height")
        for c in over:
            require(grid.has(*c, "obstacle"), rule, f"{show(c)} on the way is not an obstacle to vault")
            h = grid.top[c[1]][c[0]] - f.pos[2]
            require(
                2 * h < height,
                rule,
                f"obstacle {fmt(h)} yd at {show(c)} is not lower than half of own height "
                f"{fmt(height)} yd ({fmt(half_down(height))} yd)",
            )
        self.landing(b.state, f, land, rule, "a vault")
        policy = _Jump(self, dice, "vault", over, land, f.pos, tether=tether)
        self.go(b, f, policy, [*over, land], dice, rule=rule, what="the vault")

    @handles(Leap)
    def leap(self, b: Batch, cmd: Leap, dice: Dice) -> None:
        rule = self.rule("leap")
        f, tether = self.mover(b, cmd.fighter, "a leap")
        self.not_prone(f, "leap", "leaping")
        land = self.cell(b.state, cmd.to, rule)
        grid = b.state.grid
        require(not grid.has(f.pos[0], f.pos[1], "gap"), rule, f"{f.id} is in the gap: leap from its edge")
        over = line((f.pos[0], f.pos[1]), land)[:-1]
        require(bool(over), rule, f"no gap lies between {show(f.pos)} and {show(land)} to leap")
        width, parity, here = 0, 0, f.pos
        for c in over:
            require(
                grid.has(*c, "gap"), rule, f"{show(c)} on the way is not part of the gap: land there first"
            )
            step = flat_step(grid, here, c, parity, diagonal=b.state.settings["diagonal"])
            width, parity, here = width + step.cost, step.parity, step.to
        most = self.initiative(f)
        require(
            2 * width <= most,
            rule,
            f"gap {fmt(width)} yd > half of max movement {fmt(half_down(most))} yd",
        )
        self.landing(b.state, f, land, rule, "a leap")
        policy = _Jump(self, dice, "leap", over, land, f.pos, tether=tether, width=width)
        self.go(b, f, policy, [*over, land], dice, rule=rule, what="the leap")

    def landing(self, state: EncounterState, f: Fighter, land: XY, rule: str, what: str) -> None:
        """Where a vault or a leap comes down: open ground, level with the take-off."""
        grid = state.grid
        kind = grid.kind(*land)
        for tag in ("obstacle", "gap"):
            require(
                not grid.has(*land, tag), rule, f"{what} can't land on {show(land)}: it is {kind.terrain}"
            )
        require(not grid.blocked(*land), rule, f"{what} can't land on {show(land)}: it is {kind.terrain}")
        here = [o.id for o in state.at(*land) if o.id != f.id]
        require(not here, rule, f"{what} can't land on {show(land)}: {', '.join(here)} is there")
        drop = grid.top[land[1]][land[0]] - f.pos[2]
        level = to_cu(state.settings["step_height"])
        require(
            abs(drop) <= level,
            rule,
            f"{what} lands level, but {show(land)} is {fmt(abs(drop))} yd "
            f"{'higher' if drop > 0 else 'lower'} than {show(f.pos)}",
        )

    @handles(Drag)
    def drag(self, b: Batch, cmd: Drag, dice: Dice) -> None:
        rule = self.rule("drag")
        f, tether = self.mover(b, cmd.fighter, "a drag")
        target = self.fighter(b.state, cmd.target)
        require(target.id != f.id, rule, f"{f.id} can't drag itself")
        require(
            target.side == f.side or OBJECT in target.tags,
            rule,
            f"{target.id} is of side {target.side}, not {f.side}: only friendlies or movable objects "
            "are dragged",
        )
        diag = b.state.settings["diagonal"]
        start = distance(diag, f.pos, target.pos)
        require(
            start <= CU and abs(f.pos[2] - target.pos[2]) <= CU,
            rule,
            f"{target.id} is {fmt(start)} yd from {f.id}: a drag target must start within 1 yd",
        )
        foes = self.engaged_with(b.state, target.id)
        require(
            not foes,
            self.rule("engage-break"),
            f"{target.id} is engaged with {', '.join(o.id for o in foes)}: an engagement ends only by "
            "resolving a combat, so it can't be dragged away before then",
        )
        half = half_down(self.initiative(f))
        used = f.used("movement")
        require(
            used < half,
            rule,
            f"dragging halves the move action to {fmt(half)} yd (half of {fmt(self.initiative(f))}), "
            f"but {fmt(used)} yd of it are already spent",
        )
        cells = self.cells(b.state, f, cmd.path, rule)
        if b.state.fighter(f.id).marks.get(DRAGGING) != target.id:  # type: ignore[union-attr]
            b.emit(
                ev.Marked(
                    fighter=f.id,
                    key=DRAGGING,
                    value=target.id,
                    rules=(rule,),
                    note=f"{f.id} drags {target.id}: this move action is at most {fmt(half)} yd, "
                    f"half of {fmt(self.initiative(f))}",
                )
            )
        f = b.state.fighter(f.id)  # type: ignore[assignment]
        stopped = self.go(
            b, f, _Walk(self, dice, tether=tether, mode="drag"), cells, dice, rule=rule, what="the drag"
        )
        end = b.state.fighter(f.id).pos  # type: ignore[union-attr]
        put = self.cell(b.state, cmd.put, rule)
        away = distance(diag, end, put)
        top = b.state.grid.top[put[1]][put[0]]
        require(
            away <= CU and abs(top - end[2]) <= CU,
            rule,
            f"{show(put)} is {fmt(away)} yd from where {f.id} ends ({show(end)}): the dragged target is "
            f"placed within 1 yd" + (f" (the drag stopped early: {stopped})" if stopped else ""),
        )
        grid = b.state.grid
        require(
            not grid.blocked(*put) and not grid.has(*put, "obstacle"),
            rule,
            f"{target.id} can't be put on {show(put)}: it is {grid.kind(*put).terrain}",
        )
        others = [o.id for o in b.state.at(*put) if o.id != target.id]
        require(not others, rule, f"{target.id} can't be put on {show(put)}: {', '.join(others)} is there")
        b.emit(
            ev.Placed(
                fighter=target.id,
                to=(put[0], put[1], top),
                how="drag",
                rules=(rule,),
                note=f"dragged by {f.id}, put {fmt(away)} yd from it",
            )
        )

    # --- actions and combat --------------------------------------------------------

    @handles(Act)
    def act(self, b: Batch, cmd: Act, dice: Dice) -> None:
        rule = self.rule("combined")
        f = self.acting(b.state, cmd.fighter)
        action = cmd.action.strip().lower()
        require(action.replace("-", "").isalnum(), rule, f"name the action in one word, not {cmd.action!r}")
        per = b.state.settings["actions_per_turn"]
        taken = f.used("actions")
        require(
            taken < per,
            rule,
            f"{f.id} has taken {taken} of its {per} non-move action(s) this turn",
        )
        foes = self.engaged_with(b.state, f.id)
        cited = (rule,)
        if foes:
            require(
                action in ENGAGED_ACTIONS,
                self.rule("engaged-actions"),
                f"{f.id} is engaged with {', '.join(o.id for o in foes)}: only Strike, Command and "
                f"Manifest are allowed, not {action}",
            )
            cited = (rule, self.rule("engaged-actions"))
        target = self.fighter(b.state, cmd.target) if cmd.target else None
        require(
            not (action == "strike" and target is not None and target.id == f.id),
            rule,
            f"{f.id} can't strike itself: name the foe it strikes (target=...)",
        )
        at = f" at {target.id}" if target else ""
        b.emit(
            ev.Spent(
                fighter=f.id,
                resource="actions",
                amount=1,
                rules=cited,
                note=f"{action}{at} after {fmt(f.used('movement'))} yd of the move action; "
                f"{fmt(self.left(b.state, f))} yd of it may still follow",
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

    @handles(Resolve)
    def resolve(self, b: Batch, cmd: Resolve, dice: Dice) -> None:
        rule = self.rule("engage-break")
        f = self.fighter(b.state, cmd.fighter)
        target = self.fighter(b.state, cmd.target)
        require(
            target.id in b.state.linked(ENGAGED, f.id),
            rule,
            f"{f.id} and {target.id} are not engaged: there is no combat between them to resolve",
        )
        require(
            f.marks.get(STRIKING) == target.id,
            rule,
            f"engagement ends only by resolving a combat, and {f.id} has made no Strike at {target.id} "
            f"to resolve (act {f.id} strike target={target.id})",
        )
        outcome = cmd.outcome.strip()
        require(bool(outcome), rule, "say what the Strike's outcome was (outcome=...)")
        require(cmd.damage >= 0, rule, f"damage must not be negative, got {cmd.damage}")
        note = f"the table resolved {f.id}'s Strike at {target.id}: {outcome}"
        b.emit(ev.Unmarked(fighter=f.id, key=STRIKING, rules=(rule,), note=note))
        if cmd.damage:
            b.emit(ev.Damaged(fighter=target.id, amount=cmd.damage, cause="strike", rules=(rule,), note=note))
        self.unlink(b, f.id, target.id, "resolve", rule, note + "; their engagement ends")


def negative_setting(settings: dict[str, Any]) -> tuple[str, str] | None:
    """The first setting that must not be negative and is, with why; None if none is."""
    for name in ("actions_per_turn", "step_height"):
        if settings[name] < 0:
            return name, f"must not be negative, got {settings[name]}"
    return None


def hostile(f: Fighter, other: Fighter) -> bool:
    """Enemies engage each other; objects and friends never do."""
    return other.id != f.id and other.side != f.side and OBJECT not in f.tags and OBJECT not in other.tags


def fall_damage(fallen: int, height: int) -> int:
    """fall: one point for every whole yard fallen past the faller's own height."""
    return max(0, fallen - height) // CU


class _Walk:
    """How a fighter's steps are priced and what happens where it arrives.

    Walking, crawling (prone: double cost) and climbing stairs and ladders
    (vertical yards cost like horizontal ones). Subclasses price jumps.
    """

    def __init__(
        self, rs: InitiativeYards, dice: Dice | None, *, tether: tuple[Fighter, ...] = (), mode: str = ""
    ) -> None:
        self.rs = rs
        self.unit = rs.unit
        self.dice = dice
        self.tether = tether
        self.mode = mode
        self.frm: Pos = (0, 0, 0)  # where the step last priced starts (engage compares both ends)

    # --- pricing ---------------------------------------------------------------

    def price(self, state: EncounterState, f: Fighter, frm: Pos, to: XY, parity: int) -> Step:
        self.frm = frm
        rs, grid = self.rs, state.grid
        kind = grid.kind(*to)
        if grid.blocked(*to):
            raise Refusal(rs.rule("move"), f"{show(to)} is {kind.terrain}: nothing moves through it")
        if grid.has(*to, "obstacle"):
            high = grid.top[to[1]][to[0]] - frm[2]
            raise Refusal(
                rs.rule("vault"), f"{show(to)} is an obstacle {fmt(high)} yd high: vault it or go round"
            )
        for other in state.at(*to):
            if hostile(f, other):
                raise Refusal(rs.rule("move"), f"{show(to)} is held by {other.id}, an enemy of {f.id}")
        prone = f.state("posture", "standing") == "prone"
        factor = CRAWL_FACTOR if prone else 1  # crawl: every yard crawled costs 2
        modes = ["crawl"] if prone else ([self.mode] if self.mode else [])
        step = flat_step(grid, frm, to, parity, diagonal=state.settings["diagonal"], terrain_factor=factor)
        dz = rise(frm, step.to)
        if dz:
            if any(grid.has(*c, t) for c in ((frm[0], frm[1]), to) for t in CLIMBABLE):
                # climb: stairs and ladders cost their vertical yards like horizontal ones.
                step = replace(step, cost=step.cost + abs(dz) * factor)
                modes.append("climb")
            elif abs(dz) > to_cu(state.settings["step_height"]):
                self.refuse_height(state, f, frm, to, dz)
        step = replace(step, mode="+".join(modes))
        self.keep_within(state, f, step)
        return step

    def keep_within(self, state: EncounterState, f: Fighter, step: Step) -> None:
        """engaged-actions (engaged_move = within-reach): every step stays within the engaging Reach."""
        rs = self.rs
        for foe in self.tether:
            inside, d, r = rs.within_reach(state, f, step.to, foe)
            if not inside:
                raise Refusal(
                    rs.rule("engaged-actions"),
                    f"{show(step.to)} is {fmt(d)} yd from {foe.id}, out of the {fmt(r)} yd Reach that "
                    "engages them: an engaged fighter only shifts within it (engaged_move = within-reach)",
                )

    def refuse_height(self, state: EncounterState, f: Fighter, frm: Pos, to: XY, dz: int) -> None:
        rs, grid = self.rs, state.grid
        if dz > 0 and grid.has(*to, "ledge"):
            raise Refusal(
                rs.rule("ledge"),
                f"{show(to)} is a ledge {fmt(dz)} yd above {show(frm)}: jump and pull up onto it "
                f"(pull-up {f.id} {show(to)})",
            )
        if dz > 0:
            raise Refusal(
                rs.rule("climb"),
                f"{show(frm)} to {show(to)} goes {fmt(dz)} yd up, more than the step height "
                f"{fmt(to_cu(state.settings['step_height']))} yd: only stairs and ladders are climbed by "
                f"walking; a ledge is jumped for (pull-up {f.id} {show(to)})",
            )
        if dz < 0 and grid.has(*to, "gap"):
            raise Refusal(
                rs.rule("leap"),
                f"{show(to)} is a gap {fmt(-dz)} yd deep: leap across it (leap {f.id} X,Y) or climb down",
            )
        raise Refusal(
            rs.rule("climb"),
            f"{show(frm)} to {show(to)} goes {fmt(abs(dz))} yd {'up' if dz > 0 else 'down'}, more than the "
            f"step height {fmt(to_cu(state.settings['step_height']))} yd: only stairs and ladders are "
            "climbed by walking",
        )

    # --- arriving --------------------------------------------------------------

    def eventful(self, state: EncounterState, f: Fighter, step: Step) -> bool:
        return self.rs.slips(state, f, step) or bool(self.rs.newly_in_reach(state, f, self.frm, step.to))

    def on_step(self, b: Batch, fighter_id: str, step: Step) -> str:
        return self.arrive(b, fighter_id, step)

    def arrive(self, b: Batch, fighter_id: str, step: Step) -> str:
        """slippery, then engage: what entering a cell may bring. Returns why the move ends."""
        rs = self.rs
        stops = []
        f = b.state.fighter(fighter_id)
        assert f is not None and self.dice is not None
        if rs.slips(b.state, f, step):
            rule = rs.rule("slippery")
            terrain = b.state.grid.kind(step.to[0], step.to[1]).terrain
            result = rs.initiative_check(b, self.dice, f, rule, f"{terrain} ground at {show(step.to)}")
            if b.state.settings["slippery_checks"] == "per-move":
                b.emit(
                    ev.Marked(
                        fighter=f.id, key=SLIP_CHECKED, value=True, rules=(rule,), note="one check per move"
                    )
                )
            if not result.passed:
                f = b.state.fighter(fighter_id)
                assert f is not None
                if f.state("posture", "standing") != "prone":
                    rs.change(b, f, "posture", "knock_down", rule, note="fails the check and drops prone")
                lost = rs.left(b.state, f)
                if lost:
                    b.emit(
                        ev.Spent(
                            fighter=f.id,
                            resource="movement",
                            amount=lost,
                            rules=(rule,),
                            note=f"the rest of the movement is lost: {fmt(lost)} yd",
                        )
                    )
                stops.append(f"slipped on {show(step.to)}: prone, the rest of the movement lost")
        f = b.state.fighter(fighter_id)
        assert f is not None
        foes = rs.newly_in_reach(b.state, f, self.frm, step.to)
        if foes:
            rs.engage(b, f, foes)
            stops.append(f"engaged with {', '.join(o.id for o, _, _ in foes)}: the move ends here")
        return "; ".join(stops)

    def can_end(self, state: EncounterState, f: Fighter) -> None:
        others = [o.id for o in state.at(f.pos[0], f.pos[1]) if o.id != f.id]
        if others:
            raise Refusal(
                self.rs.rule("move"),
                f"the move would end on {show(f.pos)}, where {', '.join(others)} already is",
            )


class _Jump(_Walk):
    """A vault or a leap: airborne over `over`, a check on landing (vault, leap)."""

    def __init__(
        self,
        rs: InitiativeYards,
        dice: Dice,
        kind: str,
        over: list[XY],
        land: XY,
        takeoff: Pos,
        *,
        tether: tuple[Fighter, ...] = (),
        width: int = 0,
    ) -> None:
        super().__init__(rs, dice, tether=tether, mode=kind)
        self.kind = kind
        self.over = over
        self.land = land
        self.takeoff = takeoff
        self.width = width

    def price(self, state: EncounterState, f: Fighter, frm: Pos, to: XY, parity: int) -> Step:
        if to not in self.over:
            step = super().price(state, f, frm, to, parity)
            self.frm = self.takeoff  # engage: the landing is compared with where the jump began
            return step
        self.frm = frm
        step = flat_step(state.grid, frm, to, parity, diagonal=state.settings["diagonal"], mode=self.kind)
        cost = step.cost
        if self.kind == "vault" and to == self.over[0] and state.settings["vault_cost"] == "climb":
            cost += max(0, state.grid.top[to[1]][to[0]] - self.takeoff[2])  # vault: paying to climb it
        return replace(step, to=(to[0], to[1], self.takeoff[2]), cost=cost)  # in the air, at take-off height

    def eventful(self, state: EncounterState, f: Fighter, step: Step) -> bool:
        return (step.to[0], step.to[1]) == self.land

    def on_step(self, b: Batch, fighter_id: str, step: Step) -> str:
        if (step.to[0], step.to[1]) != self.land:
            return ""  # nothing happens in mid-air
        rs = self.rs
        rule = rs.rule(self.kind)
        f = b.state.fighter(fighter_id)
        assert f is not None and self.dice is not None
        what = (
            f"vaulting {len(self.over)} yd of obstacle"
            if self.kind == "vault"
            else f"leaping a {fmt(self.width)} yd gap"
        )
        result = rs.initiative_check(b, self.dice, f, rule, f"{what} to {show(self.land)}")
        if not result.passed:
            if self.kind == "leap":
                # leap: a miss falls to the ground in the middle of the gap.
                middle = self.over[(len(self.over) - 1) // 2]
                rs.fall_down(
                    b, f.id, middle, self.takeoff[2], "leap", f"misses the leap and falls at {show(middle)}"
                )
                return f"missed the leap: fell into the gap at {show(middle)}"
            # vault: a failed vault lands prone on the far side.
            rs.change(b, f, "posture", "knock_down", rule, note="fails the check and lands prone")
        return self.arrive(b, fighter_id, step)


class _PullUp(_Walk):
    """Jump and pull up onto a ledge: costs its height, then a check or a fall (ledge)."""

    def __init__(self, rs: InitiativeYards, dice: Dice, *, tether: tuple[Fighter, ...], base: Pos) -> None:
        super().__init__(rs, dice, tether=tether, mode="pull-up")
        self.base = base

    def price(self, state: EncounterState, f: Fighter, frm: Pos, to: XY, parity: int) -> Step:
        self.frm = frm
        step = flat_step(state.grid, frm, to, parity, diagonal=state.settings["diagonal"], mode="pull-up")
        step = replace(step, cost=rise(frm, step.to))  # ledge: its height in movement
        self.keep_within(state, f, step)
        return step

    def eventful(self, state: EncounterState, f: Fighter, step: Step) -> bool:
        return True

    def on_step(self, b: Batch, fighter_id: str, step: Step) -> str:
        rs = self.rs
        rule = rs.rule("ledge")
        f = b.state.fighter(fighter_id)
        assert f is not None and self.dice is not None
        h = step.to[2] - self.base[2]
        result = rs.initiative_check(
            b, self.dice, f, rule, f"pulling up a {fmt(h)} yd ledge at {show(step.to)}"
        )
        if result.passed:
            return self.arrive(b, fighter_id, step)
        top = step.to[2] if b.state.settings["ledge_fall"] == "top" else self.base[2]
        base = (self.base[0], self.base[1])
        rs.fall_down(
            b, f.id, base, top, "ledge", f"fails to pull up and falls from {fmt(top)} yd to {show(base)}"
        )
        return f"fell from the ledge at {show(step.to)}"

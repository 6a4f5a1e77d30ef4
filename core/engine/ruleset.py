"""The shared engine every ruleset specialises.

Like a chess variant that overrides a few hooks of the standard board, a
ruleset subclasses `Ruleset`, declares its rules, settings and stats, and
handles its commands with methods marked `@handles(CommandType)`. The base
class brings what every ruleset shares: fighter and turn checks, turn order
through the TURN machine, posture through the POSTURE machine, settings
validation, and the catalogue listing.

A ruleset may be composed of parts rather than inherited: each `Part` is one
family of its rules (walking, jumps, engagement…) as an object with its own
`@handles` methods and hooks, listed in `Ruleset.parts`; the ruleset calls
every part's hook in turn. The public names are in `tabletrail.ruleset_api`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Generic, Protocol, TypeVar

import msgspec
from tabletrail.core.board.refusal import Refusal, require
from tabletrail.core.board.state import EncounterState, Fighter
from tabletrail.core.board.units import fmt, to_cu
from tabletrail.core.board.walls import DOORS, WALLS
from tabletrail.core.engine import doors
from tabletrail.core.engine.dice import Dice, parse_formula
from tabletrail.core.engine.machines import GRAPHS
from tabletrail.core.engine.movement import StepPolicy
from tabletrail.core.engine.presentation import Awaited, Heading
from tabletrail.core.fold.batch import Batch
from tabletrail.events import types as ev
from tabletrail.events.commands import (
    CloseDoor,
    Command,
    DropProne,
    EndTurn,
    LockDoor,
    OpenDoor,
    StandUp,
    UnlockDoor,
)
from tabletrail.events.errors import InputError
from tabletrail.events.limits import MAX_NUMBER
from tabletrail.events.scenario_spec import FighterSpec, Scenario

ENGINE_FIGHTER = "tabletrail/fighter"
ENGINE_TURN = "tabletrail/turn-order"
ENGINE_COMMAND = "tabletrail/command"
ENGINE_SIDE = "tabletrail/side"
UNDO_RULE = "tabletrail/undo"  # undo, redo and the end of a redo branch (projections/decider.py)

# The engine's own rules, cited beside the catalogue's under every ruleset.
ENGINE_RULE_WORDS = {
    "tabletrail/fighter": "a command names a fighter of this encounter",
    "tabletrail/turn-order": "turns pass in initiative order; with strict_turns only the fighter "
    "whose turn it is acts",
    "tabletrail/side": "a player side commands only its own fighters, and enters only its own fighters' "
    "rolls and turns; the GM (by=gm) commands anyone",
    "tabletrail/command": "a ruleset takes only the commands it knows, and a command must do something",
    "tabletrail/checks": "a check's number is entered at the table (roll=N) or drawn by the seeded "
    "dice; a table roll is a face of its die (1..6 on 1d6, 2..12 on 2d6); a roll given and never "
    "used is refused",
    "tabletrail/undo": "undo takes back the latest batch in force and redo puts back the latest undone "
    "one; players undo only their own side's batches, the GM any (undo_seeded = gm keeps batches "
    "with seeded rolls for the GM)",
    "tabletrail/gm-ruling": "the GM's word over the rules: only the GM rules, and says why",
    WALLS: "a wall on a cell edge, or a door that is not open, stops a step across that edge and a sight "
    "line touching it; a diagonal step may not cut the corner of one (any wall or shut door meeting the "
    "corner it passes stops it)",
    DOORS: "on its turn a fighter on or beside a door's two cells opens a closed door or closes an open "
    "one, for the ruleset's door_cost; a locked door stays shut until the GM unlocks it (by=gm; only "
    "the GM locks one)",
}


# The catalogue's records are frozen Structs, not dataclasses: a dataclass writes and
# compiles its methods when the module loads, ~5 ms of every CLI command (bench_cli.py).
class Rule(msgspec.Struct, frozen=True):
    """One catalogue entry: the rule id's last part, what the engine enforces, the default ruling."""

    name: str  # short id inside the ruleset, e.g. "rough"
    enforce: str  # what the engine enforces, in the catalogue's words
    default: str = ""  # the default ruling where the text is silent


class Setting(msgspec.Struct, frozen=True):
    """A choice a scenario (or the GM's ruling) makes: its default, what it means, its choices, its rule."""

    name: str
    default: Any
    doc: str
    choices: tuple[Any, ...] = ()
    rule: str = ""  # the rule whose ruling this setting carries

    def check(self, value: Any, where: str) -> Any:
        if self.choices:
            if value not in self.choices:
                raise InputError(f"{where}: {value!r} is not one of {', '.join(map(repr, self.choices))}")
            return value
        kind = type(self.default)
        if kind is bool and not isinstance(value, bool):
            raise InputError(f"{where}: expected true or false, got {value!r}")
        if kind in (int, float) and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise InputError(f"{where}: expected a number, got {value!r}")
        if kind in (int, float) and not abs(value) <= MAX_NUMBER:
            raise InputError(
                f"{where}: expected a finite number of at most {MAX_NUMBER:,}, got {value!r:.40}"
            )
        if kind is int and not float(value).is_integer():
            raise InputError(f"{where}: expected a whole number, got {value!r}")
        if kind is str and not isinstance(value, str):
            raise InputError(f"{where}: expected a string, got {value!r}")
        if self.name.endswith("formula"):
            try:
                parse_formula(value)
            except ValueError as exc:
                raise InputError(f"{where}: {exc}") from None
        return int(value) if kind is int else value


class Stat(msgspec.Struct, frozen=True):
    """A number every fighter of the ruleset carries (`speed = 6`); `length` ones are read in centi-units."""

    name: str
    doc: str
    length: bool = False  # a distance or height, in the ruleset's unit
    default: float | int | None = None  # None: every fighter must give it
    signed: bool = False  # a modifier that may be negative (most stats may not)


Handler = Callable[[Any, Batch, Any, Dice], None]


class Rulebook(Protocol):
    """The least a part may ask of the ruleset it serves: its rule ids by name."""

    def rule(self, name: str) -> str: ...


RS = TypeVar("RS", bound=Rulebook)  # what a part sees of its ruleset: the ruleset's own protocol
P = TypeVar("P", bound="Part[Any]")

# Commands every ruleset accepts whose handlers live outside the rulesets (GM rulings).
ENGINE_HANDLERS: dict[type[Command], Handler] = {}


def engine_command(command: type[Command]) -> Callable[[Handler], Handler]:
    """Register a handler `fn(ruleset, batch, command, dice)` that every ruleset uses."""

    def mark(fn: Handler) -> Handler:
        ENGINE_HANDLERS[command] = fn
        return fn

    return mark


def handles(command: type[Command]) -> Callable[[Handler], Handler]:
    """Mark a ruleset method as the handler of one command type."""

    def mark(fn: Handler) -> Handler:
        fn._handles = command  # type: ignore[attr-defined]
        return fn

    return mark


COMMON_SETTINGS = (
    Setting(
        "checks",
        "seeded",
        "where check numbers come from when a command gives no roll: 'seeded' draws them "
        "from the encounter's seeded dice, 'table' refuses until the table enters the roll",
        ("seeded", "table"),
    ),
    Setting("strict_turns", True, "only the fighter whose turn it is may act"),
    Setting(
        "undo_seeded",
        "anyone",
        "who may undo a batch that drew seeded dice: 'anyone' (its own side or the GM) or "
        "'gm' (no re-rolls by undo)",
        ("anyone", "gm"),
    ),
)


def door_setting(rs: type[Ruleset]) -> Setting:
    """The `door_cost` setting of a ruleset, in the budget its doors are paid from (core/engine/doors.py)."""
    counted = rs.door_resource not in rs.centi_resources
    paid = {"movement": f"{rs.unit} of movement", "ap": "AP"}.get(rs.door_resource, rs.door_resource)
    return Setting(
        "door_cost",
        0 if counted else 0.0,
        f"what opening or closing a door costs, in {paid}; 0 = free, as part of a move "
        "(the rule document says nothing of doors)",
        rule=DOORS,
    )


class Part(Generic[RS]):
    """One family of a ruleset's rules (walking, jumps, a forced move…) as an object.

    A ruleset lists its parts' classes in `Ruleset.parts`; each is built once with the ruleset
    it serves (`self.rs`: its settings, stats, rule ids and helpers), typed as what the family
    may use of it: `Part[RoundRules]` sees only the protocol `RoundRules` names, `Part[Ruleset]`
    the whole engine base. A part handles its own
    commands with methods marked `@handles(Command)`, called `(self, b, cmd, dice)`, and takes
    part in the hooks below: the ruleset calls each hook of every part in the order listed. A
    part knows no other part: what two share belongs to the ruleset (or the engine, once).
    """

    # Its verbs that only answer a reaction it awaits: the table view offers them there, never as a
    # fighter's button.
    answers: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, rs: RS) -> None:
        self.rs = rs

    def rule(self, name: str) -> str:
        """The full catalogue id of one of the ruleset's rules ("squares-example/walk")."""
        return self.rs.rule(name)

    # --- the hooks; each does nothing until a part overrides it -----------------

    def start_turn(self, b: Batch, fighter_id: str, dice: Dice) -> None:
        """As a fighter's turn starts: refresh its budgets, start what happens then."""

    def end_turn(self, b: Batch, fighter_id: str, dice: Dice) -> None:
        """As a fighter's turn ends, before the next one starts."""

    def start_round(self, b: Batch, round_no: int, dice: Dice) -> None:
        """As a new round starts."""

    def settle(self, b: Batch, dice: Dice) -> None:
        """After every command's own events, in the same batch: react to them."""

    def modifiers(self, state: EncounterState, fighter_id: str, against: str | None) -> list[Modifier]:
        """Modifiers this family puts in force for or against a fighter, each with its rule id."""
        return []

    def walker(self, state: EncounterState, f: Fighter) -> StepPolicy | None:
        """How this family prices the fighter's next ordinary move (None: another part's, or none)."""
        return None

    def move_budget(self, state: EncounterState, f: Fighter) -> int | None:
        """What the fighter's next ordinary move may still cost, in centi-units (None: not this part's)."""
        return None

    def awaited(self, state: EncounterState) -> list[Awaited]:
        """Reactions the table waits for that this family's marks stand for (the table view shows them)."""
        return []

    def heading(self, state: EncounterState, f: Fighter) -> Heading | None:
        """Where this family's marks say the fighter is carried without walking (a drift, a glide)."""
        return None

    def turn_words(self, f: Fighter) -> str:
        """The fighter's turn in words where this family's marks say more than the turn machine."""
        return ""

    def card_words(self, state: EncounterState, f: Fighter) -> list[str]:
        """Lines this family adds to the fighter's card at the table ("braced against a push")."""
        return []


def _part_handler(part: type[Part[Any]], fn: Handler) -> Handler:
    """A part's handler called as the ruleset's: with the part the ruleset built, not the ruleset."""

    def run(rs: Any, b: Batch, cmd: Any, dice: Dice) -> None:
        fn(rs.part(part), b, cmd, dice)

    run.__name__ = run.__qualname__ = f"{part.__name__}.{fn.__name__}"
    return run


# The turn machine's states in words (core/engine/machines.py TURN); a ruleset's marks may say more.
TURN_WORDS = {
    "delayed": "delayed to the end of the pass",
    "holding": "holding an action",
    "done": "done this pass",
}


class Ruleset:
    """The base of every ruleset: its catalogue, its handlers, its hooks (see this module's docstring).

    A subclass sets `id`, `title`, `document`, `unit` (one cell: "m", "yd", "sq"), `rules`,
    `settings`, `stats`, and `parts` (its families of rules, each a `Part`); handlers and hooks may
    also be written on the subclass itself (a hook overridden there calls `super()` to keep its
    parts' turn). The engine handles end-turn, doors and (with `posture_rules`) dropping prone
    and standing up for every ruleset.
    """

    id: ClassVar[str]
    title: ClassVar[str]
    document: ClassVar[str]
    unit: ClassVar[str]  # "yd" or "m": one grid cell
    rules: ClassVar[tuple[Rule, ...]]
    settings: ClassVar[tuple[Setting, ...]]
    stats: ClassVar[tuple[Stat, ...]]
    _handlers: ClassVar[dict[type[Command], Handler]]
    withheld: ClassVar[frozenset[type[Command]]]  # engine verbs this ruleset's document has no rule for
    takes_bumps: ClassVar[bool] = False  # a Skill Feat reaction to falls (bumps=N) exists in this ruleset
    # The families of rules it is composed of, each called in this order in every hook.
    parts: ClassVar[tuple[type[Part[Any]], ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        handlers: dict[type[Command], Handler] = {}
        for klass in reversed(cls.__mro__):
            for value in vars(klass).values():
                target = getattr(value, "_handles", None)
                if target is not None:
                    handlers[target] = value
        for part in cls.parts:
            for klass in reversed(part.__mro__):
                for value in vars(klass).values():
                    target = getattr(value, "_handles", None)
                    if target is not None:
                        assert target not in handlers, f"{cls.__name__}: two handlers of {target.__name__}"
                        handlers[target] = _part_handler(part, value)
        # A ruleset whose document has no rule for dropping prone or standing up offers no verb for
        # it: `commands` doesn't list it, and `do` refuses it as a command the ruleset doesn't know.
        drop, stand = getattr(cls, "posture_rules", ("", ""))
        cls.withheld = frozenset(verb for verb, rule in ((DropProne, drop), (StandUp, stand)) if not rule)
        cls._handlers = {verb: handler for verb, handler in handlers.items() if verb not in cls.withheld}

    def __init__(self) -> None:
        self._parts: dict[type[Part[Any]], Part[Any]] = {part: part(self) for part in self.parts}
        self._stats = {s.name: s for s in self.stats}  # `stat` is asked for every fighter a board shows

    def part(self, kind: type[P]) -> P:
        """The part of this kind the ruleset was built with."""
        return self._parts[kind]  # type: ignore[return-value]

    # --- catalogue -----------------------------------------------------------

    def rule(self, name: str) -> str:
        """The full catalogue id of one of this ruleset's rules."""
        assert any(r.name == name for r in self.rules), f"{self.id} has no rule {name!r}"
        return f"{self.id}/{name}"

    def all_settings(self) -> tuple[Setting, ...]:
        return (*COMMON_SETTINGS, door_setting(type(self)), *self.settings)

    def resolve_settings(self, given: dict[str, Any], where: str = "settings") -> dict[str, Any]:
        """Defaults overlaid with the scenario's choices; unknown names are an error."""
        known = {s.name: s for s in self.all_settings()}
        for name in given:
            if name not in known:
                raise InputError(
                    f"{where}.{name}: {self.id} has no such setting (it has: {', '.join(sorted(known))})"
                )
        settings = {
            name: s.check(given[name], f"{where}.{name}") if name in given else s.default
            for name, s in known.items()
        }
        wrong = self.settings_problem(settings)
        if wrong:
            raise InputError(f"{where}.{wrong[0]}: {wrong[1]}")
        return settings

    def settings_problem(self, settings: dict[str, Any]) -> tuple[str, str] | None:
        """The engine's own limits on settings (door_cost is not negative), then `check_settings`."""
        cost = settings.get("door_cost", 0)
        if cost < 0:
            return "door_cost", f"must not be negative, got {cost}"
        return self.check_settings(settings)

    def check_settings(self, settings: dict[str, Any]) -> tuple[str, str] | None:
        """Limits a ruleset puts on its settings beyond type and choices: (name, why) or None.

        Checked when a scenario is loaded and when a GM ruling changes a setting.
        """
        return None

    def validate(self, scenario: Scenario, where: str) -> None:
        """Check the fighters carry the stats this ruleset needs."""
        for i, spec in enumerate(scenario.fighters):
            self.validate_fighter(spec, where, f"fighters[{i}]")

    def validate_fighter(self, spec: FighterSpec, where: str, field: str) -> None:
        """One fighter's stats against this ruleset's catalogue (a scenario's, or a GM's `join`)."""
        names = {s.name for s in self.stats}
        for stat in self.stats:
            if stat.default is None and stat.name not in spec.stats:
                raise InputError(f"{where}: {field} ({spec.id}): missing stat {stat.name!r} ({stat.doc})")
            value = spec.stats.get(stat.name)
            if value is not None and value < 0 and not stat.signed:
                raise InputError(f"{where}: {field}.{stat.name}: must not be negative, got {value}")
        for key in spec.stats:
            if key not in names:
                raise InputError(
                    f"{where}: {field}.{key}: {self.id} has no stat {key!r} "
                    f"(it uses: {', '.join(sorted(names))})"
                )

    def stat(self, f: Fighter, name: str) -> Any:
        """A stat as written (count stats) or in centi-units (length stats)."""
        spec = self._stats[name]
        value = f.stats.get(name, spec.default)
        return to_cu(value) if spec.length and value is not None else value

    # --- deciding ------------------------------------------------------------

    def decide(self, state: EncounterState, command: Command, dice: Dice) -> list[ev.Event]:
        handler = self._handlers.get(type(command)) or ENGINE_HANDLERS.get(type(command))
        if handler is None:
            verbs = sorted(str(c.__struct_config__.tag) for c in self._handlers)
            raise Refusal(
                ENGINE_COMMAND,
                f"{self.id} has no {command.__struct_config__.tag!r} command (it knows: {', '.join(verbs)})",
            )
        bumps = getattr(command, "bumps", 0)
        if bumps and not self.takes_bumps:
            raise Refusal(
                ENGINE_COMMAND,
                f"bumps={bumps}: {self.id} has no Skill Feat reaction to falls "
                "(bumps= is a speed-meters option)",
            )
        b = Batch(state)
        handler(self, b, command, dice)
        self.check_side(state, command)  # after the handler, whose own refusal says more
        self.settle(b, dice)
        dice.finish()
        self.check_side(state, command, b)  # whose rolls were entered, now every check is made
        if not b.events:
            raise Refusal(ENGINE_COMMAND, "nothing would happen")
        return b.events

    def check_side(self, state: EncounterState, command: Command, b: Batch | None = None) -> None:
        """A player side commands its own fighters; the GM (by=gm) commands anyone.

        Every fighter the command acts for is checked, not only its `fighter`:
        end-turn ends the active fighter's turn, and a table roll (roll=N) is
        entered for the fighter whose check it is, so in an opposed check a side
        enters only its own fighters' rolls (tabletrail/side).
        """
        if command.by == "gm":
            return
        fid = getattr(command, "fighter", "")
        acts = [fid] if isinstance(fid, str) and fid else []
        if isinstance(command, EndTurn):
            acts.append(state.turn.active)
        for fighter_id in acts:
            f = state.fighter(fighter_id)
            if f is not None and command.by != f.side:
                raise Refusal(
                    ENGINE_SIDE,
                    f"{f.id} fights for {f.side}; {command.by} may not command it (the GM may: by=gm)",
                )
        for event in b.events if b is not None else ():
            if type(event) is ev.CheckRolled and event.source == "table":
                f = state.fighter(event.fighter)
                if f is not None and command.by != f.side:
                    raise Refusal(
                        ENGINE_SIDE,
                        f"roll={event.number} is {f.id}'s {event.check} roll, and {f.id} fights for "
                        f"{f.side}: {command.by} enters only its own fighters' rolls (the GM may: by=gm)",
                    )

    def gm_only(self, command: Command, rule: str, what: str) -> None:
        """Effects the GM narrates (an outside force, a fall) are entered by the GM."""
        require(command.by == "gm", rule, f"only the GM may {what} (by=gm); {command.by} asked")

    def fighter(self, state: EncounterState, fighter_id: str) -> Fighter:
        f = state.fighter(fighter_id)
        if f is None:
            known = ", ".join(x.id for x in state.fighters)
            raise Refusal(ENGINE_FIGHTER, f"no fighter {fighter_id!r} (fighters: {known})")
        return f

    def acting(self, state: EncounterState, fighter_id: str) -> Fighter:
        """The fighter, who must be the one whose turn it is (when turns are strict)."""
        f = self.fighter(state, fighter_id)
        if state.settings.get("strict_turns", True):
            active = state.turn.active
            require(
                f.id == active,
                ENGINE_TURN,
                f"it is {active}'s turn, not {f.id}'s: {f.id} acts once {active}'s turn has ended",
            )
        return f

    def unmark(self, b: Batch, f: Fighter, key: str, rule: str, note: str) -> None:
        """Lift a mark the fighter holds (a held action, a ban, a count) when what it stood for ends."""
        if key in f.marks:
            b.emit(ev.Unmarked(fighter=f.id, key=key, rules=(rule,), note=note))

    def forget_marks(
        self, b: Batch, key: str, holds: Callable[[EncounterState, Fighter], object], rule: str, note: str
    ) -> None:
        """Lift `key` from every fighter for whom it no longer `holds` (a rotation, a Movement paused at a
        door): remembered only until the fighter does something else. `note` may name `{fighter}`."""
        for f in b.state.fighters:
            if key in f.marks and holds(b.state, f) is None:
                self.unmark(b, f, key, rule, note.format(fighter=f.id))

    def change(self, b: Batch, f: Fighter, machine: str, trigger: str, rule: str, note: str = "") -> str:
        """Ask a state machine for a transition and record it; refuses if not allowed."""
        graph = GRAPHS[machine]
        source = b.state.fighter(f.id).state(machine, graph.initial)  # type: ignore[union-attr]
        dest = graph.require(trigger, source, rule)
        b.emit(
            ev.StateChanged(
                fighter=f.id,
                machine=machine,
                trigger=trigger,
                source=source,
                dest=dest,
                rules=(rule,),
                note=note,
            )
        )
        return dest

    # --- turn order ----------------------------------------------------------

    def begin(self, b: Batch, dice: Dice) -> None:
        """The first events after the encounter starts: the first turn."""
        first = b.state.turn.order[0]
        self._start_turn(b, first, b.state.turn.round, dice)

    def _start_turn(self, b: Batch, fighter_id: str, round_no: int, dice: Dice) -> None:
        f = b.state.fighter(fighter_id)
        assert f is not None
        b.emit(
            ev.TurnStarted(
                fighter=fighter_id, round=round_no, pass_no=b.state.turn.pass_no, rules=(ENGINE_TURN,)
            )
        )
        self.change(b, f, "turn", "start", ENGINE_TURN)
        self.start_turn(b, fighter_id, dice)

    @handles(EndTurn)
    def end_turn_command(self, b: Batch, cmd: EndTurn, dice: Dice) -> None:
        active = b.state.turn.active
        if cmd.fighter:
            require(cmd.fighter == active, ENGINE_TURN, f"it is {active}'s turn, not {cmd.fighter}'s")
        self.end_turn(b, active, dice)
        f = b.state.fighter(active)
        assert f is not None
        self.change(b, f, "turn", "finish", ENGINE_TURN)
        b.emit(ev.TurnEnded(fighter=active, rules=(ENGINE_TURN,)))
        self.advance(b, dice)

    def advance(self, b: Batch, dice: Dice) -> None:
        """Pass the turn to the next fighter; a new round starts after the last."""
        turn = b.state.turn
        nxt = turn.index + 1
        round_no = turn.round
        if nxt >= len(turn.order):
            nxt, round_no = 0, turn.round + 1
            b.emit(ev.RoundStarted(round=round_no, rules=(ENGINE_TURN,)))
            for f in b.state.fighters:
                self.change(b, f, "turn", "new_pass", ENGINE_TURN)
            self.start_round(b, round_no, dice)
        self._start_turn(b, b.state.turn.order[nxt], round_no, dice)

    # --- hooks a ruleset overrides -------------------------------------------

    def start_turn(self, b: Batch, fighter_id: str, dice: Dice) -> None:
        """Budgets that refresh when a fighter's turn starts (and what happens to it then)."""
        for part in self._parts.values():
            part.start_turn(b, fighter_id, dice)

    def settle(self, b: Batch, dice: Dice) -> None:
        """After a command's own events: react to them in the same batch (held actions…)."""
        for part in self._parts.values():
            part.settle(b, dice)

    def end_turn(self, b: Batch, fighter_id: str, dice: Dice) -> None:
        """What happens as a fighter's turn ends, before the next one starts."""
        for part in self._parts.values():
            part.end_turn(b, fighter_id, dice)

    def start_round(self, b: Batch, round_no: int, dice: Dice) -> None:
        """Budgets that refresh when a new round starts."""
        for part in self._parts.values():
            part.start_round(b, round_no, dice)

    def modifiers(self, state: EncounterState, fighter_id: str, against: str | None = None) -> list[Modifier]:
        """Modifiers in force for or against a fighter, each with its rule id."""
        return [m for part in self._parts.values() for m in part.modifiers(state, fighter_id, against)]

    def walker(self, state: EncounterState, f: Fighter) -> StepPolicy | None:
        """How this fighter's next ordinary move is priced step by step, or None if it can't move.

        The same policy prices real moves (decide) and the reachable area (the table view).
        """
        return next((w for p in self._parts.values() if (w := p.walker(state, f)) is not None), None)

    def move_budget(self, state: EncounterState, f: Fighter) -> int:
        """What the fighter's next ordinary move may still cost, in centi-units."""
        return next((n for p in self._parts.values() if (n := p.move_budget(state, f)) is not None), 0)

    # --- what the table view shows (core/engine/presentation.py) ---------------------

    def awaited(self, state: EncounterState) -> list[Awaited]:
        """Reactions the table waits for (an invasion to answer, a Strike's outcome, a held action)."""
        return [a for part in self._parts.values() for a in part.awaited(state)]

    def heading(self, state: EncounterState, f: Fighter) -> Heading | None:
        """Where the fighter is carried without walking (a drift, a glide), for the board's arrow."""
        return next((h for p in self._parts.values() if (h := p.heading(state, f)) is not None), None)

    def card_words(self, state: EncounterState, f: Fighter) -> list[str]:
        """Lines the ruleset adds to a fighter's card at the table, after its states (every part's)."""
        return [line for part in self._parts.values() for line in part.card_words(state, f)]

    def answer_verbs(self) -> frozenset[str]:
        """The verbs that only answer a reaction (`Part.answers` of every part)."""
        return frozenset().union(*(part.answers for part in self._parts.values()))

    def turn_words(self, f: Fighter) -> str:
        """Where the fighter stands in the turn order, when it is more than waiting or acting."""
        said = next((w for p in self._parts.values() if (w := p.turn_words(f))), "")
        return said or TURN_WORDS.get(f.state("turn", ""), "")

    def spent_counted(self, state: EncounterState, f: Fighter) -> dict[str, int]:
        """What the fighter has spent, as its document counts it, for people: by default the budgets
        as the state keeps them (a ruleset whose grants are kept as negative spending says otherwise)."""
        return dict(f.spent)

    def allowed(self, state: EncounterState, f: Fighter, resource: str) -> int | None:
        """What the fighter may spend of `resource` in all, where its document counts spending
        against such a total (round-meters: the round's Movement, Sprints included); else None."""
        return None

    def move_root2(self, state: EncounterState, f: Fighter) -> int:
        """The √2 part of what is already spent of that budget, when several moves share it and
        lengths are exact (core/board/units.py): the reachable area holds a move against the exact
        remainder, as `walk(carry_diagonals=True)` does. 0: each move's budget starts afresh."""
        return 0

    def budget_unit(self, state: EncounterState, f: Fighter) -> str:
        """What that budget counts (m, yd, AP): the fighter's walking policy's unit, else the ruleset's."""
        policy = self.walker(state, f)
        return policy.unit if policy is not None else self.unit

    def further_budget(self, state: EncounterState, f: Fighter) -> tuple[int, str]:
        """What one more action would add to that, and which action: the drag ruler's middle band.

        (0, "") where the ruleset has no action that lengthens a move, or none is left.
        """
        return 0, ""

    # --- doors on cell edges (core/engine/doors.py), shared by every ruleset -------------

    # The budget a door's door_cost is paid from (lengths and AP in centi-units, else a count).
    door_resource: ClassVar[str] = "movement"

    def door_budget(self, state: EncounterState, f: Fighter) -> int:
        """What is left of `door_resource` for the fighter to pay a door with."""
        return self.move_budget(state, f)

    @handles(OpenDoor)
    def open_door(self, b: Batch, cmd: OpenDoor, dice: Dice) -> None:
        doors.use(self, b, cmd.fighter, cmd.door, "open")

    @handles(CloseDoor)
    def close_door(self, b: Batch, cmd: CloseDoor, dice: Dice) -> None:
        doors.use(self, b, cmd.fighter, cmd.door, "close")

    @handles(LockDoor)
    def lock_door(self, b: Batch, cmd: LockDoor, dice: Dice) -> None:
        doors.use(self, b, cmd.fighter, cmd.door, "lock", cmd.by)

    @handles(UnlockDoor)
    def unlock_door(self, b: Batch, cmd: UnlockDoor, dice: Dice) -> None:
        doors.use(self, b, cmd.fighter, cmd.door, "unlock", cmd.by)

    # --- posture, shared by every ruleset that knows prone --------------------

    posture_rules: ClassVar[tuple[str, str]] = ("", "")  # (drop rule, stand rule)

    # The budget a fighter moves with: what `adjust` and an override's cost= spend when the GM names
    # no resource (their commands default to "movement").
    movement_resource: ClassVar[str] = "movement"

    # Budgets kept in centi-units (lengths, and AP where a ruleset prices them by the square);
    # every other budget is a whole count.
    centi_resources: ClassVar[tuple[str, ...]] = ("movement", "maneuver")

    def amount_label(self, resource: str, amount: int) -> str:
        """A budget amount for people: '2.5 m' for lengths, '2 ap' for centi-counted AP, '3 actions'."""
        if resource in self.centi_resources:
            return f"{fmt(amount)} {self.unit if resource in ('movement', 'maneuver') else resource}"
        return f"{amount} {resource[:-1] if amount == 1 and resource.endswith('s') else resource}"

    @handles(DropProne)
    def drop_prone(self, b: Batch, cmd: DropProne, dice: Dice) -> None:
        f = self.acting(b.state, cmd.fighter)
        self.change(b, f, "posture", "drop_prone", self.posture_rules[0])
        self.after_posture(b, f, "drop_prone")

    @handles(StandUp)
    def stand_up(self, b: Batch, cmd: StandUp, dice: Dice) -> None:
        f = self.acting(b.state, cmd.fighter)
        self.change(b, f, "posture", "stand_up", self.posture_rules[1])
        self.after_posture(b, f, "stand_up")

    def after_posture(self, b: Batch, f: Fighter, trigger: str) -> None:
        """What a posture change costs in this ruleset."""


class Modifier(msgspec.Struct, frozen=True):
    """A modifier in force for or against a fighter (prone: -2 to ranged attacks), with its rule id."""

    applies_to: str  # "defense", "ranged attack", "melee attack", "attack against"
    value: int | str  # a number, or "advantage" / "no dexterity"
    rule: str
    why: str = ""
    tags: tuple[str, ...] = ()

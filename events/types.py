"""The facts an encounter's log is made of.

Events are a small shared vocabulary, not one type per rule: a ruleset says
*why* through `rules` (catalogue ids) and `note`, while the fact itself (a
fighter moved along these steps, a check came up 14, a machine went from
standing to prone) is ruleset-neutral. That keeps `evolve` tiny and lets a new
ruleset plug in without touching the projections.

Every event is a frozen msgspec Struct in one tagged union (`type` field).
Changes stay additive: a new field gets a default, a new fact gets a new type.
"""

from typing import TYPE_CHECKING, Any, Union

import msgspec
from tabletrail.events.commands import Command, command_union  # noqa: F401  (read by AnyCommand, on first use)
from tabletrail.events.scenario_spec import Scenario

SCHEMA_VERSION = 1
if TYPE_CHECKING:  # to the checker any command; msgspec decodes the tagged union of them all
    AnyCommand = Command
else:
    # The union of every installed ruleset's commands, made when msgspec first reads the annotation
    # (the first log decoded, the first schema written): the rulesets' entry points are read then,
    # not when this module is imported (events/plugins.py). A string is an annotation msgspec
    # evaluates on first use, in this module: `command_union` below.
    AnyCommand = "command_union()"

Pos = tuple[int, int, int]  # x (column), y (row), z height in centi-units

_EVENT_TYPES: list[type["Event"]] = []


class Event(msgspec.Struct, frozen=True, gc=False, kw_only=True, tag_field="type"):
    """Base of every fact. `rules` cites catalogue ids; `note` says why in plain words."""

    rules: tuple[str, ...] = ()
    note: str = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _EVENT_TYPES.append(cls)


class EncounterStarted(Event, frozen=True, tag="encounter-started"):
    """A log's first line: the scenario, every setting in force, and the rules that decided it."""

    scenario: Scenario
    settings: dict[str, Any]  # every setting in force, defaults included
    schema: int = SCHEMA_VERSION
    # The rules version that decided the log (core/board/corrections.py RULES_VERSION): `verify` names the
    # corrections made since where an older log's batch differs. "" (absent): a log from before logs
    # recorded it, decided under 0.1.
    rules_version: str = ""
    # Who provides the ruleset (events/plugins.py): its package, that package's version, and the
    # ruleset's own rules version (a built-in's is rules_version). `verify` and `replay` of a log whose
    # plug-in is not installed name them in one line. "" (absent): a log from before rulesets were
    # plug-ins, decided by one of tabletrail's own.
    package: str = ""
    package_version: str = ""
    ruleset_rules: str = ""


class CommandIssued(Event, frozen=True, tag="command"):
    """Heads every batch: what was asked, in the table's own words and parsed."""

    command: AnyCommand
    text: str = ""


class Step(msgspec.Struct, frozen=True, gc=False, array_like=True):
    """One cell of a move: where, what it cost, and why that much."""

    to: Pos
    cost: int  # centi-units
    terrain: str = ""
    diagonal: bool = False
    parity: int = 0  # diagonals taken so far in this move (alternating 1-2-1)
    mode: str = ""
    # The √2 part of the step's length in centi-units (diagonal=euclidean: 100 a diagonal walked, 200
    # crawled); then `cost` is that length rounded to 0.01 and the exact one is
    # cost - round(root2·√2) + root2·√2 (core/board/units.py). 0: cost is exact.
    root2: int = 0


class Moved(Event, frozen=True, tag="moved"):
    """A fighter went along these steps. A forced move (resource forced or grapple) has as budget
    the distance the rule meant, so one cut short says how far it was to go; one stopped before
    its first step is recorded too, with no steps and what stopped it (a replay and verify carry it)."""

    fighter: str
    steps: tuple[Step, ...]
    resource: str = "movement"  # which budget paid
    budget: int = 0  # what was left before the move (a forced move: the distance meant), centi-units
    stopped: str = ""  # why the move ended early, if it did (required when there are no steps)


class Placed(Event, frozen=True, tag="placed"):
    """A position set without walking: a fall, a push, a teleport, a GM placing a piece."""

    fighter: str
    to: Pos
    how: str = ""


class StateChanged(Event, frozen=True, tag="state"):
    """A fighter's state machine moved. `trigger` is what decide asked the machine."""

    fighter: str
    machine: str
    trigger: str
    source: str
    dest: str


class Linked(Event, frozen=True, tag="linked"):
    """Two fighters bound together (an engagement, a grab) until Unlinked."""

    kind: str  # "engaged", "grab"
    a: str
    b: str


class Unlinked(Event, frozen=True, tag="unlinked"):
    """A link between two fighters ended."""

    kind: str
    a: str
    b: str


class CheckRolled(Event, frozen=True, tag="check"):
    """A check made: the number rolled or entered, its modifier and target, and whether it passed."""

    fighter: str
    check: str
    number: int  # the roll as rolled or entered: the sum of `dice`
    source: str  # "table" or "seeded"
    dice: tuple[int, ...] = ()  # the single dice behind `number` (seeded draws)
    modifier: int = 0
    target: int | None = None  # the number to reach, when there is one
    passed: bool | None = None
    formula: str = ""


class Damaged(Event, frozen=True, tag="damaged"):
    """Damage a fighter takes (a fall, a shove into a wall), and its cause in words."""

    fighter: str
    amount: int
    cause: str = ""


class Spent(Event, frozen=True, tag="spent"):
    """A budget moved: movement, AP, actions, maneuver meters. Negative refunds or grants."""

    fighter: str
    resource: str
    amount: int


class Refreshed(Event, frozen=True, tag="refreshed"):
    """Budgets start over, as the ruleset says (a new turn, a new round)."""

    fighter: str
    resources: tuple[str, ...]


class Marked(Event, frozen=True, tag="marked"):
    """A ruleset fact kept on a fighter (trajectory, held action, blocked square…)."""

    fighter: str
    key: str
    value: Any = None


class Unmarked(Event, frozen=True, tag="unmarked"):
    """A ruleset's fact on a fighter lifted (see Marked)."""

    fighter: str
    key: str


class BoardMarked(Event, frozen=True, tag="board-marked"):
    """A fact about the whole encounter (gravity lost in a region, an area effect)."""

    key: str
    value: Any = None


class DoorChanged(Event, frozen=True, tag="door"):
    """A door on a cell edge changed state (the DOOR machine): who did it, the trigger, from and to."""

    door: str  # its two cells, "5,2|6,2"
    trigger: str  # "open" or "close"
    source: str
    dest: str
    fighter: str = ""  # who opened or closed it ("" for the GM's own hand)


class TurnStarted(Event, frozen=True, tag="turn-started"):
    """A fighter's turn begins (the engine emits it; a ruleset's start_turn follows)."""

    fighter: str
    round: int
    pass_no: int = 1


class TurnEnded(Event, frozen=True, tag="turn-ended"):
    """A fighter's turn is over."""

    fighter: str


class RoundStarted(Event, frozen=True, tag="round-started"):
    """A new round begins, after the last fighter's turn."""

    round: int


class PassStarted(Event, frozen=True, tag="pass-started"):
    """A new pass through the order begins within the round (rulesets that act in passes)."""

    pass_no: int


class OrderChanged(Event, frozen=True, tag="order-changed"):
    """The turn order is rearranged (a delay, a held action): the new order and whose turn it is."""

    order: tuple[str, ...]
    index: int  # whose turn it is now, as a position in the new order


class SettingChanged(Event, frozen=True, tag="setting-changed"):
    """A GM ruling that changes a ruleset setting from here on."""

    key: str
    value: Any


class RulingMade(Event, frozen=True, tag="ruling"):
    """A GM's ruling, logged with who and why; the facts it causes follow in the same batch."""

    by: str
    kind: str  # "override", "adjust-movement", "place", "require-test", "forbid-crossing", "setting"
    why: str
    detail: Any = None


class Undone(Event, frozen=True, tag="undone"):
    """A batch taken back: its events no longer count (the log keeps them)."""

    batch: int
    by: str = "gm"
    why: str = ""


class Redone(Event, frozen=True, tag="redone"):
    """A batch taken back earlier put back, its recorded events applied again."""

    batch: int
    by: str = "gm"
    why: str = ""


class Abandoned(Event, frozen=True, tag="abandoned"):
    """A new command after an undo: these undone batches can no longer be redone."""

    batches: tuple[int, ...]


class FighterJoined(Event, frozen=True, tag="fighter-joined"):
    """A fighter joins mid-fight (a GM ruling): who, whose side, where, and its stats as the scenario
    reader checked them; its place in the turn order follows as an `OrderChanged`."""

    fighter: str
    name: str
    side: str
    pos: Pos
    size: str = "medium"
    stats: dict[str, int | float] = {}
    tags: tuple[str, ...] = ()


class FighterLeft(Event, frozen=True, tag="fighter-left"):
    """A fighter leaves the fight (a GM ruling): off the board; the facts before it (its turn passed on,
    its holds let go, the order without it) are events of their own in the same batch."""

    fighter: str


def _all_events() -> Any:
    return Union[tuple(_EVENT_TYPES)]  # noqa: UP007 - every type above


AnyEvent = _all_events()

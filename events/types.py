"""The facts an encounter's log is made of.

Events are a small shared vocabulary, not one type per rule: a ruleset says
*why* through `rules` (catalogue ids) and `note`, while the fact itself (a
fighter moved along these steps, a check came up 14, a machine went from
standing to prone) is ruleset-neutral. That keeps `evolve` tiny and lets a new
ruleset plug in without touching the projections.

Every event is a frozen msgspec Struct in one tagged union (`type` field).
Changes stay additive: a new field gets a default, a new fact gets a new type.
"""

from typing import TYPE_CHECKING, Any

import msgspec
from tabletrail.events.commands import Command, command_union
from tabletrail.events.scenario import Scenario

SCHEMA_VERSION = 1
if TYPE_CHECKING:  # to the checker any command; msgspec decodes the tagged union of them all
    AnyCommand = Command
else:
    AnyCommand = command_union()  # every command, ruleset modules included

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
    scenario: Scenario
    settings: dict[str, Any]  # every setting in force, defaults included
    schema: int = SCHEMA_VERSION
    # The rules version that decided the log (core/corrections.py RULES_VERSION): `verify` names the
    # corrections made since where an older log's batch differs. "" (absent): a log from before logs
    # recorded it, decided under 0.1.
    rules_version: str = ""


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
    # cost - round(root2·√2) + root2·√2 (core/units.py). 0: cost is exact.
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
    kind: str  # "engaged", "grab"
    a: str
    b: str


class Unlinked(Event, frozen=True, tag="unlinked"):
    kind: str
    a: str
    b: str


class CheckRolled(Event, frozen=True, tag="check"):
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
    fighter: str
    round: int
    pass_no: int = 1


class TurnEnded(Event, frozen=True, tag="turn-ended"):
    fighter: str


class RoundStarted(Event, frozen=True, tag="round-started"):
    round: int


class PassStarted(Event, frozen=True, tag="pass-started"):
    pass_no: int


class OrderChanged(Event, frozen=True, tag="order-changed"):
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
    batch: int
    by: str = "gm"
    why: str = ""


class Redone(Event, frozen=True, tag="redone"):
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
    from typing import Union

    return Union[tuple(_EVENT_TYPES)]  # noqa: UP007 - every type above


AnyEvent = _all_events()

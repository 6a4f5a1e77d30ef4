"""The answers of the table view's API, one msgspec type per answer: the contract's source.

The route table (app/web/routes.py) names each route's answer per status, and
the OpenAPI document (app/web/contract.py) is msgspec's schema of these types.
The handlers of this package build the answers they own with them (reach,
options, who a link is, the links, the writes, every error); the board, the
event list, a dry run and an explanation are written by app/web/views.py and
described here as they are sent. A type lists what a client may rely on; an
answer may carry more (no type forbids an unknown field), so adding a field
never breaks a reader.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, Meta, UnsetType

# Fixed-length number lists, written as arrays of a length (not tuples: their `prefixItems` schema is
# one some OpenAPI tools still misread, and a client reads the same JSON either way).
Cell = Annotated[list[int], Meta(min_length=2, max_length=2, description="x, y")]
Priced = Annotated[
    list[int], Meta(min_length=3, max_length=3, description="x, y, cost (hundredths of the unit)")
]
Pos = Annotated[
    list[int], Meta(min_length=3, max_length=3, description="x, y, z (z in hundredths of the unit)")
]
Step = Annotated[list[int], Meta(min_length=4, max_length=4, description="x, y, running cost, parent step")]


class Answer(msgspec.Struct, kw_only=True, omit_defaults=False):
    """Base of every answer type."""


# --- errors -------------------------------------------------------------------------------------


class Error(Answer):
    """Every refusal of a request: what kind (`error`) and a sentence saying what is wrong (`message`).

    400 names the field or parameter and what is wrong with it; 401 a link that is not this
    table's; 403 a link that may not ask for this; 404 what was not found; 409 a version
    conflict (`version`: the log's now, `seen`: the page's) or a command key used by another
    link; 413 a body over the limit; 415 a body not sent as JSON.
    """

    error: str
    message: str
    version: int | UnsetType = UNSET
    seen: int | UnsetType = UNSET


class Refused(Answer):
    """422: the rules refuse the command; `rule` is the id of the rule that does, `reason` says why."""

    error: Literal["refused"]
    message: str
    rule: str
    enforce: str
    reason: str
    needs_roll: bool
    text: str | UnsetType = UNSET
    route: str | UnsetType = UNSET
    path: list[Cell] | UnsetType = UNSET
    words: str | UnsetType = UNSET  # the command in words, names for ids
    why: str | UnsetType = UNSET  # the reason as a player reads it: no syntax, names for ids


# --- who asks -----------------------------------------------------------------------------------


class Me(Answer):
    """Whom a link speaks for."""

    role: str  # a side, or "gm"
    gm: bool
    invite: str
    label: str
    exposed: bool = False  # the server listens beyond this machine (links are bearer secrets)


class InviteInfo(Answer):
    """A link as the GM sees it: never its token."""

    id: str
    role: str
    made: float
    expires: float | None
    revoked: float | None
    label: str


class MadeInvite(InviteInfo):
    """A new link: its token and address are in this answer and nowhere else."""

    token: str
    url: str
    qr: str = ""  # the link as a QR code: an inline SVG drawing (no xmlns: put it in the page as markup)


class InviteList(Answer):
    invites: list[InviteInfo]


# --- the board ----------------------------------------------------------------------------------


class RulesetInfo(Answer):
    id: str
    title: str
    unit: str


class MapInfo(Answer):
    width: int
    height: int
    rows: list[str]
    legend: dict[str, dict[str, Any]]


class Heading(Answer):
    dx: int
    dy: int
    speed: int
    why: str


class FighterView(Answer):
    """A fighter on the board; lengths in hundredths of `move_unit`."""

    id: str
    name: str
    side: str
    pos: Pos
    ground: int
    size: str
    states: dict[str, str]
    spent: dict[str, int]
    spent_text: list[str]
    move_unit: str
    move_left: int
    move_left_text: str
    heading: Heading | None
    marks: dict[str, Any]
    damage: int
    stats: dict[str, Any]
    tags: list[str]
    active: bool
    turn_text: str
    image: bool


class Rulings(Answer):
    """The GM's rulings on cells: [x, y, rule, why, ...]. Empty on a player's board."""

    forbid: list[list[Any]]
    test: list[list[Any]]


class Turn(Answer):
    order: list[str]
    active: str | None
    round: int
    pass_: int = msgspec.field(name="pass")


class BatchLabel(Answer):
    batch: int
    text: str
    words: str | UnsetType = UNSET  # the command in words, names for ids: what every screen shows


class CommandInfo(Answer):
    verb: str
    usage: str
    doc: str
    fighter_only: bool
    bare: bool
    takes_fighter: bool
    gm: bool


class PictureInfo(Answer):
    url: str
    pixels_per_grid: float
    origin: list[float]
    width: int
    height: int
    kind: str
    name: str


class Board(Answer):
    """The board at a point of the log (`at`), the log being at `version`. A player's is redacted
    (app/web/redact.py): no rulings, only the settings the table set openly."""

    version: int
    at: int
    live: bool
    name: str
    ruleset: RulesetInfo
    map: MapInfo
    walls: list[list[int]]
    doors: list[dict[str, Any]]
    fighters: list[FighterView]
    machines: dict[str, str]
    links: list[list[Any]]
    marks: dict[str, Any]
    rulings: Rulings
    turn: Turn
    settings: dict[str, Any]
    undo: BatchLabel | None
    redo: BatchLabel | None
    commands: list[CommandInfo]
    sides: list[str]
    side_colours: dict[str, str]
    picture: PictureInfo | None
    me: Me
    exposed: bool


# --- the audit ----------------------------------------------------------------------------------


class EventLine(Answer):
    """One event of the log, in the words `do` prints."""

    seq: int
    batch: int
    actor: str
    type: str
    text: str
    rules: list[str]
    note: str
    status: str  # "", "undone" or "abandoned"
    explains: bool | UnsetType = UNSET  # a mark whose note explains an outcome: every screen lists it
    fighters: list[str] | UnsetType = UNSET  # the fighters the event is about
    routine: bool | UnsetType = UNSET  # a round's bookkeeping (X waits for its next turn): a summary skips it


class StatusChange(Answer):
    """A batch whose lines changed status (an undo, a redo, or an undone batch a new command abandoned)."""

    batch: int
    status: str  # "", "undone" or "abandoned"


class EventList(Answer):
    """The event list, or a part of it: with `after`, what changed since that version (the new lines, and
    the batches whose status changed); with `older`, one page (newest first: `before=older` asks the one
    before it; null, none is older). With neither, the whole list: a page replaces what it held."""

    version: int
    events: list[EventLine]
    after: int | UnsetType = UNSET
    statuses: list[StatusChange] | UnsetType = UNSET
    older: int | None | UnsetType = UNSET


class Explanation(Answer):
    """Why one event happened: its batch's command, the rules, steps, checks, settings and rulings
    in force, the fighters before and after (a player's without rulings or the dice's seed)."""

    seq: int
    batch: int
    status: str
    ruleset: str
    unit: str
    event: dict[str, Any]
    rules: list[dict[str, Any]]
    command: dict[str, Any]
    batch_rules: list[dict[str, Any]]
    moves: list[dict[str, Any]]
    checks: list[dict[str, Any]]
    settings: list[dict[str, Any]]
    rulings: dict[str, Any]
    fighters: list[dict[str, Any]]
    events: list[dict[str, Any]]
    refused_before: list[dict[str, Any]]
    type: str
    text: str
    note: str


# --- reach --------------------------------------------------------------------------------------


class Tree(Answer):
    """Every cheapest route as one tree: steps[i] = [x, y, running cost, parent] (parent -1: the first
    step); ends["x,y"] = the step a cell's route ends on. Follow parents back to read a route."""

    steps: list[Step]
    ends: dict[str, int]


class Blocked(Answer):
    """Why the fighter can't move now: the refusal of the plainest move (`tried`)."""

    rule: str
    enforce: str
    reason: str
    needs_roll: bool
    tried: str


class Further(Answer):
    """The cells past this move's budget that one more action (`action`) would reach."""

    budget: int
    action: str
    cells: list[Priced]
    tree: Tree
    routes: dict[str, list[Priced]] | UnsetType = UNSET  # the old field, while small


class ReachArea(Answer):
    """Where a fighter's next move may end: each cell's cost (hundredths of `unit`) and route."""

    version: int
    fighter: str
    from_: Pos = msgspec.field(name="from")
    budget: int
    unit: str
    cells: list[Priced]
    tree: Tree
    events: list[Cell]
    blocked: Blocked | None
    further: Further | None
    routes: dict[str, list[Priced]] | UnsetType = UNSET  # the old field, while small (ROUTE_STEPS)


# --- commands -----------------------------------------------------------------------------------


class Option(Answer):
    verb: str
    text: str
    doc: str
    ok: bool
    rule: str | UnsetType = UNSET
    reason: str | UnsetType = UNSET


class Options(Answer):
    version: int
    fighter: str
    options: list[Option]


class DryRun(Answer):
    """The dry run of a command: allowed (`ok`, with its events, moves, checks and fighters before and
    after; a seeded check's number hidden unless the GM reveals it) or refused (`rule`, `reason`)."""

    ok: bool
    version: int
    from_: Pos | None = msgspec.field(name="from")
    text: str | UnsetType = UNSET
    route: str | UnsetType = UNSET
    path: list[Cell] | UnsetType = UNSET
    events: list[dict[str, Any]] | UnsetType = UNSET
    moves: list[dict[str, Any]] | UnsetType = UNSET
    checks: list[dict[str, Any]] | UnsetType = UNSET
    rules: list[dict[str, Any]] | UnsetType = UNSET
    fighters: list[dict[str, Any]] | UnsetType = UNSET
    rule: str | UnsetType = UNSET
    enforce: str | UnsetType = UNSET
    reason: str | UnsetType = UNSET
    needs_roll: bool | UnsetType = UNSET
    words: str | UnsetType = UNSET  # the command in words, names for ids
    why: str | UnsetType = UNSET  # a refusal as a player reads it: no syntax, names for ids


class Written(Answer):
    """A command appended: the records it added, and the log's version now. `replayed`: the same
    command key was sent before, and these are the records it appended then (nothing new)."""

    ok: Literal[True]
    version: int
    records: list[EventLine]
    text: str | UnsetType = UNSET
    route: str | UnsetType = UNSET
    path: list[Cell] | UnsetType = UNSET
    replayed: bool | UnsetType = UNSET
    words: str | UnsetType = UNSET  # the command in words, names for ids


# --- the live stream ----------------------------------------------------------------------------


class VersionEvent(Answer):
    """`event: version`: the log now holds `version` records (its `id` is the same number)."""

    version: int


class DeniedEvent(Answer):
    """`event: denied`: the link no longer opens the table (revoked or expired); the stream ends."""

    status: int
    message: str


class UnavailableEvent(Answer):
    """`event: unavailable`: the database is restarting; the stream goes on and catches up."""

    message: str

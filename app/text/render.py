"""Text views of the board for the terminal: the map, the fighters, the log."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

import msgspec
from msgspec import to_builtins
from tabletrail.core.board.state import EncounterState, Fighter
from tabletrail.core.board.units import CU, UNIT_RESOURCES, fmt, fmt_number
from tabletrail.core.board.units import plural as plural  # re-exported for the CLI's words
from tabletrail.core.board.units import unit_of as unit_of  # re-exported for the CLI's words
from tabletrail.core.board.walls import door_list
from tabletrail.core.engine.doors import WORDS as DOOR_WORDS
from tabletrail.core.engine.machines import GRAPHS
from tabletrail.core.engine.movement import length_of
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.core.engine.ruleset import Ruleset
from tabletrail.events import types as ev
from tabletrail.events.stores.record import Record
from tabletrail.events.types import (
    CheckRolled,
    CommandIssued,
    Event,
    Moved,
    Refreshed,
    Spent,
    StateChanged,
    Step,
)
from tabletrail.text.printable import Printable, printable  # noqa: F401  (re-exported)


def board(state: EncounterState) -> str:
    """The map with each fighter shown by its mark, then a key to the map's characters.

    Marks never repeat a map character or another fighter's mark (see `marks`); a
    cell where more than one fighter stands (at different heights) shows `*`. A map
    with thin walls or doors on its cell edges is drawn with a column between every
    two cells and a line between two rows where an edge has something on it (`_edged`).
    """
    rows = [list(r) for r in state.scenario.rows]
    mark = marks(state)
    taken: dict[tuple[int, int], str] = {}
    for f in state.fighters:
        x, y = f.pos[0], f.pos[1]
        taken[(x, y)] = STACKED if (x, y) in taken else mark[f.id]
    for (x, y), m in taken.items():
        rows[y][x] = m
    width = len(rows[0])
    if state.grid.edges is None:
        ruler = "   " + "".join(str(x % 10) for x in range(width))
        lines = [ruler] + [f"{y:>2} " + "".join(r) for y, r in enumerate(rows)]
        used: set[str] = set()
    else:
        lines, used = _edged(state, rows)
    lines.append(_map_key(state, STACKED in taken.values()))
    lines.extend(_edges_key(state, used))
    return "\n".join(lines)


# How a cell edge is drawn: (between two columns, between two rows), by what stands on it.
EDGE_MARKS = {
    "both": ("│", "─"),  # a wall: stops steps and sight
    "sight": ("┊", "┈"),  # stops sight, not steps (an imported object: furniture, a plant)
    "movement": ("║", "═"),  # stops steps, not sight (a window)
    "closed": ("+", "+"),  # doors by their state
    "open": ("/", "/"),
    "locked": ("×", "×"),
}
EDGE_WORDS = {
    "both": "wall",
    "sight": "stops sight, not steps",
    "movement": "window: stops steps, not sight",
    "closed": "closed door",
    "open": "open door",
    "locked": "locked door",
}
_WALL_KINDS = ("both", "sight", "movement")
# A grid corner between two drawn rows, by the lines meeting there (up, down, left, right).
_JOINS = {
    (1, 1, 0, 0): "│", (1, 0, 0, 0): "│", (0, 1, 0, 0): "│",
    (0, 0, 1, 1): "─", (0, 0, 1, 0): "─", (0, 0, 0, 1): "─",
    (1, 0, 0, 1): "└", (1, 0, 1, 0): "┘", (0, 1, 0, 1): "┌", (0, 1, 1, 0): "┐",
    (1, 1, 0, 1): "├", (1, 1, 1, 0): "┤", (0, 1, 1, 1): "┬", (1, 0, 1, 1): "┴", (1, 1, 1, 1): "┼",
}  # fmt: skip


def _edged(state: EncounterState, rows: list[list[str]]) -> tuple[list[str], set[str]]:
    """The map with its cell edges drawn (EDGE_MARKS), and which kinds of mark it used.

    Each cell keeps its one character; the column after it shows its east edge, and a
    line under a row shows the row's south edges (with the grid corners between them
    joined), drawn only under rows where some edge has something on it. The map's rim
    closes it already and is not drawn.
    """
    edges = state.grid.edges
    assert edges is not None
    w, h = edges.width, edges.height
    used: set[str] = set()

    def what(n: int) -> str:
        """What stands on edge n: a wall's kind, a door's state, or ""."""
        door = edges.doors.get(n)
        if door is not None:
            return state.doors.get(door, "closed")
        return edges.kind(n)

    def east(x: int, y: int) -> str:
        return what((y * w + x) * 2) if x + 1 < w else ""

    def south(x: int, y: int) -> str:
        return what((y * w + x) * 2 + 1) if y + 1 < h else ""

    lines = ["   " + " ".join(str(x % 10) for x in range(w))]
    for y, row in enumerate(rows):
        out = []
        for x, ch in enumerate(row):
            out.append(ch)
            if x + 1 < w:
                kind = east(x, y)
                used.add(kind)
                out.append(EDGE_MARKS[kind][0] if kind else " ")
        lines.append(f"{y:>2} " + "".join(out))
        if y + 1 < h and any(south(x, y) for x in range(w)):
            under = []
            for x in range(w):
                kind = south(x, y)
                used.add(kind)
                under.append(EDGE_MARKS[kind][1] if kind else " ")
                if x + 1 < w:
                    meet = (east(x, y), east(x, y + 1), kind, south(x + 1, y))
                    under.append(_corner(meet))
            lines.append("   " + "".join(under).rstrip())
    used.discard("")
    return lines, used


def _corner(meet: tuple[str, str, str, str]) -> str:
    """The grid corner where these edges meet (up, down, left, right): a wall going straight on in
    its own mark, a turn or a crossing as a wall's junction; a door's ends are left open."""
    up, down, left, right = (k if k in _WALL_KINDS else "" for k in meet)  # a door has no corners
    upright, across = {up, down} - {""}, {left, right} - {""}
    if len(upright) == 1 and not across:  # a wall going on (or ending) up or down
        return EDGE_MARKS[upright.pop()][0]
    if len(across) == 1 and not upright:
        return EDGE_MARKS[across.pop()][1]
    return _JOINS.get((int(bool(up)), int(bool(down)), int(bool(left)), int(bool(right))), " ")


def _edges_key(state: EncounterState, used: set[str]) -> list[str]:
    """`edges: │─ wall  + closed door` (the marks this map's edges use) and `doors: 5,2|6,2 closed`:
    the doors by name, for `open` and `close`."""
    if state.grid.edges is None:
        return []
    out = []
    marks_used = [
        f"{v}{h_} {EDGE_WORDS[k]}" if v != h_ else f"{v} {EDGE_WORDS[k]}"
        for k, (v, h_) in EDGE_MARKS.items()
        if k in used
    ]
    if marks_used:
        out.append(_wrapped("edges:", marks_used))
    doors = [f"{d['at']} {d['state']}" for d in door_list(state)]
    if doors:
        out.append(_wrapped("doors:", doors))
    return out


def _wrapped(head: str, parts: list[str]) -> str:
    """A key line wrapped at KEY_WIDTH."""
    lines, line = [], head
    for part in parts:
        if len(line) + 2 + len(part) > KEY_WIDTH and line != head:
            lines.append(line)
            line = "    " + part
        else:
            line += (" " if line == head else "  ") + part
    return "\n".join([*lines, line])


STACKED = "*"  # more than one fighter on one column of the map


def marks(state: EncounterState) -> dict[str, str]:
    """One character per fighter: its id's first letter in capitals when that is free.

    A mark must not be a map character (the quarry's cliff is `C`, so is Cyn) nor
    another fighter's mark (dax and drum): then the id's other letters, then lower
    case, then digits are tried.
    """
    used = set("".join(state.scenario.rows)) | {STACKED}
    out: dict[str, str] = {}
    for f in state.fighters:
        letters = [c for c in f.id if c.isalnum()]
        candidates = [c.upper() for c in letters] + [c.lower() for c in letters]
        candidates += [*"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijklmnopqrstuvwxyz@&%$"]
        out[f.id] = next((c for c in candidates if c not in used), "?")
        used.add(out[f.id])
    return out


def _map_key(state: EncounterState, stacked: bool) -> str:
    """`key: # wall  . floor  ~ rough  ^ floor (ground 1)`: what each map character stands for."""
    glyphs = dict.fromkeys("".join(state.scenario.rows))
    parts = []
    for ch in glyphs:
        kind = state.scenario.legend.get(ch)
        if kind is None:
            continue
        extra = [
            f"{name} {fmt_number(getattr(kind, name))}"
            for name in ("ground", "height", "depth", "climb")
            if getattr(kind, name)
        ] + [t for t in kind.tags if t != kind.terrain]
        parts.append(f"{ch} {kind.terrain}" + (f" ({', '.join(extra)})" if extra else ""))
    if stacked:
        parts.append(f"{STACKED} fighters stacked (see the table)")
    lines, line = [], "key:"
    for part in parts:  # wrapped at KEY_WIDTH, so a big legend stays readable
        if len(line) + 2 + len(part) > KEY_WIDTH and line != "key:":
            lines.append(line)
            line = "    " + part
        else:
            line += (" " if line == "key:" else "  ") + part
    return "\n".join([*lines, line])


KEY_WIDTH = 100


def fighters(state: EncounterState) -> str:
    rs = get_ruleset(state.ruleset)
    w = Words(rs)
    turn = state.turn
    head = (
        f"round {turn.round}"
        + (f", pass {turn.pass_no}" if turn.pass_no > 1 else "")
        + f", {turn.active} to act"
    )
    rows = [("", "id", "side", "at", "height", "states", "spent", "damage", "marks")]
    mark = marks(state)
    for f in state.fighters:
        states = " ".join(v for k, v in sorted(f.states.items()) if k != "turn") or "-"
        spent = ", ".join(_spent(w, rs, state, f)) or "-"
        facts = "; ".join(short(w.mark(f.id, k, v)) for k, v in sorted(f.marks.items()))
        rows.append(
            (
                mark[f.id],
                f.id,
                f.side,
                f"{f.pos[0]},{f.pos[1]}",
                fmt(f.pos[2]),
                states,
                spent,
                str(f.damage),
                facts or "-",
            )
        )
    links = ", ".join(f"{a} {k} {b}" for k, a, b in state.links)
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    table = "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows)
    return f"{head}\n{table}" + (f"\nlinks: {links}" if links else "") + f"\nunits: {rs.unit}"


def _spent(w: Words, rs: Ruleset, state: EncounterState, f: Fighter) -> list[str]:
    """`movement 2 m of 8 m`, `2 AP`: what a fighter spent as its document counts it, and of what."""
    out = []
    for k, v in sorted(rs.spent_counted(state, f).items()):
        if v or f.used(k):
            allowed = rs.allowed(state, f, k)
            out.append(spent_text(w, k, v) + (f" of {w.measure(k, allowed)}" if allowed is not None else ""))
    return out


def spent_text(w: Words, resource: str, value: int) -> str:
    """`movement 5 m`, `forced 1 m`, `actions 1`, `2 AP`: the budget's name, then the amount."""
    if resource in BUDGET_NAMES:  # its unit names it: `2 AP`
        return w.measure(resource, value)
    if resource in w.centi:
        return f"{resource} {fmt(value)} {w.unit}"
    return f"{resource} {value}"


def short(text: str, width: int = 48) -> str:
    """A text cut to fit a table's column, marked with `...` where it was cut."""
    return text if len(text) <= width else text[: width - 3] + "..."


class Words:
    """The table's words for one ruleset: lengths in its unit, budgets by name, plurals right.

    The one presentation layer: the CLI's text, the explain cards and the browser's
    "What happens" all say a fact through it, so `1.5 m`, `3 AP` and `1 action`
    read the same everywhere and no centi-unit or Python repr reaches a person.
    """

    def __init__(
        self,
        rs: Ruleset | None = None,
        unit: str = "units",
        centi: tuple[str, ...] = ("movement", "maneuver"),
    ) -> None:
        """From a ruleset, or from a unit and the centi-counted budgets (an audit answer names both)."""
        self.rs = rs
        self.unit = rs.unit if rs is not None else unit
        self.centi = set(rs.centi_resources if rs is not None else centi)

    @classmethod
    def of(cls, ruleset_id: str | None) -> Words:
        return cls(get_ruleset(ruleset_id) if ruleset_id else None)

    def length(self, cu: int) -> str:
        """`1.5 m`: a length held in centi-units, in the ruleset's unit."""
        return f"{fmt(cu)} {self.unit}"

    def measure(self, resource: str, value: int) -> str:
        """`1.5 m`, `3 AP`, `1 action`: an amount of a budget in the budget's own unit."""
        if resource in self.centi:
            return f"{fmt(value)} {unit_of(resource, self.unit)}"
        one, many = COUNTED.get(resource, (resource.removesuffix("s"), resource))
        return plural(value, one, many)

    def amount(self, resource: str, value: int) -> str:
        """`2 m of forced movement`, `3 AP`, `1 action`: a budget amount as the table counts it."""
        if resource in self.centi and resource not in UNIT_RESOURCES and resource != "movement":
            return f"{self.measure(resource, value)} of {RESOURCE_LENGTHS.get(resource, resource)}"
        return self.measure(resource, value)

    def progress(self, resource: str, used: int, budget: int) -> str:
        """`1 m of 2 m of forced movement`, `2 AP of 12 AP`: how much of a move's budget it used."""
        return f"{self.measure(resource, used)} of {self.amount(resource, budget)}"

    def cell(self, pos: tuple[int, ...] | list[int]) -> str:
        """`3,4`, or `3,4 at height 1.5 m` off the ground."""
        text = f"{pos[0]},{pos[1]}"
        return text + (f" at height {self.length(pos[2])}" if len(pos) > 2 and pos[2] else "")

    def value(self, value: Any, key: str = "") -> str:
        """Any recorded value in words: cells as x,y, lists joined, dicts as `name value` pairs, no reprs."""
        if value is None:
            return "none"
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, int) and key in CENTI_KEYS:
            return self.length(value)
        if isinstance(value, int | float):
            return fmt_number(value)  # 0, 1.5: as a GM writes it, never 0.0
        if isinstance(value, str):
            return value
        if isinstance(value, dict):
            resource = value.get("resource")  # a ruling's amount or cost is in its budget's unit

            def said(k: str, v: Any) -> str:
                if k in ("amount", "cost") and isinstance(resource, str) and isinstance(v, int):
                    return self.measure(resource, v)
                return self.value(v, k)

            return ", ".join(
                f"{k.replace('_', ' ')} {said(k, v)}" for k, v in value.items() if v not in ("", None, [])
            )
        items = list(value)
        if 2 <= len(items) <= 3 and all(isinstance(v, int) and not isinstance(v, bool) for v in items):
            return self.cell(items)
        return ", ".join(self.value(v, key) for v in items) if items else "none"

    def mark(self, fighter: str, key: str, value: Any) -> str:
        """A ruleset fact on a fighter, by its kind's template (a held action, momentum, a fall...)."""
        template = MARKS.get(key)
        if template is not None:
            try:
                return template(self, fighter, value)
            except (KeyError, TypeError, ValueError, IndexError):
                pass  # a value of another shape: said generically below
        return f"{fighter}: {key.replace('-', ' ')} {self.value(value, key)}"

    def board_mark(self, key: str, value: Any) -> str:
        if value is None:
            return f"{BOARD_MARK_NAMES.get(key, key.replace('-', ' '))} is over"
        template = BOARD_MARKS.get(key)
        if template is not None:
            try:
                return template(self, value)
            except (KeyError, TypeError, ValueError, IndexError):
                pass
        return f"{BOARD_MARK_NAMES.get(key, key.replace('-', ' '))}: {self.value(value, key)}"

    def event(self, event: Event) -> str:
        """One line a person can read for an event. The last few said are kept (the event itself
        held beside its words, so an id is never mistaken): an explanation says each event of its
        batch twice, in its own line and in the batch's listing."""
        said: dict[int, tuple[Event, str]] = self.__dict__.setdefault("_said", {})
        kept = said.get(id(event))
        if kept is not None and kept[0] is event:
            return kept[1]
        # and events said before by value (their JSON, which names their type): a long fight says
        # "a spends 1 action" and the same walk over and over
        alike: dict[bytes, str] = self.__dict__.setdefault("_alike", {})
        key = msgspec.json.encode(event)
        text = alike.get(key)
        if text is None:
            text = _describe(self, event)
            if len(alike) >= 512:
                alike.clear()
            alike[key] = text
        if len(said) >= 64:  # bounded: a Words lives as long as a bundle of any length is made
            said.clear()
        said[id(event)] = (event, text)
        return text


COUNTED = {"ap": ("AP", "AP")}  # counted budgets whose noun is not their name (round-meters counts AP whole)
BUDGET_NAMES = {"ap": "AP"}  # a budget named in a sentence ("ari's movement and AP start over")
RESOURCE_LENGTHS = {"forced": "forced movement", "grapple": "grapple movement", "glide": "gliding"}
# Moves whose budget is the distance a force or a grapple meant to carry the fighter, not what it had left.
FORCED_RESOURCES = frozenset({"forced", "grapple"})
CENTI_KEYS = {"meters", "fallen", "height", "distance", "cost", "budget", "drop"}  # held in centi-units


def _who_target(v: dict[str, Any], at: str = "at") -> str:
    return f" {at} {v['target']}" if v.get("target") else ""


def _held(w: Words, fid: str, v: dict[str, Any]) -> str:
    trigger = v.get("text") or w.value(v.get("trigger"))
    ap = f", {plural(v['ap'], 'AP', 'AP')} set aside" if v.get("ap") else ""
    return f"{fid} holds {v['action']}{_who_target(v)} until {trigger}{ap}"


def _action(w: Words, fid: str, v: dict[str, Any]) -> str:
    ap = f" for {plural(v['ap'], 'AP', 'AP')}" if v.get("ap") else ""
    held = ", a held action going off" if v.get("held") else ""
    return f"{fid}'s action this round: {v['kind']}{_who_target(v)}{ap}{held}"


def _rotation(w: Words, fid: str, v: dict[str, Any]) -> str:
    turn = {"cw": "clockwise", "ccw": "counter-clockwise"}.get(v["direction"], v["direction"])
    if not v.get("back"):  # waiting to enter its first square: no tile travelled from yet
        return f"{fid} is rotating {turn} about {w.cell(v['pivot'])}, waiting at {w.cell(v['at'])}"
    return (
        f"{fid} has rotated {turn} about {w.cell(v['pivot'])} to {w.cell(v['at'])}: "
        f"it may not turn back to {w.cell(v['back'])} until it does something else"
    )


def _trajectory(w: Words, fid: str, v: dict[str, Any]) -> str:
    return f"{fid} drifts {v['dir']} at {plural(v['speed'], w.unit, w.unit)} per turn"


MARKS: dict[str, Callable[[Words, str, Any], str]] = {
    "held": _held,
    "action": _action,
    "trajectory": _trajectory,
    "rotation": _rotation,
    "delayed": lambda w, fid, v: (
        f"{fid} delays until after {v['after']}"
        if v["after"]
        else f"{fid} delays to the end of pass {v['pass']}"
    ),
    "diagonals": lambda w, fid, v: (  # core/engine/movement.DIAGONALS: the alternating count carried over
        f"{fid}'s next diagonal step counts {'double' if int(v) % 2 else 'once'} (alternating diagonals)"
    ),
    "invading": lambda w, fid, v: f"{fid} tries to enter {w.cell(v['cell'])}, held by {v['occupant']}",
    "blocked": lambda w, fid, v: f"{fid} may not try to enter {w.value(v)} again this cycle",
    "sprint-penalty": lambda w, fid, v: (
        f"{fid} has sprinted {plural(v['sprints'], 'time')}: {v['penalty']:+} to other tests, "
        f"{w.length(v['meters'])} sprinted"
    ),
    "fallen": lambda w, fid, v: f"{fid} has fallen {w.length(int(v))} so far",
    "breath": lambda w, fid, v: f"{fid} can hold breath {plural(v, 'more turn')}",
    "escape": lambda w, fid, v: f"{fid}'s escape check is {v}",
    "dragging": lambda w, fid, v: f"{fid} drags {v}",
    "striking": lambda w, fid, v: f"{fid} is striking at {v}",
    "glide": lambda w, fid, v: f"{fid} glides towards {_heading(v)}",
    "trauma": lambda w, fid, v: f"{fid} has {plural(v, 'trauma', 'trauma')}",
    "dead": lambda w, fid, v: f"{fid} is dead" if v else f"{fid} is alive",
    "slip_checked": lambda w, fid, v: f"{fid} has had this move action's slippery check",
    "given": lambda w, fid, v: (
        f"{fid}'s next Movement has "
        + ", ".join(f"{w.measure(r, abs(n))} {'more' if n > 0 else 'less'} {r}" for r, n in v.items())
    ),
    "skill_feat": lambda w, fid, v: f"{fid} braces for a fall with a Skill Feat of {plural(v, 'Bump')}",
    "fall_time": lambda w, fid, v: f"a fall takes {v}/4 of {fid}'s next turn",
}

BOARD_MARK_NAMES = {"area-effect": "the area effect", "zero-g": "zero gravity"}


def _area(w: Words, v: dict[str, Any]) -> str:
    caught = ", ".join(v.get("caught", ())) or "nobody"
    return (
        f"an area effect of {v['damage']} damage over {plural(len(v['cells']), 'square')} "
        f"({_span(v['cells'])}); caught: {caught}"
    )


def _cell_rulings(kind: str) -> Callable[[Words, Any], str]:
    def say(w: Words, v: list[list[Any]]) -> str:
        cells = ", ".join(f"{c[0]},{c[1]}" for c in v)
        return f"GM rulings: {kind} at {cells}" if v else f"GM rulings: no {kind} cells"

    return say


BOARD_MARKS: dict[str, Callable[[Words, Any], str]] = {
    "area-effect": _area,
    "zero-g": lambda w, v: f"zero gravity over {plural(len(v), 'square')} ({_span(v)})",
    "ruling:test": _cell_rulings("a test to cross"),
    "ruling:forbid": _cell_rulings("no crossing"),
}


def _span(cells: list[list[int]]) -> str:
    """`1,1-10,6`: the corners of the box around some cells."""
    xs, ys = [c[0] for c in cells], [c[1] for c in cells]
    return f"{min(xs)},{min(ys)}-{max(xs)},{max(ys)}"


def _heading(v: Any) -> str:
    dx, dy = (int(n) for n in v)
    return {(0, -1): "n", (0, 1): "s", (1, 0): "e", (-1, 0): "w", (1, -1): "ne", (-1, -1): "nw"}.get(
        (dx, dy), {(1, 1): "se", (-1, 1): "sw"}.get((dx, dy), f"{dx},{dy}")
    )


LINKS = {
    "engaged": ("{a} and {b} are engaged", "{a} and {b} are no longer engaged"),
    "grab": ("{a} grabs {b}", "{a} lets go of {b}"),
}


def _describe(w: Words, event: Event) -> str:
    name = str(type(event).__struct_config__.tag)
    if isinstance(event, Spent):
        if event.amount < 0 and event.resource == "movement":  # a grant: a Sprint's, the GM's
            return f"{event.fighter} gains {w.amount(event.resource, -event.amount)} of Movement"
        verb = "spends" if event.amount >= 0 else "gets back"
        return f"{event.fighter} {verb} {w.amount(event.resource, abs(event.amount))}"
    if isinstance(event, Refreshed):
        # What a player spends starts over; what the turn only tallies (how far a force, a grapple
        # or a glide carried it) is said apart, in words, not by its resource's name.
        names = [BUDGET_NAMES.get(r, r) for r in event.resources if r not in RESOURCE_LENGTHS]
        tallies = [RESOURCE_LENGTHS[r] for r in event.resources if r in RESOURCE_LENGTHS]
        parts = [f"{_and(names)} {'starts' if len(names) == 1 else 'start'} over"] if names else []
        if tallies:
            parts.append(f"{_and(tallies)} {'is' if len(tallies) == 1 else 'are'} counted afresh")
        return f"{event.fighter}'s " + ("; its ".join(parts) or "budgets start over")
    if isinstance(event, StateChanged):
        graph = GRAPHS.get(event.machine)
        said = graph.says.get(event.trigger) if graph is not None else None
        if said:
            return said.format(f=event.fighter)
        trigger, source, dest = (x.replace("_", " ") for x in (event.trigger, event.source, event.dest))
        return f"{event.fighter}'s {event.machine}: {source} -> {dest} ({trigger})"
    if isinstance(event, ev.DoorChanged):
        who = event.fighter or "the GM"
        verb = DOOR_WORDS.get(event.trigger, event.trigger)
        a, b = event.door.split("|")
        return f"{who} {verb} the door between {a} and {b}"  # the verb says the change; show draws the door
    if isinstance(event, CheckRolled):
        if event.source == "seeded" and not event.dice:  # a dry run that keeps the draw unrevealed
            return f"{event.fighter} {event.check}: a seeded roll, not revealed"
        mod = f"{event.modifier:+d}" if event.modifier else ""
        against = f" vs {event.target}" if event.target is not None else ""
        result = "" if event.passed is None else (": passed" if event.passed else ": failed")
        return f"{event.fighter} {event.check}: rolled {event.number}{mod}{against}{result} ({event.source})"
    if isinstance(event, CommandIssued):
        return f"command: {event.text or type(event.command).__struct_config__.tag}"
    if isinstance(event, Moved):
        return _moved(w, event)
    if isinstance(event, ev.Placed):
        how = f" ({event.how})" if event.how else ""
        return f"{event.fighter} is put at {w.cell(event.to)}{how}"
    if isinstance(event, ev.Linked | ev.Unlinked):
        kind = event.kind.replace("-", " ")
        made, ended = LINKS.get(event.kind, (f"{{a}} and {{b}}: {kind}", f"{{a}} and {{b}}: no more {kind}"))
        return (made if isinstance(event, ev.Linked) else ended).format(a=event.a, b=event.b)
    if isinstance(event, ev.Damaged):
        cause = f" ({event.cause})" if event.cause else ""
        return f"{event.fighter} takes {event.amount} damage{cause}"
    if isinstance(event, ev.Marked):
        return w.mark(event.fighter, event.key, event.value)
    if isinstance(event, ev.Unmarked):
        return f"{event.fighter}: {UNMARKED.get(event.key, 'no more ' + event.key.replace('-', ' '))}"
    if isinstance(event, ev.BoardMarked):
        return w.board_mark(event.key, event.value)
    if isinstance(event, ev.TurnStarted):
        pass_no = f", pass {event.pass_no}" if event.pass_no > 1 else ""
        return f"round {event.round}{pass_no}: {event.fighter}'s turn starts"
    if isinstance(event, ev.TurnEnded):
        return f"{event.fighter}'s turn ends"
    if isinstance(event, ev.RoundStarted):
        return f"round {event.round} starts"
    if isinstance(event, ev.PassStarted):
        return f"pass {event.pass_no} starts"
    if isinstance(event, ev.OrderChanged):
        return f"the order is now {', '.join(event.order)}; {event.order[event.index]} to act"
    if isinstance(event, ev.SettingChanged):
        return f"setting {event.key} is now {w.value(event.value)}"
    if isinstance(event, ev.RulingMade):
        detail = f" ({w.value(event.detail)})" if event.detail not in (None, {}, []) else ""
        return f"GM ruling by {event.by}, {event.kind.replace('-', ' ')}{detail}: {event.why}"
    if isinstance(event, ev.FighterJoined):
        return f"{event.name} ({event.side}) joins the fight at {w.cell(event.pos)}"
    if isinstance(event, ev.FighterLeft):
        return f"{event.fighter} leaves the fight"
    if isinstance(event, ev.Undone | ev.Redone):
        what = "undone" if isinstance(event, ev.Undone) else "redone"
        why = f": {event.why}" if event.why else ""
        return f"batch {event.batch} {what} by {event.by}{why}"
    if isinstance(event, ev.Abandoned):
        batches = ", ".join(map(str, event.batches))
        noun = "batch" if len(event.batches) == 1 else "batches"
        return f"undone {noun} {batches} abandoned: a new command came first"
    if isinstance(event, ev.EncounterStarted):
        return f"encounter started: {event.scenario.name} ({event.scenario.ruleset})"
    fields = {k: getattr(event, k) for k in event.__struct_fields__ if k not in ("rules", "note")}
    body = ", ".join(f"{k} {w.value(v, k)}" for k, v in fields.items() if v not in ("", (), None))
    return f"{name.replace('-', ' ')}: {body}" if body else name.replace("-", " ")


UNMARKED = {
    "held": "the held action is gone",
    "action": "the round's action is over",
    "trajectory": "no more drift",
    "delayed": "no longer delaying",
    "invading": "no longer entering another's square",
    "blocked": "may try blocked squares again",
    "sprint-penalty": "the sprint penalty is over",
    "rotation": "the rotation is over",
    "fallen": "the fall is over",
    "breath": "breathing again",
    "dragging": "no longer dragging",
    "striking": "no longer striking",
    "glide": "no longer gliding",
}


def _and(items: list[str]) -> str:
    if len(items) < 2:
        return items[0] if items else "nothing"
    return ", ".join(items[:-1]) + " and " + items[-1]


def _moved(w: Words, event: Moved) -> str:
    """`ari moved 2,1 (1 m), 3,1 (1 m): 2 m of 6 m`, and why it stopped; costs in the budget's unit."""
    used = w.progress(event.resource, length_of(event.steps), event.budget)  # exact, rounded once
    stop = f"; stopped: {event.stopped}" if event.stopped else ""
    if not event.steps:  # a forced move stopped before its first step: what it meant, what stopped it
        return f"{event.fighter} did not move: {used}{stop}"
    path = ", ".join(_step(w, event.resource, s) for s in event.steps)
    return f"{event.fighter} moved {path}: {used}{stop}"


def _step(w: Words, resource: str, s: Step) -> str:
    extra = f", {s.terrain}" if s.terrain not in ("", "floor") else ""
    return f"{w.cell(s.to)} ({w.measure(resource, s.cost)}{extra})"


def describe(event: Event, rs: Ruleset | None = None) -> str:
    """One line a person can read for an event (budgets in the ruleset's words when it is given)."""
    return Words(rs).event(event)


def explain(event: Event, rs: Ruleset | None = None) -> dict[str, Any]:
    """An event for a page or a card: its line, its reason in words and the rules it cites.

    The browser's "What happens" and the explain cards use this, so they say what
    the CLI says.
    """
    return {"text": Words(rs).event(event), "why": event.note, "rules": list(event.rules)}


def event_line(event: Event, rs: Ruleset | None = None, words: Words | None = None) -> str:
    """`what happened  [rule ids]  — why`: the event, its rules and its reason on one line."""
    rules = f"  [{', '.join(event.rules)}]" if event.rules else ""
    note = f"  — {event.note}" if event.note else ""
    return f"{(words or Words(rs)).event(event)}{rules}{note}"


def done_lines(records: list[Record], ruleset_id: str) -> str:
    """What `do` prints: every event it appended, with its rules and why, in the ruleset's words."""
    rs = get_ruleset(ruleset_id)
    return "\n".join(f"{r.seq:>5} {event_line(r.event, rs)}" for r in records)


JSON_SCHEMA = 1  # the shape of every --json output; raised when a key changes meaning


def json_doc(kind: str, data: Any, ruleset_id: str | None = None, *, sort_keys: bool = False) -> str:
    """Every `--json` output: one JSON document, `{"schema", "kind", "units", "data"}`.

    Lengths, costs, heights and budgets stay exact integers of centi-units: `units`
    says so once (`{"length": "m", "scale": 100}`: 150 is 1.5 m). Counted budgets
    (actions) are plain counts; `units.centi` lists the budgets held in centi-units.
    """
    doc: dict[str, Any] = {"schema": JSON_SCHEMA, "kind": kind}
    if ruleset_id:
        rs = get_ruleset(ruleset_id)
        doc["units"] = {"length": rs.unit, "scale": CU, "centi": sorted(rs.centi_resources)}
    doc["data"] = data
    import json  # only --json outputs need it

    return json.dumps(doc, indent=2, sort_keys=sort_keys)


def records_data(
    records: Sequence[Record],
    rs: Ruleset,
    abandoned: AbstractSet[int] = frozenset(),
    undone: AbstractSet[int] = frozenset(),
) -> list[dict[str, Any]]:
    """Records for --json: the event exactly as logged, and the line `log` prints of it in words."""

    return [
        {
            "seq": r.seq,
            "batch": r.batch,
            "actor": r.actor,
            "at": r.at,
            "status": "abandoned" if r.batch in abandoned else "undone" if r.batch in undone else "in force",
            "text": Words(rs).event(r.event),
            "event": to_builtins(r.event),
        }
        for r in records
    ]


def log_lines(
    records: Sequence[Record],
    abandoned: AbstractSet[int],
    undone: AbstractSet[int],
    rs: Ruleset | None = None,
) -> str:
    out = []
    for r in records:
        flag = " (abandoned)" if r.batch in abandoned else " (undone)" if r.batch in undone else ""
        out.append(f"{r.seq:>5} b{r.batch:<4} {r.actor:<6} {event_line(r.event, rs)}{flag}")
    return "\n".join(out)


# Each rule document by its own title (its first heading) and its number, for `rules`. The rulesets
# name their document by its file (Ruleset.document); a ruleset may carry `document_title` itself.
DOCUMENT_TITLES = {
    "000_764c39d2887f9ddf.txt": "Move",
    "001_f4ae7af380350405.txt": "Movement",
    "002_0a50226be3a32e43.txt": "Movement in Ground Combat",
    "004_1955ec219bb4ca54.txt": "Movement",
}


def document_title(rs: Ruleset) -> str:
    """'document 004, "Movement"': a rule document as a reader knows it, never by its file name."""
    title = getattr(rs, "document_title", "") or DOCUMENT_TITLES.get(rs.document, "")
    number = rs.document.split("_", 1)[0]
    return f'document {number}, "{title}"' if title else f"document {number}"
